// SPDX-License-Identifier: GPL-2.0
/*
 * The CUDA API calls the CUPTI library records by default (inject/cuptiselect.c),
 * without CUDA.  The expectations are written here from what the analysis
 * reads (analysis/attribute_match.c): the issuing call of every op (a kernel,
 * copy or memset carries its call's correlation id: launches, graph launches,
 * copies, memsets, in each variant CUPTI 13 names), the call of every sync
 * record (synchronizations, stream waits), and the blocking calls whose return
 * ends an op (synchronizations, synchronous copies).  The names are CUPTI 13's
 * (cupti_driver_cbid.h, cupti_runtime_cbid.h, as cuptiGetCallbackName gives
 * them), copied by hand, so the table is checked against the header's spelling.
 */
#include <stddef.h>

#include "cuptiselect.h"
#include "testlib.h"
#include "tests.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const driver_used[] = {
	"cuLaunchKernel", "cuLaunchKernel_ptsz", "cuLaunchKernelEx", "cuLaunchKernelEx_ptsz",
	"cuLaunchCooperativeKernel", "cuLaunchCooperativeKernel_ptsz", "cuLaunch", "cuLaunchGrid",
	"cuLaunchGridAsync", "cuGraphLaunch", "cuGraphLaunch_ptsz",
	"cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2_ptsz",
	"cuMemcpyDtoDAsync_v2", "cuMemcpyAsync", "cuMemcpyPeerAsync", "cuMemcpy3D_v2",
	"cuMemsetD8_v2", "cuMemsetD32Async", "cuMemsetD2D32Async_ptsz",
	"cuCtxSynchronize", "cuCtxSynchronize_v2", "cuStreamSynchronize", "cuStreamSynchronize_ptsz",
	"cuEventSynchronize", "cuStreamWaitEvent", "cuStreamWaitEvent_ptsz",
};

static const char *const runtime_used[] = {
	"cudaLaunchKernel_v7000", "cudaLaunchKernel_ptsz_v7000", "cudaLaunchKernelExC_v11060",
	"cudaLaunchCooperativeKernel_v9000", "cudaLaunch_v3020", "cudaGraphLaunch_v10000",
	"cudaGraphLaunch_ptsz_v10000", "cudaMemcpy_v3020", "cudaMemcpyAsync_v3020",
	"cudaMemcpyAsync_ptsz_v7000", "cudaMemcpy2DAsync_v3020", "cudaMemcpyToSymbol_v3020",
	"cudaMemcpyPeerAsync_v4000", "cudaMemcpyBatchAsync_v13000", "cudaMemset_v3020",
	"cudaMemsetAsync_v3020", "cudaMemset3DAsync_ptsz_v7000", "cudaDeviceSynchronize_v3020",
	"cudaThreadSynchronize_v3020", "cudaStreamSynchronize_v3020",
	"cudaStreamSynchronize_ptsz_v7000", "cudaEventSynchronize_v3020",
	"cudaStreamWaitEvent_v3020", "cudaStreamWaitEvent_ptsz_v7000",
};

/* What a launch-bound PyTorch step calls most, none of it read by the analysis. */
static const char *const driver_unused[] = {
	"cuCtxGetCurrent", "cuCtxPushCurrent_v2", "cuCtxPopCurrent_v2", "cuEventQuery",
	"cuStreamQuery", "cuStreamQuery_ptsz", "cuEventRecord", "cuEventRecordWithFlags",
	"cuMemAlloc_v2", "cuMemFree_v2", "cuMemAllocHost_v2", "cuMemHostRegister_v2",
	"cuModuleGetFunction", "cuStreamWaitValue32_v2", "cuDeviceGetAttribute", "cuGetProcAddress",
	"cuMemGetInfo_v2", "cuFuncGetAttribute", "cuPointerGetAttribute",
};

