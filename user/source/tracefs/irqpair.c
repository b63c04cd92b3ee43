// SPDX-License-Identifier: GPL-2.0
/*
 * Hard irq handlers do not nest on one CPU, so per CPU an entry is followed
 * by its exit; a second entry first means the exit was lost.
 */
#include <stdlib.h>
#include <string.h>

#include "irqpair.h"
#include "tracefile.h"

int irq_pairer_init(struct irq_pairer *p, unsigned int ncpus,
		    const struct target_set *targets)
{
	memset(p, 0, sizeof(*p));
	p->cpu = calloc(ncpus ? ncpus : 1, sizeof(*p->cpu));
	if (!p->cpu)
		return -1;
	p->ncpus = ncpus;
	p->targets = targets;
	return 0;
}

void irq_pairer_set_resolver(struct irq_pairer *p, irq_resolver resolve, void *ctx)
{
	p->resolve = resolve;
	p->resolve_ctx = ctx;
}

static int emit(struct irq_pairer *p, unsigned int cpu, const struct irq_pending *e,
		uint64_t duration, uint16_t flags, const struct record_sink *sink)
{
	struct gpuprobe_rec_irq rec = {
		.hdr = {
			.type = GPUPROBE_EV_IRQ, .size = sizeof(rec),
			.cpu = (uint16_t)cpu, .flags = flags, .ts_ns = e->ts,
		},
		.irq = e->irq,
		.duration_ns = duration,
	};
	const struct target_vector *v = target_set_vector(p->targets, e->irq, &rec.bdf);

	if (!v && p->resolve)
		v = p->resolve(p->resolve_ctx, e->irq, &rec.bdf, sink);
	if (!v) {
		p->unknown_irqs++;
		return 0;
	}
	rec.vector = v->index;
	return sink_put(sink, &rec.hdr);
}

int irq_pairer_entry(struct irq_pairer *p, unsigned int cpu, uint64_t ts,
		     uint32_t irq, const struct record_sink *sink)
{
	struct irq_pending *slot;
	int err = 0;

	if (cpu >= p->ncpus)
		return 0;
	slot = &p->cpu[cpu];
	if (slot->valid)
		err = emit(p, cpu, slot, 0, TRACEFILE_IRQ_NO_EXIT, sink);
	*slot = (struct irq_pending){ .ts = ts, .irq = irq, .valid = true };
	return err;
}

int irq_pairer_exit(struct irq_pairer *p, unsigned int cpu, uint64_t ts,
		    uint32_t irq, bool handled, const struct record_sink *sink)
{
	struct irq_pending *slot;

	if (cpu >= p->ncpus)
		return 0;
	slot = &p->cpu[cpu];
	if (!slot->valid || slot->irq != irq) {
		p->orphan_exits++;
		return 0;
	}
	slot->valid = false;
	return emit(p, cpu, slot, ts >= slot->ts ? ts - slot->ts : 0,
		    handled ? GPUPROBE_IRQ_HANDLED : 0, sink);
}

uint32_t irq_pairer_current(struct irq_pairer *p, unsigned int cpu, uint32_t *bdf,
			    const struct record_sink *sink)
{
	const struct irq_pending *e = cpu < p->ncpus ? &p->cpu[cpu] : NULL;
	const struct target_vector *v;

	if (!e || !e->valid)
		return 0;
	v = target_set_vector(p->targets, e->irq, bdf);
	if (!v && p->resolve)
		v = p->resolve(p->resolve_ctx, e->irq, bdf, sink);
	return v ? e->irq : 0;
}

int irq_pairer_flush(struct irq_pairer *p, const struct record_sink *sink)
{
	int err = 0;

	for (unsigned int cpu = 0; cpu < p->ncpus; cpu++) {
		if (!p->cpu[cpu].valid)
			continue;
		p->cpu[cpu].valid = false;
		err |= emit(p, cpu, &p->cpu[cpu], 0, TRACEFILE_IRQ_NO_EXIT, sink);
	}
	return err;
}

void irq_pairer_free(struct irq_pairer *p)
{
	free(p->cpu);
	p->cpu = NULL;
}
