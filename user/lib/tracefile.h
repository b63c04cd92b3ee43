/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpuprobe trace file: a versioned header (host, kernel, clock, source,
 * targets and their vectors) followed by records laid out exactly as the
 * uapi struct gpuprobe_rec_*.  Documentation/trace-format.md describes it.
 */
#ifndef GPUPROBE_TRACEFILE_H
#define GPUPROBE_TRACEFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/gpuprobe.h>

#include "appevents.h"
#include "target.h"

#define TRACEFILE_MAGIC		"GPUPROBE"
#define TRACEFILE_VERSION	3	/* the newest: records in checksummed chunks */
#define TRACEFILE_VERSION_UNCHECKED 2	/* records in chunks without checksums */
#define TRACEFILE_VERSION_RAW	1	/* records as they are */
/* trace_writer_compress() levels: version 3's compact chunks without zstd ... */
#define TRACEFILE_COMPACT	(-1)
/* ... and with it (record --zstd): a third smaller, decoding costs more CPU */
#define TRACEFILE_ZSTD_LEVEL	3
#define TRACEFILE_MAX_HEADER	(1u << 24)
#define TRACEFILE_MAX_CPUS	8192

enum tracefile_source {
	TRACE_SOURCE_MODULE = 1,
	TRACE_SOURCE_TRACEFS = 2,
	TRACE_SOURCE_SYNTHETIC = 3,
	TRACE_SOURCE_XENTRACE = 4,	/* Xen's trace buffers, read in dom0 (source/xentrace/) */
};

/*
 * Record types that exist only in files; far above the uapi event numbers
 * so that appending to enum gpuprobe_event_type can never collide.
 */
enum tracefile_record_type {
	TRACEFILE_REC_IRQ_COUNT = 0x8001,	/* struct tracefile_rec_irq_count */
	TRACEFILE_REC_END = 0x8002,		/* struct tracefile_rec_end */
	TRACEFILE_REC_APP = 0x8003,		/* struct tracefile_rec_app */
	TRACEFILE_REC_VECTOR = 0x8004,		/* struct tracefile_rec_vector */
	TRACEFILE_REC_KVM = 0x8005,		/* struct gpuprobe_rec_kvm (uapi) */
	/* host and guest in one file (Documentation/passthrough.md) */
	TRACEFILE_REC_MACHINE = 0x8006,		/* struct tracefile_rec_machine */
	TRACEFILE_REC_GUEST = 0x8007,		/* struct tracefile_rec_guest */
	TRACEFILE_REC_CLOCK_SYNC = 0x8008,	/* struct tracefile_rec_clock_sync */
	/* 0x8009 stays unassigned: tests/traces/ hold it as a type no reader knows */
	TRACEFILE_REC_COMMAND = 0x800a,		/* struct tracefile_rec_command */
	TRACEFILE_REC_DELIVERY = 0x800b,	/* struct tracefile_rec_delivery */
	TRACEFILE_REC_STRING = 0x800c,		/* struct tracefile_rec_string */
	TRACEFILE_REC_TSC = 0x800d,		/* struct tracefile_rec_tsc */
	TRACEFILE_REC_IOMMU_MODE = 0x800e,	/* struct tracefile_rec_iommu_mode (iommu_mode.h) */
	TRACEFILE_REC_XEN = 0x800f,		/* struct tracefile_rec_xen */
};

/*
 * Whether application (CUDA/OpenCL) records may follow the kernel records.
 * They come last, so a reader that attributes kernel events to them must
 * keep the kernel events until it knows; NONE lets it skip that.
 */
enum tracefile_app_events {
	TRACEFILE_APP_UNKNOWN = 0,	/* files written before the field existed */
	TRACEFILE_APP_NONE = 1,		/* nothing traced the workload's GPU calls */
	TRACEFILE_APP_EXPECTED = 2,	/* a tracing library was injected */
};

