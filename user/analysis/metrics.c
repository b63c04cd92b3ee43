// SPDX-License-Identifier: GPL-2.0
/*
 * Running totals for `serve` (metrics.h): fixed tables, nothing grows with
 * the number of records, so a server left running for months stays the
 * size it started at.
 */
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "tracefile.h"

void log2_hist_add(struct log2_hist *h, uint64_t ns)
{
	unsigned int b = ns ? 64 - (unsigned int)__builtin_clzll(ns) : 0;

	h->count++;
	h->sum_ns += ns;
	h->bucket[b < METRICS_LOG2_BUCKETS ? b : METRICS_LOG2_BUCKETS - 1]++;
}

static void copy_target(struct metrics_target *mt, const struct target *t)
{
	mt->bdf = t->bdf;
	memcpy(mt->name, t->name, sizeof(mt->name));
	memcpy(mt->driver, t->driver, sizeof(mt->driver));
	mt->bound = t->driver[0] != 0;
}

/* A vector added once the target was resolved is one it did not have then. */
static struct metrics_vector *find_vector(struct metrics_target *mt, uint32_t index,
					  bool add)
{
	for (unsigned int i = 0; i < mt->nvec; i++)
		if (mt->vec[i].index == index)
			return &mt->vec[i];
	if (!add || mt->nvec >= METRICS_MAX_VECTORS)
		return NULL;
	mt->vec[mt->nvec].index = index;
	mt->vec[mt->nvec].from_zero = mt->resolved;
	return &mt->vec[mt->nvec++];
}

int metrics_init(struct metrics *m, const struct target_set *set, const char *role,
		 const char *source)
{
	memset(m, 0, sizeof(*m));
	m->role = role;
	m->source = source;
	m->t = calloc(set->count ? set->count : 1, sizeof(*m->t));
	if (!m->t)
		return -1;
	for (unsigned int i = 0; i < set->count && i < TARGET_MAX; i++)
		copy_target(&m->t[m->ntargets++], &set->t[i]);
	metrics_update_targets(m, set);
	return 0;
}

void metrics_label_wakeups(struct metrics *m, const char *name, const char *value)
{
	size_t n = (size_t)snprintf(m->wake_labels, sizeof(m->wake_labels), "%s=\"", name);

	for (; *value && n + 4 < sizeof(m->wake_labels); value++) {
		if (*value == '\\' || *value == '"' || *value == '\n')
			m->wake_labels[n++] = '\\';
		m->wake_labels[n++] = *value == '\n' ? 'n' : *value;
	}
	m->wake_labels[n++] = '"';
	m->wake_labels[n] = '\0';
}

void metrics_free(struct metrics *m)
{
	free(m->t);
	m->t = NULL;
	m->ntargets = 0;
}

static uint32_t irq_of(const struct target *t, uint32_t index)
{
	for (uint32_t j = 0; j < t->nvec; j++)
		if (t->vec[j].index == index)
			return t->vec[j].irq;
	return 0;
}

/* Vectors the device no longer has keep their totals, with no irq. */
void metrics_update_targets(struct metrics *m, const struct target_set *set)
{
	for (unsigned int i = 0; i < set->count; i++) {
		const struct target *t = &set->t[i];
		struct metrics_target *mt = metrics_target(m, t->bdf);

		if (!mt)
			continue;
		copy_target(mt, t);
		for (unsigned int v = 0; v < mt->nvec; v++) {
			struct metrics_vector *mv = &mt->vec[v];
			uint32_t irq = irq_of(t, mv->index);

			mv->renewed |= irq != mv->irq;
			mv->irq = irq;
		}
		for (uint32_t j = 0; j < t->nvec; j++) {
			struct metrics_vector *mv = find_vector(mt, t->vec[j].index, true);

			if (mv)
				mv->irq = t->vec[j].irq;
		}
		mt->resolved = true;
	}
}

struct metrics_target *metrics_target(struct metrics *m, uint32_t bdf)
{
	for (unsigned int i = 0; i < m->ntargets; i++)
		if (m->t[i].bdf == bdf)
			return &m->t[i];
	return NULL;
}

