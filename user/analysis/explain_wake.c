// SPDX-License-Identifier: GPL-2.0
/*
 * The interrupt waterfall of blocking waits: for every wait, the wake-up of
 * the waiting thread that ended it, the target's interrupt handler that
 * issued it, and the steps GPU end -> handler entry -> wake-up -> return.
 *
 * The wake-up is found first and the handler from it, not the other way
 * round: a handler can wake the thread before it exits (the thread then
 * runs on another CPU while the handler finishes), and a handler that is
 * still running when the GPU finishes the next kernel can pick that
 * completion up without a new interrupt (WAIT_COALESCED).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"

/* How far back from a wake-up to look for the handler that issued it. */
#define HANDLER_LOOKBACK	16

/* Index of the first element of a sorted sched array at or after ts. */
static size_t sched_lower_bound(const struct explain_sched *a, size_t n, uint64_t ts)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid].ts_ns < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The last wake-up of the thread inside [from, to]; NULL if none. */
static const struct explain_sched *last_wakeup(const struct explain_timeline *t, uint64_t from,
						uint64_t to)
{
	size_t i = sched_lower_bound(t->wakeups, t->nwakeups, to + 1);

	return i > 0 && t->wakeups[i - 1].ts_ns >= from ? &t->wakeups[i - 1] : NULL;
}

/*
 * The handler that woke the thread at ts: the latest one running at ts,
 * else the latest one entered since `after` (it woke it through deferred
 * work, after its exit). *inside says which.
 */
