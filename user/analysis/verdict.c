// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict (verdict.h): the report's own totals, put side by side as
 * shares of one wall time.  Nothing here is measured anew; what the trace
 * cannot tell is listed with the reason, never shown as 0.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "util.h"
#include "verdict.h"

double verdict_percent(const struct verdict *v, uint64_t ns)
{
	return v->wall_ns ? 100.0 * (double)ns / (double)v->wall_ns : 0.0;
}

static struct verdict_item *item_new(struct verdict *v, const char *key, const char *prefix,
				     const char *what)
{
	struct verdict_item *it;

	if (v->nitems == VERDICT_MAX_ITEMS)
		return NULL;
	it = &v->items[v->nitems++];
	memset(it, 0, sizeof(*it));
	it->key = key;
	snprintf(it->what, sizeof(it->what), "%s%s", prefix, what);
	return it;
}

static void item_time(struct verdict_item *it, uint64_t ns, uint64_t events)
{
	it->measured = true;
	it->ns = ns;
	it->events = events;
}

/* Handler time of a machine's target vectors: the sums of the histograms the body prints. */
static void add_handlers(struct verdict *v, const struct agg *a, const char *key,
			 const char *prefix)
{
	struct verdict_item *it = item_new(v, key, prefix, "interrupt handlers");
	uint64_t ns = 0, runs = 0, irqs = 0;

	if (!it)
		return;
	for (unsigned int i = 0; i < a->nvectors; i++) {
		const struct agg_vector *x = &a->vectors[i];

		if (x->bdf == GPUPROBE_BDF_NONE)
			continue;
		ns += x->handler_ns->sum;
		runs += x->handler_ns->count;
		irqs += x->count;
	}
	if (irqs && !runs) {
		snprintf(it->detail, sizeof(it->detail),
			 "%" PRIu64 " interrupts, none with an exit time: handler time unknown", irqs);
		return;
	}
	item_time(it, ns, runs);
	snprintf(it->detail, sizeof(it->detail), "%" PRIu64 " handler runs (the vectors' handler time totals)",
		 runs);
}

struct mapping {
	uint64_t dma_calls, dma_timed, dma_ns, iommu_inside_ns;
	uint64_t iommu_calls, iommu_timed, iommu_ns;
};

static void iommu_into(struct mapping *m, const struct agg_iommu_op *io)
{
	for (unsigned int op = GPUPROBE_IOMMU_MAP; op <= GPUPROBE_IOMMU_UNMAP; op++) {
		if (!io[op].count || !io[op].time_ns)	/* allocated with the first record */
			continue;
		m->iommu_calls += io[op].count;
		m->iommu_timed += io[op].time_ns->count;
		m->iommu_ns += io[op].time_ns->sum;
	}
}

static void mapping_of(const struct agg *a, struct mapping *m)
{
	memset(m, 0, sizeof(*m));
	for (unsigned int i = 0; i < a->ntargets; i++) {
		const struct agg_target *t = &a->targets[i];

		if (t->bdf == GPUPROBE_BDF_NONE)
			continue;	/* naming no device: maybe none of ours */
		for (unsigned int op = 0; op < AGG_DMA_OPS; op++) {
			const struct agg_dma_op *d = t->dma[op];

			if (!d)
				continue;
			m->dma_calls += d->calls;
			m->dma_timed += d->latency_ns.count;
			m->dma_ns += d->latency_ns.sum;
			m->iommu_inside_ns += d->iommu_ns;
		}
		iommu_into(m, t->iommu);
	}
	for (unsigned int i = 0; i < a->ndomains; i++)
		if (a->domains[i].shared)
			iommu_into(m, a->domains[i].iommu);
}

static const char *untimed_why(const struct agg *a)
{
	return a->info->source == TRACE_SOURCE_TRACEFS ?
	       "tracefs dma: and iommu: events are instants (the module times them: record --source module)" :
	       "the DMA and IOMMU records carry no duration";
}