/* Set by the tracefs source on an irq entry whose exit was never seen. */
#define TRACEFILE_IRQ_NO_EXIT	(1 << 15)
/* Lost record written by userspace: records were lost, how many is unknown. */
#define TRACEFILE_LOST_COUNT_UNKNOWN	(1 << 15)

enum irq_count_phase {
	IRQ_COUNT_START = 1,	/* taken after tracing was switched on */
	IRQ_COUNT_STOP = 2,	/* taken before tracing was switched off */
};

/* The kernel's own count of an irq (sum of /proc/interrupts row) at ts. */
struct tracefile_rec_irq_count {
	struct gpuprobe_rec_hdr hdr;
	uint32_t bdf;
	uint32_t irq;
	uint32_t phase;		/* enum irq_count_phase */
	uint32_t reserved;
	uint64_t count;
};

enum vector_change {
	VECTOR_ADDED = 1,	/* resolved while recording: not in the header */
	VECTOR_GONE = 2,	/* no longer in the device's msi_irqs */
};

/*
 * A target's vector that appeared (or went) while recording: the tracefs
 * source rescans msi_irqs (Documentation/trace-format.md, "Vectors that
 * appear while recording").  flags: VECTOR_MSIX.
 */
struct tracefile_rec_vector {
	struct gpuprobe_rec_hdr hdr;	/* ts_ns = when the rescan saw it */
	uint32_t bdf;
	uint32_t irq;
	uint32_t index;			/* MSI/MSI-X index */
	uint16_t flags;
	uint16_t change;		/* enum vector_change */
};

/* Last record of a complete file; its absence means truncation. */
struct tracefile_rec_end {
	struct gpuprobe_rec_hdr hdr;	/* ts_ns = stop time */
	uint64_t records;		/* records before this one */
	int32_t exit_status;		/* workload's, -1 when none */
	uint32_t reserved;
};

/* A CUDA/OpenCL application event (inject/appevents.h), merged after the run. */
struct tracefile_rec_app {
	struct gpuprobe_rec_hdr hdr;	/* ts_ns = ev.start_ns */
	struct gpuprobe_app_event ev;
};

enum tracefile_machine_role {
	MACHINE_ROLE_HOST = 1,
	MACHINE_ROLE_GUEST = 2,
};

/* tracefile_rec_machine.flags */
#define MACHINE_COMPLETE	(1 << 0)	/* its recording ended with an end record */
#define MACHINE_LOST		(1 << 1)	/* the link to it broke before the end */

/*
 * One machine of a merged trace (record --guest): machine 0 is the host
 * (the file header describes it), 1 the guest.  ntargets struct
 * tracefile_target, each followed by its vectors, follow as in the file
 * header.  Only merged traces hold these records.
 */
struct tracefile_rec_machine {
	struct gpuprobe_rec_hdr hdr;	/* ts_ns = host time of writing */
	uint32_t machine;
	uint32_t role;			/* enum tracefile_machine_role */
	uint32_t source;		/* enum tracefile_source of its recording */
	uint32_t ntargets;
	uint64_t start_ns;		/* its CLOCK_MONOTONIC at its start */
	uint64_t start_realtime_ns;
	char host[64];
	char kernel_release[72];
	char tool_version[24];
	char address[48];		/* how the host reached it: "tcp:10.0.0.2:5999" */
	uint32_t flags;			/* MACHINE_* */
	int32_t exit_status;		/* its recording's (the guest command's) */
	uint64_t records;		/* its records carried in this file */
	uint64_t stop_ns;		/* its clock: its end record's time; 0 when none */
};

/*
 * A guest's record, byte for byte with its raw guest timestamp, after a
 * small header; hdr.ts_ns is that time on the host clock through the
 * clock-sync fit written when the file was made (readers may refit).
 */
struct tracefile_rec_guest {
	struct gpuprobe_rec_hdr hdr;	/* ts_ns: host clock; cpu: the inner record's */
	uint32_t machine;
	uint32_t reserved;
	/* struct gpuprobe_rec_hdr and the rest of the guest's record follow */
};

