// SPDX-License-Identifier: GPL-2.0
/*
 * libgpuprobe_opencl.so: an OpenCL ICD loader layer (OPENCL_LAYERS; both
 * ocl-icd >= 2.3 and the Khronos loader implement cl_loader_layers).  It
 * forces profiling on every queue and records each kernel, read, write,
 * copy and map with its device times on CLOCK_MONOTONIC, plus the host
 * times of the enqueue and wait calls, into $GPUPROBE_APP_EVENTS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl_layer.h>

#include "appwriter.h"
#include "opencl_events.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_PROPERTIES 64

static const struct _cl_icd_dispatch *next;
static struct _cl_icd_dispatch layer;

/* ---- queues: profiling forced on ---- */

static cl_command_queue CL_API_CALL
create_queue(cl_context ctx, cl_device_id dev, cl_command_queue_properties props, cl_int *err)
{
	cl_command_queue q = next->clCreateCommandQueue(ctx, dev, props | CL_QUEUE_PROFILING_ENABLE, err);

	if (q)
		ocl_queue_added(q);
	return q;
}

static cl_command_queue CL_API_CALL
create_queue_props(cl_context ctx, cl_device_id dev, const cl_queue_properties *props, cl_int *err)
{
	cl_queue_properties mine[MAX_PROPERTIES + 3];
	unsigned int n = 0;
	bool have = false;
	cl_command_queue q;

	for (; props && props[n] && n < MAX_PROPERTIES; n += 2) {
		mine[n] = props[n];
		mine[n + 1] = props[n + 1];
		if (props[n] == CL_QUEUE_PROPERTIES) {
			mine[n + 1] |= CL_QUEUE_PROFILING_ENABLE;
			have = true;
		}
	}
	if (!have) {
		mine[n++] = CL_QUEUE_PROPERTIES;
		mine[n++] = CL_QUEUE_PROFILING_ENABLE;
	}
	mine[n] = 0;
	q = next->clCreateCommandQueueWithProperties(ctx, dev, mine, err);
	if (q)
		ocl_queue_added(q);
	return q;
}

static cl_int CL_API_CALL release_queue(cl_command_queue q)
{
	next->clFinish(q);
	ocl_commands_resolve(q);
	return next->clReleaseCommandQueue(q);
}

/* ---- commands ---- */

/*
 * After an enqueue: keep an event (the caller's, retained, or our own) so
 * the device times can be read once it completes.
 */
static void track(cl_int ret, cl_event own, cl_event *user, struct ocl_command *cmd,
		  const char *api, uint64_t entry_ns)
{
	uint64_t return_ns = appwriter_mono_ns();

	ocl_api_event(GPUPROBE_APP_API, 0, cmd->flags & GPUPROBE_APPF_BLOCKING, api,
		      cmd->correlation, entry_ns, return_ns);
	if (ret != CL_SUCCESS)
		return;
	cmd->api_entry_ns = entry_ns;
	if (user) {
		next->clRetainEvent(*user);
		cmd->event = *user;
	} else {
		cmd->event = own;
	}
	ocl_command_track(cmd);
	if (cmd->flags & GPUPROBE_APPF_BLOCKING)
		ocl_commands_resolve(cmd->queue);
}

static void command_init(struct ocl_command *cmd, cl_command_queue q, uint16_t type,
			 uint32_t kind, uint64_t bytes, const char *name)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->queue = q;
	cmd->type = type;
	cmd->kind = kind;
	cmd->bytes = bytes;
	cmd->correlation = ocl_next_correlation();
	snprintf(cmd->name, sizeof(cmd->name), "%s", name);
}

static cl_int CL_API_CALL
ndrange(cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off, const size_t *gsz,
	const size_t *lsz, cl_uint nwait, const cl_event *wait, cl_event *ev)
{
	uint64_t t0 = appwriter_mono_ns();
	char name[64] = "kernel";
	struct ocl_command cmd;
	cl_event own = NULL;
	cl_int ret;

	next->clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof(name) - 1, name, NULL);
	name[sizeof(name) - 1] = '\0';
	command_init(&cmd, q, GPUPROBE_APP_KERNEL, 0, 0, name);
	ret = next->clEnqueueNDRangeKernel(q, k, dim, off, gsz, lsz, nwait, wait, ev ? ev : &own);
	track(ret, own, ev, &cmd, "clEnqueueNDRangeKernel", t0);
	return ret;
}

