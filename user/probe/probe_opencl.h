/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of the OpenCL 1.2 API the probes use, declared here so that the
 * tool builds without OpenCL headers and loads libOpenCL.so.1 (the ICD
 * loader) only at run time. Values are those of Khronos' CL/cl.h.
 */
#ifndef GPUPROBE_PROBE_OPENCL_H
#define GPUPROBE_PROBE_OPENCL_H

#include <stddef.h>
#include <stdint.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_ulong cl_bitfield;
typedef cl_bitfield cl_device_type;
typedef cl_bitfield cl_mem_flags;
typedef cl_bitfield cl_map_flags;
typedef cl_bitfield cl_command_queue_properties;
typedef cl_uint cl_bool;
typedef cl_uint cl_info;	/* every *_info enum is a cl_uint */
typedef intptr_t cl_context_properties;

typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_program *cl_program;
typedef struct _cl_kernel *cl_kernel;
typedef struct _cl_event *cl_event;

#define CL_SUCCESS			0
#define CL_FALSE			0
#define CL_TRUE				1
#define CL_PLATFORM_NOT_FOUND_KHR	(-1001)
#define CL_DEVICE_NOT_FOUND		(-1)

#define CL_PLATFORM_VERSION		0x0901
#define CL_PLATFORM_NAME		0x0902
#define CL_DEVICE_TYPE_GPU		(1 << 2)
#define CL_DEVICE_TYPE_ALL		0xFFFFFFFF
#define CL_DEVICE_NAME			0x102B
#define CL_DRIVER_VERSION		0x102D
#define CL_DEVICE_VERSION		0x102F
#define CL_QUEUE_PROFILING_ENABLE	(1 << 1)
#define CL_MEM_READ_WRITE		(1 << 0)
#define CL_MEM_USE_HOST_PTR		(1 << 3)
#define CL_MEM_ALLOC_HOST_PTR		(1 << 4)
#define CL_MAP_READ			(1 << 0)
#define CL_MAP_WRITE			(1 << 1)
#define CL_PROGRAM_BUILD_LOG		0x1183
#define CL_EVENT_COMMAND_EXECUTION_STATUS 0x11D3
#define CL_COMPLETE			0x0
#define CL_PROFILING_COMMAND_QUEUED	0x1280
#define CL_PROFILING_COMMAND_SUBMIT	0x1281
#define CL_PROFILING_COMMAND_START	0x1282
#define CL_PROFILING_COMMAND_END	0x1283

/* X(name, return type, parameters): every entry point dlsym'd by name. */
#define OPENCL_FUNCTIONS(X) \
	X(clGetPlatformIDs, cl_int, (cl_uint, cl_platform_id *, cl_uint *)) \
	X(clGetPlatformInfo, cl_int, (cl_platform_id, cl_info, size_t, void *, size_t *)) \
	X(clGetDeviceIDs, cl_int, (cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *)) \
	X(clGetDeviceInfo, cl_int, (cl_device_id, cl_info, size_t, void *, size_t *)) \
	X(clCreateContext, cl_context, (const cl_context_properties *, cl_uint, const cl_device_id *, \
		void (*)(const char *, const void *, size_t, void *), void *, cl_int *)) \
	X(clReleaseContext, cl_int, (cl_context)) \
	X(clCreateCommandQueue, cl_command_queue, (cl_context, cl_device_id, \
		cl_command_queue_properties, cl_int *)) \
	X(clReleaseCommandQueue, cl_int, (cl_command_queue)) \
	X(clCreateProgramWithSource, cl_program, (cl_context, cl_uint, const char **, const size_t *, \
		cl_int *)) \
	X(clBuildProgram, cl_int, (cl_program, cl_uint, const cl_device_id *, const char *, \
		void (*)(cl_program, void *), void *)) \
	X(clGetProgramBuildInfo, cl_int, (cl_program, cl_device_id, cl_info, size_t, void *, size_t *)) \
	X(clReleaseProgram, cl_int, (cl_program)) \
	X(clCreateKernel, cl_kernel, (cl_program, const char *, cl_int *)) \
	X(clReleaseKernel, cl_int, (cl_kernel)) \
	X(clEnqueueNDRangeKernel, cl_int, (cl_command_queue, cl_kernel, cl_uint, const size_t *, \
		const size_t *, const size_t *, cl_uint, const cl_event *, cl_event *)) \
	X(clFlush, cl_int, (cl_command_queue)) \
	X(clFinish, cl_int, (cl_command_queue)) \
	X(clWaitForEvents, cl_int, (cl_uint, const cl_event *)) \
	X(clGetEventInfo, cl_int, (cl_event, cl_info, size_t, void *, size_t *)) \
	X(clGetEventProfilingInfo, cl_int, (cl_event, cl_info, size_t, void *, size_t *)) \
	X(clReleaseEvent, cl_int, (cl_event)) \
	X(clCreateBuffer, cl_mem, (cl_context, cl_mem_flags, size_t, void *, cl_int *)) \
	X(clReleaseMemObject, cl_int, (cl_mem)) \
	X(clEnqueueWriteBuffer, cl_int, (cl_command_queue, cl_mem, cl_bool, size_t, size_t, \
		const void *, cl_uint, const cl_event *, cl_event *)) \
	X(clEnqueueReadBuffer, cl_int, (cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, \
		cl_uint, const cl_event *, cl_event *)) \
	X(clEnqueueCopyBuffer, cl_int, (cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, \
		cl_uint, const cl_event *, cl_event *)) \
	X(clEnqueueMapBuffer, void *, (cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, \
		size_t, cl_uint, const cl_event *, cl_event *, cl_int *)) \
	X(clEnqueueUnmapMemObject, cl_int, (cl_command_queue, cl_mem, void *, cl_uint, \
		const cl_event *, cl_event *))

#endif /* GPUPROBE_PROBE_OPENCL_H */
