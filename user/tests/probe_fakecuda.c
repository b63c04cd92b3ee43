// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in libcuda.so.1 for testing the CUDA probe path on machines
 * without a GPU: "device memory" is host memory, kernels run on the CPU at
 * launch, and %globaltimer is CLOCK_MONOTONIC + FAKE_GLOBALTIMER_OFFSET so
 * the test can check that the calibration recovers the offset.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../probe/probe_cuda.h"

#define FAKE_GLOBALTIMER_OFFSET	1700000000000000000ULL
#define FAKE_TIMER_STEP_NS	32

static uint64_t globaltimer(void)
{
	struct timespec ts;
	uint64_t t;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec + FAKE_GLOBALTIMER_OFFSET;
	return t - t % FAKE_TIMER_STEP_NS;
}

static int module_token, ctx_token;

CUresult cuInit(unsigned int flags) { (void)flags; return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult e, const char **s) { (void)e; *s = "CUDA_ERROR_FAKE"; return CUDA_SUCCESS; }
CUresult cuGetErrorString(CUresult e, const char **s) { (void)e; *s = "fake"; return CUDA_SUCCESS; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *d, int i) { *d = i; return CUDA_SUCCESS; }
CUresult cuDeviceGetName(char *s, int n, CUdevice d) { (void)d; strncpy(s, "Fake GPU", n); return CUDA_SUCCESS; }
CUresult cuDeviceGetAttribute(int *v, int a, CUdevice d) { (void)d; *v = a == 75 ? 9 : 0; return CUDA_SUCCESS; }
CUresult cuDeviceGetPCIBusId(char *s, int n, CUdevice d) { (void)d; strncpy(s, "0000:00:06.0", n); return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { (void)d; *c = (CUcontext)&ctx_token; return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { (void)d; return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { (void)c; return CUDA_SUCCESS; }
CUresult cuCtxSynchronize(void) { return CUDA_SUCCESS; }
CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
	/* The real fatbin must be what the tool hands over. */
	if (*(const uint32_t *)image != 0xBA55ED50)
		return 200;	/* CUDA_ERROR_INVALID_IMAGE */
	*m = (CUmodule)&module_token;
	return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	(void)m;
	*f = (CUfunction)strdup(name);
	return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule m) { (void)m; return CUDA_SUCCESS; }
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
			unsigned by, unsigned bz, unsigned shmem, CUstream s, void **params, void **extra)
{
	const char *name = (const char *)f;

	(void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)shmem; (void)s; (void)extra;
	if (!strcmp(name, "gp_stamp")) {
		uint64_t *out = (uint64_t *)(uintptr_t)*(CUdeviceptr *)params[0];
		uint64_t spin = *(uint64_t *)params[1], start = globaltimer();

		while (globaltimer() - start < spin)
			;
		out[0] = start;
		out[1] = globaltimer();
	} else if (!strcmp(name, "gp_timer_step")) {
		*(uint64_t *)(uintptr_t)*(CUdeviceptr *)params[0] = FAKE_TIMER_STEP_NS;
	}
	return CUDA_SUCCESS;
}
CUresult cuStreamCreate(CUstream *s, unsigned int f) { (void)f; *s = (CUstream)&ctx_token; return CUDA_SUCCESS; }
CUresult cuStreamDestroy_v2(CUstream s) { (void)s; return CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream s) { (void)s; return CUDA_SUCCESS; }
CUresult cuEventCreate(CUevent *e, unsigned int f) { (void)f; *e = (CUevent)&ctx_token; return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent e, CUstream s) { (void)e; (void)s; return CUDA_SUCCESS; }
CUresult cuEventQuery(CUevent e) { (void)e; return CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent e) { (void)e; return CUDA_SUCCESS; }
CUresult cuEventDestroy_v2(CUevent e) { (void)e; return CUDA_SUCCESS; }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { *p = (CUdeviceptr)(uintptr_t)malloc(n); return *p ? CUDA_SUCCESS : 2; }
CUresult cuMemFree_v2(CUdeviceptr p) { free((void *)(uintptr_t)p); return CUDA_SUCCESS; }
CUresult cuMemAllocHost_v2(void **p, size_t n) { *p = malloc(n); return *p ? CUDA_SUCCESS : 2; }
CUresult cuMemFreeHost(void *p) { free(p); return CUDA_SUCCESS; }
CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned int f) { (void)p; (void)n; (void)f; return CUDA_SUCCESS; }
CUresult cuMemHostUnregister(void *p) { (void)p; return CUDA_SUCCESS; }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { memcpy(d, (void *)(uintptr_t)s, n); return CUDA_SUCCESS; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st)
{
	(void)st;
	memcpy((void *)(uintptr_t)d, s, n);
	return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st)
{
	(void)st;
	memcpy(d, (void *)(uintptr_t)s, n);
	return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st)
{
	(void)st;
	memcpy((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
	return CUDA_SUCCESS;
}
