// SPDX-License-Identifier: GPL-2.0
/*
 * A plain OpenCL program for the layer's tests, knowing nothing of gpuprobe:
 * 2 writes (a, b), 3 kernels (add, scale, square), 1 blocking read, in that
 * order on one in-order queue, then clFinish.  Prints "ocl_app ok" when the
 * result is right.  Argument: elements (default 1 << 20, 4 MiB per buffer).
 */
#include <stdio.h>
#include <stdlib.h>

#include <CL/cl.h>

static const char *source =
	"__kernel void add(__global const float *a, __global const float *b, __global float *c)\n"
	"{ size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n"
	"__kernel void scale(__global float *c) { size_t i = get_global_id(0); c[i] *= 2.0f; }\n"
	"__kernel void square(__global float *c) { size_t i = get_global_id(0); c[i] *= c[i]; }\n";

#define CHECK(call) do { cl_int _e = (call); if (_e != CL_SUCCESS) { \
	fprintf(stderr, "ocl_app: %s failed: %d\n", #call, _e); return 1; } } while (0)

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1u << 20, bytes = n * sizeof(float);
	float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
	cl_platform_id platform;
	cl_device_id dev;
	cl_context ctx;
	cl_command_queue q;
	cl_program prog;
	cl_kernel k[3];
	cl_mem ba, bb, bc;
	cl_int err;

	if (!a || !b || !c)
		return 1;
	for (size_t i = 0; i < n; i++) {
		a[i] = (float)(i % 100);
		b[i] = 1.0f;
	}
	CHECK(clGetPlatformIDs(1, &platform, NULL));
	CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
	ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
	CHECK(err);
	q = clCreateCommandQueue(ctx, dev, 0, &err);
	CHECK(err);
	prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
	CHECK(err);
	CHECK(clBuildProgram(prog, 1, &dev, NULL, NULL, NULL));
	k[0] = clCreateKernel(prog, "add", &err);
	CHECK(err);
	k[1] = clCreateKernel(prog, "scale", &err);
	CHECK(err);
	k[2] = clCreateKernel(prog, "square", &err);
	CHECK(err);
	ba = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
	CHECK(err);
	bb = clCreateBuffer(ctx, CL_MEM_READ_ONLY, bytes, NULL, &err);
	CHECK(err);
	bc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
	CHECK(err);
	CHECK(clEnqueueWriteBuffer(q, ba, CL_FALSE, 0, bytes, a, 0, NULL, NULL));
	CHECK(clEnqueueWriteBuffer(q, bb, CL_FALSE, 0, bytes, b, 0, NULL, NULL));
	CHECK(clSetKernelArg(k[0], 0, sizeof(ba), &ba));
	CHECK(clSetKernelArg(k[0], 1, sizeof(bb), &bb));
	CHECK(clSetKernelArg(k[0], 2, sizeof(bc), &bc));
	CHECK(clSetKernelArg(k[1], 0, sizeof(bc), &bc));
	CHECK(clSetKernelArg(k[2], 0, sizeof(bc), &bc));
	for (int i = 0; i < 3; i++)
		CHECK(clEnqueueNDRangeKernel(q, k[i], 1, NULL, &n, NULL, 0, NULL, NULL));
	CHECK(clEnqueueReadBuffer(q, bc, CL_TRUE, 0, bytes, c, 0, NULL, NULL));
	CHECK(clFinish(q));
	for (size_t i = 0; i < n; i++) {
		float want = (a[i] + 1.0f) * 2.0f;

		if (c[i] != want * want) {
			fprintf(stderr, "ocl_app: c[%zu] = %f, expected %f\n", i, c[i], want * want);
			return 1;
		}
	}
	for (int i = 0; i < 3; i++)
		clReleaseKernel(k[i]);
	clReleaseMemObject(ba);
	clReleaseMemObject(bb);
	clReleaseMemObject(bc);
	clReleaseProgram(prog);
	clReleaseCommandQueue(q);
	clReleaseContext(ctx);
	printf("ocl_app ok\n");
	return 0;
}
