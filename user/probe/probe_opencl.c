// SPDX-License-Identifier: GPL-2.0
/*
 * OpenCL probes through the ICD loader, loaded at run time: the tool runs
 * (and says why OpenCL is skipped) where no OpenCL is installed. Kernels are
 * built at run time from source. The device clock is that of the profiling
 * timestamps (CL_PROFILING_COMMAND_*), calibrated to CLOCK_MONOTONIC.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "probe_opencl.h"
#include "util.h"

struct opencl {
	void *lib;
#define OPENCL_POINTER(name, ret, args) ret (*name) args;
	OPENCL_FUNCTIONS(OPENCL_POINTER)
#undef OPENCL_POINTER
	cl_platform_id platform;
	cl_device_id device;
	cl_context context;
	cl_command_queue queue;
	cl_program program;
	cl_kernel empty;
	struct probe_api *api;
	const struct probe_opts *opts;
};

static const char kernel_source[] = "__kernel void gp_empty(void) { }\n";

/* Record the first failure as the reason; false so callers can return it. */
static bool cl_failed(struct opencl *cl, const char *call, cl_int err)
{
	if (!cl->api->reason[0])
		snprintf(cl->api->reason, sizeof(cl->api->reason),
			 "%s failed with OpenCL error %d; the probes after it were not run", call, err);
	return false;
}

