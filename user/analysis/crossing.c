// SPDX-License-Identifier: GPL-2.0
/*
 * The crossing's stages per interrupt, from the pairs (crossing.h).  The
 * histograms of passthrough.h keep 64 sub-buckets a power of two: their
 * p99 can be 1/64 low.  Here each stage's values are sorted, so p50, p99
 * and max are values some interrupt had.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crossing.h"
#include "format.h"
#include "passthrough.h"
#include "stats.h"

static const struct {
	const char *name, *key;
	bool crosses;
} stage_desc[CROSS_STAGES] = {
	[CROSS_HOST_HANDLER] = { "host handler (vfio-msi)", "host_handler", false },
	[CROSS_HOST_TO_IRQFD] = { "host handler -> irqfd (KVM MSI)", "host_to_irqfd", false },
	[CROSS_IRQFD_TO_INJECT] = { "irqfd -> KVM injection", "irqfd_to_inject", false },
	[CROSS_HOST_TO_INJECT] = { "host handler -> KVM injection", "host_to_inject", false },
	[CROSS_INJECT_TO_ENTRY] = { "KVM injection -> VM entry", "inject_to_entry", false },
	[CROSS_ENTRY_TO_GUEST] = { "VM entry -> guest handler", "entry_to_guest", true },
	[CROSS_INJECT_TO_GUEST] = { "KVM injection -> guest handler", "inject_to_guest", true },
	[CROSS_HOST_TO_GUEST] = { "host handler -> guest handler", "host_to_guest", true },
	[CROSS_GUEST_HANDLER] = { "guest handler", "guest_handler", false },
	[CROSS_GUEST_TO_EOI] = { "guest handler -> EOI in KVM", "guest_to_eoi", true },
	[CROSS_GUEST_TO_WAKE] = { "guest handler -> thread wake", "guest_handler_to_wake", false },
	[CROSS_HOST_TO_WAKE] = { "host handler -> thread wake", "host_to_wake", true },
};

uint64_t crossing_percentile(const uint64_t *sorted, uint64_t n, double pct)
{
	return sorted[nearest_rank(pct, n) - 1];
}

/* later - earlier; a step before the one it follows is 0 and counted in *neg (crossing_stage.negative) */
static uint64_t later_minus_at(uint64_t later, uint64_t earlier, bool *neg)
{
	*neg = later < earlier;
	return later > earlier ? later - earlier : 0;
}

