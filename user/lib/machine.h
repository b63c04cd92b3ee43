/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Merged traces (record --guest): the machine records that describe host
 * and guest, and the wrapper that carries a guest's record into the host's
 * file (Documentation/trace-format.md, "Host and guest in one file").
 */
#ifndef GPUPROBE_MACHINE_H
#define GPUPROBE_MACHINE_H

#include <stddef.h>
#include <stdint.h>

#include "tracefile.h"

#define MACHINE_HOST	0
#define MACHINE_GUEST	1

/* What a machine record says, decoded (targets included). */
struct machine_desc {
	uint32_t machine;
	uint32_t role;
	uint32_t flags;
	int32_t exit_status;
	uint64_t records;
	uint64_t stop_ns;
	char address[48];
	struct trace_info info;		/* host, kernel, source, start, targets */
};

/*
 * The record for m into buf (size bytes); its size, or 0 when it does not
 * fit (targets beyond the 64 KiB a record can hold are left out and the
 * count is lowered to those written).
 */
size_t machine_record_build(const struct machine_desc *m, void *buf, size_t size);
/* A machine record's contents; -1 and err when its target table is corrupt. */
int machine_record_decode(const struct tracefile_rec_machine *rec, struct machine_desc *m,
			  char *err, size_t errlen);

/*
 * Wrap a guest record for the host's file, into buf (TRACEFILE_REC_MAX_SIZE
 * bytes): host_ts is its time on the host clock.  -1 when it is too large.
 */
int guest_record_wrap(uint32_t machine, const struct gpuprobe_rec_hdr *inner,
		      uint64_t host_ts, void *buf);
/* The guest record a wrapper carries (the reader checked its size). */
static inline const struct gpuprobe_rec_hdr *guest_record_inner(const struct tracefile_rec_guest *g)
{
	return (const struct gpuprobe_rec_hdr *)(g + 1);
}

#endif /* GPUPROBE_MACHINE_H */