/* tracefile_rec_command.flags */
#define COMMAND_CUT		(1 << 0)	/* the argv was longer than TRACEFILE_COMMAND_MAX */
/* bytes of argv text kept, NULs included: a command line, not a data channel */
#define TRACEFILE_COMMAND_MAX	4096u

/*
 * The workload's argv (record -- CMD ARGS...), written once right after
 * the header.  nargs NUL-terminated strings follow (len bytes, then zeros
 * to hdr.size); past TRACEFILE_COMMAND_MAX the text is cut, the last
 * string kept ends at the cut, COMMAND_CUT is set and nargs < argc may be.
 */
struct tracefile_rec_command {
	struct gpuprobe_rec_hdr hdr;	/* ts_ns = the recording's start */
	uint32_t argc;			/* the workload's, all of them */
	uint32_t nargs;			/* strings stored */
	uint32_t len;			/* bytes of them, NULs included */
	uint32_t flags;			/* COMMAND_* */
};

/*
 * A name too long for an application event's name field (a C++ kernel's),
 * stored whole once per trace; the events that carry it hold its short form
 * (GPUPROBE_APPF_TRUNCATED_NAME: 46 characters, '~', the 16 hex digits of
 * hash) and are matched to it by hash.  len bytes of text follow, then a
 * NUL and zeros to hdr.size; a name past TRACEFILE_STRING_MAX is cut there
 * (STRING_CUT; hash is still the whole name's).  Written by record before
 * the application events (lib/strtab.c).
 */
#define TRACEFILE_STRING_MAX	16384u
#define STRING_CUT		(1 << 0)
struct tracefile_rec_string {
	struct gpuprobe_rec_hdr hdr;	/* ts_ns = the recording's stop */
	uint64_t hash;			/* 64-bit FNV-1a of the whole name */
	uint32_t len;			/* bytes of text, without the NUL */
	uint32_t flags;			/* STRING_* */
};

/*
 * How the module delivered the records (its STATS at the stop, summed over
 * CPUs; the fullest ring's): written by record before the end record, with
 * the module source only.
 */
struct tracefile_rec_delivery {
	struct gpuprobe_rec_hdr hdr;	/* ts_ns = the stop */
	uint32_t slots;			/* a ring's size, records */
	uint32_t high_water_cpu;	/* the CPU of the fullest ring */
	uint64_t high_water;		/* most records a drain found in one ring */
	uint64_t wait_max_ns;		/* longest a record waited for the drain */
	uint64_t ring_dropped;		/* records the rings had no room for */
	uint64_t undelivered;		/* records in messages no listener took */
	uint64_t overrun;		/* of them, refused by the listener's full socket */
	uint64_t socket_overflows;	/* ENOBUFS the listener read */
	int32_t rcvbuf;			/* the listener's receive buffer, bytes */
	uint32_t reserved;
};

enum tsc_rec_kind {
	TSC_REC_SAMPLE = 1,	/* a machine's CLOCK_MONOTONIC read around one rdtscp */
	TSC_REC_KVM = 2,	/* a vCPU's TSC offset and scaling, as KVM keeps them */
};

#define TSC_KVM_GUEST_MODE	1	/* the vCPU was running a nested guest: the offset is L2's */
#define TSC_KVM_TRACED		2	/* kvm:kvm_write_tsc_offset: in effect from hdr.ts_ns */
#define TSC_KVM_TEST		4	/* record --test-tsc-offset, not KVM's */
#define TSC_KVM_END		8	/* read again at the end of the recording */

/*
 * The exact guest clock (Documentation/passthrough.md, "The exact clock"):
 * each machine's CLOCK_MONOTONIC against its TSC (SAMPLE: mono_lo, then
 * tsc, then mono_hi, on the CPU cpu), and KVM's relation of the two TSCs
 * for each vCPU (KVM: guest tsc = tsc_offset + (host tsc * ratio) >>
 * frac_bits; ratio 0 is no scaling).  hdr.ts_ns is host time.  A guest
 * sample's host_lo..host_hi says which of the vCPU's offsets it was read
 * under (a write of the offset re-bases the guest's kvm-clock).
 */