#define CL_CHECK(cl, call) \
	do { cl_int err_ = (call); if (err_ != CL_SUCCESS) return cl_failed(cl, #call, err_); } while (0)

static bool opencl_load(struct opencl *cl)
{
	cl->lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!cl->lib) {
		snprintf(cl->api->reason, sizeof(cl->api->reason),
			 "no OpenCL ICD loader (libOpenCL.so.1 not found: %s); install ocl-icd-libopencl1 "
			 "and a platform (the NVIDIA driver's libnvidia-opencl, or pocl-opencl-icd)",
			 dlerror());
		return false;
	}
#define OPENCL_LOOKUP(name, ret, args) \
	cl->name = (ret (*) args)dlsym(cl->lib, #name); \
	if (!cl->name) { \
		snprintf(cl->api->reason, sizeof(cl->api->reason), \
			 "libOpenCL.so.1 has no %s: ICD loader too old", #name); \
		return false; \
	}
	OPENCL_FUNCTIONS(OPENCL_LOOKUP)
#undef OPENCL_LOOKUP
	return true;
}

/* First GPU of any platform, else the first device at all (PoCL's CPU). */
static bool opencl_pick_device(struct opencl *cl)
{
	cl_platform_id platforms[16];
	cl_uint nplat = 0, ndev = 0;
	cl_int err = cl->clGetPlatformIDs(16, platforms, &nplat);

	if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && nplat == 0)) {
		snprintf(cl->api->reason, sizeof(cl->api->reason),
			 "no OpenCL platform: the ICD loader found no vendor library (check "
			 "/etc/OpenCL/vendors/*.icd or OCL_ICD_VENDORS)");
		return false;
	}
	if (err != CL_SUCCESS)
		return cl_failed(cl, "clGetPlatformIDs", err);
	if (nplat > 16)
		nplat = 16;
	for (int want_gpu = 1; want_gpu >= 0; want_gpu--) {
		for (cl_uint p = 0; p < nplat; p++) {
			cl_device_type type = want_gpu ? CL_DEVICE_TYPE_GPU : CL_DEVICE_TYPE_ALL;

			if (cl->clGetDeviceIDs(platforms[p], type, 1, &cl->device, &ndev) == CL_SUCCESS &&
			    ndev > 0) {
				cl->platform = platforms[p];
				return true;
			}
		}
	}
	snprintf(cl->api->reason, sizeof(cl->api->reason),
		 "OpenCL platforms found (%u) but none has a device", nplat);
	return false;
}

static bool opencl_setup(struct opencl *cl)
{
	char pname[128] = "", dname[128] = "", dver[128] = "", drv[64] = "";
	const char *src = kernel_source;
	cl_int err;

	if (!opencl_load(cl) || !opencl_pick_device(cl))
		return false;
	cl->clGetPlatformInfo(cl->platform, CL_PLATFORM_NAME, sizeof(pname) - 1, pname, NULL);
	cl->clGetDeviceInfo(cl->device, CL_DEVICE_NAME, sizeof(dname) - 1, dname, NULL);
	cl->clGetDeviceInfo(cl->device, CL_DEVICE_VERSION, sizeof(dver) - 1, dver, NULL);
	cl->clGetDeviceInfo(cl->device, CL_DRIVER_VERSION, sizeof(drv) - 1, drv, NULL);
	snprintf(cl->api->device, sizeof(cl->api->device), "%s / %s", pname, dname);
	snprintf(cl->api->driver, sizeof(cl->api->driver), "%s, driver %s", dver, drv);

	cl->context = cl->clCreateContext(NULL, 1, &cl->device, NULL, NULL, &err);
	if (!cl->context)
		return cl_failed(cl, "clCreateContext", err);
	cl->queue = cl->clCreateCommandQueue(cl->context, cl->device, CL_QUEUE_PROFILING_ENABLE, &err);
	if (!cl->queue)
		return cl_failed(cl, "clCreateCommandQueue", err);
	cl->program = cl->clCreateProgramWithSource(cl->context, 1, &src, NULL, &err);
	if (!cl->program)
		return cl_failed(cl, "clCreateProgramWithSource", err);
	err = cl->clBuildProgram(cl->program, 1, &cl->device, "", NULL, NULL);
	if (err != CL_SUCCESS) {
		char log[256] = "";

		cl->clGetProgramBuildInfo(cl->program, cl->device, CL_PROGRAM_BUILD_LOG,
					  sizeof(log) - 1, log, NULL);
		snprintf(cl->api->reason, sizeof(cl->api->reason),
			 "clBuildProgram failed with error %d: %s", err, log);
		return false;
	}
	cl->empty = cl->clCreateKernel(cl->program, "gp_empty", &err);
	if (!cl->empty)
		return cl_failed(cl, "clCreateKernel", err);
	return true;
}

static void opencl_teardown(struct opencl *cl)
{
	if (cl->empty)
		cl->clReleaseKernel(cl->empty);
	if (cl->program)
		cl->clReleaseProgram(cl->program);
	if (cl->queue)
		cl->clReleaseCommandQueue(cl->queue);
	if (cl->context)
		cl->clReleaseContext(cl->context);
	/* The library stays loaded: vendor ICDs do not all survive dlclose. */
}

static cl_ulong event_time(struct opencl *cl, cl_event ev, cl_info what)
{
	cl_ulong t = 0;

	cl->clGetEventProfilingInfo(ev, what, sizeof(t), &t, NULL);
	return t;
}

/*
 * One empty kernel: t[0] before the enqueue, t[1] after it returned,
 * t[2] when the host sees completion, spinning on the event status or
 * blocked in clWaitForEvents. *ev is left for the caller to read and release.
 */
static bool launch_empty(struct opencl *cl, bool blocking, uint64_t t[3], cl_event *ev)
{
	const size_t one = 1;
	cl_int status = 1;

	t[0] = mono_now_ns();
	CL_CHECK(cl, cl->clEnqueueNDRangeKernel(cl->queue, cl->empty, 1, NULL, &one, &one, 0, NULL, ev));
	CL_CHECK(cl, cl->clFlush(cl->queue));
	t[1] = mono_now_ns();
	if (blocking) {
		CL_CHECK(cl, cl->clWaitForEvents(1, ev));
	} else {
		while (status != CL_COMPLETE) {
			CL_CHECK(cl, cl->clGetEventInfo(*ev, CL_EVENT_COMMAND_EXECUTION_STATUS,
							sizeof(status), &status, NULL));
			if (status < 0)
				return cl_failed(cl, "kernel execution", status);
		}
	}
	t[2] = mono_now_ns();
	return true;
}

static bool calibrate(struct opencl *cl, struct probe_clock_cal *cal, size_t n)
{
	struct probe_clock_pair *pairs = calloc(n, sizeof(*pairs));
	bool ok = true;

	if (!pairs)
		return false;
	for (size_t i = 0; i < n && ok; i++) {
		uint64_t t[3];
		cl_event ev;

		ok = launch_empty(cl, false, t, &ev);
		if (ok) {
			pairs[i] = (struct probe_clock_pair){ t[0], event_time(cl, ev, CL_PROFILING_COMMAND_END), t[2] };
			cl->clReleaseEvent(ev);
		}
	}
	if (ok)
		probe_clock_fit(pairs, n, cal);
	copy_string(cal->source, sizeof(cal->source), "CL_PROFILING_COMMAND_END");
	free(pairs);
	return ok;
}

/*
 * Launch latency (spin wait) and sync wake latency (clWaitForEvents), the
 * same empty kernel both ways, plus the queue delays of the profiling
 * timestamps (SHOC QueueDelay: queued -> submitted -> started).
 */
static bool probe_launch_and_wake(struct opencl *cl, size_t n)
{
	struct probe_api *a = cl->api;
	struct probe_dist *spin, *spin_end, *wake, *wake_end, *q_sub, *q_start, *exec;

	spin = probe_dist_new(a, "launch_latency", 0, "empty kernel: enqueue -> host sees CL_COMPLETE (spin)");
	spin_end = probe_dist_new(a, "spin_wait.end_to_return", 0,
				  "profiling END (calibrated) -> spinning host sees completion");
	wake = probe_dist_new(a, "sync_wake_latency", 0, "empty kernel: enqueue -> clWaitForEvents returns");
	wake_end = probe_dist_new(a, "sync_wake.end_to_return", 0,
				  "profiling END (calibrated) -> clWaitForEvents returns");
	q_sub = probe_dist_new(a, "queue_delay.queued_to_submit", 0, "CL_PROFILING QUEUED -> SUBMIT");
	q_start = probe_dist_new(a, "queue_delay.submit_to_start", 0, "CL_PROFILING SUBMIT -> START");
	exec = probe_dist_new(a, "kernel.start_to_end", 0, "CL_PROFILING START -> END, empty kernel");

	probe_phase_begin(a, "launch_latency");
	for (size_t i = 0; i < n; i++) {
		uint64_t t[3];
		cl_event ev;

		if (!launch_empty(cl, false, t, &ev))
			return false;
		probe_dist_add(spin, (double)(t[2] - t[0]));
		probe_defer(a, spin_end, t[2], event_time(cl, ev, CL_PROFILING_COMMAND_END), 1);
		probe_dist_add(q_sub, (double)(event_time(cl, ev, CL_PROFILING_COMMAND_SUBMIT) -
					       event_time(cl, ev, CL_PROFILING_COMMAND_QUEUED)));
		probe_dist_add(q_start, (double)(event_time(cl, ev, CL_PROFILING_COMMAND_START) -
						 event_time(cl, ev, CL_PROFILING_COMMAND_SUBMIT)));
		probe_dist_add(exec, (double)(event_time(cl, ev, CL_PROFILING_COMMAND_END) -
					      event_time(cl, ev, CL_PROFILING_COMMAND_START)));
		cl->clReleaseEvent(ev);
	}
	probe_phase_end(a);

	probe_phase_begin(a, "sync_wake");
	for (size_t i = 0; i < n; i++) {
		struct probe_wake_sample w = { 0 };
		uint64_t t[3];
		cl_event ev;

		if (!launch_empty(cl, true, t, &ev))
			return false;
		w.submit_ns = t[0];
		w.launched_ns = t[1];
		w.return_ns = t[2];
		w.blocking = true;
		w.gpu_start_dev = event_time(cl, ev, CL_PROFILING_COMMAND_START);
		w.gpu_end_dev = event_time(cl, ev, CL_PROFILING_COMMAND_END);
		probe_defer(a, wake_end, w.return_ns, w.gpu_end_dev, 1);
		probe_dist_add(wake, (double)(t[2] - t[0]));
		probe_wake_add(a, &w);
		cl->clReleaseEvent(ev);
	}
	probe_phase_end(a);
	return true;
}

/* Time n blocking copies of `bytes` between host memory and buf. */
static bool time_copies(struct opencl *cl, struct probe_dist *d, bool h2d, cl_mem buf,
			void *host, uint64_t bytes, uint64_t budget_ns)
{
	uint64_t t0, t1, n, i, est, start = mono_now_ns();

	for (i = 0, est = 0; i < (n = probe_samples_for(est, budget_ns, 3, 100)) + 1; i++) {
		t0 = mono_now_ns();
		if (h2d)
			CL_CHECK(cl, cl->clEnqueueWriteBuffer(cl->queue, buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
		else
			CL_CHECK(cl, cl->clEnqueueReadBuffer(cl->queue, buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL));
		t1 = mono_now_ns();
		if (i == 0)
			est = t1 - t0;	/* the first one warms up and sizes the run */
		else
			probe_dist_add(d, (double)(t1 - t0));
	}
	probe_window_add(cl->api, d, start, mono_now_ns(), (uint32_t)i);
	return true;
}

/*
 * H2D/D2H sweep. "Pinned" host memory is a mapped CL_MEM_ALLOC_HOST_PTR
 * buffer (the vendors' recipe for page-locked staging), "pageable" is
 * ordinary anonymous memory.
 */
static bool probe_copies(struct opencl *cl)
{
	const uint64_t *sizes, budget = cl->opts->quick ? 50000000ULL : 250000000ULL;
	size_t nsizes = probe_sizes(cl->opts, &sizes);
	uint64_t max = sizes[nsizes - 1];
	cl_mem dev = NULL, pinned_buf = NULL;
	void *pinned = NULL, *pageable = NULL;
	bool ok = false;
	cl_int err;

	probe_phase_begin(cl->api, "copy_sweep");
	dev = cl->clCreateBuffer(cl->context, CL_MEM_READ_WRITE, max, NULL, &err);
	if (!dev) {
		cl_failed(cl, "clCreateBuffer(device)", err);
		goto out;
	}
	pinned_buf = cl->clCreateBuffer(cl->context, CL_MEM_ALLOC_HOST_PTR, max, NULL, &err);
	if (!pinned_buf) {
		cl_failed(cl, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)", err);
		goto out;
	}
	pinned = cl->clEnqueueMapBuffer(cl->queue, pinned_buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE,
					0, max, 0, NULL, NULL, &err);
	if (!pinned) {
		cl_failed(cl, "clEnqueueMapBuffer", err);
		goto out;
	}
	pageable = probe_host_alloc(max);
	if (!pageable)
		goto out;
	memset(pinned, 1, max);
	for (int h2d = 1; h2d >= 0; h2d--)
		for (int pin = 1; pin >= 0; pin--)
			for (size_t s = 0; s < nsizes; s++) {
				char sz[16], name[64];
				struct probe_dist *d;

				format_size(sz, sizeof(sz), sizes[s]);
				snprintf(name, sizeof(name), "%s.%s.%s", h2d ? "h2d" : "d2h",
					 pin ? "pinned" : "pageable", sz);
				d = probe_dist_new(cl->api, name, sizes[s], "blocking %s of %s, %s host memory",
						   h2d ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer", sz,
						   pin ? "ALLOC_HOST_PTR (pinned)" : "pageable");
				if (!time_copies(cl, d, h2d, dev, pin ? pinned : pageable, sizes[s], budget))
					goto out;
			}
	ok = true;
out:
	probe_phase_end(cl->api);
	if (pinned)
		cl->clEnqueueUnmapMemObject(cl->queue, pinned_buf, pinned, 0, NULL, NULL);
	cl->clFinish(cl->queue);
	if (pinned_buf)
		cl->clReleaseMemObject(pinned_buf);
	if (dev)
		cl->clReleaseMemObject(dev);
	probe_host_free(pageable, max);
	return ok;
}

/*
 * Make the device use host memory: create the buffer (flags), map and unmap
 * it, copy a few bytes from it to the device. t[0] before, t[1] when the
 * device has used it, t[2] when the buffer is released.
 */
static bool use_host_buffer(struct opencl *cl, cl_mem_flags flags, void *host, uint64_t bytes,
			    cl_mem sink, uint64_t t[3])
{
	cl_mem buf;
	void *p;
	cl_int err;

	t[0] = mono_now_ns();
	buf = cl->clCreateBuffer(cl->context, flags, bytes, host, &err);
	if (!buf)
		return cl_failed(cl, "clCreateBuffer(host memory)", err);
	p = cl->clEnqueueMapBuffer(cl->queue, buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
				   0, NULL, NULL, &err);
	if (!p)
		return cl_failed(cl, "clEnqueueMapBuffer", err);
	CL_CHECK(cl, cl->clEnqueueUnmapMemObject(cl->queue, buf, p, 0, NULL, NULL));
	CL_CHECK(cl, cl->clEnqueueCopyBuffer(cl->queue, buf, sink, 0, 0, 64, 0, NULL, NULL));
	CL_CHECK(cl, cl->clFinish(cl->queue));
	t[1] = mono_now_ns();
	CL_CHECK(cl, cl->clReleaseMemObject(buf));
	CL_CHECK(cl, cl->clFinish(cl->queue));
	t[2] = mono_now_ns();
	return true;
}

/* One use_host_buffer() into `use` (and `release`), with its windows. */
static bool time_host_buffer(struct opencl *cl, cl_mem_flags flags, void *host, uint64_t bytes,
			     cl_mem sink, struct probe_dist *use, struct probe_dist *release)
{
	uint64_t t[3];

	if (!use_host_buffer(cl, flags, host, bytes, sink, t))
		return false;
	probe_dist_add(use, (double)(t[1] - t[0]));
	probe_window_add(cl->api, use, t[0], t[1], 1);
	if (release) {
		probe_dist_add(release, (double)(t[2] - t[1]));
		probe_window_add(cl->api, release, t[1], t[2], 1);
	}
	return true;
}

/*
 * Pinning: a CL_MEM_USE_HOST_PTR buffer over fresh memory (first) and again
 * over the same memory (repeat); a CL_MEM_ALLOC_HOST_PTR buffer for scale.
 */
static bool probe_pinning(struct opencl *cl)
{
	const uint64_t *sizes;
	size_t nsizes = probe_pin_sizes(cl->opts, &sizes);
	cl_mem sink;
	cl_int err;
	bool ok = true;

	sink = cl->clCreateBuffer(cl->context, CL_MEM_READ_WRITE, 4096, NULL, &err);
	if (!sink)
		return cl_failed(cl, "clCreateBuffer(sink)", err);
	probe_phase_begin(cl->api, "pin");
	for (size_t s = 0; s < nsizes && ok; s++) {
		uint64_t bytes = sizes[s];
		size_t n = cl->opts->quick ? 5 : bytes >= (64u << 20) ? 4 : 10;
		struct probe_dist *first, *repeat, *unpin, *alloc;
		first = probe_dist_sized(cl->api, "pin.first", bytes, 0,
					 "USE_HOST_PTR buffer on fresh memory: create+map+use");
		repeat = probe_dist_sized(cl->api, "pin.repeat", bytes, 0,
					  "USE_HOST_PTR buffer again on the same memory");
		unpin = probe_dist_sized(cl->api, "unpin", bytes, 0,
					 "release of a USE_HOST_PTR buffer");
		alloc = probe_dist_sized(cl->api, "pin.alloc_host_ptr", bytes, 0,
					 "ALLOC_HOST_PTR buffer: create+map+use");
		for (size_t i = 0; i < n && ok; i++) {
			void *host = probe_host_alloc(bytes);

			if (!host) {
				ok = false;
				break;
			}
			ok = time_host_buffer(cl, CL_MEM_USE_HOST_PTR, host, bytes, sink, first, unpin) &&
			     time_host_buffer(cl, CL_MEM_USE_HOST_PTR, host, bytes, sink, repeat, unpin) &&
			     time_host_buffer(cl, CL_MEM_ALLOC_HOST_PTR, NULL, bytes, sink, alloc, NULL);
			probe_host_free(host, bytes);
		}
	}
	probe_phase_end(cl->api);
	cl->clReleaseMemObject(sink);
	return ok;
}

/* Device allocation (made real by a first write: OpenCL allocates lazily). */
static bool probe_alloc(struct opencl *cl)
{
	static const uint64_t sizes[] = { 4096, 1u << 20, 64u << 20 };
	size_t nsizes = cl->opts->quick ? 2 : 3, n = cl->opts->quick ? 20 : 50;
	uint32_t word = 0;

	probe_phase_begin(cl->api, "alloc");
	for (size_t s = 0; s < nsizes; s++) {
		struct probe_dist *alloc, *release;
		char sz[16], name[64];

		format_size(sz, sizeof(sz), sizes[s]);
		snprintf(name, sizeof(name), "alloc.device.%s", sz);
		alloc = probe_dist_new(cl->api, name, 0, "clCreateBuffer + first 4-byte write");
		snprintf(name, sizeof(name), "free.device.%s", sz);
		release = probe_dist_new(cl->api, name, 0, "clReleaseMemObject + clFinish");
		for (size_t i = 0; i < n; i++) {
			uint64_t t0 = mono_now_ns(), t1;
			cl_int err;
			cl_mem buf = cl->clCreateBuffer(cl->context, CL_MEM_READ_WRITE, sizes[s], NULL, &err);

			if (!buf)
				return cl_failed(cl, "clCreateBuffer", err);
			CL_CHECK(cl, cl->clEnqueueWriteBuffer(cl->queue, buf, CL_TRUE, 0, sizeof(word), &word,
							      0, NULL, NULL));
			t1 = mono_now_ns();
			probe_dist_add(alloc, (double)(t1 - t0));
			CL_CHECK(cl, cl->clReleaseMemObject(buf));
			CL_CHECK(cl, cl->clFinish(cl->queue));
			probe_dist_add(release, (double)(mono_now_ns() - t1));
		}
	}
	probe_phase_end(cl->api);
	return true;
}

/* The control: a device-to-device copy never crosses PCIe or the IOMMU. */
static bool probe_device_copy(struct opencl *cl)
{
	uint64_t bytes = cl->opts->quick ? (1u << 20) : (64u << 20), est = 0;
	cl_mem a, b;
	cl_int err;
	struct probe_dist *d;
	char sz[16], name[64];
	bool ok = true;

	a = cl->clCreateBuffer(cl->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
	b = a ? cl->clCreateBuffer(cl->context, CL_MEM_READ_WRITE, bytes, NULL, &err) : NULL;
	if (!b) {
		if (a)
			cl->clReleaseMemObject(a);
		return cl_failed(cl, "clCreateBuffer(copy)", err);
	}
	format_size(sz, sizeof(sz), bytes);
	snprintf(name, sizeof(name), "d2d.%s", sz);
	d = probe_dist_new(cl->api, name, bytes, "clEnqueueCopyBuffer device->device + clFinish");
	probe_phase_begin(cl->api, "device_copy");
	for (size_t i = 0; ok && i < probe_samples_for(est, 200000000ULL, 5, 100) + 1; i++) {
		uint64_t t0 = mono_now_ns();

		ok = cl->clEnqueueCopyBuffer(cl->queue, a, b, 0, 0, bytes, 0, NULL, NULL) == CL_SUCCESS &&
		     cl->clFinish(cl->queue) == CL_SUCCESS;
		if (i == 0)
			est = mono_now_ns() - t0;
		else if (ok)
			probe_dist_add(d, (double)(mono_now_ns() - t0));
	}
	probe_phase_end(cl->api);
	cl->clReleaseMemObject(a);
	cl->clReleaseMemObject(b);
	return ok ? true : cl_failed(cl, "clEnqueueCopyBuffer", -1);
}

bool probe_opencl_run(struct probe_api *a, const struct probe_opts *o)
{
	struct opencl cl = { .api = a, .opts = o };
	struct probe_clock_cal end_cal = { 0 };
	size_t ncal = o->quick ? 50 : 200, nlat = o->quick ? 200 : 1000;

	if (!opencl_setup(&cl)) {
		opencl_teardown(&cl);
		return false;
	}
	a->ran = true;
	probe_phase_begin(a, "calibrate");
	calibrate(&cl, &a->cal, ncal);
	probe_phase_end(a);
	if (probe_launch_and_wake(&cl, nlat) && probe_copies(&cl) && probe_pinning(&cl) &&
	    probe_alloc(&cl) && probe_device_copy(&cl)) {
		probe_phase_begin(a, "calibrate_end");
		if (calibrate(&cl, &end_cal, ncal))
			probe_clock_merge(&a->cal, &end_cal);
		probe_phase_end(a);
	}
	probe_resolve(a);
	opencl_teardown(&cl);
	return true;
}
