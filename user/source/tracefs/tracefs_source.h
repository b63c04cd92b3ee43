/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracefs source's state, shared by its parts (libtracefs and
 * libtraceevent on the other side of each):
 *   tracefs_source.c    the struct trace_source ops: the order of the work
 *   tracefs_instance.c  the private instances: create, destroy, stale ones
 *   tracefs_enable.c    which events exist, which are enabled, their filters,
 *                       and the DMA-API kprobe events
 *   tracefs_decode.c    raw events into uapi records (tracefs_decoder.h)
 *   tracefs_read.c      reading the ring buffers, and what they dropped
 *   tracefs_vectors.c   the targets' vectors while recording (plain C)
 *   tgid_cache.c        thread -> process, for KVM injections (plain C)
 */
#ifndef GPUPROBE_TRACEFS_SOURCE_H
#define GPUPROBE_TRACEFS_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "irqpair.h"
#include "source.h"
#include "tracefs_decoder.h"
#include "tracefs_events.h"
#include "tracefs_kprobe.h"
#include "tracefs_vectors.h"
#include "tgid_cache.h"

struct tep_event;
struct tep_format_field;
struct tep_handle;
struct tep_record;
struct tracefs_dynevent;
struct tracefs_instance;

#define NSPECS			TRACEFS_NSPECS

struct bound_event {
	const struct event_spec *spec;
	struct tep_event *event;
	struct tep_format_field *field[F_COUNT];
	bool enabled;
};

struct tracefs_cpu;
struct kbuffer;

struct instance_handle {
	struct tracefs_instance *instance;
	char name[48];
	struct tracefs_cpu **cpu;	/* per-CPU readers, opened once (tracefs_read.c) */
};

/* Fields of the kprobe events of tracefs_kprobe.c, by the names given there. */
enum kprobe_field { KP_DEVNAME, KP_SIZE, KP_DIR, KP_ADDR, KP_NENTS, KP_SP, KP_RET, KP_COUNT };

struct kprobe_event {
	const struct dma_kprobe_def *def;
	bool is_return;
	struct tracefs_dynevent *dyn;
	struct tep_event *event;
	struct tep_format_field *field[KP_COUNT];
};

/* DMA-API kprobe events of this run, when the kernel has no dma: events. */
struct dma_kprobes {
	char group[32];
	unsigned int nev;
	struct kprobe_event ev[2 * DMA_KPROBE_COUNT];
	struct dma_call_pairer pairer;
};

/*
 * An event type's id and what decodes it (a bound event, a kprobe event, or
 * nothing), found once: a page's events then need no lookup by id and no
 * search of the tables (tracefs_decode_record()).  Direct-mapped by id.
 */
#define DISPATCH_SLOTS	64

struct dispatch_slot {
	int id;				/* -1: empty */
	struct bound_event *be;
	struct kprobe_event *ke;
};

/*
 * Two instances: "gpuprobe-PID" for device events, which must see every
 * task, and "gpuprobe-PID-sched" whose set_event_pid + event-fork follow
 * the workload and every thread and child it creates.
 */
/*
 * --cgroup: the pids given to set_event_pid so far (tracefs_cgroup.c);
 * -- CMD: the pids set_event_pid had at its last read (tracefs_instance.c)
 */
struct cgroup_pids {
	pid_t *pid;
	size_t n, cap;
	uint64_t last_ns;	/* the last read of the cgroup */
	bool tracing;		/* started: the first pid switches sched on */
};

