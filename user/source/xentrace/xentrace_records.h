/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A xentrace file as gpuprobe records (struct tracefile_rec_xen): the
 * physical irqs Xen handled, the vectors it injected into vCPUs, and the
 * records it lost, on dom0's CLOCK_MONOTONIC.  Plain C: the tests link it.
 */
#ifndef GPUPROBE_XENTRACE_RECORDS_H
#define GPUPROBE_XENTRACE_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "source.h"
#include "tracefile.h"
#include "xentrace_parse.h"

/* Xen's TSC on dom0's CLOCK_MONOTONIC: a line through two samples. */
struct xentrace_clock {
	bool known;
	uint64_t tsc0, ns0;
	double ns_per_tick;
};

/* The line through (tsc_a, ns_a) and (tsc_b, ns_b); false (unknown) when they make none. */
bool xentrace_clock_fit(struct xentrace_clock *c, uint64_t tsc_a, uint64_t ns_a,
			uint64_t tsc_b, uint64_t ns_b);
/* tsc on the clock; fallback_ns when the clock is unknown. */
uint64_t xentrace_clock_ns(const struct xentrace_clock *c, uint64_t tsc, uint64_t fallback_ns);

/*
 * One parsed event as a record: true for PHYS_IRQ, INJECT (and REINJECT)
 * and LOST, false for the rest (counted by the parser only).
 */
bool xentrace_event_record(const struct xentrace_event *ev, const struct xentrace_clock *clock,
			   uint64_t start_ns, struct tracefile_rec_xen *out);

/*
 * Parse len bytes of a xentrace file and put its records to sink.  0 (a
 * cut file too: stats->truncated), -1 when the bytes are not a xentrace
 * file or the sink failed (err).  *written: the records put.
 */
int xentrace_convert(const void *buf, size_t len, const struct xentrace_clock *clock,
		     uint64_t start_ns, const struct record_sink *sink,
		     struct xentrace_stats *stats, uint64_t *written, char *err, size_t errlen);

#endif /* GPUPROBE_XENTRACE_RECORDS_H */
