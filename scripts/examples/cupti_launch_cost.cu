// SPDX-License-Identifier: GPL-2.0
/*
 * What a CUDA tracer costs each call, without Python or PyTorch in the way
 * (issue 24; scripts/cupti-split.sh runs it under libgpuprobe_cupti.so with
 * one recording choice after another).  Three timed phases, after a warm-up:
 *   launch  STEPS steps of LAUNCHES empty-kernel launches (cudaLaunchKernel,
 *           one block of 32 threads), a 4 KiB pinned host->device copy, a
 *           memset, an event record and a blocking event sync: a
 *           launch-bound training step's shape, with no device work worth
 *           the name
 *   api     CALLS cudaGetDevice + cudaStreamQuery pairs (calls attribution
 *           does not record: what being subscribed costs a call)
 * One line: cupti_launch_cost step_us S launch_us L api_us A
 * (step_us: one step; launch_us: a step over its launches; api_us: one pair).
 */
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <cuda_runtime.h>

__global__ void empty_kernel(int *p)
{
	if (p && threadIdx.x == 1000)
		*p = 1;
}

static double now_us()
{
	timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
	fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 200;
	int launches = argc > 2 ? atoi(argv[2]) : 200;
	int calls = argc > 3 ? atoi(argv[3]) : 100000;
	cudaStream_t s;
	cudaEvent_t ev;
	void *host, *dev;
	int d;

	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaEventCreateWithFlags(&ev, cudaEventBlockingSync | cudaEventDisableTiming));
	CHECK(cudaMallocHost(&host, 4096));
	CHECK(cudaMalloc(&dev, 4096));
	auto step = [&]() {
		for (int i = 0; i < launches; i++)
			empty_kernel<<<1, 32, 0, s>>>(nullptr);
		CHECK(cudaMemcpyAsync(dev, host, 4096, cudaMemcpyHostToDevice, s));
		CHECK(cudaMemsetAsync(dev, 0, 4096, s));
		CHECK(cudaEventRecord(ev, s));
		CHECK(cudaEventSynchronize(ev));
	};
	for (int i = 0; i < 20; i++)
		step();
	double t0 = now_us();
	for (int i = 0; i < steps; i++)
		step();
	double t1 = now_us();
	for (int i = 0; i < calls; i++) {
		CHECK(cudaGetDevice(&d));
		cudaStreamQuery(s);
	}
	double t2 = now_us();
	CHECK(cudaGetLastError());
	printf("cupti_launch_cost step_us %.3f launch_us %.4f api_us %.4f\n", (t1 - t0) / steps,
	       (t1 - t0) / steps / launches, (t2 - t1) / calls);
	return 0;
}