/*
 * DMA API call time plus the IOMMU time outside those calls: the module
 * counts the IOMMU work done inside a DMA call in the call too ("N IOMMU
 * calls (X ns)" in the body), and it must not count twice.
 */
static void add_mapping(struct verdict *v, const struct agg *a, const char *key,
			const char *prefix)
{
	struct verdict_item *it = item_new(v, key, prefix, "DMA/IOMMU mapping");
	struct mapping m;
	uint64_t outside;
	char dma[FORMAT_NS_LEN], io[FORMAT_NS_LEN], in[FORMAT_NS_LEN], inside[64] = "";

	if (!it)
		return;
	mapping_of(a, &m);
	if (!m.dma_timed && !m.iommu_timed && (m.dma_calls || m.iommu_calls)) {
		snprintf(it->detail, sizeof(it->detail), "%" PRIu64 " DMA API and %" PRIu64 " IOMMU calls, none timed: %s",
			 m.dma_calls, m.iommu_calls, untimed_why(a));
		return;
	}
	outside = m.iommu_ns > m.iommu_inside_ns ? m.iommu_ns - m.iommu_inside_ns : 0;
	item_time(it, m.dma_ns + outside, m.dma_timed + m.iommu_timed);
	if (m.iommu_inside_ns)
		snprintf(inside, sizeof(inside), ", %s of it inside the DMA calls",
			 format_ns(in, sizeof(in), (double)m.iommu_inside_ns));
	format_ns(dma, sizeof(dma), (double)m.dma_ns);
	format_ns(io, sizeof(io), (double)m.iommu_ns);
	if (!m.iommu_calls)
		snprintf(it->detail, sizeof(it->detail), "DMA API calls (%" PRIu64 " of %" PRIu64 " timed), no IOMMU record",
			 m.dma_timed, m.dma_calls);
	else if (!m.dma_calls)
		snprintf(it->detail, sizeof(it->detail), "IOMMU map/unmap (%" PRIu64 " calls), no DMA API call",
			 m.iommu_calls);
	else
		snprintf(it->detail, sizeof(it->detail),
			 "DMA API calls %s (%" PRIu64 " of %" PRIu64 " timed) + IOMMU map/unmap %s (%" PRIu64 " calls%s)",
			 dma, m.dma_timed, m.dma_calls, io, m.iommu_calls, inside);
}

/* Mapping without an IOMMU record: no IOMMU translated it (or none was traced). */
static void add_iommu_absent(struct verdict *v, const struct agg *a, const char *prefix)
{
	struct verdict_item *it;
	struct mapping m;

	mapping_of(a, &m);
	if (!m.dma_calls || m.iommu_calls)
		return;
	it = item_new(v, "iommu", prefix, "IOMMU work");
	if (it)
		snprintf(it->detail, sizeof(it->detail),
			 "no IOMMU map record among %" PRIu64 " DMA API calls: no translating IOMMU for the device (none, or identity mode), or its calls were not traced",
			 m.dma_calls);
}

static void add_bounces(struct verdict *v, const struct agg *a, const char *prefix)
{
	struct verdict_item *it = item_new(v, "bounces", prefix, "swiotlb bounces");
	uint64_t n = 0, bytes = 0;

	if (!it)
		return;
	for (unsigned int i = 0; i < a->ntargets; i++) {
		n += a->targets[i].swiotlb_bounces;
		bytes += a->targets[i].swiotlb_bytes;
	}
	it->events = n;
	snprintf(it->detail, sizeof(it->detail),
		 "%" PRIu64 " bounces (%" PRIu64 " bytes) recorded, their time not: bounce records carry no duration",
		 n, bytes);
}

