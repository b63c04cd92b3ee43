// SPDX-License-Identifier: GPL-2.0
/*
 * Pairing host and guest events of a merged trace (passthrough.h).
 *
 * A guest interrupt's cause is the latest host interrupt (or KVM injection,
 * when the file has them) at or before it on the host clock, or, when an
 * earlier guest interrupt took that one, the next within the clock's error
 * bound: causes cannot come after their effects (beyond the bound), and
 * the device's interrupts reach the guest in order.  A host interrupt claimed by no guest one is
 * unpaired (coalesced, or lost on the way); a second guest interrupt after
 * the same host one is unpaired; a guest interrupt with no possible cause
 * before it is an order violation: the clock offset is wrong by more than
 * its bound, and the pairs are not to be trusted.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passthrough.h"

static int by_ts(const void *a, const void *b)
{
	const struct pt_event *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void sort_events(struct pt_array *a)
{
	qsort(a->e, a->n, sizeof(*a->e), by_ts);
}

static void map_guest(struct passthrough *pt, struct pt_array *a)
{
	for (uint32_t i = 0; i < a->n; i++)
		if (!pt->clock_exact || !tsc_guest_to_host(pt->tsc, a->e[i].raw, a->e[i].cpu, &a->e[i].ts))
			clock_guest_to_host(&pt->fit, a->e[i].raw, &a->e[i].ts);
	sort_events(a);
}

/* Every two causes further apart than twice the bound: the clock alone names each one's effect. */
static bool time_decides(const struct passthrough *pt, const struct pt_array *causes)
{
	for (uint32_t i = 1; i < causes->n; i++)
		if (causes->e[i].ts - causes->e[i - 1].ts <= 2 * pt->clock_error_ns)
			return false;
	return true;
}

static uint64_t later_minus(uint64_t later, uint64_t earlier)
{
	return later > earlier ? later - earlier : 0;
}

/* Each injection's host interrupt: the latest at or before it, of its irq when it names one. */
static void pair_injections(struct passthrough *pt)
{
	struct pt_array *h = &pt->host_irq, *k = &pt->inject;
	uint32_t hi = 0;

	for (uint32_t i = 0; i < k->n; i++) {
		while (hi < h->n && h->e[hi].ts <= k->e[i].ts)
			hi++;
		for (uint32_t back = hi; back > 0 && hi - back < 64; back--) {
			struct pt_event *c = &h->e[back - 1];

			if (k->e[i].irq && c->irq != k->e[i].irq)
				continue;
			/*
			 * Injected again with no host irq between: the entry that
			 * carried the first was cancelled and KVM injected once more
			 * (not every such path sets the reinjected flag); the last
			 * injection is the one that delivered it.
			 */
			if (c->next >= 0) {
				k->e[c->next].pair = -1;
				pt->injections_repeated++;
			}
			c->next = (int32_t)i;
			k->e[i].pair = (int32_t)(back - 1);
			break;
		}
	}
}

/* Whether a cause is taken: by an earlier guest interrupt (or an injection's host irq is). */
static bool claimed(const struct passthrough *pt, const struct pt_array *causes, uint32_t c)
{
	int32_t host = causes == &pt->inject ? causes->e[c].pair : (int32_t)c;

	if (causes == &pt->inject && causes->e[c].next >= 0)
		return true;
	return host < 0 || pt->host_irq.e[host].pair >= 0;
}

/*
 * Which cause a guest interrupt at ts has: the latest at or before it, when
 * no earlier guest interrupt took it; else the first after the last one
 * taken, if within the bound (the clock put the guest a little early).
 * -1: none; *violation when no cause at all comes before ts + bound.
 */
static int64_t find_cause(const struct passthrough *pt, const struct pt_array *causes,
			  uint32_t *c, int64_t last, uint64_t ts, bool *violation)
{
	uint64_t bound = pt->clock_error_ns;
	uint32_t next;

	*violation = false;
	while (*c < causes->n && causes->e[*c].ts <= ts)
		(*c)++;
	/* causes->e[*c - 1] is the latest at or before ts */
	if (*c > 0 && (int64_t)(*c - 1) > last && !claimed(pt, causes, *c - 1))
		return *c - 1;
	next = last + 1 > (int64_t)*c ? (uint32_t)(last + 1) : *c;
	if (next < causes->n && causes->e[next].ts <= ts + bound && !claimed(pt, causes, next))
		return next;
	*violation = *c == 0 && (!causes->n || causes->e[0].ts > ts + bound);
	return -1;
}

