/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which CUDA API calls the CUPTI library records (plain C: unit-tested
 * without CUDA).  Attribution uses an API record only to find the thread
 * and entry time of the call that issued an op (a launch, copy, memset or
 * graph launch: the op's correlation id is the call's), the call a sync
 * record belongs to, and the return of a call that waited for the device.
 * Every other call (cudaGetDevice, cudaStreamQuery, ...) costs the workload
 * a record and tells attribution nothing, so by default only the calls
 * named here are enabled, per callback id (cuptiActivityEnableDriverApi /
 * cuptiActivityEnableRuntimeApi); GPUPROBE_CUDA_API=all records every call.
 */
#ifndef GPUPROBE_CUPTISELECT_H
#define GPUPROBE_CUPTISELECT_H

#include <stdbool.h>

#define GPUPROBE_CUDA_API_ENV	"GPUPROBE_CUDA_API"

enum cupti_api_mode {
	CUPTI_API_ATTRIBUTION,		/* the calls attribution uses (default) */
	CUPTI_API_ALL,			/* every driver and runtime call */
	CUPTI_API_INVALID,
};

/* The mode a GPUPROBE_CUDA_API value asks for; NULL or "" is the default. */
enum cupti_api_mode cupti_api_mode_of(const char *value);

/*
 * Whether the call of this name (as cuptiGetCallbackName gives it, version
 * suffix and all: "cudaLaunchKernel_v7000", "cuMemcpyHtoDAsync_v2") is one
 * attribution uses.  runtime: a runtime API name (cuda...), else driver (cu...).
 */
bool cupti_api_selected(bool runtime, const char *name);

/* Whether the call returns only once the device is done with what it waits for. */
bool cupti_api_blocks(const char *name);

#endif /* GPUPROBE_CUPTISELECT_H */