static void add_app(struct verdict *v, const struct agg *a, const struct attribution *at)
{
	struct verdict_item *w = item_new(v, "interrupt_path_waits", "", "waits that saw an interrupt");
	struct verdict_item *c;

	if (!w)
		return;
	if (!at) {
		snprintf(w->detail, sizeof(w->detail), "%s",
			 a->info->app_events == TRACEFILE_APP_EXPECTED ?
			 "the CUDA/OpenCL library was injected but recorded no event" :
			 "no CUDA/OpenCL events in the trace (record the workload: record -- CMD)");
		return;
	}
	item_time(w, at->sum.irq_wait_ns, at->sum.irq_waits);
	w->holds_others = true;
	snprintf(w->detail, sizeof(w->detail),
		 "the \"interrupt path\": device end -> call return in %" PRIu64 " of %" PRIu64 " waits",
		 at->sum.irq_waits, at->sum.waits);
	if (!at->sum.api_calls_with_maps)
		return;		/* the mapping line says it all */
	c = item_new(v, "calls_that_mapped", "", "API calls that mapped");
	if (!c)
		return;
	item_time(c, at->sum.api_ns_with_maps, at->sum.api_calls_with_maps);
	c->holds_others = true;
	snprintf(c->detail, sizeof(c->detail),
		 "%" PRIu64 " CUDA/OpenCL calls during which a DMA map happened, whole calls",
		 at->sum.api_calls_with_maps);
}

/* Host handler entry -> guest handler entry, summed over the pairs, by stage. */
static void add_crossing(struct verdict *v, const struct passthrough *pt)
{
	struct verdict_item *it = item_new(v, "host_to_guest", "", "host -> guest crossing");
	const struct { const char *name; const struct hist *h; } st[] = {
		{ "host handler -> KVM injection", &pt->host_to_inject_ns },
		{ "KVM injection -> guest handler", &pt->inject_to_guest_ns },
		{ "host handler -> guest handler", &pt->host_to_guest_ns },
	};
	unsigned int from = pt->host_to_inject_ns.count ? 0 : 2, to = from ? 3 : 2;
	uint64_t ns = 0, best = 0;

	if (!it)
		return;
	if (!pt->irq_paired || !st[from].h->count) {
		snprintf(it->detail, sizeof(it->detail), "no host interrupt paired with a guest one%s%.150s",
			 pt->note[0] ? ": " : "", pt->note);
		return;
	}
	for (unsigned int i = from; i < to; i++) {
		ns += st[i].h->sum;
		if (st[i].h->sum >= best) {
			best = st[i].h->sum;
			copy_string(v->crossing_stage, sizeof(v->crossing_stage), st[i].name);
		}
	}
	v->crossing_stage_ns = best;
	item_time(it, ns, st[from].h->count);
	snprintf(it->detail, sizeof(it->detail), "host handler entry -> guest handler entry, %" PRIu64 " pairs (the stage totals)",
		 st[from].h->count);
}

static void add_guest_wake(struct verdict *v, const struct passthrough *pt)
{
	struct verdict_item *it = item_new(v, "guest_handler_to_wake", "guest ",
					   "handler -> thread wake");

	if (!it)
		return;
	if (!pt->guest_handler_to_wake_ns.count) {
		snprintf(it->detail, sizeof(it->detail), "no wake-up of the guest workload after a paired interrupt");
		return;
	}
	item_time(it, pt->guest_handler_to_wake_ns.sum, pt->guest_handler_to_wake_ns.count);
	snprintf(it->detail, sizeof(it->detail), "%" PRIu64 " paired interrupts that woke the guest workload",
		 pt->guest_handler_to_wake_ns.count);
}

static void add_not_measured(struct verdict *v, const char *key, const char *what, const char *why)
{
	struct verdict_item *it = item_new(v, key, "", what);

	if (it)
		copy_string(it->detail, sizeof(it->detail), why);
}

/* x before y: measured ones first, by time, largest first; the rest as they came. */
static bool item_before(const struct verdict_item *x, const struct verdict_item *y)
{
	if (x->measured != y->measured)
		return x->measured;
	return x->measured && x->ns > y->ns;
}

