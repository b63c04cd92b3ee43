// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict `explain` opens with, as `report` does: what ran, where its
 * interrupt path's time went, the largest step named, and what could not
 * be told.  The shares are of the mean GPU end -> return of the matched
 * waits: per wait the four steps add up to it, so their means do too, and
 * every number is one of the tables below it.
 */
#include <stdio.h>

#include "explain.h"
#include "format.h"

static const char *const step_name[STEPS] = {
	"GPU end -> MSI handler entry", "handler entry -> wake-up (or its exit)",
	"handler exit -> wake-up (deferred)", "wake-up -> wait returns",
};

static void verdict_fall(FILE *out, const char *api, const struct explain_waterfall *f)
{
	size_t hit = f->count[WAIT_INTERRUPT];
	char a[FORMAT_NS_LEN], b[FORMAT_NS_LEN];
	int big = 0;

	if (!hit || f->end_to_return.mean <= 0) {
		fprintf(out, "    %s %s: no wait of %zu woken by the target's interrupt: no interrupt path\n",
			api, f->probe, f->samples);
		return;
	}
	for (int k = 1; k < STEPS; k++)
		if (f->step[k].mean > f->step[big].mean)
			big = k;
	fprintf(out, "    %s %s: %s in %zu of %zu waits; largest step %s %s (%.1f%%)\n", api, f->probe,
		format_ns(a, sizeof(a), f->end_to_return.mean), hit, f->samples, step_name[big],
		format_ns(b, sizeof(b), f->step[big].mean),
		100.0 * f->step[big].mean / f->end_to_return.mean);
}

static void verdict_not_measured(FILE *out, const struct explain_result *r)
{
	const struct explain_timeline *t = &r->timeline;
	bool head = false;

#define NOT_MEASURED(...) do {						\
		if (!head)						\
			fprintf(out, "  not measured:\n");		\
		head = true;						\
		fprintf(out, "    " __VA_ARGS__);			\
	} while (0)
	if (!r->clock_error_known)
		NOT_MEASURED("the device clock's error bound: the probe output has none (GPU end taken as exact)\n");
	if (!t->sched_records)
		NOT_MEASURED("wake-ups: the trace has no scheduler events (record with a workload: -- CMD)\n");
	if (!t->ndma)
		NOT_MEASURED("DMA maps in the pin and copy windows: the trace has no DMA-API call of the target\n");
	NOT_MEASURED("tracing's own cost: not in the trace (compare this probe output with an untraced run)\n");
#undef NOT_MEASURED
}

void explain_print_verdict(FILE *out, const struct explain_result *r)
{
	size_t falls = 0, bad = explain_violations(r);

	fprintf(out, "verdict\n");
	fprintf(out, "  workload: the probe run in %s (", r->probe_path);
	for (size_t i = 0; i < r->napis; i++)
		fprintf(out, "%s%s", i ? ", " : "", r->apis[i].api);
	fprintf(out, "), traced in %s: target %s, thread %u\n", r->trace_path, r->timeline.target,
		r->timeline.tid);
	for (size_t i = 0; i < r->napis; i++)
		falls += r->apis[i].nfalls;
	if (falls)
		fprintf(out, "  interrupt path: GPU end -> the wait's return, mean of the matched waits; step shares are of that mean\n");
	for (size_t i = 0; i < r->napis; i++)
		for (size_t k = 0; k < r->apis[i].nfalls; k++)
			verdict_fall(out, r->apis[i].api, &r->apis[i].falls[k]);
	if (bad)
		fprintf(out, "  causality: FAIL, %zu waits break it (below): the attribution is wrong\n", bad);
	else if (falls)
		fprintf(out, "  causality: holds in every wait\n");
	verdict_not_measured(out, r);
	fputc('\n', out);
}
