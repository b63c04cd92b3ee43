// SPDX-License-Identifier: GPL-2.0
/*
 * Output of `explain`: the waterfall, pinning and copy tables with what they
 * mean, or one JSON object whose "components" list is what `compare` puts
 * side by side; -o splices that object into a copy of the probe output.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "format.h"
#include "json.h"
#include "util.h"

#define MiB		1048576.0
/* A first pin this much slower than the repeat is the hypervisor's doing. */
#define LAZY_PIN_RATIO	1.5

static const char *const step_text[STEPS] = {
	"GPU end -> MSI handler entry", "handler entry -> wake-up (or its exit)",
	"handler exit -> wake-up (deferred)", "wake-up -> wait returns",
};

static void print_stat_row(FILE *out, const char *what, const struct sample_stats *s)
{
	char a[32], b[32], c[32];

	fprintf(out, "    %-40s %10s %10s %10s\n", what, format_ns(a, FORMAT_NS_LEN, s->p50), format_ns(b, FORMAT_NS_LEN, s->p99),
		format_ns(c, FORMAT_NS_LEN, s->mean));
}

/* Cause before effect: nothing the GPU's end causes comes before it (beyond the bound). */
static void print_causality(FILE *out, const struct explain_waterfall *f)
{
	char a[32];

	if (!f->causality_violations) {
		fprintf(out, "  causality: holds for all %zu waits (no return, wake-up or interrupt-path\n"
			"  handler entry before GPU end by more than the bound)\n", f->samples);
		return;
	}
	fprintf(out, "  CAUSALITY VIOLATED in %zu of %zu waits: return before GPU end %zu, wake-up\n"
		"  before it %zu, interrupt-path handler entry before it %zu; up to %s early: the\n"
		"  device clock mapping (or its bound) is wrong, these waits' steps mean nothing\n",
		f->causality_violations, f->samples, f->violation_return, f->violation_wake,
		f->violation_entry, format_ns(a, FORMAT_NS_LEN, (double)f->worst_violation_ns));
}

static void print_fall(FILE *out, const char *api, const struct explain_waterfall *f)
{
	size_t hit = f->count[WAIT_INTERRUPT];
	char a[32], b[32], c[32];

	fprintf(out, "\n%s: interrupt waterfall, %s (%zu blocking waits, %s kernel)\n", api, f->probe,
		f->samples, f->kernel_spin_ns ? format_ns(a, FORMAT_NS_LEN, (double)f->kernel_spin_ns) : "empty");
	fprintf(out, "  matched %zu of %zu: woken by a handler entered after the GPU ended (the\n"
		"  interrupt path); %zu by a handler already running (coalesced: no new MSI);\n"
		"  %zu not asleep (no wake-up inside the wait); %zu woken by something else\n",
		hit, f->samples, f->count[WAIT_COALESCED], f->count[WAIT_NOT_ASLEEP],
		f->count[WAIT_OTHER_WAKER]);
	print_causality(out, f);
	if (f->count[WAIT_COALESCED])
		fprintf(out, "  coalesced: GPU end -> wake-up by the running handler p50 %s p99 %s\n",
			format_ns(a, FORMAT_NS_LEN, f->coalesced_end_to_wake.p50), format_ns(b, FORMAT_NS_LEN, f->coalesced_end_to_wake.p99));
	if (!hit)
		return;
	fprintf(out, "    %-40s %10s %10s %10s\n", "step (matched waits)", "p50", "p99", "mean");
	for (int k = 0; k < STEPS; k++)
		print_stat_row(out, step_text[k], &f->step[k]);
	print_stat_row(out, "measured GPU end -> return", &f->end_to_return);
	fprintf(out, "    %-40s %10s   (every sample of the probe, matched or not)\n",
		"measured, all waits", format_ns(a, FORMAT_NS_LEN, f->all_end_to_return.p50));
	if (f->clock_error_known)
		fprintf(out, "  GPU end is known to +/-%s (device clock calibration): the first step carries it\n",
			format_ns(a, FORMAT_NS_LEN, f->clock_error_ns));
	else
		fprintf(out, "  GPU end: clock error bound not measured by the probe; checks below use 0\n");
	fprintf(out, "  interrupt path: %zu handler entries before GPU end but within the bound\n",
		f->entry_within_bound);
	fprintf(out, "  beside the path: handler entry -> exit p50 %s p99 %s; in %zu of %zu waits the\n"
		"  handler woke the thread before its exit and ran on p50 %s after the wake-up\n",
		format_ns(a, FORMAT_NS_LEN, f->handler.p50), format_ns(b, FORMAT_NS_LEN, f->handler.p99), f->woken_inside, hit,
		format_ns(c, FORMAT_NS_LEN, f->after_wake.p50));
	if (f->wake_to_switch.n)
		fprintf(out, "  switch-in recorded for %zu of %zu: wake-up -> switch-in p50 %s, "
			"switch-in -> return p50 %s\n", f->wake_to_switch.n, hit,
			format_ns(a, FORMAT_NS_LEN, f->wake_to_switch.p50), format_ns(b, FORMAT_NS_LEN, f->switch_to_return.p50));
	else
		fprintf(out, "  no switch-in of the thread recorded inside these waits: wake-up -> return\n"
			"  holds the switch-in and the return to user space\n");
}

