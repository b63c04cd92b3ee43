// SPDX-License-Identifier: GPL-2.0
/*
 * The part of a trace file that `explain` attributes: one target's interrupt
 * handlers, DMA-API calls and swiotlb bounces, and one thread's wake-ups and
 * switch-ins, each sorted by time (files are in time order per CPU only).
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "explain.h"
#include "tracefile.h"
#include "util.h"


static int cmp_irq(const void *a, const void *b)
{
	const struct explain_irq *x = a, *y = b;

	return (x->entry_ns > y->entry_ns) - (x->entry_ns < y->entry_ns);
}

static int cmp_sched(const void *a, const void *b)
{
	const struct explain_sched *x = a, *y = b;

	return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

static int cmp_dma(const void *a, const void *b)
{
	const struct explain_dma *x = a, *y = b;

	return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

static int cmp_bounce(const void *a, const void *b)
{
	const struct explain_bounce *x = a, *y = b;

	return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

void explain_timeline_sort(struct explain_timeline *t)
{
	qsort(t->irqs, t->nirqs, sizeof(*t->irqs), cmp_irq);
	qsort(t->wakeups, t->nwakeups, sizeof(*t->wakeups), cmp_sched);
	qsort(t->switch_ins, t->nswitch_ins, sizeof(*t->switch_ins), cmp_sched);
	qsort(t->dma, t->ndma, sizeof(*t->dma), cmp_dma);
	qsort(t->bounces, t->nbounces, sizeof(*t->bounces), cmp_bounce);
}

/* Keep rec if it belongs to the target or the thread; false when out of memory. */
/* A CUDA CLOCK record: a check of CUPTI's clock by the CUDA library (appevents.h). */
static void take_cupti_check(struct explain_timeline *t, const struct gpuprobe_app_event *ev)
{
	if (ev->api != GPUPROBE_APP_CUDA || ev->type != GPUPROBE_APP_CLOCK)
		return;
	t->cupti_checks++;
	t->cupti_inconsistent += !!(ev->flags & GPUPROBE_APPF_CLOCK_INCONSISTENT);
	if (ev->bytes > t->cupti_bound_max_ns)
		t->cupti_bound_max_ns = ev->bytes;
}

static bool take(struct explain_timeline *t, const struct gpuprobe_rec_hdr *rec)
{
	const struct gpuprobe_rec_irq *irq = (const void *)rec;
	const struct gpuprobe_rec_sched *s = (const void *)rec;
	const struct gpuprobe_rec_dma *d = (const void *)rec;
	const struct gpuprobe_rec_swiotlb *b = (const void *)rec;

	switch (rec->type) {
	case GPUPROBE_EV_IRQ: {
		struct explain_irq e = { rec->ts_ns, rec->ts_ns + irq->duration_ns, rec->cpu, irq->irq };

		return irq->bdf != t->bdf || ARRAY_PUSH(t->irqs, t->nirqs, e);
	}
	case GPUPROBE_EV_WAKEUP:
	case GPUPROBE_EV_SWITCH: {
		struct explain_sched e = { rec->ts_ns, rec->type == GPUPROBE_EV_WAKEUP ?
					   s->target_cpu : rec->cpu };

		t->sched_records++;
		if (s->pid != t->tid)
			return true;
		if (rec->type == GPUPROBE_EV_WAKEUP)
			return ARRAY_PUSH(t->wakeups, t->nwakeups, e);
		return ARRAY_PUSH(t->switch_ins, t->nswitch_ins, e);
	}
	case GPUPROBE_EV_DMA: {
		struct explain_dma e = { rec->ts_ns, d->bytes, d->nents, d->op };

		return d->bdf != t->bdf || ARRAY_PUSH(t->dma, t->ndma, e);
	}
	case GPUPROBE_EV_SWIOTLB: {
		struct explain_bounce e = { rec->ts_ns, b->bytes };

		return b->bdf != t->bdf || ARRAY_PUSH(t->bounces, t->nbounces, e);
	}
	case TRACEFILE_REC_APP:
		take_cupti_check(t, &((const struct tracefile_rec_app *)rec)->ev);
		return true;
	}
	return true;
}

int explain_timeline_load(struct explain_timeline *t, const char *path, uint32_t bdf,
			  uint32_t tid, char *err, size_t errlen)
{
	static struct trace_info info;	/* large: targets with their vectors */
	const struct gpuprobe_rec_hdr *rec;
	struct trace_reader r;
	int got = -1;

	memset(t, 0, sizeof(*t));
	memset(&r, 0, sizeof(r));
	err[0] = '\0';
	if (trace_reader_open(&r, path, &info)) {
		snprintf(err, errlen, "%s", r.error);
		goto out;
	}
	if (bdf == GPUPROBE_BDF_NONE) {
		if (!info.targets.count) {
			snprintf(err, errlen, "%s has no target device: record with -d BDF", path);
			goto out;
		}
		bdf = info.targets.t[0].bdf;
	} else if (!target_set_find(&info.targets, bdf)) {
		char name[BDF_STRLEN];

		bdf_format(bdf, name);
		snprintf(err, errlen, "%s was not recorded for %s (see `gpuprobe-trace report %s`)",
			 path, name, path);
		got = -2;
		goto out;
	}
	t->bdf = bdf;
	t->tid = tid;
	bdf_format(bdf, t->target);
	t->start_ns = info.start_ns;
	while ((got = trace_reader_next(&r, &rec)) > 0) {
		if (!take(t, rec)) {
			snprintf(err, errlen, "%s: out of memory", path);
			got = -1;
			break;
		}
	}
	t->end_ns = r.seen_end ? r.end.hdr.ts_ns : 0;
	if (got == 0)
		trace_reader_warn(&r);
	if (got < 0 && !err[0])
		snprintf(err, errlen, "%s", r.error);
	explain_timeline_sort(t);
out:
	trace_reader_close(&r);
	if (got < 0)
		explain_timeline_free(t);
	return got < 0 ? (got == -2 ? -2 : -1) : 0;
}

void explain_timeline_free(struct explain_timeline *t)
{
	free(t->irqs);
	free(t->wakeups);
	free(t->switch_ins);
	free(t->dma);
	free(t->bounces);
	t->irqs = NULL;
	t->wakeups = t->switch_ins = NULL;
	t->dma = NULL;
	t->bounces = NULL;
	t->nirqs = t->nwakeups = t->nswitch_ins = t->ndma = t->nbounces = 0;
	t->cupti_checks = t->cupti_inconsistent = t->cupti_bound_max_ns = 0;
}