struct tracefile_rec_tsc {
	struct gpuprobe_rec_hdr hdr;
	uint32_t machine;		/* SAMPLE: whose clocks; KVM: the guest's (1) */
	uint16_t kind;			/* enum tsc_rec_kind */
	uint16_t flags;			/* KVM: TSC_KVM_* */
	uint32_t cpu;			/* SAMPLE: CPU of the read; KVM: N of debugfs vcpuN */
	uint32_t apic_id;		/* SAMPLE: that CPU's initial APIC id, ~0 unknown */
	uint64_t mono_lo, tsc, mono_hi;	/* SAMPLE */
	int64_t tsc_offset;		/* KVM */
	uint64_t ratio;			/* KVM: tsc-scaling-ratio, 0 none */
	uint32_t frac_bits;		/* KVM: tsc-scaling-ratio-frac-bits */
	uint32_t reserved;
	uint64_t host_lo, host_hi;	/* guest SAMPLE: the host's clock around the exchange that carried it */
};

/*
 * What Xen's trace buffer said (record --source xentrace in dom0,
 * Documentation/trace-format.md): a physical irq Xen handled (for a
 * passed-through device: Xen's do_IRQ_guest, which signals the guest's
 * pirq event channel or its vLAPIC), an interrupt vector Xen injected into
 * the vCPU it was about to enter, or records Xen lost.  hdr.cpu is Xen's
 * physical CPU; hdr.ts_ns is dom0's CLOCK_MONOTONIC of tsc, mapped by TSC
 * samples read in dom0 at the start and the end.
 */
enum xen_rec_kind {
	XEN_REC_PHYS_IRQ = 1,	/* TRC_HW_IRQ_HANDLED: ts_ns/tsc at the handler's entry */
	XEN_REC_INJECT = 2,	/* TRC_HVM_INJ_VIRQ (REINJ_VIRQ: flag XEN_REC_REINJECT) */
	XEN_REC_LOST = 3,	/* TRC_LOST_RECORDS */
};

#define XEN_REC_UNTIMED		(1 << 0)	/* no TSC of its own: its CPU's last record's */
#define XEN_REC_NO_TSC		(1 << 1)	/* no TSC before it on its CPU: ts_ns is the start */
#define XEN_REC_REINJECT	(1 << 2)	/* TRC_HVM_REINJ_VIRQ */
#define XEN_REC_NESTED		(1 << 3)	/* TRC_HVM_NESTEDFLAG: in a nested guest */
#define XEN_REC_ENTRY_UNKNOWN	(1 << 4)	/* PHYS_IRQ: no entry TSC (tracing was off): tsc is the exit's */

struct tracefile_rec_xen {
	struct gpuprobe_rec_hdr hdr;
	uint16_t kind;			/* enum xen_rec_kind */
	uint16_t flags;			/* XEN_REC_* */
	uint32_t irq;			/* PHYS_IRQ: Xen's irq number */
	uint32_t vector;		/* INJECT: the vector */
	uint32_t cycles;		/* PHYS_IRQ: TSC cycles in Xen's handler */
	uint64_t tsc;			/* Xen's TSC of the event */
	uint64_t count;			/* LOST: records Xen lost on this CPU */
};

#define TRACEFILE_REC_MAX_SIZE		65528u	/* hdr.size is 16 bits, a multiple of 8 */
#define TRACEFILE_GUEST_MAX_INNER	(TRACEFILE_REC_MAX_SIZE - sizeof(struct tracefile_rec_guest))

enum clock_sync_kind {
	CLOCK_SYNC_BURST = 1,	/* the best of a burst of two-way exchanges */
	CLOCK_SYNC_FIT = 2,	/* the whole session: offset, drift, bound */
};

