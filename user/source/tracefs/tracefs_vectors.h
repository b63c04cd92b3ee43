/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The targets' vectors while the tracefs source records: what the module
 * does with its bind notifier and 500 ms rescan, from userspace.  Plain C
 * over sysfs (no libtracefs): tracefs_enable.c writes the filters it builds.
 *
 * The irq events are filtered to every irq number EXCEPT those of other
 * devices when the run opened (/sys/kernel/irq), so a vector the target's
 * driver requests later (NVIDIA at first open) is recorded from its first
 * interrupt; the decoder asks vectors_resolve() about an irq it does not
 * know, and the read loop rescans msi_irqs every VECTOR_RESCAN_MS.
 */
#ifndef GPUPROBE_TRACEFS_VECTORS_H
#define GPUPROBE_TRACEFS_VECTORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source.h"
#include "target.h"

#define VECTOR_RESCAN_MS	500

/* A sorted set of irq numbers. */
struct irq_numbers {
	uint32_t *v;
	size_t n, cap;
};

struct late_vector {
	uint32_t bdf;
	uint32_t irq;
	bool counted;			/* an IRQ_COUNT start was written */
	bool count_pending;		/* to be read once the filter has it */
	bool gone;
};

struct vector_tracker {
	const char *root;		/* "/sys" except in tests */
	struct target_set *set;		/* the header's targets and their late vectors */
	struct irq_numbers others;	/* excluded by the filter: other devices' irqs */
	struct irq_numbers ever_excluded;
	struct irq_numbers at_start;	/* irqs that existed when tracing was on */
	bool have_others;		/* /sys/kernel/irq was readable */
	bool have_start;
	uint64_t start_ns;		/* before at_start was read */
	uint64_t last_rescan_ns;
	bool filter_changed;
	struct late_vector *late;
	size_t nlate, late_cap;
	uint64_t unknown_irqs;		/* irq records of no target */
};

int vectors_init(struct vector_tracker *vt, const char *root, const struct target_set *header);
void vectors_free(struct vector_tracker *vt);
/* Right after tracing is switched on: which irqs exist now. */
void vectors_tracing_on(struct vector_tracker *vt, uint64_t now_ns);
/* Re-read every target's msi_irqs; records for what changed go to sink. */
int vectors_rescan(struct vector_tracker *vt, uint64_t now_ns, const struct record_sink *sink);
/* The vector of irq, rescanning once for an irq never seen; NULL: no target's. */
const struct target_vector *vectors_resolve(struct vector_tracker *vt, uint32_t irq,
					    uint32_t *bdf, const struct record_sink *sink);
/* After the filter took the changes: kernel counts of vectors that needed it. */
int vectors_put_pending_counts(struct vector_tracker *vt, const struct record_sink *sink);
/* Before tracing is switched off: the stop counts of the late vectors. */
int vectors_put_stop_counts(struct vector_tracker *vt, const struct record_sink *sink);
/*
 * Filter text for irq_handler_entry/exit.  0: every irq number but the
 * other devices'; 1: only the vectors known now ("irq<0" when none), as
 * /sys/kernel/irq was unreadable or the first form too long: a late
 * vector is then recorded from the rescan that finds it; -1: too long.
 */
int vectors_irq_filter(const struct vector_tracker *vt, char *buf, size_t size);

#endif /* GPUPROBE_TRACEFS_VECTORS_H */
