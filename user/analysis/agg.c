// SPDX-License-Identifier: GPL-2.0
/* Streaming aggregation of records: the arithmetic behind `report`. */
#include <stdlib.h>
#include <string.h>

#include "agg.h"

static const char *const dma_op_names[AGG_DMA_OPS] = {
	[GPUPROBE_DMA_MAP_PAGE] = "map_page",
	[GPUPROBE_DMA_UNMAP_PAGE] = "unmap_page",
	[GPUPROBE_DMA_MAP_SG] = "map_sg",
	[GPUPROBE_DMA_UNMAP_SG] = "unmap_sg",
	[GPUPROBE_DMA_ALLOC] = "alloc",
	[GPUPROBE_DMA_FREE] = "free",
	[GPUPROBE_DMA_MAP_RESOURCE] = "map_resource",
	[GPUPROBE_DMA_UNMAP_RESOURCE] = "unmap_resource",
};

const char *dma_op_name(unsigned int op)
{
	return op < AGG_DMA_OPS && dma_op_names[op] ? dma_op_names[op] : "unknown";
}

const char *iommu_op_name(unsigned int op)
{
	switch (op) {
	case GPUPROBE_IOMMU_MAP:	return "map";
	case GPUPROBE_IOMMU_UNMAP:	return "unmap";
	case GPUPROBE_IOMMU_FAULT:	return "fault";
	default:			return "unknown";
	}
}

static struct agg_target *find_target(struct agg *a, uint32_t bdf)
{
	struct agg_target *t;

	for (unsigned int i = 0; i < a->ntargets; i++)
		if (a->targets[i].bdf == bdf)
			return &a->targets[i];
	if (a->ntargets >= AGG_MAX_TARGETS)
		return NULL;
	t = &a->targets[a->ntargets++];
	memset(t, 0, sizeof(*t));
	t->bdf = bdf;
	t->header_index = -1;
	return t;
}

static unsigned int vector_hash(uint32_t bdf, uint32_t irq)
{
	return ((irq * 2654435761u) ^ (bdf * 40503u)) & (AGG_VECTOR_SLOTS - 1);
}

static struct agg_vector *add_vector(struct agg *a, uint32_t bdf, uint32_t irq,
				     unsigned int slot)
{
	struct agg_vector *v;

	if (a->nvectors >= AGG_MAX_VECTORS || !find_target(a, bdf))
		return NULL;
	v = &a->vectors[a->nvectors];
	memset(v, 0, sizeof(*v));
	v->bdf = bdf;
	v->irq = irq;
	v->index = irq;
	v->handler_ns = calloc(1, sizeof(*v->handler_ns));
	if (!v->handler_ns)
		return NULL;
	a->vector_slot[slot] = (uint16_t)++a->nvectors;
	return v;
}

static struct agg_vector *find_vector(struct agg *a, uint32_t bdf, uint32_t irq)
{
	unsigned int slot = vector_hash(bdf, irq);

	for (unsigned int probes = 0; probes < AGG_VECTOR_SLOTS; probes++) {
		uint16_t idx = a->vector_slot[slot];
		struct agg_vector *v;

		if (!idx)
			return add_vector(a, bdf, irq, slot);
		v = &a->vectors[idx - 1];
		if (v->bdf == bdf && v->irq == irq)
			return v;
		slot = (slot + 1) & (AGG_VECTOR_SLOTS - 1);
	}
	return NULL;
}

static void seed_from_header(struct agg *a)
{
	const struct target_set *set = &a->info->targets;

	for (unsigned int i = 0; i < set->count; i++) {
		const struct target *t = &set->t[i];
		struct agg_target *at = find_target(a, t->bdf);

		if (at && at->header_index < 0)
			at->header_index = (int)i;
		for (uint32_t j = 0; j < t->nvec; j++) {
			struct agg_vector *v = find_vector(a, t->bdf, t->vec[j].irq);

			if (!v)
				continue;
			v->index = t->vec[j].index;
			v->flags = t->vec[j].flags;
			v->in_header = true;
		}
	}
}

