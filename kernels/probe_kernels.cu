// SPDX-License-Identifier: GPL-2.0
/*
 * Device code for `gpuprobe-trace probe` (user/probe/probe_cuda.c). Compiled by
 * nvcc into a fatbin (SASS for sm_80 and sm_90, PTX for newer GPUs) and
 * embedded in the tool as a byte array, so the tool needs no CUDA toolkit at
 * run time, only the driver's libcuda.so.1.
 *
 * %globaltimer is the GPU's nanosecond wall clock; the host pairs it with
 * CLOCK_MONOTONIC to place "GPU work ended" on the trace's time line.
 */

static __device__ __forceinline__ unsigned long long gp_globaltimer(void)
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* Launch latency: nothing but the launch itself. */
extern "C" __global__ void gp_empty(void)
{
}

/*
 * One thread stamps its start, busy-waits spin_ns on the GPU clock (so a
 * blocking host thread is surely asleep before the work ends), then stamps
 * its end: out[0] = start, out[1] = end, both in %globaltimer ns.
 */
extern "C" __global__ void gp_stamp(unsigned long long *out, unsigned long long spin_ns)
{
	unsigned long long start = gp_globaltimer();
	unsigned long long now = start;

	while (now - start < spin_ns)
		now = gp_globaltimer();
	out[0] = start;
	out[1] = gp_globaltimer();
}

/*
 * The step of %globaltimer: on some GPUs it ticks every microsecond, which
 * widens the calibration's error bound. out[0] = one observed step.
 */
extern "C" __global__ void gp_timer_step(unsigned long long *out)
{
	unsigned long long t0 = gp_globaltimer(), t1, t2;

	do
		t1 = gp_globaltimer();
	while (t1 == t0);
	do
		t2 = gp_globaltimer();
	while (t2 == t1);
	out[0] = t2 - t1;
}
