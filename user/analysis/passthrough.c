// SPDX-License-Identifier: GPL-2.0
/*
 * Collecting a merged trace's host and guest events for the pairing
 * (passthrough_pair.c).  A single-machine file has no machine record and
 * costs nothing here: the first record of a merged file is the host's
 * machine record, and nothing is kept before it.
 */
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "passthrough.h"
#include "util.h"

struct passthrough *passthrough_new(void)
{
	struct passthrough *pt = calloc(1, sizeof(*pt));

	if (pt)
		clock_fit_init(&pt->fit);
	return pt;
}

static void add_target_vector(struct passthrough *pt, uint32_t vector)
{
	for (unsigned int i = 0; i < pt->ntarget_vectors; i++)
		if (pt->target_vectors[i] == vector)
			return;
	if (pt->ntarget_vectors < PT_MAX_VECTORS)
		pt->target_vectors[pt->ntarget_vectors++] = vector;
}

/* The event added, NULL when it was dropped (counted). */
static struct pt_event *push(struct passthrough *pt, struct pt_array *a, uint64_t raw,
			     uint64_t duration, uint32_t irq, uint32_t cpu)
{
	if (a->n == a->cap) {
		uint32_t cap = a->cap ? 2 * a->cap : 1024;
		struct pt_event *e;

		if (a->n >= PT_MAX_EVENTS || !(e = realloc(a->e, cap * sizeof(*e)))) {
			pt->dropped++;
			return NULL;
		}
		a->e = e;
		a->cap = cap;
	}
	a->e[a->n] = (struct pt_event){ .ts = raw, .raw = raw, .duration = duration,
					.irq = irq, .cpu = cpu, .pair = -1, .next = -1 };
	return &a->e[a->n++];
}

static struct machine_desc *new_guest(struct passthrough *pt)
{
	struct machine_desc *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->machine = MACHINE_GUEST;
	m->role = MACHINE_ROLE_GUEST;
	m->exit_status = -1;
	pt->guest = m;
	pt->guest_agg = agg_new(&m->info);
	return m;
}

static void add_machine(struct passthrough *pt, const struct tracefile_rec_machine *rec)
{
	struct machine_desc *m;
	char err[160];

	if (rec->role == MACHINE_ROLE_HOST && !pt->host) {
		m = pt->host = calloc(1, sizeof(*m));
	} else if (rec->role == MACHINE_ROLE_GUEST && !pt->guest_agg) {
		m = pt->guest = calloc(1, sizeof(*m));
	} else {
		return;	/* a second guest: this tool pairs one */
	}
	if (!m)
		return;
	pt->merged = true;
	if (machine_record_decode(rec, m, err, sizeof(err)))
		warnf("%s", err);
	if (m->role == MACHINE_ROLE_GUEST)
		pt->guest_agg = agg_new(&m->info);
}

static bool is_map(uint16_t op)
{
	return op == GPUPROBE_DMA_MAP_PAGE || op == GPUPROBE_DMA_MAP_SG ||
	       op == GPUPROBE_DMA_MAP_RESOURCE;
}

static void add_guest(struct passthrough *pt, const struct tracefile_rec_guest *g)
{
	const struct gpuprobe_rec_hdr *in = guest_record_inner(g);

	if (g->machine != MACHINE_GUEST)
		return;
	if (!pt->guest_agg && !new_guest(pt))
		return;
	if (pt->guest_agg)
		agg_add(pt->guest_agg, in);
	switch (in->type) {
	case GPUPROBE_EV_IRQ: {
		const struct gpuprobe_rec_irq *irq = (const void *)in;

		if (in->size >= sizeof(*irq))
			push(pt, &pt->guest_irq, in->ts_ns, irq->duration_ns, irq->irq, in->cpu);
		break;
	}
	case GPUPROBE_EV_LOST:
		pt->lost_records++;
		break;
	case GPUPROBE_EV_WAKEUP: {
		const struct gpuprobe_rec_sched *w = (const void *)in;
		struct pt_event *e = push(pt, &pt->guest_wake, in->ts_ns, 0, 0, in->cpu);

		if (e && in->size >= sizeof(*w)) {
			e->pid = w->tgid;
			e->tid = w->pid;
		}
		break;
	}
	case GPUPROBE_EV_DMA: {
		const struct gpuprobe_rec_dma *d = (const void *)in;

		if (in->size >= sizeof(*d) && is_map(d->op))
			push(pt, &pt->guest_map, in->ts_ns, d->duration_ns, (uint32_t)d->bytes, in->cpu);
		break;
	}
	}
}

