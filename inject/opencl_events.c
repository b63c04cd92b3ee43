// SPDX-License-Identifier: GPL-2.0
/*
 * Queues, device clocks and pending commands of the OpenCL layer.
 *
 * Device timestamps (CL_PROFILING_COMMAND_*) are mapped to CLOCK_MONOTONIC
 * with one offset per queue: a marker is enqueued and waited for with
 * clFinish between two clock_gettime calls; its COMMAND_END lies between
 * them, and of several tries the one with the shortest round trip gives the
 * offset (midpoint), with half that round trip as its uncertainty.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "appwriter.h"
#include "opencl_events.h"

#define MAX_QUEUES		256
#define CALIBRATION_TRIES	5
#define RESOLVE_EVERY		4096
#define PREFIX			"gpuprobe (OpenCL)"

struct ocl_queue {
	cl_command_queue queue;
	cl_device_id device;
	uint32_t index, device_index;
	int64_t offset_ns;		/* host = device + offset */
	bool calibrated;
};

static const struct _cl_icd_dispatch *cl;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct ocl_queue queues[MAX_QUEUES];
static unsigned int nqueues;
static cl_device_id devices[MAX_QUEUES];
static unsigned int ndevices;
static struct ocl_command *pending;
static size_t npending, pending_cap;
static atomic_uint_least64_t correlation;
static uint64_t unresolved;

void ocl_events_init(const struct _cl_icd_dispatch *target)
{
	cl = target;
}

uint64_t ocl_next_correlation(void)
{
	return atomic_fetch_add(&correlation, 1) + 1;
}

static int calibrate(cl_command_queue q, int64_t *offset, uint64_t *round_trip)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < CALIBRATION_TRIES; i++) {
		cl_ulong end = 0;
		cl_event ev;
		uint64_t t0, t1;

		t0 = appwriter_mono_ns();
		if (cl->clEnqueueMarkerWithWaitList(q, 0, NULL, &ev) != CL_SUCCESS)
			return -1;
		cl->clFinish(q);
		t1 = appwriter_mono_ns();
		if (cl->clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(end),
						&end, NULL) != CL_SUCCESS) {
			cl->clReleaseEvent(ev);
			return -1;
		}
		cl->clReleaseEvent(ev);
		if (t1 - t0 < best) {
			best = t1 - t0;
			*offset = (int64_t)(t0 + (t1 - t0) / 2) - (int64_t)end;
		}
	}
	*round_trip = best;
	return 0;
}

static uint32_t device_index(cl_device_id dev)
{
	for (unsigned int i = 0; i < ndevices; i++)
		if (devices[i] == dev)
			return i;
	if (ndevices < MAX_QUEUES)
		devices[ndevices++] = dev;
	return ndevices - 1;
}

void ocl_queue_added(cl_command_queue q)
{
	struct ocl_queue entry = { .queue = q };
	uint64_t round_trip = 0;

	cl->clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof(entry.device), &entry.device, NULL);
	entry.calibrated = !calibrate(q, &entry.offset_ns, &round_trip);
	pthread_mutex_lock(&lock);
	entry.device_index = device_index(entry.device);
	entry.index = nqueues;
	if (nqueues < MAX_QUEUES)
		queues[nqueues++] = entry;
	pthread_mutex_unlock(&lock);
	if (!entry.calibrated)
		appwriter_note(GPUPROBE_APP_OPENCL, PREFIX,
			       "queue %u: device clock not calibrated (marker failed); its times are device times",
			       entry.index);
	else if (getenv("GPUPROBE_VERBOSE"))
		appwriter_note(GPUPROBE_APP_OPENCL, PREFIX,
			       "queue %u device %u: clock offset %lld ns, +-%llu ns", entry.index,
			       entry.device_index, (long long)entry.offset_ns,
			       (unsigned long long)round_trip / 2);
}

/* Copy of the queue entry (under the lock); a zeroed one if unknown. */
static struct ocl_queue find_queue(cl_command_queue q)
{
	struct ocl_queue found = { .index = UINT32_MAX };

	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < nqueues; i++)
		if (queues[i].queue == q)
			found = queues[i];
	pthread_mutex_unlock(&lock);
	return found;
}

