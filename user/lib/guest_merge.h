/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A guest's trace file merged into a host's (record --guest, and the tests'
 * generator): the clock fit, the guest's machine record, then each of its
 * records in a wrapper (Documentation/trace-format.md, "Host and guest in
 * one file").
 */
#ifndef GPUPROBE_GUEST_MERGE_H
#define GPUPROBE_GUEST_MERGE_H

#include <stdbool.h>
#include <stdio.h>

#include "clocksync.h"
#include "source.h"

struct guest_merge_input {
	FILE *spool;			/* the guest's trace file, at its start; closed */
	const char *address;		/* how the host reached it */
	struct clock_fit *fit;		/* its burst points; solved here */
	bool link_lost;			/* the link broke before the guest's end */
	int exit_status;		/* from the agent's EXIT, -1 when none came */
};

/*
 * 0: merged, the guest's trace whole; 1: merged up to a cut (or nothing
 * readable: the reason printed), the host's file must be marked
 * incomplete; -1: the sink failed.
 */
int guest_merge(struct guest_merge_input *in, const struct record_sink *sink);

#endif /* GPUPROBE_GUEST_MERGE_H */