static const char *const runtime_unused[] = {
	"cudaGetDevice_v3020", "cudaSetDevice_v3020", "cudaGetLastError_v3020",
	"cudaPeekAtLastError_v3020", "cudaEventQuery_v3020", "cudaStreamQuery_v3020",
	"cudaEventRecord_v3020", "cudaEventRecord_ptsz_v7000", "cudaEventCreateWithFlags_v3020",
	"cudaEventDestroy_v3020", "cudaMalloc_v3020", "cudaFree_v3020", "cudaMallocHost_v3020",
	"cudaHostAlloc_v3020", "cudaStreamGetCaptureInfo_v10010", "cudaGetDeviceProperties_v3020",
	"cudaFuncGetAttributes_v3020", "cudaStreamIsCapturing_v10000",
};

/* The calls that return only once the device is done (the analysis's blocking waits). */
static const char *const blocking[] = {
	"cuCtxSynchronize", "cuStreamSynchronize_ptsz", "cuEventSynchronize", "cuMemcpyDtoH_v2",
	"cudaDeviceSynchronize_v3020", "cudaStreamSynchronize_v3020", "cudaEventSynchronize_v3020",
	"cudaMemcpy_v3020", "cudaMemcpy2D_v3020",
};

static const char *const not_blocking[] = {
	"cuLaunchKernel", "cuMemcpyHtoDAsync_v2", "cudaMemcpyAsync_v3020", "cudaStreamWaitEvent_v3020",
	"cudaLaunchKernel_v7000", "cudaEventRecord_v3020", "cudaMemsetAsync_v3020",
};

void test_cupti_api_selection(void)
{
	for (size_t i = 0; i < N(driver_used); i++)
		CHECK(cupti_api_selected(false, driver_used[i]), "driver %s not selected", driver_used[i]);
	for (size_t i = 0; i < N(runtime_used); i++)
		CHECK(cupti_api_selected(true, runtime_used[i]), "runtime %s not selected", runtime_used[i]);
	for (size_t i = 0; i < N(driver_unused); i++)
		CHECK(!cupti_api_selected(false, driver_unused[i]), "driver %s selected", driver_unused[i]);
	for (size_t i = 0; i < N(runtime_unused); i++)
		CHECK(!cupti_api_selected(true, runtime_unused[i]), "runtime %s selected", runtime_unused[i]);
	/* a domain's table is its own: a runtime name is no driver call, and back */
	CHECK(!cupti_api_selected(false, "cudaLaunchKernel_v7000"), "runtime name in the driver table");
	CHECK(!cupti_api_selected(true, "cuLaunchKernel"), "driver name in the runtime table");
	CHECK(!cupti_api_selected(true, NULL), "no name");
	/* every blocking wait the analysis matches must be recorded to be matched */
	for (size_t i = 0; i < N(blocking); i++) {
		bool rt = blocking[i][2] == 'd';

		CHECK(cupti_api_blocks(blocking[i]), "%s not blocking", blocking[i]);
		CHECK(cupti_api_selected(rt, blocking[i]), "blocking %s not selected", blocking[i]);
	}
	for (size_t i = 0; i < N(not_blocking); i++)
		CHECK(!cupti_api_blocks(not_blocking[i]), "%s blocking", not_blocking[i]);
}

void test_cupti_api_mode(void)
{
	CHECK(cupti_api_mode_of(NULL) == CUPTI_API_ATTRIBUTION, "unset");
	CHECK(cupti_api_mode_of("") == CUPTI_API_ATTRIBUTION, "empty");
	CHECK(cupti_api_mode_of("attribution") == CUPTI_API_ATTRIBUTION, "attribution");
	CHECK(cupti_api_mode_of("all") == CUPTI_API_ALL, "all");
	CHECK(cupti_api_mode_of("every") == CUPTI_API_INVALID, "a typo is no mode");
	CHECK(cupti_api_mode_of("1") == CUPTI_API_INVALID, "1 is no mode");
}
