/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Batches of packed records as the module sends them in GPUPROBE_A_RECORDS,
 * and what its capabilities mean for the event mask.  No netlink here, so
 * the tests can feed it anything.
 */
#ifndef GPUPROBE_RECBATCH_H
#define GPUPROBE_RECBATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source.h"

struct record_batch_stats {
	uint64_t records;	/* delivered to the sink */
	uint64_t lost;		/* sum of LOST record counts among them */
	size_t bad_offset;	/* where a malformed record stopped the batch */
	int sink_error;
};

/*
 * Split blob into records, copying each to aligned memory (netlink attribute
 * data is only 4-byte aligned) and passing it to sink.  Returns 0, or -1 when
 * a record's size is malformed (st->bad_offset says where; the rest is skipped).
 */
int record_batch_split(const void *blob, size_t len, const struct record_sink *sink,
		       struct record_batch_stats *st);

/* GPUPROBE_EVMASK() bits of the record types GPUPROBE_CAP_* bits can produce. */
uint32_t event_mask_for_caps(uint64_t caps);

/*
 * The START mask for this module: what cfg asks for and the caps allow
 * (sched events only with a workload).  -1 with err when nothing is left or
 * the record versions differ.
 */
int module_event_mask(const struct module_info *info, const struct source_config *cfg,
		      uint32_t *mask, char *err, size_t errlen);

#endif /* GPUPROBE_RECBATCH_H */