struct tracefs_source {
	const struct source_config *cfg;
	struct cgroup_pids cg;
	struct cgroup_pids follow;	/* -- CMD's, in the kernel's pids */
	bool follow_on;			/* wake-ups of others dropped */
	struct instance_handle main;
	struct instance_handle sched;
	struct tep_handle *tep;
	struct bound_event events[NSPECS];
	struct dispatch_slot dispatch[DISPATCH_SLOTS];
	struct irq_pairer pairer;
	struct vector_tracker vectors;	/* its set is the pairer's targets */
	struct dma_kprobes *kp;		/* NULL: dma: tracepoints or no DMA */
	struct tgid_cache tgids;	/* KVM injections name the VMM */
	/*
	 * In a pid namespace of its own (tracefs_pidns.c): the kernel's pids
	 * of this process (which names the instances) and of the workload
	 * (set_event_pid's); outside one, getpid() and the workload's pid.
	 */
	bool own_pidns;
	pid_t kpid_self, kpid_workload;
	uint64_t kvm_outside_handler;	/* in-handler KVM steps of other irqs: dropped */
	/*
	 * In a pid namespace of its own: the workload's records dropped for a
	 * thread whose kernel tid is not mapped (only the main thread's is):
	 * said at close
	 */
	uint64_t unmapped_dropped;
	const struct record_sink *sink;
	struct source_counters counters;
	uint64_t lost_inband;
	int sink_error;
	unsigned int ncpus;
	struct kbuffer *kbuf;		/* parses the pages the readers return */
	void *page;			/* one sub-buffer page */
	int page_size;
};

/* tracefs_instance.c */
void tracefs_remove_stale_instances(void);
int tracefs_create_main_instance(struct tracefs_source *ts, char *err, size_t errlen);
void tracefs_create_sched_instance(struct tracefs_source *ts);
void tracefs_destroy_instance(struct instance_handle *h);
int tracefs_instances_on(struct tracefs_source *ts, char *err, size_t errlen);
int tracefs_instances_off(struct tracefs_source *ts);
void tracefs_follow_workload(struct tracefs_source *ts, pid_t kpid);
bool tracefs_workload_wakee(struct tracefs_source *ts, uint32_t ktid);

/* tracefs_pidns.c */
/* the scratch instances of tracefs_pidns.c: "gpuprobe-<pid>-pidns-<nonce>" */
#define TRACEFS_PIDNS_PREFIX	"gpuprobe-"
bool tracefs_own_pidns(void);
int tracefs_kernel_pids(pid_t workload, bool workload_unstarted, pid_t *self, pid_t *kworkload,
			char *err, size_t errlen);
/* a kernel pid as this pid namespace sees it: the workload's and this process's; others unchanged */
uint32_t tracefs_local_pid(const struct tracefs_source *ts, uint32_t kpid);

/* tracefs_cgroup.c */
bool tracefs_pids_known(const struct cgroup_pids *c, pid_t pid);
int tracefs_pids_add(struct cgroup_pids *c, pid_t pid);
int tracefs_cgroup_refresh(struct tracefs_source *ts, bool force);
int tracefs_cgroup_add_workload(struct tracefs_source *ts);
bool tracefs_cgroup_wakee(struct tracefs_source *ts, uint32_t tid);
bool tracefs_cgroup_knows(const struct tracefs_source *ts, pid_t pid);
void tracefs_cgroup_free(struct tracefs_source *ts);

/* tracefs_enable.c */
void tracefs_enable_events(struct tracefs_source *ts);
void tracefs_update_irq_filter(struct tracefs_source *ts);
void tracefs_create_dma_kprobes(struct tracefs_source *ts);
void tracefs_bind_dma_kprobes(struct tracefs_source *ts);
void tracefs_enable_dma_kprobes(struct tracefs_source *ts);
void tracefs_destroy_dma_kprobes(struct tracefs_source *ts);
extern const char *const kprobe_field_names[KP_COUNT];

/* tracefs_decode.c */
void tracefs_bind_events(struct tracefs_source *ts);
void tracefs_put(struct tracefs_source *ts, const struct gpuprobe_rec_hdr *rec);
void tracefs_decode_record(struct tracefs_source *ts, struct tep_record *r, int cpu);

/* tracefs_read.c */
int tracefs_read_buffers(struct tracefs_source *ts, const struct record_sink *sink);
int tracefs_read_after(struct tracefs_source *ts, int timeout_ms, const struct record_sink *sink);
int tracefs_read_until_empty(struct tracefs_source *ts, const struct record_sink *sink);
void tracefs_note_missed(struct tracefs_source *ts, const struct tep_record *r, uint16_t cpu);
void tracefs_close_readers(struct tracefs_source *ts);
int tracefs_put_unreported_drops(struct tracefs_source *ts, const struct record_sink *sink);

#endif /* GPUPROBE_TRACEFS_SOURCE_H */
