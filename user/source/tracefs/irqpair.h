/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pairs irq_handler_entry/exit events per CPU into one struct
 * gpuprobe_rec_irq (entry time + duration), as the module does in kernel.
 */
#ifndef GPUPROBE_IRQPAIR_H
#define GPUPROBE_IRQPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "source.h"

struct irq_pending {
	uint64_t ts;
	uint32_t irq;
	bool valid;
};

/* The vector of an irq the target set does not know (yet); NULL: none. */
typedef const struct target_vector *(*irq_resolver)(void *ctx, uint32_t irq, uint32_t *bdf,
						      const struct record_sink *sink);

struct irq_pairer {
	unsigned int ncpus;
	struct irq_pending *cpu;
	const struct target_set *targets;
	irq_resolver resolve;		/* NULL: unknown irqs are dropped */
	void *resolve_ctx;
	uint64_t orphan_exits;		/* exit whose entry preceded tracing */
	uint64_t unknown_irqs;		/* irq of no target (filter race) */
};

int irq_pairer_init(struct irq_pairer *p, unsigned int ncpus,
		    const struct target_set *targets);
void irq_pairer_set_resolver(struct irq_pairer *p, irq_resolver resolve, void *ctx);
int irq_pairer_entry(struct irq_pairer *p, unsigned int cpu, uint64_t ts,
		     uint32_t irq, const struct record_sink *sink);
int irq_pairer_exit(struct irq_pairer *p, unsigned int cpu, uint64_t ts,
		    uint32_t irq, bool handled, const struct record_sink *sink);
/*
 * The target irq whose handler runs on cpu now (entry seen, exit not yet),
 * with its target in *bdf; 0 when none.  What KVM does inside it is its.
 */
uint32_t irq_pairer_current(struct irq_pairer *p, unsigned int cpu, uint32_t *bdf,
			    const struct record_sink *sink);
/* Emit entries still waiting for their exit, flagged TRACEFILE_IRQ_NO_EXIT. */
int irq_pairer_flush(struct irq_pairer *p, const struct record_sink *sink);
void irq_pairer_free(struct irq_pairer *p);

#endif /* GPUPROBE_IRQPAIR_H */