static cl_int CL_API_CALL
read_buffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t off, size_t size, void *p,
	    cl_uint nwait, const cl_event *wait, cl_event *ev)
{
	uint64_t t0 = appwriter_mono_ns();
	struct ocl_command cmd;
	cl_event own = NULL;
	cl_int ret;

	command_init(&cmd, q, GPUPROBE_APP_MEMCPY, GPUPROBE_COPY_DTOH, size, "read_buffer");
	cmd.flags = blocking ? GPUPROBE_APPF_BLOCKING : 0;
	ret = next->clEnqueueReadBuffer(q, b, blocking, off, size, p, nwait, wait, ev ? ev : &own);
	track(ret, own, ev, &cmd, "clEnqueueReadBuffer", t0);
	return ret;
}

static cl_int CL_API_CALL
write_buffer(cl_command_queue q, cl_mem b, cl_bool blocking, size_t off, size_t size,
	     const void *p, cl_uint nwait, const cl_event *wait, cl_event *ev)
{
	uint64_t t0 = appwriter_mono_ns();
	struct ocl_command cmd;
	cl_event own = NULL;
	cl_int ret;

	command_init(&cmd, q, GPUPROBE_APP_MEMCPY, GPUPROBE_COPY_HTOD, size, "write_buffer");
	cmd.flags = blocking ? GPUPROBE_APPF_BLOCKING : 0;
	ret = next->clEnqueueWriteBuffer(q, b, blocking, off, size, p, nwait, wait, ev ? ev : &own);
	track(ret, own, ev, &cmd, "clEnqueueWriteBuffer", t0);
	return ret;
}

static uint64_t region_bytes(const size_t *region)
{
	return region ? (uint64_t)region[0] * region[1] * region[2] : 0;
}

static cl_int CL_API_CALL
read_rect(cl_command_queue q, cl_mem b, cl_bool blocking, const size_t *bo, const size_t *ho,
	  const size_t *region, size_t brp, size_t bsp, size_t hrp, size_t hsp, void *p,
	  cl_uint nwait, const cl_event *wait, cl_event *ev)
{
	uint64_t t0 = appwriter_mono_ns();
	struct ocl_command cmd;
	cl_event own = NULL;
	cl_int ret;

	command_init(&cmd, q, GPUPROBE_APP_MEMCPY, GPUPROBE_COPY_DTOH, region_bytes(region),
		     "read_buffer_rect");
	cmd.flags = blocking ? GPUPROBE_APPF_BLOCKING : 0;
	ret = next->clEnqueueReadBufferRect(q, b, blocking, bo, ho, region, brp, bsp, hrp, hsp, p,
					    nwait, wait, ev ? ev : &own);
	track(ret, own, ev, &cmd, "clEnqueueReadBufferRect", t0);
	return ret;
}

static cl_int CL_API_CALL
write_rect(cl_command_queue q, cl_mem b, cl_bool blocking, const size_t *bo, const size_t *ho,
	   const size_t *region, size_t brp, size_t bsp, size_t hrp, size_t hsp, const void *p,
	   cl_uint nwait, const cl_event *wait, cl_event *ev)
{
	uint64_t t0 = appwriter_mono_ns();
	struct ocl_command cmd;
	cl_event own = NULL;
	cl_int ret;

	command_init(&cmd, q, GPUPROBE_APP_MEMCPY, GPUPROBE_COPY_HTOD, region_bytes(region),
		     "write_buffer_rect");
	cmd.flags = blocking ? GPUPROBE_APPF_BLOCKING : 0;
	ret = next->clEnqueueWriteBufferRect(q, b, blocking, bo, ho, region, brp, bsp, hrp, hsp, p,
					     nwait, wait, ev ? ev : &own);
	track(ret, own, ev, &cmd, "clEnqueueWriteBufferRect", t0);
	return ret;
}

static cl_int CL_API_CALL
copy_buffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t so, size_t dso, size_t size,
	    cl_uint nwait, const cl_event *wait, cl_event *ev)
{
	uint64_t t0 = appwriter_mono_ns();
	struct ocl_command cmd;
	cl_event own = NULL;
	cl_int ret;

	command_init(&cmd, q, GPUPROBE_APP_MEMCPY, GPUPROBE_COPY_DTOD, size, "copy_buffer");
	ret = next->clEnqueueCopyBuffer(q, src, dst, so, dso, size, nwait, wait, ev ? ev : &own);
	track(ret, own, ev, &cmd, "clEnqueueCopyBuffer", t0);
	return ret;
}