struct agg *agg_new(const struct trace_info *info)
{
	struct agg *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->info = info;
	a->exit_status = -1;
	a->parts = iommu_parts_new();
	if (!a->parts) {
		free(a);
		return NULL;
	}
	seed_from_header(a);
	return a;
}

static bool in_count_window(const struct agg_vector *v, uint64_t ts)
{
	return v->have_kstart && ts >= v->kstart_ts &&
	       (!v->have_kstop || ts <= v->kstop_ts);
}

static void add_irq(struct agg *a, const struct gpuprobe_rec_irq *r)
{
	struct agg_vector *v = find_vector(a, r->bdf, r->irq);

	if (!v) {
		a->overflow++;
		return;
	}
	if (!v->in_header && !v->resolved_late && !v->count)
		v->index = r->vector;	/* the source's own index for it */
	if (!v->count)
		v->first_ts = r->hdr.ts_ns;
	v->last_ts = r->hdr.ts_ns;
	v->count++;
	if (r->hdr.flags & GPUPROBE_IRQ_HANDLED)
		v->handled++;
	if (r->hdr.flags & TRACEFILE_IRQ_NO_EXIT)
		v->no_exit++;
	else
		hist_add(v->handler_ns, r->duration_ns);
	if (in_count_window(v, r->hdr.ts_ns))
		v->in_window++;
}

static void add_irq_count(struct agg *a, const struct tracefile_rec_irq_count *r)
{
	struct agg_vector *v = find_vector(a, r->bdf, r->irq);

	if (!v) {
		a->overflow++;
		return;
	}
	if (r->phase == IRQ_COUNT_START) {
		v->have_kstart = true;
		v->kstart = r->count;
		v->kstart_ts = r->hdr.ts_ns;
	} else if (r->phase == IRQ_COUNT_STOP) {
		v->have_kstop = true;
		v->kstop = r->count;
		v->kstop_ts = r->hdr.ts_ns;
	}
}

static void add_vector_change(struct agg *a, const struct tracefile_rec_vector *r)
{
	struct agg_vector *v = find_vector(a, r->bdf, r->irq);

	if (!v) {
		a->overflow++;
		return;
	}
	if (r->change != VECTOR_ADDED || v->in_header || v->resolved_late)
		return;
	v->resolved_late = true;
	v->resolved_ts = r->hdr.ts_ns;
	v->index = r->index;
	v->flags = r->flags & VECTOR_MSIX;
}

static void add_dma(struct agg *a, const struct gpuprobe_rec_dma *r)
{
	struct agg_target *t = find_target(a, r->bdf);
	struct agg_dma_op *op;

	if (!t || r->op >= AGG_DMA_OPS) {
		a->overflow++;
		return;
	}
	op = t->dma[r->op];
	if (!op) {
		op = t->dma[r->op] = calloc(1, sizeof(*op));
		if (!op) {
			a->overflow++;
			return;
		}
	}
	op->calls++;
	op->bytes += r->bytes;
	op->segments += r->nents;
	op->iommu_calls += r->iommu_calls;
	op->iommu_ns += r->iommu_ns;
	/*
	 * 0 is "not measured" (an instant event, a call whose return was lost)
	 * and an untimed call's 0 is no latency either
	 */
	if (r->duration_ns && !(r->hdr.flags & GPUPROBE_DMA_UNTIMED))
		hist_add(&op->latency_ns, r->duration_ns);
	else
		op->untimed++;
}

static struct agg_domain *find_domain(struct agg *a, uint32_t domain)
{
	struct agg_domain *d;

	for (unsigned int i = 0; i < a->ndomains; i++)
		if (a->domains[i].domain == domain)
			return &a->domains[i];
	if (a->ndomains >= AGG_MAX_DOMAINS)
		return NULL;
	d = &a->domains[a->ndomains++];
	memset(d, 0, sizeof(*d));
	d->domain = domain;
	return d;
}

static void domain_add_target(struct agg_domain *d, uint32_t bdf)
{
	for (unsigned int i = 0; i < d->ntargets; i++)
		if (d->targets[i] == bdf)
			return;
	if (d->ntargets < TARGET_MAX)
		d->targets[d->ntargets++] = bdf;
}