/* More than one cause within the bound around ts: which one it was, the clock cannot tell. */
static bool ambiguous(const struct passthrough *pt, const struct pt_array *causes, uint32_t k,
		      uint64_t ts)
{
	uint64_t bound = pt->clock_error_ns;

	return (k > 0 && causes->e[k - 1].ts + bound >= ts) ||
	       (k + 1 < causes->n && causes->e[k + 1].ts <= ts + bound);
}

/* Guest interrupt i came from cause k. */
static void pair_one(struct passthrough *pt, struct pt_array *causes, uint32_t i, uint32_t k)
{
	struct pt_array *g = &pt->guest_irq;
	int32_t host = causes == &pt->inject ? causes->e[k].pair : (int32_t)k;

	if (causes == &pt->inject)
		causes->e[k].next = (int32_t)i;
	pt->ambiguous += ambiguous(pt, causes, k, g->e[i].ts);
	pt->host_irq.e[host].pair = (int32_t)i;
	g->e[i].pair = host;
	g->e[i].next = causes == &pt->inject ? (int32_t)k : -1;
	pt->irq_paired++;
}

/*
 * A KVM injection is an entry into the guest's handler (reinjections are
 * not kept): when there are as many of the target's injections as guest
 * interrupts, each with a host interrupt, and none comes after its guest
 * interrupt beyond the bound, the i-th injection is the i-th guest
 * interrupt's cause, however much closer together they are than the
 * clock's error bound.  Only where rank means order of delivery: one
 * target vector, every guest interrupt on one vCPU (handlers on two vCPUs
 * may start in another order than their injections), and no record lost
 * on either side (a gap on each could balance the counts).  Otherwise the
 * clock decides, pair by pair (pair_guest).
 */
static bool pair_in_order(struct passthrough *pt, struct pt_array *causes)
{
	struct pt_array *g = &pt->guest_irq;
	uint64_t bound = pt->clock_error_ns;

	if (causes != &pt->inject || causes->n != g->n || !g->n ||
	    pt->ntarget_vectors != 1 || pt->lost_records || pt->dropped)
		return false;
	for (uint32_t i = 0; i < g->n; i++)
		if (causes->e[i].pair < 0 || causes->e[i].ts > g->e[i].ts + bound ||
		    g->e[i].cpu != g->e[0].cpu)
			return false;
	for (uint32_t i = 0; i < g->n; i++)
		pair_one(pt, causes, i, i);
	pt->paired_in_order = true;
	return true;
}

/* Each guest interrupt's cause among causes (host irqs, or injections), in order. */
static void pair_guest(struct passthrough *pt, struct pt_array *causes)
{
	struct pt_array *g = &pt->guest_irq;
	int64_t last = -1;
	uint32_t c = 0;

	pt->paired_by_time = time_decides(pt, causes);
	if (!pt->paired_by_time && pair_in_order(pt, causes)) {
		pt->irq_unpaired_host = pt->host_irq.n - pt->irq_paired;
		return;
	}
	for (uint32_t i = 0; i < g->n; i++) {
		bool violation;
		int64_t k = find_cause(pt, causes, &c, last, g->e[i].ts, &violation);

		if (k < 0) {
			/* none before it, or all taken: a second guest interrupt after one host interrupt */
			pt->order_violations += violation;
			pt->irq_unpaired_guest++;
			continue;
		}
		last = k;
		pair_one(pt, causes, i, (uint32_t)k);
	}
	pt->irq_unpaired_host = pt->host_irq.n - pt->irq_paired;
}

/* The handler's wake-up (PT_WAKE_SLACK_NS); NULL when none.  *wi: the first wake-up not before it. */
static const struct pt_event *wake_after(const struct pt_array *w, uint32_t *wi,
					 const struct pt_event *irq, uint64_t next_raw)
{
	uint64_t until = irq->raw + irq->duration + PT_WAKE_SLACK_NS;

	if (next_raw && next_raw < until)
		until = next_raw;
	while (*wi < w->n && w->e[*wi].raw < irq->raw)
		(*wi)++;
	return *wi < w->n && w->e[*wi].raw < until ? &w->e[*wi] : NULL;
}