static void add_irq(struct metrics_target *mt, const struct gpuprobe_rec_irq *r)
{
	struct metrics_vector *v = find_vector(mt, r->vector, true);

	if (!v) {
		mt->vector_overflow++;
		return;
	}
	log2_hist_add(&v->handler, r->duration_ns);
	mt->last_irq_end_ns = r->hdr.ts_ns + r->duration_ns;
	if ((!v->kernel_valid && !v->from_zero) || r->hdr.ts_ns <= v->since_ns)
		return;		/* before its baseline: the kernel's count has it */
	if (r->hdr.ts_ns > v->cut_ns)
		v->ahead++;
	else
		v->interrupts++;
}

static void add_dma(struct metrics_target *mt, const struct gpuprobe_rec_dma *r)
{
	struct metrics_dma *d = &mt->dma[r->op <= METRICS_DMA_OPS ? r->op : 0];

	d->calls++;
	d->bytes += r->bytes;
	if (r->hdr.flags & GPUPROBE_DMA_UNTIMED)
		d->untimed++;
	else
		log2_hist_add(&d->latency, r->duration_ns);
}

static void add_iommu(struct metrics_target *mt, const struct gpuprobe_rec_iommu *r)
{
	switch (r->op) {
	case GPUPROBE_IOMMU_MAP:
		mt->iommu_maps++;
		mt->iommu_map_bytes += r->size;
		log2_hist_add(&mt->iommu_latency, r->duration_ns);
		break;
	case GPUPROBE_IOMMU_UNMAP:
		mt->iommu_unmaps++;
		mt->iommu_unmap_bytes += r->size;
		log2_hist_add(&mt->iommu_latency, r->duration_ns);
		break;
	case GPUPROBE_IOMMU_FAULT:
		mt->iommu_faults++;
		break;
	}
}

/*
 * A followed task woken within METRICS_WAKE_WINDOW_NS of a target's
 * interrupt is charged to the target whose handler ended last before it.
 */
static void add_wakeup(struct metrics *m, const struct gpuprobe_rec_hdr *rec)
{
	struct metrics_target *best = NULL;

	for (unsigned int i = 0; i < m->ntargets; i++) {
		struct metrics_target *mt = &m->t[i];

		if (mt->last_irq_end_ns && mt->last_irq_end_ns <= rec->ts_ns &&
		    (!best || mt->last_irq_end_ns > best->last_irq_end_ns))
			best = mt;
	}
	if (best && rec->ts_ns - best->last_irq_end_ns <= METRICS_WAKE_WINDOW_NS) {
		log2_hist_add(&best->wake, rec->ts_ns - best->last_irq_end_ns);
		best->last_irq_end_ns = 0;	/* one wake-up per interrupt */
	}
}

static uint32_t record_bdf(const struct gpuprobe_rec_hdr *rec)
{
	switch (rec->type) {
	case GPUPROBE_EV_IRQ:
		return ((const struct gpuprobe_rec_irq *)rec)->bdf;
	case GPUPROBE_EV_DMA:
		return ((const struct gpuprobe_rec_dma *)rec)->bdf;
	case GPUPROBE_EV_IOMMU:
		return ((const struct gpuprobe_rec_iommu *)rec)->bdf;
	case GPUPROBE_EV_SWIOTLB:
		return ((const struct gpuprobe_rec_swiotlb *)rec)->bdf;
	case GPUPROBE_EV_TARGET:
		return ((const struct gpuprobe_rec_target *)rec)->bdf;
	}
	return GPUPROBE_BDF_NONE;
}