/*
 * Guest clock against host clock: offset = guest - host.  A burst: the
 * exchange with the shortest round trip (host t1, guest t2, host t3),
 * offset t2 - (t1 + t3) / 2, error_ns (t3 - t1) / 2, hdr.ts_ns (t1 + t3)
 * / 2.  A fit: offset at hdr.ts_ns, drift in parts per billion, error_ns
 * the largest burst bound (Documentation/passthrough.md).
 */
struct tracefile_rec_clock_sync {
	struct gpuprobe_rec_hdr hdr;
	uint32_t machine;
	uint16_t kind;			/* enum clock_sync_kind */
	uint16_t samples;		/* exchanges in the burst, bursts in the fit */
	int64_t offset_ns;
	uint64_t error_ns;
	int64_t drift_ppb;		/* fit only */
	uint64_t guest_ns;		/* burst: t2 of the best exchange */
};

struct tracefile_header_fixed {
	char magic[8];			/* "GPUPROBE" */
	uint32_t format_version;	/* TRACEFILE_VERSION */
	uint32_t header_size;		/* bytes before the first record, %8 == 0 */
	uint32_t record_version;	/* GPUPROBE_RECORD_VERSION */
	uint32_t clock_id;		/* CLOCK_MONOTONIC */
	uint32_t source;		/* enum tracefile_source */
	uint32_t ntargets;
	uint64_t start_ns;		/* CLOCK_MONOTONIC at start */
	uint64_t start_realtime_ns;	/* CLOCK_REALTIME at the same moment */
	char host[64];
	char kernel_release[72];
	char tool_version[24];
	uint32_t app_events;		/* enum tracefile_app_events */
	uint32_t reserved32;
	uint64_t reserved[3];
};

struct tracefile_target {
	uint32_t bdf;
	uint16_t vendor;
	uint16_t device;
	uint32_t class;
	uint32_t nvec;			/* struct tracefile_vector follow */
	char driver[32];
};

struct tracefile_vector {
	uint32_t index;
	uint32_t irq;
	uint32_t flags;			/* VECTOR_MSIX */
	uint32_t reserved;
};

/* tracefile_target_decode()'s refusals */
enum {
	TRACEFILE_TARGET_TRUNCATED = -1,	/* no whole tracefile_target */
	TRACEFILE_TARGET_BAD_NVEC = -2,		/* too many vectors, or they run past len */
};

/*
 * One tracefile_target and its vectors at p + *pos (len bytes in all, the
 * header's variable part or a machine record) into t, *pos moved past them:
 * 0, or a refusal above (after BAD_NVEC, t->nvec holds the count read).  An
 * unterminated driver name is cut, not refused: callers that refuse it look
 * at the bytes themselves.
 */
int tracefile_target_decode(const unsigned char *p, size_t len, size_t *pos, struct target *t);

/* What the header says, decoded. */
struct trace_info {
	uint32_t format_version;
	uint32_t record_version;
	uint32_t clock_id;
	uint32_t source;
	uint64_t start_ns;
	uint64_t start_realtime_ns;
	uint32_t app_events;		/* enum tracefile_app_events */
	char host[64];
	char kernel_release[72];
	char tool_version[24];
	struct target_set targets;
};

const char *tracefile_source_name(uint32_t source);
/* "irq", "dma", ... as export writes them; "unknown" for unknown types. */
const char *tracefile_record_type_name(uint16_t type);
/*
 * Smallest valid size of a known record type; 0 for unknown types.  Inline:
 * the reader asks once per record.
 */