static const struct explain_load *load_named(const struct explain_api *x, const char *fmt,
					     const char *size)
{
	char name[64];

	snprintf(name, sizeof(name), fmt, size);
	for (size_t i = 0; i < x->nloads; i++)
		if (!strcmp(x->loads[i].probe, name))
			return &x->loads[i];
	return NULL;
}

static double per_op(uint64_t v, const struct explain_load *l)
{
	return l && l->ops ? (double)v / (double)l->ops : 0;
}

/* What the first-vs-repeat gap of the largest size means. */
static void print_pin_meaning(FILE *out, const struct explain_load *f, const struct explain_load *r)
{
	double ratio = r->p50_ns > 0 ? f->p50_ns / r->p50_ns : 0;
	double fmaps = per_op(f->map_calls, f), rmaps = per_op(r->map_calls, r);
	char a[32], b[32];

	fprintf(out, "  what it means (largest size, %s): first %s vs repeat %s, %.2fx.\n",
		f->probe + strlen("pin.first."), format_ns(a, FORMAT_NS_LEN, f->p50_ns), format_ns(b, FORMAT_NS_LEN, r->p50_ns), ratio);
	if (!f->map_calls && !r->map_calls) {
		fprintf(out, "  The trace holds no DMA map of the target inside these calls: this driver\n"
			"  does not map host memory for the device when it is registered (or the\n"
			"  probe used another device), so the gap is not the IOMMU's.\n");
	} else if (ratio < LAZY_PIN_RATIO) {
		fprintf(out, "  Both map the same (%.2f vs %.2f DMA maps per call) and cost about the\n"
			"  same: no lazy pinning by the hypervisor shows here. Either the guest's memory\n"
			"  is pinned on the host up front (VFIO does so for a guest without a virtual\n"
			"  IOMMU) or these pages had been pinned before (freed and handed back).\n",
			fmaps, rmaps);
	} else if (fmaps > rmaps * 1.01) {
		fprintf(out, "  The first call also maps more (%.2f vs %.2f DMA maps per call): part of\n"
			"  the gap is the guest driver's own first-time work.\n", fmaps, rmaps);
	} else {
		fprintf(out, "  The guest maps the same pages both times (%.2f vs %.2f DMA maps per call):\n"
			"  the extra time is outside the guest's DMA API. The hypervisor pins guest\n"
			"  memory lazily, on the first DMA map of each page, and keeps it pinned after.\n",
			fmaps, rmaps);
	}
}

static void print_pins(FILE *out, const char *api, const struct explain_api *x)
{
	const struct explain_load *big_f = NULL, *big_r = NULL;
	char a[32], b[32], c[32];

	for (size_t i = 0; i < x->nloads; i++) {
		const char *size = x->loads[i].probe + strlen("pin.first.");
		const struct explain_load *f = &x->loads[i], *r;

		if (strncmp(f->probe, "pin.first.", 10) || !(r = load_named(x, "pin.repeat.%s", size)))
			continue;
		if (!big_f)
			fprintf(out, "\n%s: pinning (DMA-API maps of the GPU inside each call)\n"
				"    %-8s %10s %10s %10s  %-15s %-17s %-15s\n", api, "size", "first p50",
				"repeat p50", "gap", "maps/call f|r", "MiB mapped/call", "segments/call");
		fprintf(out, "    %-8s %10s %10s %10s  %6.2f | %-6.2f %7.3f | %-7.3f %6.1f | %-6.1f\n",
			size, format_ns(a, FORMAT_NS_LEN, f->p50_ns), format_ns(b, FORMAT_NS_LEN, r->p50_ns), format_ns(c, FORMAT_NS_LEN, f->p50_ns - r->p50_ns),
			per_op(f->map_calls, f), per_op(r->map_calls, r), per_op(f->map_bytes, f) / MiB,
			per_op(r->map_bytes, r) / MiB, per_op(f->map_segments, f),
			per_op(r->map_segments, r));
		if (!big_f || f->bytes_per_op > big_f->bytes_per_op) {
			big_f = f;
			big_r = r;
		}
	}
	if (big_f)
		print_pin_meaning(out, big_f, big_r);
}

