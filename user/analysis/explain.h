/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `gpuprobe-trace explain PROBE.json TRACE`: the kernel events of a trace
 * recorded around a probe run, attributed to the probes' samples.
 *
 *   timeline  the trace's events for one target and one thread, sorted
 *   wake      the interrupt waterfall of every blocking-sync sample
 *   dma       DMA maps, interrupts and bounces inside pin and copy windows
 *   output    the text report
 *   json      one JSON object, also merged into a copy of PROBE.json
 */
#ifndef GPUPROBE_EXPLAIN_H
#define GPUPROBE_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/gpuprobe.h>

#include "stats.h"

/* ---- timeline: what the trace holds for one device and one thread ---- */

struct explain_irq {
	uint64_t entry_ns, exit_ns;
	uint32_t cpu, irq;
};

struct explain_sched {
	uint64_t ts_ns;
	uint32_t cpu;
};

struct explain_dma {
	uint64_t ts_ns;
	uint64_t bytes;
	uint32_t nents;
	uint16_t op;		/* enum gpuprobe_dma_op */
};

struct explain_bounce {
	uint64_t ts_ns, bytes;
};

struct explain_timeline {
	char target[16];		/* "0000:00:06.0" */
	uint32_t bdf, tid;
	struct explain_irq *irqs;	/* the target's handlers, by entry */
	size_t nirqs;
	struct explain_sched *wakeups;	/* of tid */
	size_t nwakeups;
	struct explain_sched *switch_ins;	/* tid switched in */
	size_t nswitch_ins;
	struct explain_dma *dma;	/* the target's DMA-API calls */
	size_t ndma;
	struct explain_bounce *bounces;	/* the target's swiotlb bounces */
	size_t nbounces;
	uint64_t sched_records;		/* of any task: 0 means none were recorded */
	uint64_t start_ns, end_ns;
	/* CUPTI's clock checked by the CUDA library (CUDA CLOCK records): informative,
	 * the waterfall uses the probe's own %globaltimer calibration */
	uint64_t cupti_checks, cupti_inconsistent, cupti_bound_max_ns;
};

/* bdf GPUPROBE_BDF_NONE: the first target of the file. 0 or -1 (err says why). */
int explain_timeline_load(struct explain_timeline *t, const char *path, uint32_t bdf,
			  uint32_t tid, char *err, size_t errlen);
/* Sort every array by time (the loader calls it; tests build timelines by hand). */
void explain_timeline_sort(struct explain_timeline *t);
void explain_timeline_free(struct explain_timeline *t);

/* ---- distributions ---- */

/* Nearest-rank (lib/stats.c), as the probes' own distributions. */
static inline struct sample_stats explain_stat_of(const double *v, size_t n)
{
	struct sample_stats s;

	sample_stats_of(v, n, &s);
	return s;
}

/* ---- wake: the interrupt waterfall ---- */

/* One blocking wait of the probe output, CLOCK_MONOTONIC ns. */
struct explain_wait {
	uint64_t launched_ns;	/* wait begins */
	uint64_t gpu_end_ns;	/* calibrated device clock */
	uint64_t return_ns;
};

enum explain_wait_class {
	WAIT_INTERRUPT,		/* woken by a handler entered after the GPU ended */
	WAIT_COALESCED,		/* woken by a handler already running before it ended */
	WAIT_NOT_ASLEEP,	/* no wake-up of the thread inside the wait */
	WAIT_OTHER_WAKER,	/* woken, but by no handler of the target */
	WAIT_CLASSES,
};

/*
 * The critical path of a WAIT_INTERRUPT sample.  Per sample the four steps
 * add up to GPU end -> return by construction, so their sum proves nothing
 * and is not checked; what can fail is causality, below.
 */
enum explain_step {
	STEP_END_TO_ENTRY,	/* GPU end -> MSI handler entry */
	STEP_ENTRY_TO_WAKE,	/* handler entry -> wake-up, or -> its exit if it woke no one */
	STEP_EXIT_TO_WAKE,	/* handler exit -> wake-up (deferred: irq thread, workqueue) */
	STEP_WAKE_TO_RETURN,	/* wake-up -> the wait returns */
	STEPS,
};