static inline size_t tracefile_record_min_size(uint16_t type)
{
	switch (type) {
	case GPUPROBE_EV_IRQ:		return sizeof(struct gpuprobe_rec_irq);
	case GPUPROBE_EV_LOST:		return sizeof(struct gpuprobe_rec_lost);
	case GPUPROBE_EV_TARGET:	return sizeof(struct gpuprobe_rec_target);
	case GPUPROBE_EV_WAKEUP:
	case GPUPROBE_EV_SWITCH:	return sizeof(struct gpuprobe_rec_sched);
	case GPUPROBE_EV_DMA:		return sizeof(struct gpuprobe_rec_dma);
	/* older modules' records end before domain */
	case GPUPROBE_EV_IOMMU:		return GPUPROBE_REC_IOMMU_SIZE_V1;
	case GPUPROBE_EV_SWIOTLB:	return sizeof(struct gpuprobe_rec_swiotlb);
	case GPUPROBE_EV_IOMMU_PART:	return sizeof(struct gpuprobe_rec_iommu_part);
	case TRACEFILE_REC_IRQ_COUNT:	return sizeof(struct tracefile_rec_irq_count);
	case TRACEFILE_REC_END:		return sizeof(struct tracefile_rec_end);
	case TRACEFILE_REC_APP:		return sizeof(struct tracefile_rec_app);
	case TRACEFILE_REC_VECTOR:	return sizeof(struct tracefile_rec_vector);
	case TRACEFILE_REC_MACHINE:	return sizeof(struct tracefile_rec_machine);
	/* a wrapper holds at least a record header */
	case TRACEFILE_REC_GUEST:	return sizeof(struct tracefile_rec_guest) +
					       sizeof(struct gpuprobe_rec_hdr);
	case TRACEFILE_REC_CLOCK_SYNC:	return sizeof(struct tracefile_rec_clock_sync);
	case TRACEFILE_REC_KVM:		return sizeof(struct gpuprobe_rec_kvm);
	case TRACEFILE_REC_COMMAND:	return sizeof(struct tracefile_rec_command);
	case TRACEFILE_REC_DELIVERY:	return sizeof(struct tracefile_rec_delivery);
	case TRACEFILE_REC_STRING:	return sizeof(struct tracefile_rec_string) + 8;
	case TRACEFILE_REC_TSC:		return sizeof(struct tracefile_rec_tsc);
	case TRACEFILE_REC_IOMMU_MODE:	return 64;	/* iommu_mode.h */
	case TRACEFILE_REC_XEN:		return sizeof(struct tracefile_rec_xen);
	default:			return 0;
	}
}

/* Whether a whole record passes the reader's checks of a record alone (type, size, cpu, wrapper). */
static inline bool tracefile_record_sane(const struct gpuprobe_rec_hdr *h)
{
	const struct gpuprobe_rec_hdr *inner = (const void *)((const struct tracefile_rec_guest *)h + 1);

	return h->type != GPUPROBE_EV_UNSPEC && h->size >= tracefile_record_min_size(h->type) &&
	       h->cpu < TRACEFILE_MAX_CPUS &&
	       (h->type != TRACEFILE_REC_GUEST || inner->size == h->size - sizeof(struct tracefile_rec_guest));
}

struct chunk_encoder;
struct chunk_pipe;

/* Writer: buffered stdio; every call returns 0 or -1 with errno set. */
struct trace_writer {
	FILE *file;
	struct chunk_encoder *chunk;	/* versions 2 and 3: the chunk being filled */
	uint32_t chunk_version;		/* which of them */
	const char *path;
	char temp_path[4096];		/* create_temp: written here until published */
	bool published;
	uint64_t records;
	uint64_t bytes;
};

int trace_writer_open(struct trace_writer *w, const char *path,
		      const struct trace_info *info);
/* Same in two steps: create the file early, write the header once known. */
int trace_writer_create(struct trace_writer *w, const char *path);
int trace_writer_header(struct trace_writer *w, const struct trace_info *info);
/*
 * Never lose a trace: write to a temporary file next to path, and rename it
 * over path with publish() only once it is known to hold a readable trace;
 * abort() before that removes it and leaves any older path untouched.
 * "-" writes to stdout (published from the start).
 */
int trace_writer_create_temp(struct trace_writer *w, const char *path);
/*
 * Temporary files next to path left by killed recorders (their pid, in the
 * name, no longer exists): removed, each with a warning.  create_temp()
 * does this first.
 */
void trace_writer_remove_stale_temps(const char *path);
int trace_writer_publish(struct trace_writer *w);
/*
 * Version 3: checksummed chunks of compact-encoded records (level
 * TRACEFILE_COMPACT), or compact and then zstd at `level` (> 0); 0 keeps
 * version 1 (records as they are).  Before the header.
 */
