// SPDX-License-Identifier: GPL-2.0
/* Xen's physical irqs and injections counted (xen.h). */
#include <stdlib.h>
#include <string.h>

#include "xen.h"

struct xen_host *xen_host_new(void)
{
	return calloc(1, sizeof(struct xen_host));
}

static struct xen_irq_stats *find_irq(struct xen_host *x, uint32_t irq)
{
	for (unsigned int i = 0; i < x->nirqs; i++)
		if (x->irqs[i].irq == irq)
			return &x->irqs[i];
	if (x->nirqs == XEN_MAX_IRQS)
		return NULL;
	x->irqs[x->nirqs].irq = irq;
	return &x->irqs[x->nirqs++];
}

static void add_phys_irq(struct xen_host *x, const struct tracefile_rec_xen *r)
{
	struct xen_irq_stats *s = find_irq(x, r->irq);

	x->phys_irqs++;
	if (!s) {
		x->overflow++;
		return;
	}
	s->count++;
	if (r->flags & XEN_REC_ENTRY_UNKNOWN)
		return;
	s->timed++;
	s->cycles_sum += r->cycles;
	if (r->cycles > s->cycles_max)
		s->cycles_max = r->cycles;
}

void xen_host_add(struct xen_host *x, const struct gpuprobe_rec_hdr *rec)
{
	const struct tracefile_rec_xen *r = (const void *)rec;

	if (!x || rec->type != TRACEFILE_REC_XEN)
		return;
	x->records++;
	if (r->flags & XEN_REC_UNTIMED)
		x->untimed++;
	if (r->flags & XEN_REC_NESTED)
		x->nested++;
	switch (r->kind) {
	case XEN_REC_PHYS_IRQ:
		add_phys_irq(x, r);
		break;
	case XEN_REC_INJECT:
		if (r->flags & XEN_REC_REINJECT) {
			x->reinjections++;
			break;
		}
		x->injections++;
		if (r->vector < XEN_VECTORS)
			x->by_vector[r->vector]++;
		else
			x->overflow++;
		break;
	case XEN_REC_LOST:
		x->lost += r->count;
		x->lost_records++;
		break;
	}
}

static int by_irq(const void *a, const void *b)
{
	const struct xen_irq_stats *x = a, *y = b;

	return x->irq < y->irq ? -1 : x->irq > y->irq;
}

void xen_host_finish(struct xen_host *x)
{
	if (x)
		qsort(x->irqs, x->nirqs, sizeof(x->irqs[0]), by_irq);
}

void xen_host_free(struct xen_host *x)
{
	free(x);
}
