/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How CUPTI is asked to record (plain C: unit-tested without CUDA), for
 * measuring what each choice costs the workload (issue 24,
 * scripts/h200-cost.sh): GPUPROBE_CUDA_TUNE=key=value,... where a key is
 *   kernel=concurrent|serial   CONCURRENT_KERNEL (default) or KERNEL kind
 *   pinned=0|1                 CUPTI's profiling buffers in pinned host memory
 *   devbuf=MIB                 CUPTI's device buffer size (per buffer, per context)
 *   pool=N                     device buffers kept (DEVICE_BUFFER_POOL_LIMIT)
 *   prealloc=N                 device buffers allocated up front
 *   semapool=N                 profiling semaphore pool size
 *   flush=MS                   CUPTI worker's flush period (0: its heuristics)
 *   perthread=0|1              per-thread activity buffers (CUPTI's default 1)
 *   latency=0|1                kernels' queued/submitted times
 *   launchattr=0|1             kernels' launch attributes
 *   hwtrace=0|1                kernel times from the hardware event system
 *                              (Blackwell only, CUPTI says)
 *   hostbuf=KIB                our activity buffers' size (default 4096)
 * Keys not given leave CUPTI's (or our) default alone.
 */
#ifndef GPUPROBE_CUPTITUNE_H
#define GPUPROBE_CUPTITUNE_H

#include <stdbool.h>
#include <stddef.h>

#define GPUPROBE_CUDA_TUNE_ENV	"GPUPROBE_CUDA_TUNE"
#define CUPTI_TUNE_UNSET	(-1L)

enum cupti_tune_key {
	CUPTI_TUNE_KERNEL,	/* 0 concurrent, 1 serial */
	CUPTI_TUNE_PINNED,
	CUPTI_TUNE_DEVBUF,
	CUPTI_TUNE_POOL,
	CUPTI_TUNE_PREALLOC,
	CUPTI_TUNE_SEMAPOOL,
	CUPTI_TUNE_FLUSH,
	CUPTI_TUNE_PERTHREAD,
	CUPTI_TUNE_LATENCY,
	CUPTI_TUNE_LAUNCHATTR,
	CUPTI_TUNE_HWTRACE,
	CUPTI_TUNE_HOSTBUF,
	CUPTI_TUNE_KEYS,
};

struct cupti_tune {
	long value[CUPTI_TUNE_KEYS];	/* CUPTI_TUNE_UNSET where not given */
};

/* The key's name as GPUPROBE_CUDA_TUNE spells it. */
const char *cupti_tune_name(enum cupti_tune_key key);

/*
 * Parse a GPUPROBE_CUDA_TUNE value (NULL or "": nothing set).  0 on success;
 * -1 with the offending item copied into bad (size bytes) otherwise, and
 * the items before it kept.
 */
int cupti_tune_parse(const char *value, struct cupti_tune *tune, char *bad, size_t size);

#endif /* GPUPROBE_CUPTITUNE_H */