void ocl_api_event(uint16_t type, uint32_t kind, uint32_t flags, const char *name,
		   uint64_t corr, uint64_t entry_ns, uint64_t return_ns)
{
	struct gpuprobe_app_event ev;

	appwriter_init_event(&ev, GPUPROBE_APP_OPENCL, type);
	ev.kind = kind;
	ev.flags = flags;
	ev.tid = appwriter_tid();
	ev.correlation = corr;
	ev.start_ns = entry_ns;
	ev.end_ns = return_ns;
	appwriter_set_name(&ev, name);
	appwriter_put(&ev);
}

/* true when the table reached a multiple of RESOLVE_EVERY. */
static bool append_pending(const struct ocl_command *cmd)
{
	bool full;

	pthread_mutex_lock(&lock);
	if (npending == pending_cap) {
		size_t cap = pending_cap ? pending_cap * 2 : 256;
		struct ocl_command *p = realloc(pending, cap * sizeof(*p));

		if (!p) {
			unresolved++;
			pthread_mutex_unlock(&lock);
			cl->clReleaseEvent(cmd->event);
			return false;
		}
		pending = p;
		pending_cap = cap;
	}
	pending[npending++] = *cmd;
	full = npending % RESOLVE_EVERY == 0;
	pthread_mutex_unlock(&lock);
	return full;
}

void ocl_command_track(const struct ocl_command *cmd)
{
	if (append_pending(cmd))
		ocl_commands_resolve(NULL);
}

/* 1: emitted (event released), 0: not complete yet. */
static int emit_if_complete(const struct ocl_command *cmd)
{
	cl_int status = CL_QUEUED;
	cl_ulong start = 0, end = 0;
	struct gpuprobe_app_event ev;
	struct ocl_queue q;

	if (cl->clGetEventInfo(cmd->event, CL_EVENT_COMMAND_EXECUTION_STATUS,
			       sizeof(status), &status, NULL) != CL_SUCCESS)
		status = -1;	/* broken event: give it up */
	if (status > CL_COMPLETE)
		return 0;
	q = find_queue(cmd->queue);
	if (status == CL_COMPLETE &&
	    cl->clGetEventProfilingInfo(cmd->event, CL_PROFILING_COMMAND_START, sizeof(start),
					&start, NULL) == CL_SUCCESS &&
	    cl->clGetEventProfilingInfo(cmd->event, CL_PROFILING_COMMAND_END, sizeof(end),
					&end, NULL) == CL_SUCCESS) {
		appwriter_init_event(&ev, GPUPROBE_APP_OPENCL, cmd->type);
		ev.kind = cmd->kind;
		ev.flags = cmd->flags | GPUPROBE_APPF_DEVICE_CLOCK;
		ev.device = q.device_index;
		ev.stream = q.index;
		ev.correlation = cmd->correlation;
		ev.start_ns = (uint64_t)((int64_t)start + q.offset_ns);
		ev.end_ns = (uint64_t)((int64_t)end + q.offset_ns);
		ev.queued_ns = cmd->api_entry_ns;
		ev.bytes = cmd->bytes;
		memcpy(ev.name, cmd->name, sizeof(ev.name));
		appwriter_put(&ev);
	} else {
		unresolved++;	/* failed command: no device times */
	}
	cl->clReleaseEvent(cmd->event);
	return 1;
}

void ocl_commands_resolve(cl_command_queue q)
{
	struct ocl_command *work;
	size_t n, kept = 0;

	pthread_mutex_lock(&lock);
	work = pending;
	n = npending;
	pending = NULL;
	npending = pending_cap = 0;
	pthread_mutex_unlock(&lock);
	for (size_t i = 0; i < n; i++) {
		if ((q && work[i].queue != q) || !emit_if_complete(&work[i]))
			work[kept++] = work[i];
	}
	for (size_t i = 0; i < kept; i++)
		append_pending(&work[i]);
	free(work);
	appwriter_flush();
}

void ocl_events_finish(void)
{
	size_t left;

	if (!cl)
		return;
	ocl_commands_resolve(NULL);
	pthread_mutex_lock(&lock);
	left = npending;
	pthread_mutex_unlock(&lock);
	if (left || unresolved)
		appwriter_note(GPUPROBE_APP_OPENCL, PREFIX,
			       "%zu commands still running at exit and %llu failed: no device times for them",
			       left, (unsigned long long)unresolved);
	appwriter_flush();
}