void metrics_add_record(struct metrics *m, const struct gpuprobe_rec_hdr *rec)
{
	struct metrics_target *mt;

	m->records++;
	if (rec->type == GPUPROBE_EV_LOST) {
		m->lost += ((const struct gpuprobe_rec_lost *)rec)->count;
		return;
	}
	if (rec->type == GPUPROBE_EV_WAKEUP) {
		add_wakeup(m, rec);
		return;
	}
	if (rec->type == GPUPROBE_EV_SWITCH || rec->type >= TRACEFILE_REC_IRQ_COUNT)
		return;
	mt = metrics_target(m, record_bdf(rec));
	if (!mt) {
		m->unattributed++;
		return;
	}
	switch (rec->type) {
	case GPUPROBE_EV_IRQ:
		add_irq(mt, (const void *)rec);
		break;
	case GPUPROBE_EV_DMA:
		add_dma(mt, (const void *)rec);
		break;
	case GPUPROBE_EV_IOMMU:
		add_iommu(mt, (const void *)rec);
		break;
	case GPUPROBE_EV_SWIOTLB:
		mt->swiotlb_bounces++;
		mt->swiotlb_bytes += ((const struct gpuprobe_rec_swiotlb *)rec)->bytes;
		break;
	case GPUPROBE_EV_TARGET:
		mt->target_events++;
		break;
	}
}

/*
 * Was the irq read now allocated since the last cut?  Vectors are MSI/MSI-X
 * irqs, allocated for the device when its driver enables them and freed
 * when it unbinds: a new one is a new irq number, or the same number with a
 * new sysfs directory (its identity), or a count that went down.
 */
static bool irq_is_new(const struct metrics_vector *v, const struct kernel_count *kc)
{
	return v->renewed || kc->irq != v->counted_irq || kc->count < v->kernel_now ||
	       (kc->irq_id && v->counted_id && kc->irq_id != v->counted_id);
}

/*
 * Records read before this call have timestamps before cut_ns, so what was
 * held back as ahead counts now.  A vector serve had at its start counts
 * from its first cut (its baseline); a new irq counts from 0, all of it
 * since the last cut, the old irq's count carried over.
 */
void metrics_kernel_count(struct metrics *m, uint32_t bdf, uint32_t index,
			  const struct kernel_count *kc)
{
	struct metrics_target *mt = metrics_target(m, bdf);
	struct metrics_vector *v = mt ? find_vector(mt, index, true) : NULL;

	if (!v)
		return;
	v->interrupts += v->ahead;
	v->ahead = 0;
	if (!v->kernel_valid) {
		v->kernel_base = v->from_zero ? 0 : kc->count;
		if (!v->from_zero)
			v->since_ns = kc->cut_ns;
		v->kernel_valid = true;
	} else if (irq_is_new(v, kc)) {
		v->kernel_carried += v->kernel_now - v->kernel_base;
		v->kernel_base = 0;
	}
	v->renewed = false;
	v->counted_irq = kc->irq;
	v->counted_id = kc->irq_id;
	v->kernel_now = kc->count;
	v->cut_ns = kc->cut_ns;
}

/* Module summaries have no sum: each bucket's geometric midpoint stands in. */
static uint64_t bucket_midpoint(unsigned int b)
{
	if (b == 0)
		return 0;
	return (uint64_t)((double)(1ull << (b - 1)) * 1.41421356);
}

void metrics_add_summary(struct metrics *m, uint32_t bdf, uint32_t vector,
			 const uint64_t bucket[METRICS_LOG2_BUCKETS])
{
	struct metrics_target *mt = metrics_target(m, bdf);
	struct metrics_vector *v = mt ? find_vector(mt, vector, true) : NULL;
	uint64_t total = 0;

	if (!v) {
		m->unattributed++;
		return;
	}
	for (unsigned int b = 0; b < METRICS_LOG2_BUCKETS; b++)
		total += bucket[b];
	/* a session's histogram only grows; less is a new session */
	if (total < v->module_last)
		metrics_summary_session(m);
	v->module_last = total;
	v->handler = v->module_base;
	v->handler.sum_estimated = true;
	v->handler.count += total;
	for (unsigned int b = 0; b < METRICS_LOG2_BUCKETS; b++) {
		v->handler.bucket[b] += bucket[b];
		v->handler.sum_ns += bucket[b] * bucket_midpoint(b);
	}
	v->interrupts = v->handler.count;
}

/* Totals carry over: a reloaded module's counters do not go back to 0. */
void metrics_summary_session(struct metrics *m)
{
	for (unsigned int i = 0; i < m->ntargets; i++)
		for (unsigned int j = 0; j < m->t[i].nvec; j++) {
			struct metrics_vector *v = &m->t[i].vec[j];

			v->module_base = v->handler;
			v->module_last = 0;
		}
}