static void *CL_API_CALL
map_buffer(cl_command_queue q, cl_mem b, cl_bool blocking, cl_map_flags mf, size_t off,
	   size_t size, cl_uint nwait, const cl_event *wait, cl_event *ev, cl_int *err)
{
	uint64_t t0 = appwriter_mono_ns();
	struct ocl_command cmd;
	cl_event own = NULL;
	cl_int ret = CL_SUCCESS;
	void *p;

	command_init(&cmd, q, GPUPROBE_APP_MEMCPY,
		     mf & CL_MAP_READ ? GPUPROBE_COPY_DTOH : GPUPROBE_COPY_UNKNOWN, size,
		     "map_buffer");
	cmd.flags = blocking ? GPUPROBE_APPF_BLOCKING : 0;
	p = next->clEnqueueMapBuffer(q, b, blocking, mf, off, size, nwait, wait, ev ? ev : &own,
				     &ret);
	if (err)
		*err = ret;
	track(ret, own, ev, &cmd, "clEnqueueMapBuffer", t0);
	return p;
}

/* ---- waits ---- */

static cl_int CL_API_CALL finish(cl_command_queue q)
{
	uint64_t t0 = appwriter_mono_ns();
	cl_int ret = next->clFinish(q);

	ocl_queue_wait_event(q, ocl_next_correlation(), t0, appwriter_mono_ns());
	ocl_commands_resolve(q);
	return ret;
}

static cl_int CL_API_CALL wait_for_events(cl_uint n, const cl_event *list)
{
	uint64_t t0 = appwriter_mono_ns();
	cl_int ret = next->clWaitForEvents(n, list);

	ocl_api_event(GPUPROBE_APP_SYNC, GPUPROBE_SYNC_EVENT, GPUPROBE_APPF_BLOCKING,
		      "clWaitForEvents", ocl_next_correlation(), t0, appwriter_mono_ns());
	ocl_commands_resolve(NULL);
	return ret;
}

/* ---- layer entry points ---- */

EXPORT cl_int CL_API_CALL
clGetLayerInfo(cl_layer_info param, size_t size, void *value, size_t *size_ret)
{
	static const char name[] = "gpuprobe";
	const void *src;
	size_t len;
	cl_layer_api_version version = CL_LAYER_API_VERSION_100;

	if (param == CL_LAYER_API_VERSION) {
		src = &version;
		len = sizeof(version);
	} else if (param == CL_LAYER_NAME) {
		src = name;
		len = sizeof(name);
	} else {
		return CL_INVALID_VALUE;
	}
	if (value && size < len)
		return CL_INVALID_VALUE;
	if (value)
		memcpy(value, src, len);
	if (size_ret)
		*size_ret = len;
	return CL_SUCCESS;
}

static void at_exit(void)
{
	ocl_events_finish();
}

EXPORT cl_int CL_API_CALL
clInitLayer(cl_uint num_entries, const struct _cl_icd_dispatch *target,
	    cl_uint *num_entries_ret, const struct _cl_icd_dispatch **layer_ret)
{
	size_t entries = sizeof(layer) / sizeof(void *);

	if (!target || !num_entries_ret || !layer_ret)
		return CL_INVALID_VALUE;
	if (num_entries < entries)
		entries = num_entries;
	memcpy(&layer, target, entries * sizeof(void *));
	*num_entries_ret = (cl_uint)entries;
	*layer_ret = &layer;
	next = target;
	if (!appwriter_open() || num_entries < sizeof(layer) / sizeof(void *))
		return CL_SUCCESS;	/* pass-through: not recording, or an old loader */
	ocl_events_init(target);
	layer.clCreateCommandQueue = create_queue;
	layer.clCreateCommandQueueWithProperties = create_queue_props;
	layer.clReleaseCommandQueue = release_queue;
	layer.clEnqueueNDRangeKernel = ndrange;
	layer.clEnqueueReadBuffer = read_buffer;
	layer.clEnqueueWriteBuffer = write_buffer;
	layer.clEnqueueReadBufferRect = read_rect;
	layer.clEnqueueWriteBufferRect = write_rect;
	layer.clEnqueueCopyBuffer = copy_buffer;
	layer.clEnqueueMapBuffer = map_buffer;
	layer.clFinish = finish;
	layer.clWaitForEvents = wait_for_events;
	atexit(at_exit);
	return CL_SUCCESS;
}