static void add_clock(struct passthrough *pt, const struct tracefile_rec_clock_sync *c)
{
	struct clock_point p = {
		.host_ns = c->hdr.ts_ns, .guest_ns = c->guest_ns,
		.offset_ns = c->offset_ns, .error_ns = c->error_ns,
	};

	/* the fit record is the writer's summary: the points are refitted here */
	if (c->machine == MACHINE_GUEST && c->kind == CLOCK_SYNC_BURST)
		clock_fit_add(&pt->fit, &p);
}

void passthrough_add(struct passthrough *pt, const struct gpuprobe_rec_hdr *rec)
{
	if (rec->type == TRACEFILE_REC_MACHINE) {
		add_machine(pt, (const struct tracefile_rec_machine *)rec);
		return;
	}
	if (!pt->merged)
		return;
	switch (rec->type) {
	case GPUPROBE_EV_IRQ: {
		const struct gpuprobe_rec_irq *irq = (const void *)rec;

		push(pt, &pt->host_irq, rec->ts_ns, irq->duration_ns, irq->irq, rec->cpu);
		break;
	}
	case GPUPROBE_EV_LOST:
		pt->lost_records++;
		break;
	case GPUPROBE_EV_IOMMU: {
		const struct gpuprobe_rec_iommu *io = (const void *)rec;

		if (io->op != GPUPROBE_IOMMU_MAP)
			break;
		if (io->bdf == GPUPROBE_BDF_NONE)
			pt->host_maps_unattributed++;
		push(pt, &pt->host_map, rec->ts_ns, io->duration_ns, (uint32_t)io->size, rec->cpu);
		break;
	}
	case TRACEFILE_REC_KVM: {
		const struct gpuprobe_rec_kvm *k = (const void *)rec;

		if (!pt->hostpath)
			pt->hostpath = calloc(1, sizeof(*pt->hostpath));
		if (pt->hostpath)
			hostpath_add(pt->hostpath, k);
		/* the injections into a vCPU; a reinjection is not a new interrupt */
		if (k->stage == GPUPROBE_KVM_INJECT && !(rec->flags & GPUPROBE_KVM_REINJECTED)) {
			struct pt_event *e = push(pt, &pt->inject, rec->ts_ns, 0, k->host_irq, rec->cpu);

			if (e) {
				e->vector = k->vector;
				e->pid = k->pid;
				e->tid = k->tid;
			}
		} else if ((k->stage == GPUPROBE_KVM_MSI || k->stage == GPUPROBE_KVM_ACCEPT) &&
			   k->bdf != GPUPROBE_BDF_NONE) {
			add_target_vector(pt, k->vector);
		}
		break;
	}
	case TRACEFILE_REC_GUEST:
		add_guest(pt, (const struct tracefile_rec_guest *)rec);
		break;
	case TRACEFILE_REC_CLOCK_SYNC:
		add_clock(pt, (const struct tracefile_rec_clock_sync *)rec);
		break;
	case TRACEFILE_REC_TSC:
		if (!pt->tsc && (pt->tsc = malloc(sizeof(*pt->tsc))))
			tsc_clock_init(pt->tsc);
		if (pt->tsc)
			tsc_clock_add(pt->tsc, (const struct tracefile_rec_tsc *)rec);
		break;
	}
}

/* The guest's numbers end as its own file's would have (complete, stop, exit status). */
static void finish_guest_agg(struct passthrough *pt)
{
	struct trace_reader *fake = calloc(1, sizeof(*fake));

	if (!fake || !pt->guest_agg) {
		free(fake);
		return;
	}
	fake->seen_end = pt->guest->flags & MACHINE_COMPLETE;
	fake->end.hdr.ts_ns = pt->guest->stop_ns;
	fake->end.exit_status = pt->guest->exit_status;
	agg_finish(pt->guest_agg, fake);
	free(fake);
}

void passthrough_free(struct passthrough *pt)
{
	if (!pt)
		return;
	struct pt_array *arrays[] = { &pt->host_irq, &pt->inject, &pt->guest_irq,
				      &pt->guest_wake, &pt->guest_map, &pt->host_map };

	for (size_t i = 0; i < ARRAY_SIZE(arrays); i++)
		free(arrays[i]->e);
	agg_free(pt->guest_agg);
	free(pt->host);
	free(pt->guest);
	free(pt->pairs);
	hostpath_free(pt->hostpath);
	if (pt->tsc)
		tsc_clock_free(pt->tsc);
	free(pt->tsc);
	free(pt);
}

