/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the file `xentrace -D -e MASK FILE` writes (xentrace_format.h):
 * per-CPU windows of Xen's trace records, each record given to a callback
 * with its CPU, its TSC and, for the records the passthrough crossing uses,
 * what it says.  Plain C without Xen's libraries: the unit tests link it.
 */
#ifndef GPUPROBE_XENTRACE_PARSE_H
#define GPUPROBE_XENTRACE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xentrace_format.h"

enum xentrace_kind {
	XENTRACE_OTHER,		/* a known class we do not read, or an unknown id */
	XENTRACE_PHYS_IRQ,	/* TRC_HW_IRQ_HANDLED: Xen handled a physical irq */
	XENTRACE_INJECT,	/* TRC_HVM_INJ_VIRQ (fake 0) or REINJ_VIRQ */
	XENTRACE_INJECT_FAKE,	/* TRC_HVM_INJ_VIRQ with fake 1: an interrupt window */
	XENTRACE_INTR,		/* TRC_HVM_INTR: an exit for an external interrupt */
	XENTRACE_VMEXIT,
	XENTRACE_VMENTRY,
	XENTRACE_LOST,		/* TRC_LOST_RECORDS */
	XENTRACE_WRAP,		/* TRC_TRACE_WRAP_BUFFER */
};

struct xentrace_event {
	uint32_t event;			/* the id, flags masked off */
	enum xentrace_kind kind;
	uint32_t cpu;			/* the physical CPU of its window */
	bool has_tsc;			/* false: tsc is the CPU's last one (or 0) */
	uint64_t tsc;
	unsigned int nextra;
	uint32_t extra[XT_EXTRA_MAX];
	bool nested;			/* TRC_HVM_NESTEDFLAG */
	/* decoded, by kind */
	uint32_t irq;			/* PHYS_IRQ: Xen's irq number */
	uint64_t irq_entry_tsc;		/* PHYS_IRQ: the handler's entry (0: not known) */
	uint32_t irq_cycles;		/* PHYS_IRQ: cycles in Xen's handler */
	uint32_t vector;		/* INJECT, INTR (INTR: when the record has one) */
	uint32_t exit_reason;		/* VMEXIT */
	uint64_t lost;			/* LOST: records Xen dropped on this CPU */
	uint64_t lost_first_tsc;	/* LOST: when the first of them was */
};

struct xentrace_stats {
	uint64_t records;		/* every record, CPU changes included */
	uint64_t windows;		/* CPU-change records */
	uint64_t phys_irqs, injects, fake_injects, intrs, vmexits, vmentries;
	uint64_t other;			/* ids not in xentrace_format.h: passed on as OTHER */
	uint64_t lost_markers;		/* TRC_LOST_RECORDS records */
	uint64_t lost;			/* the records they say were lost */
	uint64_t wraps;
	uint64_t untimed;		/* records without a TSC */
	/* the counts are lower bounds: Xen lost records, or the file is cut */
	bool lower_bound;
	bool truncated;			/* the file ends inside a record or a window */
	size_t used;			/* bytes read as whole records */
	uint32_t max_cpu;
};

typedef int (*xentrace_event_fn)(void *ctx, const struct xentrace_event *ev);

/*
 * Read len bytes of a xentrace file; fn (may be NULL) for each record but
 * the CPU changes, stopping if it returns nonzero (that value returned).
 * 0: read to the end (a cut end only sets stats->truncated); -1: the bytes
 * are not a xentrace file (why in err).
 */
int xentrace_parse(const void *buf, size_t len, xentrace_event_fn fn, void *ctx,
		   struct xentrace_stats *stats, char *err, size_t errlen);

const char *xentrace_kind_name(enum xentrace_kind kind);

#endif /* GPUPROBE_XENTRACE_PARSE_H */
