/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of the CUDA driver API the probes use, declared here so that the
 * tool builds without the CUDA toolkit and loads libcuda.so.1 only at run
 * time. Symbol names are the ones cuda.h maps the API to (cuMemAlloc ->
 * cuMemAlloc_v2 ...); the _v2 entry points exist since CUDA 3.2/4.0 and
 * are still exported by current drivers.
 */
#ifndef GPUPROBE_PROBE_CUDA_H
#define GPUPROBE_PROBE_CUDA_H

#include <stddef.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

#define CUDA_SUCCESS			0
#define CUDA_ERROR_NO_DEVICE		100
#define CUDA_ERROR_NOT_READY		600
#define CU_EVENT_DEFAULT		0x0
#define CU_EVENT_BLOCKING_SYNC		0x1
#define CU_EVENT_DISABLE_TIMING		0x2
#define CU_STREAM_NON_BLOCKING		0x1
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76

/* X(symbol, return type, parameters) */
#define CUDA_FUNCTIONS(X) \
	X(cuInit, CUresult, (unsigned int)) \
	X(cuDriverGetVersion, CUresult, (int *)) \
	X(cuGetErrorName, CUresult, (CUresult, const char **)) \
	X(cuGetErrorString, CUresult, (CUresult, const char **)) \
	X(cuDeviceGetCount, CUresult, (int *)) \
	X(cuDeviceGet, CUresult, (CUdevice *, int)) \
	X(cuDeviceGetName, CUresult, (char *, int, CUdevice)) \
	X(cuDeviceGetAttribute, CUresult, (int *, int, CUdevice)) \
	X(cuDeviceGetPCIBusId, CUresult, (char *, int, CUdevice)) \
	X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext *, CUdevice)) \
	X(cuDevicePrimaryCtxRelease_v2, CUresult, (CUdevice)) \
	X(cuCtxSetCurrent, CUresult, (CUcontext)) \
	X(cuCtxSynchronize, CUresult, (void)) \
	X(cuModuleLoadData, CUresult, (CUmodule *, const void *)) \
	X(cuModuleGetFunction, CUresult, (CUfunction *, CUmodule, const char *)) \
	X(cuModuleUnload, CUresult, (CUmodule)) \
	X(cuLaunchKernel, CUresult, (CUfunction, unsigned int, unsigned int, unsigned int, \
		unsigned int, unsigned int, unsigned int, unsigned int, CUstream, void **, void **)) \
	X(cuStreamCreate, CUresult, (CUstream *, unsigned int)) \
	X(cuStreamDestroy_v2, CUresult, (CUstream)) \
	X(cuStreamSynchronize, CUresult, (CUstream)) \
	X(cuEventCreate, CUresult, (CUevent *, unsigned int)) \
	X(cuEventRecord, CUresult, (CUevent, CUstream)) \
	X(cuEventQuery, CUresult, (CUevent)) \
	X(cuEventSynchronize, CUresult, (CUevent)) \
	X(cuEventDestroy_v2, CUresult, (CUevent)) \
	X(cuMemAlloc_v2, CUresult, (CUdeviceptr *, size_t)) \
	X(cuMemFree_v2, CUresult, (CUdeviceptr)) \
	X(cuMemAllocHost_v2, CUresult, (void **, size_t)) \
	X(cuMemFreeHost, CUresult, (void *)) \
	X(cuMemHostRegister_v2, CUresult, (void *, size_t, unsigned int)) \
	X(cuMemHostUnregister, CUresult, (void *)) \
	X(cuMemcpyDtoH_v2, CUresult, (void *, CUdeviceptr, size_t)) \
	X(cuMemcpyHtoDAsync_v2, CUresult, (CUdeviceptr, const void *, size_t, CUstream)) \
	X(cuMemcpyDtoHAsync_v2, CUresult, (void *, CUdeviceptr, size_t, CUstream)) \
	X(cuMemcpyDtoDAsync_v2, CUresult, (CUdeviceptr, CUdeviceptr, size_t, CUstream))

/* kernels/probe_kernels_fatbin.c (generated; empty without nvcc) */
extern const unsigned char gpuprobe_cuda_fatbin[];
extern const size_t gpuprobe_cuda_fatbin_size;
extern const char gpuprobe_cuda_fatbin_built_with[];

#endif /* GPUPROBE_PROBE_CUDA_H */