static const struct explain_irq *waking_handler(const struct explain_timeline *t, uint64_t ts,
						 uint64_t after, bool *inside)
{
	size_t lo = 0, hi = t->nirqs;

	while (lo < hi) {		/* first handler entered after ts */
		size_t mid = lo + (hi - lo) / 2;

		if (t->irqs[mid].entry_ns <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k > 0 && lo - k < HANDLER_LOOKBACK; k--)
		if (t->irqs[k - 1].exit_ns >= ts) {
			*inside = true;
			return &t->irqs[k - 1];
		}
	*inside = false;
	return lo > 0 && t->irqs[lo - 1].entry_ns >= after ? &t->irqs[lo - 1] : NULL;
}

/* Samples kept while attributing, turned into distributions at the end. */
struct fall_samples {
	double *step[STEPS], *total, *all, *handler, *after_wake, *to_switch, *from_switch,
	       *coalesced;
	size_t nstep, nall, nafter, nswitch, ncoalesced;
};

static bool samples_alloc(struct fall_samples *s, size_t n)
{
	double **all[] = { &s->step[0], &s->step[1], &s->step[2], &s->step[3], &s->total, &s->all,
			   &s->handler, &s->after_wake, &s->to_switch, &s->from_switch,
			   &s->coalesced };
	bool ok = true;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		ok &= (*all[i] = calloc(n ? n : 1, sizeof(double))) != NULL;
	return ok;
}

static void samples_free(struct fall_samples *s)
{
	for (int i = 0; i < STEPS; i++)
		free(s->step[i]);
	free(s->total);
	free(s->all);
	free(s->handler);
	free(s->after_wake);
	free(s->to_switch);
	free(s->from_switch);
	free(s->coalesced);
}

static double diff(uint64_t later, uint64_t earlier)
{
	return (double)(int64_t)(later - earlier);
}

/* One WAIT_INTERRUPT sample: the critical path and what runs beside it. */
static void add_interrupt(const struct explain_timeline *t, const struct explain_wait *w,
			  const struct explain_irq *h, uint64_t wake, struct fall_samples *s)
{
	uint64_t until = wake < h->exit_ns ? wake : h->exit_ns;
	size_t k = sched_lower_bound(t->switch_ins, t->nswitch_ins, wake);

	s->step[STEP_END_TO_ENTRY][s->nstep] = diff(h->entry_ns, w->gpu_end_ns);
	s->step[STEP_ENTRY_TO_WAKE][s->nstep] = diff(until, h->entry_ns);
	s->step[STEP_EXIT_TO_WAKE][s->nstep] = wake > h->exit_ns ? diff(wake, h->exit_ns) : 0;
	s->step[STEP_WAKE_TO_RETURN][s->nstep] = diff(w->return_ns, wake);
	s->total[s->nstep] = diff(w->return_ns, w->gpu_end_ns);
	s->handler[s->nstep++] = diff(h->exit_ns, h->entry_ns);
	if (wake <= h->exit_ns)
		s->after_wake[s->nafter++] = diff(h->exit_ns, wake);
	if (k < t->nswitch_ins && t->switch_ins[k].ts_ns <= w->return_ns) {
		s->to_switch[s->nswitch] = diff(t->switch_ins[k].ts_ns, wake);
		s->from_switch[s->nswitch++] = diff(w->return_ns, t->switch_ins[k].ts_ns);
	}
}

/* A cause-before-effect check of one wait: how far `effect` precedes GPU end beyond slack. */
static bool violates(struct explain_waterfall *out, uint64_t effect, uint64_t gpu_end,
		     uint64_t slack, size_t *which)
{
	int64_t early = (int64_t)(gpu_end - effect);

	if (effect + slack >= gpu_end)
		return false;
	(*which)++;
	if (early > out->worst_violation_ns)
		out->worst_violation_ns = early;
	return true;
}

static void check_causality(struct explain_waterfall *out, const struct explain_wait *w,
			    const struct explain_sched *wake, const struct explain_irq *h,
			    bool interrupt_path, uint64_t slack)
{
	bool bad = violates(out, w->return_ns, w->gpu_end_ns, slack, &out->violation_return);

	if (wake)
		bad |= violates(out, wake->ts_ns, w->gpu_end_ns, slack, &out->violation_wake);
	if (h && interrupt_path) {
		bad |= violates(out, h->entry_ns, w->gpu_end_ns, slack, &out->violation_entry);
		out->entry_within_bound += h->entry_ns < w->gpu_end_ns &&
					   h->entry_ns + slack >= w->gpu_end_ns;
	}
	out->causality_violations += bad;
}

void explain_waterfall(const struct explain_timeline *t, const struct explain_wait *w, size_t n,
		       double error_ns, struct explain_waterfall *out)
{
	uint64_t slack = error_ns > 0 ? (uint64_t)ceil(error_ns) : 0;
	struct fall_samples s;

	out->samples = n;
	out->clock_error_known = error_ns >= 0;
	out->clock_error_ns = error_ns > 0 ? error_ns : 0;
	out->causality_violations = out->violation_return = out->violation_wake = 0;
	out->violation_entry = out->entry_within_bound = 0;
	out->worst_violation_ns = 0;
	memset(out->count, 0, sizeof(out->count));
	if (!samples_alloc(&s, n)) {
		samples_free(&s);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct explain_sched *wake;
		const struct explain_irq *h;
		bool inside;

		if (!w[i].gpu_end_ns)
			continue;	/* no device clock: nothing to start from */
		s.all[s.nall++] = diff(w[i].return_ns, w[i].gpu_end_ns);
		wake = last_wakeup(t, w[i].launched_ns, w[i].return_ns);
		if (!wake) {
			out->count[WAIT_NOT_ASLEEP]++;
			check_causality(out, &w[i], NULL, NULL, false, slack);
			continue;
		}
		h = waking_handler(t, wake->ts_ns, w[i].gpu_end_ns - slack, &inside);
		check_causality(out, &w[i], wake, h, h && h->entry_ns + slack >= w[i].gpu_end_ns, slack);
		if (!h) {
			out->count[WAIT_OTHER_WAKER]++;
		} else if (h->entry_ns + slack < w[i].gpu_end_ns) {
			out->count[WAIT_COALESCED]++;
			s.coalesced[s.ncoalesced++] = diff(wake->ts_ns, w[i].gpu_end_ns);
		} else {
			out->count[WAIT_INTERRUPT]++;
			add_interrupt(t, &w[i], h, wake->ts_ns, &s);
		}
	}
	for (int k = 0; k < STEPS; k++)
		out->step[k] = explain_stat_of(s.step[k], s.nstep);
	out->end_to_return = explain_stat_of(s.total, s.nstep);
	out->all_end_to_return = explain_stat_of(s.all, s.nall);
	out->handler = explain_stat_of(s.handler, s.nstep);
	out->after_wake = explain_stat_of(s.after_wake, s.nafter);
	out->woken_inside = s.nafter;
	out->wake_to_switch = explain_stat_of(s.to_switch, s.nswitch);
	out->switch_to_return = explain_stat_of(s.from_switch, s.nswitch);
	out->coalesced_end_to_wake = explain_stat_of(s.coalesced, s.ncoalesced);
	samples_free(&s);
}