/*
 * A domain several targets are in: the record's bdf is only the first of
 * them (records of older modules, 56 bytes, have no domain and are never
 * flagged).
 */
static bool iommu_shared(const struct gpuprobe_rec_iommu *r)
{
	return r->hdr.size >= sizeof(*r) && r->domain &&
	       (r->hdr.flags & GPUPROBE_IOMMU_SHARED_DOMAIN);
}

static void add_iommu(struct agg *a, const struct gpuprobe_rec_iommu *r)
{
	struct agg_target *t = find_target(a, r->bdf);
	struct agg_domain *d = NULL;
	struct agg_iommu_op *op;

	if (iommu_shared(r)) {
		d = find_domain(a, r->domain);
		if (d) {
			d->shared = true;
			domain_add_target(d, r->bdf);
		}
	}
	if ((!t && !d) || (iommu_shared(r) && !d) || r->op >= AGG_IOMMU_OPS ||
	    r->op == 0) {
		a->overflow++;
		return;
	}
	op = d ? &d->iommu[r->op] : &t->iommu[r->op];
	if (!op->time_ns) {
		op->time_ns = calloc(1, sizeof(*op->time_ns));
		if (!op->time_ns) {
			a->overflow++;
			return;
		}
	}
	op->count++;
	op->bytes += r->size;
	if (r->duration_ns)
		hist_add(op->time_ns, r->duration_ns);
	else
		op->untimed++;
}

static void add_swiotlb(struct agg *a, const struct gpuprobe_rec_swiotlb *r)
{
	struct agg_target *t = find_target(a, r->bdf);

	if (!t) {
		a->overflow++;
		return;
	}
	t->swiotlb_bounces++;
	t->swiotlb_bytes += r->bytes;
}

bool agg_target_event_counted(uint32_t event)
{
	return event != GPUPROBE_TARGET_DOMAIN;
}

static void add_target_event(struct agg *a, const struct gpuprobe_rec_target *r)
{
	struct agg_target *t = find_target(a, r->bdf);
	struct agg_domain *d;

	if (!t) {
		a->overflow++;
		return;
	}
	if (agg_target_event_counted(r->event))
		t->target_events++;
	/* which targets share a domain: only these records say */
	if (r->domain && r->event != GPUPROBE_TARGET_REMOVED) {
		d = find_domain(a, r->domain);
		if (d)
			domain_add_target(d, r->bdf);
	}
}

static void note_time(struct agg *a, uint64_t ts)
{
	if (!a->first_ts || ts < a->first_ts)
		a->first_ts = ts;
	if (ts > a->last_ts)
		a->last_ts = ts;
}

void agg_add(struct agg *a, const struct gpuprobe_rec_hdr *rec)
{
	a->records++;
	if (rec->type != TRACEFILE_REC_IRQ_COUNT)
		note_time(a, rec->ts_ns);
	/* created at the first KVM record: the irq records before it matter not */
	if (rec->type == TRACEFILE_REC_KVM && !a->kvm)
		a->kvm = kvm_host_new();
	if (a->kvm)
		kvm_host_add(a->kvm, rec);
	if (rec->type == TRACEFILE_REC_XEN) {
		if (!a->xen)
			a->xen = xen_host_new();
		xen_host_add(a->xen, rec);
	}
	if (rec->type == GPUPROBE_EV_DMA || rec->type == GPUPROBE_EV_IOMMU_PART ||
	    rec->type == TRACEFILE_REC_IOMMU_MODE)
		iommu_parts_add(a->parts, rec);
	switch (rec->type) {
	case GPUPROBE_EV_IRQ:
		add_irq(a, (const struct gpuprobe_rec_irq *)rec);
		break;
	case GPUPROBE_EV_LOST:
		a->lost += ((const struct gpuprobe_rec_lost *)rec)->count;
		a->lost_reports++;
		if (rec->flags & TRACEFILE_LOST_COUNT_UNKNOWN)
			a->lost_unknown++;
		break;
	case GPUPROBE_EV_TARGET:
		add_target_event(a, (const struct gpuprobe_rec_target *)rec);
		break;
	case GPUPROBE_EV_WAKEUP:
		a->wakeups++;
		break;
	case GPUPROBE_EV_SWITCH:
		a->switches++;
		break;
	case GPUPROBE_EV_DMA:
		add_dma(a, (const struct gpuprobe_rec_dma *)rec);
		break;
	case GPUPROBE_EV_IOMMU:
		add_iommu(a, (const struct gpuprobe_rec_iommu *)rec);
		break;
	case GPUPROBE_EV_SWIOTLB:
		add_swiotlb(a, (const struct gpuprobe_rec_swiotlb *)rec);
		break;
	case TRACEFILE_REC_IRQ_COUNT:
		add_irq_count(a, (const struct tracefile_rec_irq_count *)rec);
		break;
	case TRACEFILE_REC_APP:
		a->app_events++;
		break;
	case TRACEFILE_REC_VECTOR:
		add_vector_change(a, (const struct tracefile_rec_vector *)rec);
		break;
	case TRACEFILE_REC_DELIVERY:
		/* the host's: a guest's (wrapped) stays in its own machine's view */
		if (!a->have_delivery && rec->size >= sizeof(a->delivery)) {
			memcpy(&a->delivery, rec, sizeof(a->delivery));
			a->have_delivery = true;
		}
		break;
	case TRACEFILE_REC_COMMAND:
		/* one per file; a guest's arrives wrapped, its size unchecked by the reader */
		if (a->command.present)
			break;
		if (rec->size < sizeof(struct tracefile_rec_command))
			a->command.present = a->command.malformed = true;
		else
			command_record_decode(rec, &a->command);
		break;
	}
}

