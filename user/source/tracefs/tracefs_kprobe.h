/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DMA-API calls through kprobe events, for kernels without dma: tracepoints
 * (before 6.12, Debian's 6.1 among them).  The probe definitions and the
 * pairing of entry and return events into struct gpuprobe_rec_dma; no
 * libtracefs here (tracefs_enable.c creates the events, tracefs_decode.c feeds the values).
 */
#ifndef GPUPROBE_TRACEFS_KPROBE_H
#define GPUPROBE_TRACEFS_KPROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "source.h"

/* The group is "gpuprobe_<pid>": one per run, so stale ones can be found. */
#define DMA_KPROBE_GROUP_PREFIX	"gpuprobe_"

struct dma_kprobe_def {
	const char *func;	/* the exported DMA-API function */
	const char *event;	/* entry event; the return event adds "_ret" */
	uint16_t op;		/* enum gpuprobe_dma_op */
	const char *fetch;	/* entry fetch args, x86_64 registers */
};

#define DMA_KPROBE_COUNT	9
extern const struct dma_kprobe_def dma_kprobe_defs[DMA_KPROBE_COUNT];

/* Fetch args of every return event: where the stack was, and the result. */
#define DMA_KPROBE_RET_FETCH	"sp=$stack:x64 ret=$retval:x64"

/* A call's entry event, waiting for its return. */
struct dma_call {
	struct gpuprobe_rec_dma rec;
	uint64_t sp;		/* $stack at entry */
	uint32_t pid;
	bool valid;
};

struct dma_call_pairer {
	struct dma_call *slot;
	unsigned int nslots;
	uint64_t unmatched_returns;	/* calls of other devices: expected */
	uint64_t evicted;		/* entries that never saw a return */
};

int dma_pairer_init(struct dma_call_pairer *p, unsigned int nslots);
int dma_pairer_entry(struct dma_call_pairer *p, const struct gpuprobe_rec_dma *rec,
		     uint32_t pid, uint64_t sp, const struct record_sink *sink);
int dma_pairer_return(struct dma_call_pairer *p, uint32_t pid, uint64_t sp,
		      uint64_t ts, uint64_t retval, const struct record_sink *sink);
/* Entries still waiting for their return, emitted with duration 0. */
int dma_pairer_flush(struct dma_call_pairer *p, const struct record_sink *sink);
void dma_pairer_free(struct dma_call_pairer *p);

/*
 * Whether DMA-API calls can be recorded through kprobe events here:
 * 1 with dma: tracepoints, 2 through kprobe events, 0 not at all (why says
 * what is missing), -1 cannot be told (tracefs's events are not readable by
 * this user).  tracefs_enable.c implements it.
 */
int tracefs_dma_support(char *why, size_t len);

#endif /* GPUPROBE_TRACEFS_KPROBE_H */
