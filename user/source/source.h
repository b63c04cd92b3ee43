/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace sources: the gpuprobe module (module/netlink.c, libnl-genl) and tracefs
 * (tracefs/tracefs_*.c, libtracefs).  Both deliver uapi records to a sink; record.c
 * drives either through struct trace_source.
 */
#ifndef GPUPROBE_SOURCE_H
#define GPUPROBE_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <linux/gpuprobe.h>

#include "target.h"

struct record_sink {
	int (*put)(void *ctx, const struct gpuprobe_rec_hdr *rec);
	void *ctx;
};

static inline int sink_put(const struct record_sink *sink,
			   const struct gpuprobe_rec_hdr *rec)
{
	return sink->put(sink->ctx, rec);
}

struct source_config {
	const struct target_set *targets;
	pid_t workload_pid;		/* 0: no workload, no sched events */
	/*
	 * workload_pid is this process's child, waiting for its go byte
	 * (record -- CMD): it may be sent a probe signal (tracefs_pidns.c);
	 * false for an already-running process (serve --pid)
	 */
	bool workload_unstarted;
	uint64_t cgroup_id;		/* record --cgroup: cgroup v2 id followed; 0 none */
	const char *cgroup_dir;		/* and its directory (the tracefs source reads its pids) */
	uint32_t event_mask;		/* GPUPROBE_EVMASK() bits */
	const struct record_sink *sink;	/* for records that arrive before poll */
	const char *sysfs_root;		/* NULL: /sys (tests give a tree of their own) */
	/*
	 * The VMM's VM entries, exits and EOIs too (the tracefs source): the
	 * crossing's host path, for record --guest; many events on a busy host
	 */
	bool kvm_vcpu_steps;
	/* the xentrace source (record --source xentrace) */
	const char *xentrace_input;	/* convert this file instead of running xentrace */
	const char *xentrace_file;	/* where xentrace writes (kept); NULL: a temporary file */
};

struct source_counters {
	uint64_t events;		/* records delivered */
	uint64_t lost;			/* records the kernel dropped */
	/* the module source's delivery, from STATS at the end (0: not known) */
	bool have_delivery;
	uint64_t ring_dropped;		/* records the per-CPU rings had no room for */
	uint64_t no_ring;		/* of them, on CPUs that had no ring */
	uint64_t undelivered;		/* records in messages no listener took */
	uint64_t overrun;		/* of them, refused by the listener's full socket */
	uint64_t socket_overflows;	/* ENOBUFS the listener read */
	uint64_t high_water;		/* most records one ring held */
	uint32_t high_water_cpu;
	uint32_t slots;			/* a ring's size */
	uint64_t wait_max_ns;		/* longest a record waited for the drain */
	int rcvbuf;			/* the event socket's receive buffer, bytes */
};

struct trace_source {
	const char *name;
	uint32_t file_source;		/* enum tracefile_source */
	void *(*open)(const struct source_config *cfg, char *err, size_t errlen);
	int (*start)(void *src, char *err, size_t errlen);
	/* Deliver what is ready, waiting at most timeout_ms for it. */
	int (*poll)(void *src, int timeout_ms, const struct record_sink *sink);
	int (*stop)(void *src);
	/* After stop: deliver everything still buffered. */
	int (*drain)(void *src, const struct record_sink *sink);
	void (*close)(void *src);
	void (*counters)(void *src, struct source_counters *out);
};

extern const struct trace_source tracefs_source;
extern const struct trace_source xentrace_source;

/* The event mask the xentrace source gives xentrace -e: HVM handlers and hardware irqs. */
#define XENTRACE_SOURCE_MASK	0x00882000u

/* ---- lost.c: LOST records, for both sources ---- */

/*
 * A LOST record now (CLOCK_MONOTONIC) saying count records were dropped on
 * cpu; count_unknown when only the fact of a loss is known.
 */
int put_lost_record(const struct record_sink *sink, uint16_t cpu, uint64_t count,
		    bool count_unknown);

/*
 * The kernel's drop counters say dropped, LOST records in the stream said
 * inband: the difference, if any, as one LOST record, added to counters.
 */
int put_unreported_drops(const struct record_sink *sink, uint64_t dropped, uint64_t inband,
			 struct source_counters *counters);
extern const struct trace_source module_source;

/* ---- module/netlink.c: the module over generic netlink ---- */

#define MODULE_MAX_HOOKS	32

struct module_hook {
	char name[48];
	bool attached;
	char reason[128];
};

struct module_info {
	char version[64];
	char kernel_release[72];
	uint32_t clock_id;
	uint64_t caps;
	uint32_t record_version;
	unsigned int nhooks;
	struct module_hook hooks[MODULE_MAX_HOOKS];
};

/* 1: family "gpuprobe" registered, 0: absent, -1: netlink unusable (err). */
int module_family_present(char *err, size_t errlen);
int module_get_info(struct module_info *info, char *err, size_t errlen);
/*
 * May this process send control ops (CAP_NET_ADMIN of the host)?  1 yes,
 * 0 EPERM (why in err, from module_explain_eperm), -1 not known (err).
 * Asks with a request the module refuses either way, changing nothing.
 */
int module_control_permitted(char *err, size_t errlen);
/* May it join the events group?  1 yes, 0 refused (why in err), -1 not known. */
int module_events_permitted(char *err, size_t errlen);
/*
 * May its START ask for DMA and IOMMU records (CAP_SYS_ADMIN or CAP_PERFMON
 * in the host's user namespace)?  The capability it holds, or NULL (why in err).
 */
const char *module_address_records_cap(char *err, size_t errlen);
void module_explain_eperm(char *buf, size_t size);
bool module_own_user_namespace(void);

/* What is missing when tracefs is not mounted, and what to do (info, record). */
#define TRACEFS_NOT_MOUNTED \
	"tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing; in a container, " \
	"mount the host's in: a hostPath volume of /sys/kernel/tracing in Kubernetes, " \
	"docker run -v /sys/kernel/tracing:/sys/kernel/tracing)"

/* ---- tracefs/tracefs_enable.c: what tracefs offers ---- */

#define TRACEFS_EVENT_COUNT	32

struct tracefs_event_state {
	const char *system;
	const char *name;
	bool present;
};

struct tracefs_state {
	bool mounted;
	bool readable;			/* events/ readable by this user */
	char dir[256];
	unsigned int nevents;
	struct tracefs_event_state events[TRACEFS_EVENT_COUNT];
};

int tracefs_probe_state(struct tracefs_state *state);

#endif /* GPUPROBE_SOURCE_H */
