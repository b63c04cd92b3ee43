// SPDX-License-Identifier: GPL-2.0
/*
 * CUDA probes through the driver API, loaded at run time (dlopen of
 * libcuda.so.1), with the kernels nvcc built into kernels/ embedded as a
 * fatbin. The device clock is %globaltimer, read by the kernels themselves
 * and calibrated to CLOCK_MONOTONIC from min-round-trip pairs.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "probe_cuda.h"
#include "util.h"

#define WAKE_SPIN_NS	100000ULL	/* long enough for the waiter to be asleep */

struct cuda {
	void *lib;
#define CUDA_POINTER(name, ret, args) ret (*name) args;
	CUDA_FUNCTIONS(CUDA_POINTER)
#undef CUDA_POINTER
	CUdevice device;
	CUcontext context;
	CUmodule module;
	CUfunction empty, stamp, timer_step;
	CUstream stream;
	CUevent spin_event, blocking_event;
	CUdeviceptr stamps;		/* 2 x u64 per launch */
	size_t nstamps;
	uint64_t timer_step_ns;
	struct probe_api *api;
	const struct probe_opts *opts;
};

static bool cu_failed(struct cuda *cu, const char *call, CUresult err)
{
	const char *name = "?", *text = "";

	if (cu->api->reason[0])
		return false;
	if (cu->cuGetErrorName)
		cu->cuGetErrorName(err, &name);
	if (cu->cuGetErrorString)
		cu->cuGetErrorString(err, &text);
	snprintf(cu->api->reason, sizeof(cu->api->reason), "%s failed: %s (%d): %s%s", call,
		 name, err, text, cu->api->ran ? "; the probes after it were not run" : "");
	return false;
}