void agg_finish(struct agg *a, const struct trace_reader *r)
{
	a->complete = r->seen_end;
	a->truncated_at = r->truncated ? r->truncated_at : 0;
	a->damaged = r->damaged;
	a->skipped_records = trace_reader_skipped(r, &a->skipped_exact);
	a->ndamage = r->damaged < TRACEFILE_DAMAGE_LIST ? r->damaged : TRACEFILE_DAMAGE_LIST;
	memcpy(a->damage, r->damage, a->ndamage * sizeof(a->damage[0]));
	a->unknown_records = r->unknown_records;
	if (r->seen_end) {
		a->stop_ns = r->end.hdr.ts_ns;
		a->exit_status = r->end.exit_status;
	}
	for (unsigned int i = 0; i < a->nvectors; i++) {
		struct agg_target *t = find_target(a, a->vectors[i].bdf);

		if (t)
			t->irq_count += a->vectors[i].count;
		if (!a->vectors[i].in_header) {
			a->vectors_not_in_header++;
			a->irqs_not_in_header += a->vectors[i].count;
		}
	}
	if (a->kvm)
		kvm_host_finish(a->kvm);
	xen_host_finish(a->xen);
	iommu_parts_finish(a->parts);
}

void agg_free(struct agg *a)
{
	if (!a)
		return;
	for (unsigned int i = 0; i < a->nvectors; i++)
		free(a->vectors[i].handler_ns);
	for (unsigned int i = 0; i < a->ntargets; i++) {
		for (unsigned int op = 0; op < AGG_DMA_OPS; op++)
			free(a->targets[i].dma[op]);
		for (unsigned int op = 0; op < AGG_IOMMU_OPS; op++)
			free(a->targets[i].iommu[op].time_ns);
	}
	for (unsigned int i = 0; i < a->ndomains; i++)
		for (unsigned int op = 0; op < AGG_IOMMU_OPS; op++)
			free(a->domains[i].iommu[op].time_ns);
	kvm_host_free(a->kvm);
	xen_host_free(a->xen);
	iommu_parts_free(a->parts);
	free(a);
}

double agg_duration_s(const struct agg *a)
{
	uint64_t start = a->info->start_ns, stop = a->complete ? a->stop_ns : a->last_ts;

	if (!start || (a->first_ts && start > a->first_ts))
		start = a->first_ts;
	return stop > start ? (double)(stop - start) / 1e9 : 0.0;
}

const struct target *agg_target_info(const struct agg *a, const struct agg_target *t)
{
	return t->header_index >= 0 ? &a->info->targets.t[t->header_index] : NULL;
}
