/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The verdict `report` opens with: the workload, the wall time of the
 * recording, and where the passthrough-sensitive time went as shares of
 * that wall time (interrupt handlers, the workload's waits that saw an
 * interrupt, DMA/IOMMU mapping, host -> guest crossing), largest first,
 * and what was not measured and why.  Every number is one the body of the
 * report prints too (a hist's sum, an attribution total), so the two agree.
 */
#ifndef GPUPROBE_VERDICT_H
#define GPUPROBE_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "agg.h"
#include "attribute.h"
#include "passthrough.h"

#define VERDICT_MAX_ITEMS	12
#define VERDICT_MAX_PIDS	4

struct verdict_item {
	const char *key;		/* its JSON name */
	char what[48];			/* as the text shows it */
	bool measured;
	uint64_t ns;			/* measured: summed time */
	uint64_t events;		/* the handler runs, calls, waits or pairs summed */
	char detail[200];		/* how the time was summed (measured), or why not */
	bool holds_others;		/* a span (waits, calls) holding other items' time */
};

struct verdict {
	uint64_t wall_ns;		/* the denominator of every share */
	const char *wall_of;		/* "the recording", "the host's recording" */
	bool merged;
	int32_t exit_status;		/* the workload's, -1 none */
	/* its argv: the host's, else (merged) --guest-command's; never NULL */
	const struct trace_command *command;
	const char *command_of;		/* "host", "guest"; NULL: not in the trace */
	bool lower_bound;		/* records lost, the file cut or damaged: counts are low */
	uint64_t lost;
	uint32_t damaged;		/* chunks skipped as damaged */
	uint64_t skipped;		/* their records (at least, when !skipped_exact) */
	bool skipped_exact;
	/* the workload's processes (its CUDA/OpenCL devices), when the trace has app events */
	unsigned int npids;
	uint32_t pids[VERDICT_MAX_PIDS];
	uint64_t app_ops;		/* kernels, copies, memsets */
	/* measured first, largest first; then those not measured */
	unsigned int nitems, nmeasured;
	struct verdict_item items[VERDICT_MAX_ITEMS];
	int largest;			/* index of the largest measured item with time, -1 none */
	char crossing_stage[48];	/* merged: the crossing's largest stage, else "" */
	uint64_t crossing_stage_ns;
};

/* wall_ns: the recording's (report.c wall_ns), the attribution's too. */
void verdict_build(struct verdict *v, const struct agg *a, const struct attribution *at,
		   const struct passthrough *pt, uint64_t wall_ns);

/* 100 * ns / wall, 0 when wall is 0 (the attribution's share()). */
double verdict_percent(const struct verdict *v, uint64_t ns);

#endif /* GPUPROBE_VERDICT_H */