int trace_writer_compress(struct trace_writer *w, int level);
/* The same, writing format version 2 (no checksums) when asked: tests of old files. */
int trace_writer_compress_version(struct trace_writer *w, int level, uint32_t version);
int trace_writer_put(struct trace_writer *w, const struct gpuprobe_rec_hdr *rec);
/* Everything put so far onto the file (a chunk ends here), fflush()ed. */
int trace_writer_flush(struct trace_writer *w);
int trace_writer_finish(struct trace_writer *w, uint64_t stop_ns, int exit_status);
/* After a write error: close without an end record (readers see an incomplete file). */
int trace_writer_close_incomplete(struct trace_writer *w);
/* Close; an unpublished temporary file is removed. */
void trace_writer_abort(struct trace_writer *w);

/* Reader: streams records from a buffer; memory does not grow with the file. */
/* A chunk skipped: where it was, what was skipped. */
#define TRACEFILE_DAMAGE_LIST	16
struct tracefile_damage {
	uint64_t offset;		/* of the damaged chunk */
	uint64_t bytes;			/* skipped, to the next good chunk header */
	int64_t records;		/* the chunk's records; -1 unknown (its header was damaged) */
	uint32_t index;			/* the chunk's, from 1 */
	const char *why;
};

struct trace_reader {
	FILE *file;
	char path[256];
	unsigned char *buf;
	size_t buf_size;
	size_t buf_len;			/* valid bytes in buf */
	size_t buf_pos;			/* next record in buf */
	uint64_t buf_file_offset;	/* file offset of buf[0] */
	bool eof;
	bool seen_end;			/* the file is complete */
	bool truncated;			/* cut short: read up to its last whole record */
	uint64_t truncated_at;		/* byte offset of the cut */
	char warning[512];		/* set with truncated: what was cut, where */
	uint64_t records;
	uint64_t unknown_records;
	struct tracefile_rec_end end;
	char error[512];
	/*
	 * version 3: chunks skipped because their checksum failed (damaged),
	 * the first TRACEFILE_DAMAGE_LIST of them listed
	 */
	uint32_t damaged;
	uint32_t damaged_unknown;	/* of them, with a header wrong: records unknown */
	uint64_t damaged_records;	/* records in the others, as their headers say */
	struct tracefile_damage damage[TRACEFILE_DAMAGE_LIST];
	/* versions 2 and 3: buf holds the decoded records of the chunk at chunk_offset */
	uint32_t format_version;
	bool chunked;
	uint64_t chunk_offset;
	unsigned char *buf_own;		/* version 1's buffer */
	struct chunk_pipe *pipe;	/* chunks read and decoded ahead by a thread */
};

int trace_reader_open(struct trace_reader *r, const char *path, struct trace_info *info);
/* Open over a stream already positioned at the file start (tests). */
int trace_reader_open_stream(struct trace_reader *r, FILE *f, const char *name,
			     struct trace_info *info);
/*
 * 1: *rec points at the next record; 0: no more records (the end record, or
 * a cut: r->truncated and r->warning); -1: r->error says why.
 */
int trace_reader_next(struct trace_reader *r, const struct gpuprobe_rec_hdr **rec);
void trace_reader_close(struct trace_reader *r);
/*
 * Damage of the file read so far, the records skipped: exact once the end
 * record was read (it counts them all), else a lower bound (*exact false).
 */
uint64_t trace_reader_skipped(const struct trace_reader *r, bool *exact);
/* One line about damaged chunk i (< min(r->damaged, TRACEFILE_DAMAGE_LIST)), into buf. */
const char *trace_reader_damage_line(const struct trace_reader *r, unsigned int i,
				     char *buf, size_t len);
/* warnf() each damaged chunk and what it means, and the cut if there is one. */
void trace_reader_warn(const struct trace_reader *r);

#endif /* GPUPROBE_TRACEFILE_H */
