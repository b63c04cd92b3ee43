// SPDX-License-Identifier: GPL-2.0
/*
 * Pass one of `export --perfetto-proto`: which interrupt woke which thread
 * out of which wait (perfetto_flows.h).  An interrupt's flow goes to the
 * first wake-up of a followed thread after its handler ended (within 10 ms,
 * one wake-up per interrupt), and on to that thread when the wake-up falls
 * in one of its SYNC calls: the flow ends there, at the wake-up, not at the
 * wait's start (which is before the interrupt).
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "perfetto_flows.h"

#define WAKE_WINDOW_NS		10000000ull

struct pf_sync {
	uint64_t start, end, correlation;
	uint32_t pid, tid, api;
	size_t idx;		/* among the file's sync calls */
};

static void add_sync(struct pf_flows *f, const struct gpuprobe_app_event *ev)
{
	struct pf_sync *s;

	if (array_reserve((void **)&f->syncs, &f->cap_syncs, f->nsyncs + 1, sizeof(*s))) {
		f->oom = true;
		return;
	}
	s = &f->syncs[f->nsyncs];
	*s = (struct pf_sync){ .start = ev->start_ns, .end = ev->end_ns,
			       .correlation = ev->correlation, .pid = ev->pid, .tid = ev->tid,
			       .api = ev->api, .idx = f->nsyncs };
	f->nsyncs++;
}

void pf_flows_add(struct pf_flows *f, const struct gpuprobe_rec_hdr *h)
{
	if (h->type == GPUPROBE_EV_IRQ) {
		const struct gpuprobe_rec_irq *r = (const void *)h;

		if (array_reserve((void **)&f->irqs, &f->cap_irqs, f->nirqs + 1, sizeof(*f->irqs))) {
			f->oom = true;
			return;
		}
		f->irqs[f->nirqs].end = h->ts_ns + r->duration_ns;
		f->irqs[f->nirqs].idx = f->nirqs;
		f->nirqs++;
	} else if (h->type == GPUPROBE_EV_WAKEUP) {
		if (array_reserve((void **)&f->wakes, &f->cap_wakes, f->nwakes + 1, sizeof(*f->wakes))) {
			f->oom = true;
			return;
		}
		f->wakes[f->nwakes].ts = h->ts_ns;
		f->wakes[f->nwakes].tid = ((const struct gpuprobe_rec_sched *)h)->pid;
		f->wakes[f->nwakes].idx = f->nwakes;
		f->nwakes++;
	} else if (h->type == TRACEFILE_REC_APP) {
		const struct gpuprobe_app_event *ev = &((const struct tracefile_rec_app *)h)->ev;

		pf_calls_add(&f->calls, 0, ev);
		if (ev->type == GPUPROBE_APP_SYNC)
			add_sync(f, ev);
	}
}

static int by_end(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sync calls by thread, then start: one thread's calls do not overlap. */
static int by_tid_start(const void *a, const void *b)
{
	const struct pf_sync *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The sync call of thread tid in progress at ts that no flow ends in yet:
 * a binary search for its last call started by ts, then back while the
 * calls still reach ts.  O(log n) a wake-up.
 */
static struct pf_sync *sync_at(struct pf_flows *f, uint32_t tid, uint64_t ts)
{
	size_t lo = 0, hi = f->nsyncs;

	while (lo < hi) {	/* first call after (tid, ts) */
		size_t mid = lo + (hi - lo) / 2;
		const struct pf_sync *m = &f->syncs[mid];

		if (m->tid < tid || (m->tid == tid && m->start <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		struct pf_sync *c = &f->syncs[lo];

		if (c->tid != tid || c->end < ts)
			return NULL;
		if (!f->sync_taken[c->idx])
			return c;
	}
	return NULL;
}

/* A CUPTI sync names no thread: its API call does (perfetto_ids.h). */
static void sync_threads(struct pf_flows *f)
{
	pf_calls_sort(&f->calls);
	for (size_t i = 0; i < f->nsyncs; i++) {
		struct pf_sync *s = &f->syncs[i];
		struct gpuprobe_app_event ev = {
			.api = (uint8_t)s->api, .type = GPUPROBE_APP_SYNC, .pid = s->pid,
			.correlation = s->correlation, .start_ns = s->start, .end_ns = s->end,
		};

		s->tid = s->tid ? s->tid : pf_app_tid(&f->calls, 0, &ev);
	}
}

void pf_flows_link(struct pf_flows *f)
{
	uint64_t next = 1;

	f->irq_flow = calloc(f->nirqs + 1, sizeof(*f->irq_flow));
	f->wake_link = calloc(f->nwakes + 1, sizeof(*f->wake_link));
	f->sync_taken = calloc(f->nsyncs + 1, sizeof(*f->sync_taken));
	if (!f->irq_flow || !f->wake_link || !f->sync_taken) {
		f->oom = true;
		return;
	}
	sync_threads(f);
	qsort(f->irqs, f->nirqs, sizeof(*f->irqs), by_end);
	qsort(f->wakes, f->nwakes, sizeof(*f->wakes), by_end);
	qsort(f->syncs, f->nsyncs, sizeof(*f->syncs), by_tid_start);
	for (size_t k = 0, i = 0; k < f->nwakes; k++) {
		uint64_t ts = f->wakes[k].ts;
		struct pf_wake_link *link = &f->wake_link[f->wakes[k].idx];
		struct pf_sync *sync;

		while (i < f->nirqs && f->irqs[i].end <= ts)
			i++;
		/* f->irqs[i - 1]: the handler that ended last before the wake-up */
		if (!i || f->irq_flow[f->irqs[i - 1].idx] || ts - f->irqs[i - 1].end > WAKE_WINDOW_NS)
			continue;
		f->irq_flow[f->irqs[i - 1].idx] = next;
		link->flow = next++;
		sync = f->wakes[k].tid ? sync_at(f, f->wakes[k].tid, ts) : NULL;
		if (sync) {
			f->sync_taken[sync->idx] = true;
			link->pid = sync->pid;
			link->tid = sync->tid;
			link->api = (uint8_t)sync->api;
		}
	}
}

uint64_t pf_flows_next_irq(struct pf_flows *f)
{
	size_t i = f->irq_seen++;

	return f->irq_flow && i < f->nirqs ? f->irq_flow[i] : 0;
}

struct pf_wake_link pf_flows_next_wake(struct pf_flows *f)
{
	size_t i = f->wake_seen++;

	return f->wake_link && i < f->nwakes ? f->wake_link[i] : (struct pf_wake_link){ 0 };
}

void pf_flows_free(struct pf_flows *f)
{
	free(f->irqs);
	free(f->wakes);
	free(f->syncs);
	free(f->irq_flow);
	free(f->wake_link);
	free(f->sync_taken);
	pf_calls_free(&f->calls);
	memset(f, 0, sizeof(*f));
}