struct explain_waterfall {
	char probe[64];			/* "sync_wake_100us" */
	uint64_t kernel_spin_ns;
	size_t samples;
	size_t count[WAIT_CLASSES];
	struct sample_stats step[STEPS];
	struct sample_stats end_to_return;	/* the WAIT_INTERRUPT samples */
	struct sample_stats all_end_to_return;	/* every sample of the probe */
	/* Off the critical path or a part of it, where the events were seen. */
	struct sample_stats handler;		/* entry -> exit */
	struct sample_stats after_wake;		/* handler runs on after its wake-up */
	size_t woken_inside;			/* wake-up before the handler's exit */
	struct sample_stats wake_to_switch;	/* where the switch-in was recorded */
	struct sample_stats switch_to_return;
	struct sample_stats coalesced_end_to_wake;
	/*
	 * Causality, checks that can fail: nothing the GPU's end causes may
	 * come before it by more than the clock bound.  A violation is a wait
	 * whose return, or whose waking wake-up, precedes GPU end by more
	 * than the bound, or an interrupt-path handler entered before GPU end
	 * by more than it (none can be, as matched; counted all the same);
	 * any one means the device clock mapping or the matching is wrong.
	 */
	size_t causality_violations;
	size_t violation_return, violation_wake, violation_entry;
	int64_t worst_violation_ns;	/* how far before GPU end, the largest */
	size_t entry_within_bound;	/* interrupt path, entry in [end - bound, end) */
	bool clock_error_known;		/* the probe measured its calibration */
	double clock_error_ns;		/* bound on every gpu_end_ns */
};

/*
 * Attribute n waits; error_ns: the device clock's bound (widens "after GPU
 * end"), negative when it was not measured (then taken as 0 and said so).
 */
void explain_waterfall(const struct explain_timeline *t, const struct explain_wait *w, size_t n,
		       double error_ns, struct explain_waterfall *out);

/* ---- dma: events inside the probes' windows ---- */

struct explain_window {
	char probe[64];
	uint64_t start_ns, end_ns;
	uint32_t ops;
};

/* Events inside the windows of one probe, summed. */
struct explain_load {
	char probe[64];
	uint64_t bytes_per_op;		/* the probe's "bytes" (copies) or its size (pins) */
	uint64_t windows, ops, window_ns;
	uint64_t map_calls, map_bytes, map_segments, unmap_calls;
	uint64_t irqs, bounces, bounce_bytes;
	double p50_ns;			/* the probe's own p50 */
};

/* Sum the events of every window into one load per probe name (in first-seen order). */
size_t explain_loads(const struct explain_timeline *t, const struct explain_window *w, size_t n,
		     struct explain_load **loads);
/* Events in [start, end] into l (no window or op counted). */
void explain_count(const struct explain_timeline *t, uint64_t start, uint64_t end,
		   struct explain_load *l);
/* "4KiB" -> 4096 from a probe name's last component; 0 when it has none. */
uint64_t explain_size_of(const char *probe);

/* ---- the whole attribution of one API, and its output ---- */

struct explain_api {
	char api[16];
	struct explain_waterfall *falls;
	size_t nfalls;
	struct explain_load *loads;	/* per pin/copy probe, from windows */
	size_t nloads;
	struct explain_load pin_phase, copy_phase;	/* when there are no windows */
	bool have_windows, have_pin_phase, have_copy_phase;
};

struct explain_result {
	char probe_path[256], trace_path[256];
	struct explain_timeline timeline;
	double clock_error_ns;
	bool clock_error_known;
	struct explain_api apis[2];
	size_t napis;
	char tid_source[128];		/* "tid" or "pid (no tid in the probe output)" */
};

void explain_print_text(FILE *out, const struct explain_result *r);
/* The block explain_print_text() opens with (output/explain_verdict.c). */
void explain_print_verdict(FILE *out, const struct explain_result *r);
/* The "explain" object (components flattened for `compare`). */
void explain_print_json(FILE *out, const struct explain_result *r);
/*
 * PROBE.json with the "explain" object added as its last member, into o
 * (opened by the caller before the analysis), committed or dropped here.
 */
struct outfile;
int explain_write_merged(const char *probe_path, struct outfile *o, const char *out_name,
			 const struct explain_result *r);
/*
 * The model of one run (explain_run.c): probe_path's waits, windows and
 * phases attributed with the events of trace_path; bdf GPUPROBE_BDF_NONE:
 * the probe's own device, else the trace's first target.  0, or an exit
 * code with the reason printed (1: an input unusable, 2: bdf not in the trace).
 */
int explain_run(const char *probe_path, const char *trace_path, uint32_t bdf,
		struct explain_result *r);
void explain_free(struct explain_result *r);
/* Causality violations over every waterfall (0: every check held). */
size_t explain_violations(const struct explain_result *r);
/* Waits woken by the target's interrupt, over every waterfall. */
size_t explain_matched(const struct explain_result *r);

#endif /* GPUPROBE_EXPLAIN_H */