static void print_copies(FILE *out, const char *api, const struct explain_api *x)
{
	bool any = false;

	for (size_t i = 0; i < x->nloads; i++) {
		const struct explain_load *l = &x->loads[i];
		double mib = (double)l->ops * (double)l->bytes_per_op / MiB;

		if (strncmp(l->probe, "h2d.", 4) && strncmp(l->probe, "d2h.", 4) && strncmp(l->probe, "d2d.", 4))
			continue;
		if (!any)
			fprintf(out, "\n%s: copies (per copy, warm-up included)\n    %-22s %5s %8s %10s %9s "
				"%14s %12s\n", api, "probe", "ops", "irqs", "irqs/MiB", "maps/copy",
				"MiB mapped/copy", "bounce B/copy");
		any = true;
		fprintf(out, "    %-22s %5llu %8llu %10.3f %9.2f %14.3f %12.0f\n", l->probe,
			(unsigned long long)l->ops, (unsigned long long)l->irqs,
			mib > 0 ? (double)l->irqs / mib : 0, per_op(l->map_calls, l),
			per_op(l->map_bytes, l) / MiB, per_op(l->bounce_bytes, l));
	}
	if (any)
		fprintf(out, "  pageable copies stage through driver buffers: maps/copy above 0 there and 0\n"
			"  for pinned memory means the driver maps per copy; 0 everywhere means its\n"
			"  staging buffers were mapped once, before the run\n");
}

static void print_phase(FILE *out, const char *api, const struct explain_load *l)
{
	fprintf(out, "\n%s: %s phase as a whole (this probe output has no per-call windows: rerun\n"
		"  `probe` for pin.first vs pin.repeat and per-copy figures): %llu DMA map calls,\n"
		"  %.3f MiB, %llu segments, %llu unmaps, %llu interrupts, %llu swiotlb bounces\n",
		api, l->probe, (unsigned long long)l->map_calls, (double)l->map_bytes / MiB,
		(unsigned long long)l->map_segments, (unsigned long long)l->unmap_calls,
		(unsigned long long)l->irqs, (unsigned long long)l->bounces);
}

void explain_print_text(FILE *out, const struct explain_result *r)
{
	const struct explain_timeline *t = &r->timeline;
	char a[32];

	explain_print_verdict(out, r);
	fprintf(out, "explain %s with %s\n", r->probe_path, r->trace_path);
	fprintf(out, "  target %s: %zu interrupt handlers, %zu DMA-API calls, %zu swiotlb bounces\n",
		t->target, t->nirqs, t->ndma, t->nbounces);
	fprintf(out, "  waiting thread %u (%s): %zu wake-ups, %zu switch-ins recorded\n", t->tid,
		r->tid_source, t->nwakeups, t->nswitch_ins);
	if (!t->sched_records)
		fprintf(out, "  the trace has no scheduler events: record with a workload (-- CMD) so that\n"
			"  its threads are followed, or no wake-up can be attributed\n");
	if (r->clock_error_known)
		fprintf(out, "  device clock error bound +/-%s (measured by the probe's calibration)\n",
			format_ns(a, FORMAT_NS_LEN, r->clock_error_ns));
	else
		fprintf(out, "  device clock error bound not measured (the probe output has none)\n");
	if (t->cupti_checks)
		fprintf(out, "  CUPTI's clock (the trace's CUDA events) checked %" PRIu64 " times: error bound up to +/-%s%s\n",
			t->cupti_checks, format_ns(a, FORMAT_NS_LEN, (double)t->cupti_bound_max_ns),
			t->cupti_inconsistent ? ", brackets disagreed in some checks (see report)" : "");
	else
		fprintf(out, "  CUPTI's clock not checked in this trace (no CUDA CLOCK records)\n");
	for (size_t i = 0; i < r->napis; i++) {
		const struct explain_api *x = &r->apis[i];

		for (size_t k = 0; k < x->nfalls; k++)
			print_fall(out, x->api, &x->falls[k]);
		print_pins(out, x->api, x);
		print_copies(out, x->api, x);
		if (x->have_pin_phase)
			print_phase(out, x->api, &x->pin_phase);
		if (x->have_copy_phase)
			print_phase(out, x->api, &x->copy_phase);
	}
	if (explain_violations(r))
		fprintf(out, "\nFAIL: %zu waits break causality (see 'CAUSALITY' above)\n",
			explain_violations(r));
	else
		fprintf(out, "\ncausality holds in every wait%s\n", !explain_matched(r) ?
			"; no blocking wait was woken by the target's interrupt: no waterfall" : "");
}