#define CU_CHECK(cu, call) \
	do { CUresult err_ = (call); if (err_ != CUDA_SUCCESS) return cu_failed(cu, #call, err_); } while (0)

static bool cuda_load(struct cuda *cu)
{
	cu->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!cu->lib) {
		const char *why = dlerror();

		if (why && strstr(why, "No such file"))
			snprintf(cu->api->reason, sizeof(cu->api->reason),
				 "no NVIDIA driver (libcuda.so.1 not found)");
		else
			snprintf(cu->api->reason, sizeof(cu->api->reason),
				 "no usable NVIDIA driver (libcuda.so.1: %s)", why ? why : "?");
		return false;
	}
#define CUDA_LOOKUP(name, ret, args) \
	cu->name = (ret (*) args)dlsym(cu->lib, #name); \
	if (!cu->name) { \
		snprintf(cu->api->reason, sizeof(cu->api->reason), \
			 "libcuda.so.1 has no %s: NVIDIA driver too old or not a CUDA driver", #name); \
		return false; \
	}
	CUDA_FUNCTIONS(CUDA_LOOKUP)
#undef CUDA_LOOKUP
	return true;
}

static bool cuda_describe(struct cuda *cu)
{
	char name[128] = "", bus[32] = "";
	int major = 0, minor = 0, version = 0;

	cu->cuDeviceGetName(name, sizeof(name), cu->device);
	cu->cuDeviceGetPCIBusId(bus, sizeof(bus), cu->device);
	cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, cu->device);
	cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, cu->device);
	cu->cuDriverGetVersion(&version);
	snprintf(cu->api->device, sizeof(cu->api->device), "%s, sm_%d%d, PCI %s", name, major,
		 minor, bus);
	snprintf(cu->api->driver, sizeof(cu->api->driver),
		 "CUDA driver API %d.%d, kernels from %s", version / 1000, version % 1000 / 10,
		 gpuprobe_cuda_fatbin_built_with);
	return true;
}

static bool cuda_setup(struct cuda *cu, size_t nstamps)
{
	int count = 0;
	CUresult err;

	if (!cuda_load(cu))
		return false;
	err = cu->cuInit(0);
	if (err == CUDA_ERROR_NO_DEVICE) {
		snprintf(cu->api->reason, sizeof(cu->api->reason),
			 "NVIDIA driver present but no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)");
		return false;
	}
	CU_CHECK(cu, err);
	CU_CHECK(cu, cu->cuDeviceGetCount(&count));
	if (count < 1) {
		snprintf(cu->api->reason, sizeof(cu->api->reason), "no CUDA device");
		return false;
	}
	if (gpuprobe_cuda_fatbin_size == 0) {
		snprintf(cu->api->reason, sizeof(cu->api->reason),
			 "built without CUDA kernels (%s): install the CUDA toolkit and rebuild "
			 "(make -C kernels && make -C user)", gpuprobe_cuda_fatbin_built_with);
		return false;
	}
	CU_CHECK(cu, cu->cuDeviceGet(&cu->device, 0));
	CU_CHECK(cu, cu->cuDevicePrimaryCtxRetain(&cu->context, cu->device));
	CU_CHECK(cu, cu->cuCtxSetCurrent(cu->context));
	cuda_describe(cu);
	err = cu->cuModuleLoadData(&cu->module, gpuprobe_cuda_fatbin);
	if (err != CUDA_SUCCESS) {
		cu_failed(cu, "cuModuleLoadData(embedded fatbin: sm_80, sm_90, compute_90 PTX)", err);
		return false;
	}
	CU_CHECK(cu, cu->cuModuleGetFunction(&cu->empty, cu->module, "gp_empty"));
	CU_CHECK(cu, cu->cuModuleGetFunction(&cu->stamp, cu->module, "gp_stamp"));
	CU_CHECK(cu, cu->cuModuleGetFunction(&cu->timer_step, cu->module, "gp_timer_step"));
	CU_CHECK(cu, cu->cuStreamCreate(&cu->stream, CU_STREAM_NON_BLOCKING));
	CU_CHECK(cu, cu->cuEventCreate(&cu->spin_event, CU_EVENT_DISABLE_TIMING));
	CU_CHECK(cu, cu->cuEventCreate(&cu->blocking_event,
				       CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING));
	CU_CHECK(cu, cu->cuMemAlloc_v2(&cu->stamps, nstamps * 2 * sizeof(uint64_t)));
	cu->nstamps = nstamps;
	return true;
}

static void cuda_teardown(struct cuda *cu)
{
	if (!cu->context)
		return;
	cu->cuCtxSynchronize();
	if (cu->stamps)
		cu->cuMemFree_v2(cu->stamps);
	if (cu->blocking_event)
		cu->cuEventDestroy_v2(cu->blocking_event);
	if (cu->spin_event)
		cu->cuEventDestroy_v2(cu->spin_event);
	if (cu->stream)
		cu->cuStreamDestroy_v2(cu->stream);
	if (cu->module)
		cu->cuModuleUnload(cu->module);
	cu->cuDevicePrimaryCtxRelease_v2(cu->device);
}

/* Wait for ev: spinning on cuEventQuery, or blocked in cuEventSynchronize. */
static bool wait_event(struct cuda *cu, CUevent ev, bool blocking)
{
	CUresult err;

	if (blocking)
		CU_CHECK(cu, cu->cuEventSynchronize(ev));
	else
		while ((err = cu->cuEventQuery(ev)) != CUDA_SUCCESS)
			if (err != CUDA_ERROR_NOT_READY)
				return cu_failed(cu, "cuEventQuery", err);
	return true;
}

/*
 * One gp_stamp launch writing stamps slot `slot`: t[0] before the launch,
 * t[1] after launch + event record returned, t[2] when the wait returned.
 */
static bool launch_stamp(struct cuda *cu, size_t slot, uint64_t spin_ns, bool blocking, uint64_t t[3])
{
	CUdeviceptr out = cu->stamps + slot * 2 * sizeof(uint64_t);
	void *params[] = { &out, &spin_ns };
	CUevent ev = blocking ? cu->blocking_event : cu->spin_event;

	t[0] = mono_now_ns();
	CU_CHECK(cu, cu->cuLaunchKernel(cu->stamp, 1, 1, 1, 1, 1, 1, 0, cu->stream, params, NULL));
	CU_CHECK(cu, cu->cuEventRecord(ev, cu->stream));
	t[1] = mono_now_ns();
	if (!wait_event(cu, ev, blocking))
		return false;
	t[2] = mono_now_ns();
	return true;
}

static bool read_stamps(struct cuda *cu, uint64_t *host, size_t n)
{
	CU_CHECK(cu, cu->cuMemcpyDtoH_v2(host, cu->stamps, n * 2 * sizeof(uint64_t)));
	return true;
}

static bool measure_timer_step(struct cuda *cu)
{
	void *params[] = { &cu->stamps };

	CU_CHECK(cu, cu->cuLaunchKernel(cu->timer_step, 1, 1, 1, 1, 1, 1, 0, cu->stream, params, NULL));
	CU_CHECK(cu, cu->cuStreamSynchronize(cu->stream));
	CU_CHECK(cu, cu->cuMemcpyDtoH_v2(&cu->timer_step_ns, cu->stamps, sizeof(uint64_t)));
	return true;
}

/*
 * n spin-waited gp_stamp launches, no spin in the kernel. Each gives the
 * bounds submit <= gpu start and gpu end <= host sees it; calibration
 * intersects the tightest. With the calibration in hand the same samples
 * give the queue delay (submit -> GPU start) and the spin-wait tail.
 */
static bool calibrate(struct cuda *cu, struct probe_clock_cal *cal, size_t n,
		      struct probe_dist *queue_delay, struct probe_dist *spin_tail)
{
	struct probe_clock_pair *pairs = calloc(2 * n, sizeof(*pairs));
	uint64_t *host = calloc(2 * n, sizeof(*host)), (*t)[3] = calloc(n, sizeof(*t));
	bool ok = pairs && host && t;

	for (size_t i = 0; ok && i < n; i++)
		ok = launch_stamp(cu, i, 0, false, t[i]);
	ok = ok && read_stamps(cu, host, n);
	for (size_t i = 0; ok && i < n; i++) {
		pairs[2 * i] = (struct probe_clock_pair){ t[i][0], host[2 * i], t[i][2] };
		pairs[2 * i + 1] = (struct probe_clock_pair){ t[i][0], host[2 * i + 1], t[i][2] };
	}
	if (ok && probe_clock_fit(pairs, 2 * n, cal))
		/* A stamp is the timer's value, up to one step before the instant. */
		cal->error_ns += (double)cu->timer_step_ns;
	for (size_t i = 0; ok && queue_delay && i < n; i++) {
		probe_defer(cu->api, queue_delay, t[i][0], host[2 * i], -1);
		probe_defer(cu->api, spin_tail, t[i][2], host[2 * i + 1], 1);
	}
	copy_string(cal->source, sizeof(cal->source), "%globaltimer");
	free(pairs);
	free(host);
	free(t);
	return ok;
}

static bool probe_launch(struct cuda *cu, size_t n)
{
	struct probe_dist *total = probe_dist_new(cu->api, "launch_latency", 0,
		"empty kernel: cuLaunchKernel -> host sees completion (cuEventQuery spin)");
	struct probe_dist *call = probe_dist_new(cu->api, "launch.call", 0,
		"cuLaunchKernel + cuEventRecord return");

	probe_phase_begin(cu->api, "launch_latency");
	for (size_t i = 0; i < n; i++) {
		uint64_t t0 = mono_now_ns(), t1;

		CU_CHECK(cu, cu->cuLaunchKernel(cu->empty, 1, 1, 1, 1, 1, 1, 0, cu->stream, NULL, NULL));
		CU_CHECK(cu, cu->cuEventRecord(cu->spin_event, cu->stream));
		t1 = mono_now_ns();
		if (!wait_event(cu, cu->spin_event, false))
			return false;
		probe_dist_add(total, (double)(mono_now_ns() - t0));
		probe_dist_add(call, (double)(t1 - t0));
	}
	probe_phase_end(cu->api);
	return true;
}

/*
 * Blocking vs spinning waits on the same kernel: the difference is the
 * interrupt path (MSI -> handler -> wake-up -> the thread runs). Blocking
 * samples keep their timestamps for the waterfall.
 */
static bool probe_wake(struct cuda *cu, size_t n, uint64_t spin_ns, bool blocking, const char *name,
		       const char *tail_name)
{
	struct probe_dist *total, *tail;
	uint64_t (*t)[3] = calloc(n, sizeof(*t)), *gpu = calloc(2 * n, sizeof(*gpu));
	bool ok = t && gpu;

	total = probe_dist_new(cu->api, name, 0, "gp_stamp (%llu us): launch -> %s returns",
			       (unsigned long long)(spin_ns / 1000),
			       blocking ? "cuEventSynchronize (BLOCKING_SYNC event)" : "cuEventQuery spin");
	tail = probe_dist_new(cu->api, tail_name, 0, "GPU end (%%globaltimer, calibrated) -> %s returns",
			      blocking ? "cuEventSynchronize" : "spin");
	probe_phase_begin(cu->api, name);
	for (size_t i = 0; ok && i < n; i++)
		ok = launch_stamp(cu, i, spin_ns, blocking, t[i]);
	probe_phase_end(cu->api);
	ok = ok && read_stamps(cu, gpu, n);
	for (size_t i = 0; ok && i < n; i++) {
		struct probe_wake_sample w = {
			.submit_ns = t[i][0], .launched_ns = t[i][1], .return_ns = t[i][2],
			.kernel_spin_ns = spin_ns, .blocking = blocking,
		};

		w.gpu_start_dev = gpu[2 * i];
		w.gpu_end_dev = gpu[2 * i + 1];
		probe_dist_add(total, (double)(t[i][2] - t[i][0]));
		probe_defer(cu->api, tail, t[i][2], w.gpu_end_dev, 1);
		if (blocking)
			probe_wake_add(cu->api, &w);
	}
	free(t);
	free(gpu);
	return ok;
}

static bool time_copy(struct cuda *cu, struct probe_dist *d, int dir, CUdeviceptr dev,
		      CUdeviceptr dev2, void *host, uint64_t bytes, uint64_t budget_ns)
{
	uint64_t est = 0, start = mono_now_ns(), i;

	for (i = 0; i < probe_samples_for(est, budget_ns, 3, 100) + 1; i++) {
		uint64_t t0 = mono_now_ns();

		if (dir == 0)
			CU_CHECK(cu, cu->cuMemcpyHtoDAsync_v2(dev, host, bytes, cu->stream));
		else if (dir == 1)
			CU_CHECK(cu, cu->cuMemcpyDtoHAsync_v2(host, dev, bytes, cu->stream));
		else
			CU_CHECK(cu, cu->cuMemcpyDtoDAsync_v2(dev2, dev, bytes, cu->stream));
		CU_CHECK(cu, cu->cuStreamSynchronize(cu->stream));
		if (i == 0)
			est = mono_now_ns() - t0;	/* warm-up, sizes the run */
		else
			probe_dist_add(d, (double)(mono_now_ns() - t0));
	}
	probe_window_add(cu->api, d, start, mono_now_ns(), (uint32_t)i);
	return true;
}

/* H2D/D2H sweep, pinned (cuMemAllocHost) and pageable (anonymous) memory. */
static bool probe_copies(struct cuda *cu)
{
	const uint64_t *sizes, budget = cu->opts->quick ? 50000000ULL : 250000000ULL;
	size_t nsizes = probe_sizes(cu->opts, &sizes);
	uint64_t max = sizes[nsizes - 1];
	void *pinned = NULL, *pageable = NULL;
	CUdeviceptr dev = 0;
	bool ok = false;

	probe_phase_begin(cu->api, "copy_sweep");
	if (cu->cuMemAlloc_v2(&dev, max) != CUDA_SUCCESS || cu->cuMemAllocHost_v2(&pinned, max) != CUDA_SUCCESS) {
		cu_failed(cu, "cuMemAlloc/cuMemAllocHost for the copy sweep", 2);
		goto out;
	}
	pageable = probe_host_alloc(max);
	if (!pageable)
		goto out;
	memset(pinned, 1, max);
	for (int dir = 0; dir <= 1; dir++)
		for (int pin = 1; pin >= 0; pin--)
			for (size_t s = 0; s < nsizes; s++) {
				char prefix[32], what[96];

				snprintf(prefix, sizeof(prefix), "%s.%s", dir ? "d2h" : "h2d",
					 pin ? "pinned" : "pageable");
				snprintf(what, sizeof(what), "%s + cuStreamSynchronize, %s host memory",
					 dir ? "cuMemcpyDtoHAsync" : "cuMemcpyHtoDAsync",
					 pin ? "cuMemAllocHost (pinned)" : "pageable");
				if (!time_copy(cu, probe_dist_sized(cu->api, prefix, sizes[s], sizes[s], what),
					       dir, dev, 0, pin ? pinned : pageable, sizes[s], budget))
					goto out;
			}
	ok = true;
out:
	probe_phase_end(cu->api);
	if (dev)
		cu->cuMemFree_v2(dev);
	if (pinned)
		cu->cuMemFreeHost(pinned);
	probe_host_free(pageable, max);
	return ok;
}

/*
 * cuMemHostRegister on fresh memory (first) and again on the same memory
 * after cuMemHostUnregister (repeat). In a VM the first map of guest pages
 * can make the hypervisor pin them; the repeat shows what is left.
 */
static bool probe_pinning(struct cuda *cu)
{
	const uint64_t *sizes;
	size_t nsizes = probe_pin_sizes(cu->opts, &sizes);
	bool ok = true;

	probe_phase_begin(cu->api, "pin");
	for (size_t s = 0; s < nsizes && ok; s++) {
		uint64_t bytes = sizes[s];
		size_t n = cu->opts->quick ? 5 : bytes >= (64u << 20) ? 4 : 10;
		struct probe_dist *first, *repeat, *unpin;

		first = probe_dist_sized(cu->api, "pin.first", bytes, 0, "cuMemHostRegister, fresh memory");
		repeat = probe_dist_sized(cu->api, "pin.repeat", bytes, 0,
					  "cuMemHostRegister again, same memory");
		unpin = probe_dist_sized(cu->api, "unpin", bytes, 0, "cuMemHostUnregister");
		for (size_t i = 0; i < n && ok; i++) {
			void *host = probe_host_alloc(bytes);

			if (!host)
				return false;
			for (int pass = 0; pass < 2 && ok; pass++) {
				uint64_t t0 = mono_now_ns(), t1, t2;
				CUresult err = cu->cuMemHostRegister_v2(host, bytes, 0);

				t1 = mono_now_ns();
				if (err == CUDA_SUCCESS)
					err = cu->cuMemHostUnregister(host);
				t2 = mono_now_ns();
				if (err != CUDA_SUCCESS) {
					ok = cu_failed(cu, "cuMemHostRegister/Unregister", err);
					break;
				}
				probe_dist_add(pass ? repeat : first, (double)(t1 - t0));
				probe_dist_add(unpin, (double)(t2 - t1));
				probe_window_add(cu->api, pass ? repeat : first, t0, t1, 1);
				probe_window_add(cu->api, unpin, t1, t2, 1);
			}
			probe_host_free(host, bytes);
		}
	}
	probe_phase_end(cu->api);
	return ok;
}

static bool probe_alloc(struct cuda *cu)
{
	static const uint64_t sizes[] = { 4096, 1u << 20, 64u << 20 };
	size_t nsizes = cu->opts->quick ? 2 : 3;

	probe_phase_begin(cu->api, "alloc");
	for (size_t s = 0; s < nsizes; s++) {
		size_t n = cu->opts->quick ? 20 : sizes[s] >= (64u << 20) ? 10 : 50;
		struct probe_dist *dalloc, *dfree, *halloc, *hfree;

		dalloc = probe_dist_sized(cu->api, "alloc.device", sizes[s], 0, "cuMemAlloc");
		dfree = probe_dist_sized(cu->api, "free.device", sizes[s], 0, "cuMemFree");
		halloc = probe_dist_sized(cu->api, "alloc.host_pinned", sizes[s], 0, "cuMemAllocHost");
		hfree = probe_dist_sized(cu->api, "free.host_pinned", sizes[s], 0, "cuMemFreeHost");
		for (size_t i = 0; i < n; i++) {
			uint64_t t0 = mono_now_ns(), t1;
			CUdeviceptr d;
			void *h;

			CU_CHECK(cu, cu->cuMemAlloc_v2(&d, sizes[s]));
			t1 = mono_now_ns();
			CU_CHECK(cu, cu->cuMemFree_v2(d));
			probe_dist_add(dalloc, (double)(t1 - t0));
			probe_dist_add(dfree, (double)(mono_now_ns() - t1));
			t0 = mono_now_ns();
			CU_CHECK(cu, cu->cuMemAllocHost_v2(&h, sizes[s]));
			t1 = mono_now_ns();
			CU_CHECK(cu, cu->cuMemFreeHost(h));
			probe_dist_add(halloc, (double)(t1 - t0));
			probe_dist_add(hfree, (double)(mono_now_ns() - t1));
		}
	}
	probe_phase_end(cu->api);
	return true;
}

/* The control: a device-to-device copy never crosses PCIe or the IOMMU. */
static bool probe_device_copy(struct cuda *cu)
{
	uint64_t bytes = cu->opts->quick ? (1u << 20) : (256u << 20);
	CUdeviceptr a = 0, b = 0;
	bool ok;

	if (cu->cuMemAlloc_v2(&a, bytes) != CUDA_SUCCESS || cu->cuMemAlloc_v2(&b, bytes) != CUDA_SUCCESS) {
		if (a)
			cu->cuMemFree_v2(a);
		return cu_failed(cu, "cuMemAlloc for the device copy", 2);
	}
	probe_phase_begin(cu->api, "device_copy");
	ok = time_copy(cu, probe_dist_sized(cu->api, "d2d", bytes, bytes,
					    "cuMemcpyDtoDAsync + cuStreamSynchronize"),
		       2, a, b, NULL, bytes, 200000000ULL);
	probe_phase_end(cu->api);
	cu->cuMemFree_v2(a);
	cu->cuMemFree_v2(b);
	return ok;
}

bool probe_cuda_run(struct probe_api *a, const struct probe_opts *o)
{
	struct cuda cu = { .api = a, .opts = o };
	struct probe_clock_cal end_cal = { 0 };
	size_t ncal = o->quick ? 100 : 400, nlat = o->quick ? 200 : 2000;
	size_t nwake = o->quick ? 100 : 1000;

	if (!cuda_setup(&cu, ncal > nwake ? ncal : nwake)) {
		cuda_teardown(&cu);
		return false;
	}
	a->ran = true;
	probe_phase_begin(a, "calibrate");
	if (measure_timer_step(&cu))
		calibrate(&cu, &a->cal, ncal,
			  probe_dist_new(a, "queue_delay.submit_to_start", 0,
					 "launch call -> GPU start (%%globaltimer, calibrated)"),
			  probe_dist_new(a, "spin_wait.end_to_return", 0,
					 "GPU end (%%globaltimer, calibrated) -> spinning host sees it"));
	probe_phase_end(a);
	if (probe_launch(&cu, nlat) &&
	    probe_wake(&cu, nwake, 0, true, "sync_wake_latency", "sync_wake.end_to_return") &&
	    probe_wake(&cu, nwake / 2, WAKE_SPIN_NS, false, "spin_wait_100us", "spin_wait_100us.end_to_return") &&
	    probe_wake(&cu, nwake / 2, WAKE_SPIN_NS, true, "sync_wake_100us", "sync_wake_100us.end_to_return") &&
	    probe_copies(&cu) && probe_pinning(&cu) && probe_alloc(&cu) && probe_device_copy(&cu)) {
		probe_phase_begin(a, "calibrate_end");
		if (calibrate(&cu, &end_cal, ncal, NULL, NULL))
			probe_clock_merge(&a->cal, &end_cal);
		probe_phase_end(a);
	}
	probe_resolve(a);
	cuda_teardown(&cu);
	return true;
}