/* Stage s of pair p; false when that pair has no such stage; *neg: it came out negative. */
static bool stage_value(const struct pt_pair *p, unsigned int s, uint64_t *v, bool *neg)
{
	*neg = false;
	switch (s) {
	case CROSS_HOST_HANDLER:
		*v = p->host_duration;
		return true;
	case CROSS_HOST_TO_IRQFD:
		*v = later_minus_at(p->irqfd_ts, p->host_ts, neg);
		return p->irqfd_ts != 0;
	case CROSS_IRQFD_TO_INJECT:
		*v = later_minus_at(p->inject_ts, p->irqfd_ts, neg);
		return p->irqfd_ts && p->inject_ts;
	case CROSS_INJECT_TO_ENTRY:
		*v = later_minus_at(p->entry_ts, p->inject_ts, neg);
		return p->entry_ts != 0;
	case CROSS_ENTRY_TO_GUEST:
		*v = later_minus_at(p->guest_ts, p->entry_ts, neg);
		return p->entry_ts != 0;
	case CROSS_GUEST_TO_EOI:
		*v = later_minus_at(p->eoi_exit_ts, p->guest_ts, neg);
		return p->eoi_exit_ts != 0;
	case CROSS_HOST_TO_INJECT:
		*v = later_minus_at(p->inject_ts, p->host_ts, neg);
		return p->inject_ts != 0;
	case CROSS_INJECT_TO_GUEST:
		*v = later_minus_at(p->guest_ts, p->inject_ts, neg);
		return p->inject_ts != 0;
	case CROSS_HOST_TO_GUEST:
		*v = later_minus_at(p->guest_ts, p->host_ts, neg);
		return true;
	case CROSS_GUEST_HANDLER:
		*v = p->guest_duration;
		return true;
	case CROSS_GUEST_TO_WAKE:
		*v = later_minus_at(p->wake_ts, p->guest_ts, neg);
		return p->wake_ts != 0;
	case CROSS_HOST_TO_WAKE:
		*v = later_minus_at(p->wake_ts, p->host_ts, neg);
		return p->wake_ts != 0;
	}
	return false;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool complete(const struct crossing *c, const struct pt_pair *p)
{
	if (c->through_host_path)
		return p->wake_ts && p->irqfd_ts && p->inject_ts && p->entry_ts;
	return p->wake_ts && (!c->through_injection || p->inject_ts);
}

/* One stage's figures over the pairs; values: room for every pair. */
static void measure(struct crossing *c, const struct passthrough *pt, unsigned int s,
		    uint64_t *values)
{
	struct crossing_stage *st = &c->stage[s];
	uint64_t n = 0, v;
	bool neg;

	for (uint64_t i = 0; i < c->pairs; i++) {
		if (!stage_value(&pt->pairs[i], s, &v, &neg))
			continue;
		st->negative += neg;
		values[n++] = v;
		st->sum += v;
		if (complete(c, &pt->pairs[i]))
			st->chain_sum += v;
	}
	st->count = n;
	if (!n)
		return;
	qsort(values, n, sizeof(*values), by_value);
	st->min = values[0];
	st->p50 = crossing_percentile(values, n, 50);
	st->p99 = crossing_percentile(values, n, 99);
	st->max = values[n - 1];
}

static void add_warning(struct crossing *c, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add_warning(struct crossing *c, const char *kind, const char *fmt, ...)
{
	struct crossing_warning *w;
	va_list ap;

	if (c->nwarnings == CROSSING_MAX_WARNINGS)
		return;
	w = &c->warning[c->nwarnings++];
	w->kind = kind;
	va_start(ap, fmt);
	vsnprintf(w->text, sizeof(w->text), fmt, ap);
	va_end(ap);
}

static void clock_warnings(struct crossing *c, const struct passthrough *pt)
{
	const struct tsc_clock *t = pt->tsc;
	char b[FORMAT_NS_LEN];

	if (!t)
		return;
	if (t->host_capped || t->guest_capped || t->kvm_capped)
		add_warning(c, "tsc_samples_capped",
			    "%u host and %u guest TSC samples beyond the %u kept per side, and %u KVM offset records beyond %u, were not used: guest times after the last kept one are extrapolated, not within the bound +-%s",
			    t->host_capped, t->guest_capped, TSC_MAX_SAMPLES, t->kvm_capped, TSC_MAX_KVM,
			    format_ns(b, sizeof(b), (double)t->error_ns));
	if (pt->clock_exact && t->unsampled)
		add_warning(c, "tsc_unsampled",
			    "%" PRIu64 " guest times fell under a TSC offset no guest sample was read under: not exact",
			    t->unsampled);
}

/*
 * A step that comes out before the one it follows (a stage < 0) is taken as
 * 0 in the figures: said, with how many, since it means the clock or the
 * pairing is wrong by more than the stage (a crossing stage: by more than
 * the bound).  Except the EOI: x86 acks an edge interrupt's local APIC
 * before it runs the handler (handle_edge_irq: irq_ack, then the handler),
 * so an EOI that exits (x2APIC MSR) comes before the handler's entry; a PV
 * EOI is seen at a later exit.  Those are counted (stages[].negative) and
 * said on the EOI line, not warned of.  And KVM steps the host path could
 * not keep.
 */
static void stage_warnings(struct crossing *c)
{
	char list[200] = "";
	size_t len = 0;
	uint64_t total = 0;

	for (unsigned int s = 0; s < CROSS_STAGES; s++) {
		const struct crossing_stage *st = &c->stage[s];

		if (!st->negative || s == CROSS_GUEST_TO_EOI)
			continue;
		total += st->negative;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s %" PRIu64,
						len ? ", " : "", st->key, st->negative);
	}
	if (total)
		add_warning(c, "negative_stages",
			    "%" PRIu64 " stage values came out negative and were taken as 0 (%s): a step before the one it follows, so the clock or the pairing is wrong there by more than the stage",
			    total, list);
	if (c->path.dropped)
		add_warning(c, "host_path_dropped",
			    "%" PRIu64 " KVM steps of the host path beyond the %u kept (or out of memory) were not used: the stages after them may be missing or wrong",
			    c->path.dropped, HOSTPATH_MAX_EVENTS);
}

static void write_verdict(struct crossing *c, uint64_t order_violations)
{
	const struct crossing_stage *st;
	char p50[FORMAT_NS_LEN], bound[FORMAT_NS_LEN];

	if (!c->pairs) {
		snprintf(c->verdict, sizeof(c->verdict), "not measured: no host interrupt paired with a guest one");
		return;
	}
	if (c->largest < 0) {
		snprintf(c->verdict, sizeof(c->verdict),
			 "no share: none of the %" PRIu64 " pairs has every stage (%" PRIu64 " with a wake-up%s)",
			 c->pairs, c->stage[CROSS_GUEST_TO_WAKE].count,
			 c->through_injection ? ", or without its KVM injection" : "");
		return;
	}
	st = &c->stage[c->largest];
	format_ns(p50, sizeof(p50), (double)st->p50);
	format_ns(bound, sizeof(bound), (double)c->clock_error_ns);
	snprintf(c->verdict, sizeof(c->verdict),
		 "the host -> guest time goes to %s: %.1f%% of host handler entry -> guest thread wake over %" PRIu64 " interrupts with every stage (p50 %s%s%s%s)",
		 st->name, st->share_pct, c->complete_pairs, p50,
		 st->crosses ? " +-" : "", st->crosses ? bound : "",
		 !st->crosses ? "" : st->p50 <= c->clock_error_ns ?
		 ": the clock; its p50 is inside the bound, not resolved" : ": the clock");
	if (order_violations) {
		char said[sizeof(c->verdict)];

		memcpy(said, c->verdict, sizeof(said));
		snprintf(c->verdict, sizeof(c->verdict), "NOT TO BE TRUSTED (%" PRIu64 " order violations: the clock is wrong): %.230s",
			 order_violations, said);
	}
}

void crossing_compute(struct crossing *c, const struct passthrough *pt)
{
	uint64_t *values, chain = 0, best = 0;

	memset(c, 0, sizeof(*c));
	c->largest = -1;
	c->pairs = pt->pairs ? pt->irq_paired : 0;
	c->measured = c->pairs > 0;
	c->clock_error_ns = pt->clock_error_ns;
	for (uint64_t i = 0; i < c->pairs; i++) {
		c->through_injection |= pt->pairs[i].inject_ts != 0;
		c->through_host_path |= pt->pairs[i].irqfd_ts && pt->pairs[i].entry_ts;
	}
	for (unsigned int s = 0; s < CROSS_STAGES; s++) {
		c->stage[s].name = stage_desc[s].name;
		c->stage[s].key = stage_desc[s].key;
		c->stage[s].crosses = stage_desc[s].crosses;
	}
	c->stage[CROSS_GUEST_TO_WAKE].in_chain = true;
	if (c->through_host_path) {	/* the injection's half split in its steps */
		c->stage[CROSS_HOST_TO_IRQFD].in_chain = true;
		c->stage[CROSS_IRQFD_TO_INJECT].in_chain = true;
		c->stage[CROSS_INJECT_TO_ENTRY].in_chain = true;
		c->stage[CROSS_ENTRY_TO_GUEST].in_chain = true;
	} else {
		c->stage[CROSS_HOST_TO_INJECT].in_chain = c->through_injection;
		c->stage[CROSS_INJECT_TO_GUEST].in_chain = c->through_injection;
		c->stage[CROSS_HOST_TO_GUEST].in_chain = !c->through_injection;
	}
	hostpath_summarize(&c->path, pt);
	clock_warnings(c, pt);
	values = malloc((c->pairs ? c->pairs : 1) * sizeof(*values));
	if (!values) {
		c->pairs = 0;
		write_verdict(c, pt->order_violations);
		return;
	}
	for (uint64_t i = 0; i < c->pairs; i++)
		c->complete_pairs += complete(c, &pt->pairs[i]);
	for (unsigned int s = 0; s < CROSS_STAGES; s++)
		measure(c, pt, s, values);
	free(values);
	stage_warnings(c);
	for (unsigned int s = 0; s < CROSS_STAGES; s++)
		if (c->stage[s].in_chain)
			chain += c->stage[s].chain_sum;
	for (unsigned int s = 0; s < CROSS_STAGES && c->complete_pairs; s++) {
		struct crossing_stage *st = &c->stage[s];

		if (!st->in_chain)
			continue;
		st->share_pct = chain ? 100.0 * (double)st->chain_sum / (double)chain : 0;
		if (c->largest < 0 || st->chain_sum > best) {
			best = st->chain_sum;
			c->largest = (int)s;
		}
	}
	write_verdict(c, pt->order_violations);
}