/* Stable: items of the same time keep the order they were added in. */
static void items_sort(struct verdict *v)
{
	for (unsigned int i = 1; i < v->nitems; i++) {
		struct verdict_item it = v->items[i];
		unsigned int k = i;

		for (; k > 0 && item_before(&it, &v->items[k - 1]); k--)
			v->items[k] = v->items[k - 1];
		v->items[k] = it;
	}
}

static void pid_add(struct verdict *v, uint32_t pid)
{
	for (unsigned int k = 0; k < v->npids; k++)
		if (v->pids[k] == pid)
			return;
	if (pid && v->npids < VERDICT_MAX_PIDS)
		v->pids[v->npids++] = pid;
}

static void workload_of(struct verdict *v, const struct agg *a, const struct attribution *at,
			const struct passthrough *pt)
{
	v->exit_status = a->exit_status;
	if (pt && pt->merged && pt->guest && pt->guest->exit_status >= 0 && v->exit_status < 0)
		v->exit_status = pt->guest->exit_status;	/* --guest-command's */
	v->command = &a->command;
	v->command_of = a->command.present ? "host" : NULL;
	if (!a->command.present && pt && pt->merged && pt->guest_agg &&
	    pt->guest_agg->command.present) {
		v->command = &pt->guest_agg->command;	/* sh -c --guest-command */
		v->command_of = "guest";
	}
	if (!at)
		return;
	v->app_ops = at->nops;
	/* the processes that named a device, else those whose ops ran */
	for (size_t i = 0; i < at->ndevices; i++)
		pid_add(v, at->devices[i].pid);
	for (size_t i = 0; i < at->nops && !at->ndevices && v->npids < VERDICT_MAX_PIDS; i++)
		pid_add(v, at->ops[i].ev.pid);
}

void verdict_build(struct verdict *v, const struct agg *a, const struct attribution *at,
		   const struct passthrough *pt, uint64_t wall_ns)
{
	bool merged = pt && pt->merged && pt->guest_agg;

	memset(v, 0, sizeof(*v));
	v->wall_ns = wall_ns;
	v->merged = merged;
	v->wall_of = merged ? "the host's recording" : "the recording";
	v->lost = a->lost + (merged ? pt->guest_agg->lost : 0);
	v->damaged = a->damaged;
	v->skipped = a->skipped_records;
	v->skipped_exact = a->skipped_exact;
	v->lower_bound = v->lost || a->lost_reports || !a->complete || a->damaged;
	workload_of(v, a, at, pt);

	add_handlers(v, a, "interrupt_handlers", merged ? "host " : "");
	add_mapping(v, a, "mapping", merged ? "host " : "");
	if (merged) {
		add_crossing(v, pt);
		add_handlers(v, pt->guest_agg, "guest_interrupt_handlers", "guest ");
		add_guest_wake(v, pt);
		add_mapping(v, pt->guest_agg, "guest_mapping", "guest ");
	}
	add_app(v, a, at);
	add_bounces(v, a, merged ? "host " : "");
	if (merged)
		add_bounces(v, pt->guest_agg, "guest ");
	else
		add_not_measured(v, "host_to_guest", "host -> guest crossing",
				 "a single machine's trace (record --guest on the host merges host and guest)");
	add_iommu_absent(v, a, merged ? "host " : "");
	if (merged && !pt->dma_paired)	/* guest maps that caused host ones went through a vIOMMU */
		add_iommu_absent(v, pt->guest_agg, "guest ");
	add_not_measured(v, "tracing_cost", "tracing's own cost",
			 "estimated only, in the tracing-cost line below (records x a measured per-record cost, CUPTI's overhead records); to measure it, compare a traced and an untraced run (gpuprobe-trace compare)");

	items_sort(v);
	v->largest = -1;
	for (unsigned int i = 0; i < v->nitems; i++) {
		if (!v->items[i].measured)
			continue;
		v->nmeasured++;
		if (v->largest < 0 && v->items[i].ns)
			v->largest = (int)i;
	}
}