/* Injections of vectors no target's handler routed are not the target's. */
static void keep_target_injections(struct passthrough *pt)
{
	uint32_t kept = 0;

	if (!pt->ntarget_vectors)
		return;		/* no in-handler records: nothing to tell them by */
	for (uint32_t i = 0; i < pt->inject.n; i++) {
		bool target = false;

		for (unsigned int v = 0; v < pt->ntarget_vectors && !target; v++)
			target = pt->target_vectors[v] == pt->inject.e[i].vector;
		if (target)
			pt->inject.e[kept++] = pt->inject.e[i];
		else
			pt->injections_other++;
	}
	pt->inject.n = kept;
}

/* The exact clock against each exchange burst: both are right only if they agree within both bounds. */
static void cross_check(struct passthrough *pt)
{
	uint32_t cpu = pt->tsc->guest.n ? pt->tsc->guest.p[0].cpu : 0;

	for (unsigned int i = 0; i < pt->fit.npoints; i++) {
		const struct clock_point *p = &pt->fit.point[i];
		/* what the exchanges map guest_ns to: by the burst's offset, as clock_guest_to_host does */
		uint64_t h, d, theirs = p->guest_ns - (uint64_t)p->offset_ns;

		if (!tsc_guest_to_host(pt->tsc, p->guest_ns, cpu, &h))
			return;
		if (!i) {
			pt->exact_offset_ns = (int64_t)(p->guest_ns - h);
			pt->exact_at_ns = h;
		}
		d = h > theirs ? h - theirs : theirs - h;
		if (d > pt->cross_max_ns)
			pt->cross_max_ns = d;
		pt->cross_disagree += d > p->error_ns + pt->tsc->error_ns;
	}
	pt->tsc->unsampled = 0;	/* the bursts' times are not the records' */
}

/* The exact clock where it can be had and is the narrower; else the exchanges', saying why. */
static void choose_clock(struct passthrough *pt)
{
	struct tsc_clock *c = pt->tsc;

	if (!c) {
		snprintf(pt->clock_note, sizeof(pt->clock_note),
			 "no TSC records (no KVM debugfs on the host, or a file from before them)");
		return;
	}
	for (unsigned int i = 0; i < c->nkvm; i++)
		c->kvm[i].offset += pt->test_tsc_error;
	tsc_clock_solve(c);
	if (!c->usable) {
		snprintf(pt->clock_note, sizeof(pt->clock_note), "%s", c->why_not);
		return;
	}
	cross_check(pt);
	/*
	 * Disagreeing beyond both bounds, one of the two is wrong.  The
	 * exchanges' bound is causal (the guest read its clock between our
	 * send and our receive); the exact clock's rests on KVM's offset being
	 * this guest's and complete (an L2 offset, an untraced write, a test
	 * offset break it).  So it is refused, not widened: a bound widened to
	 * the difference would be the exchanges' anyway, on a clock known wrong.
	 */
	if (pt->cross_disagree) {
		char d[FORMAT_NS_LEN];

		snprintf(pt->clock_note, sizeof(pt->clock_note),
			 "the exchanges disagree with it at %llu of %u bursts (by up to %s, beyond both bounds): one of the two is wrong, and only the exchanges' bound is causal",
			 (unsigned long long)pt->cross_disagree, pt->fit.npoints,
			 format_ns(d, sizeof(d), (double)pt->cross_max_ns));
		return;
	}
	if (pt->have_fit && c->error_ns >= pt->fit.error_ns) {
		snprintf(pt->clock_note, sizeof(pt->clock_note),
			 "its bound (%llu ns) is not below the exchanges' (%llu ns)",
			 (unsigned long long)c->error_ns, (unsigned long long)pt->fit.error_ns);
		return;
	}
	pt->clock_exact = true;
	pt->have_fit = true;
	pt->clock_error_ns = c->error_ns;
}

void passthrough_finish(struct passthrough *pt)
{
	if (!pt->merged)
		return;
	keep_target_injections(pt);
	if (!pt->guest)
		new_guest(pt);
	finish_guest_agg(pt);
	clock_fit_solve(&pt->fit);
	pt->have_fit = pt->fit.npoints > 0;
	pt->clock_error_ns = pt->fit.error_ns;
	choose_clock(pt);
	passthrough_pair_irqs(pt);
}