static void stage_pairs(struct passthrough *pt)
{
	struct pt_array *h = &pt->host_irq, *g = &pt->guest_irq;
	uint32_t wi = 0, n = 0;

	pt->pairs = calloc(pt->irq_paired ? pt->irq_paired : 1, sizeof(*pt->pairs));
	for (uint32_t i = 0; i < g->n; i++) {
		const struct pt_event *ge = &g->e[i], *he;
		uint64_t next_raw = i + 1 < g->n ? g->e[i + 1].raw : 0;
		const struct pt_event *wake;
		struct pt_pair p = { 0 };

		wake = wake_after(&pt->guest_wake, &wi, ge, next_raw);
		if (ge->pair < 0)
			continue;
		he = &h->e[ge->pair];
		p.host_ts = he->ts;
		p.host_duration = he->duration;
		p.guest_ts = ge->ts;
		p.guest_duration = ge->duration;
		p.host_cpu = he->cpu;
		p.guest_cpu = ge->cpu;
		hist_add(&pt->host_handler_ns, he->duration);
		hist_add(&pt->guest_handler_ns, ge->duration);
		if (ge->ts < he->ts)
			pt->early_within_bound++;
		hist_add(&pt->host_to_guest_ns, later_minus(ge->ts, he->ts));
		if (ge->next >= 0) {	/* the injection it came through */
			p.inject_ts = pt->inject.e[ge->next].ts;
			p.vmm_pid = pt->inject.e[ge->next].pid;
			p.vcpu_tid = pt->inject.e[ge->next].tid;
			p.vector = pt->inject.e[ge->next].vector;
			pt->pairs_injected++;
			hist_add(&pt->host_to_inject_ns, later_minus(p.inject_ts, he->ts));
			hist_add(&pt->inject_to_guest_ns, later_minus(ge->ts, p.inject_ts));
		}
		if (wake) {
			p.wake_ts = ge->ts + (wake->raw - ge->raw);
			p.wake_pid = wake->pid;
			p.wake_tid = wake->tid;
			hist_add(&pt->guest_handler_to_wake_ns, wake->raw - ge->raw);
		}
		if (pt->pairs)
			pt->pairs[n++] = p;
	}
}

/* Each guest DMA map with the first unclaimed host IOMMU map inside it (within the bound). */
static void pair_maps(struct passthrough *pt)
{
	struct pt_array *g = &pt->guest_map, *h = &pt->host_map;
	uint64_t bound = pt->clock_error_ns;
	uint32_t lo = 0;

	for (uint32_t i = 0; i < g->n; i++) {
		uint64_t from = g->e[i].ts > bound ? g->e[i].ts - bound : 0;
		uint64_t to = g->e[i].ts + g->e[i].duration + bound;

		while (lo < h->n && h->e[lo].ts < from)
			lo++;
		for (uint32_t j = lo; j < h->n && h->e[j].ts <= to; j++) {
			if (h->e[j].pair >= 0)
				continue;
			h->e[j].pair = (int32_t)i;
			g->e[i].pair = (int32_t)j;
			pt->dma_paired++;
			hist_add(&pt->vfio_map_ns, later_minus(h->e[j].ts + h->e[j].duration, g->e[i].ts));
			break;
		}
	}
	pt->dma_unpaired_guest = g->n - pt->dma_paired;
}

void passthrough_pair_irqs(struct passthrough *pt)
{
	if (!pt->clock_exact)
		pt->clock_error_ns = pt->fit.error_ns;
	if (!pt->have_fit) {
		snprintf(pt->note, sizeof(pt->note),
			 "the guest's clock was never compared with the host's: nothing is paired");
		pt->irq_unpaired_host = pt->host_irq.n;
		pt->irq_unpaired_guest = pt->guest_irq.n;
		pt->dma_unpaired_guest = pt->guest_map.n;
		crossing_compute(&pt->crossing, pt);
		return;
	}
	sort_events(&pt->host_irq);
	sort_events(&pt->inject);
	sort_events(&pt->host_map);
	map_guest(pt, &pt->guest_irq);
	map_guest(pt, &pt->guest_wake);
	map_guest(pt, &pt->guest_map);
	if (pt->inject.n)
		pair_injections(pt);
	pair_guest(pt, pt->inject.n ? &pt->inject : &pt->host_irq);
	stage_pairs(pt);
	pair_maps(pt);
	hostpath_fill_pairs(pt);
	crossing_compute(&pt->crossing, pt);
	if (pt->order_violations)
		snprintf(pt->note, sizeof(pt->note),
			 "%llu guest interrupts came before any host interrupt that could have caused them: the clock offset is wrong by more than its bound, do not trust these pairs",
			 (unsigned long long)pt->order_violations);
	else if (pt->paired_in_order)
		snprintf(pt->note, sizeof(pt->note),
			 "paired in order: each KVM injection with the guest interrupt of the same rank (as many of each, one vector, one vCPU, no record lost); %llu pairs had another interrupt within the clock error bound",
			 (unsigned long long)pt->ambiguous);
	else if (pt->ambiguous)
		snprintf(pt->note, sizeof(pt->note),
			 "%llu pairs had another interrupt within the clock error bound: the bound is wider than the interrupts' spacing, those pairs are by order alone",
			 (unsigned long long)pt->ambiguous);
}
