// SPDX-License-Identifier: GPL-2.0
/*
 * Queues, device clocks and pending commands of the OpenCL layer.
 *
 * Device timestamps (CL_PROFILING_COMMAND_*) are mapped to CLOCK_MONOTONIC
 * with one offset per queue: a marker is enqueued and waited for with
 * clFinish between two clock_gettime calls; its COMMAND_END lies between
 * them, and of several tries the one with the shortest round trip gives the
 * offset (midpoint), with half that round trip as its uncertainty.  The
 * device clock drifts, so a queue is re-calibrated after the application's
 * own clFinish on it (the queue is idle: the marker costs one round trip)
 * when its last calibration is older than RECALIBRATE_NS, and device times
 * are mapped through all its points (clockmap.c).  Each calibration is
 * written as a CLOCK record with its bound; a queue never calibrated gets no
 * device times at all (never a device time passed off as CLOCK_MONOTONIC).
 * Each device's PCI function (cl_khr_pci_bus_info) is written as a DEVICE
 * record where the platform gives it.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl_ext.h>

#include "appwriter.h"
#include "clockmap.h"
#include "opencl_events.h"

#define MAX_QUEUES		256
#define CALIBRATION_TRIES	5
#define RESOLVE_EVERY		4096
#define PREFIX			"gpuprobe (OpenCL)"
#define RECALIBRATE_NS		200000000ull	/* 200 ms */

struct ocl_queue {
	cl_command_queue queue;
	cl_device_id device;
	uint32_t index, device_index;
	struct clock_map clock;		/* no point: never calibrated */
	uint64_t calibrated_at;		/* host time of the last point */
	unsigned int calibrations;
	uint64_t cost_ns, bound_min, bound_max;	/* what the calibrations took, found */
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
static uint64_t unresolved, uncalibrated;

void ocl_events_init(const struct _cl_icd_dispatch *target)
{
	cl = target;
}

uint64_t ocl_next_correlation(void)
{
	return atomic_fetch_add(&correlation, 1) + 1;
}

/* *cost: host time the calibration took (all tries), for the exit note. */
static int calibrate(cl_command_queue q, struct clock_point *pt, uint64_t *cost)
{
	uint64_t best = UINT64_MAX, began = appwriter_mono_ns();

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
			*pt = (struct clock_point){ end, t0 + (t1 - t0) / 2, (t1 - t0 + 1) / 2 };
		}
	}
	*cost = appwriter_mono_ns() - began;
	return 0;
}

/* The calibration as a CLOCK record (appevents.h). */
static void put_clock(const struct ocl_queue *q, const struct clock_point *pt)
{
	struct gpuprobe_app_event ev;

	appwriter_init_event(&ev, GPUPROBE_APP_OPENCL, GPUPROBE_APP_CLOCK);
	ev.device = q->device_index;
	ev.stream = q->index;
	ev.start_ns = ev.end_ns = pt->host_ns;
	ev.queued_ns = pt->device_ns;
	ev.bytes = pt->error_ns;
	appwriter_set_name(&ev, "device clock");
	appwriter_put(&ev);
}

/* The device's PCI function, where the platform says (cl_khr_pci_bus_info). */
static void put_device(cl_device_id dev, uint32_t index)
{
	cl_device_pci_bus_info_khr pci;
	struct gpuprobe_app_event ev;
	char name[GPUPROBE_APP_NAME_LEN] = "";

	appwriter_init_event(&ev, GPUPROBE_APP_OPENCL, GPUPROBE_APP_DEVICE);
	ev.device = index;
	cl->clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(name) - 1, name, NULL);
	if (cl->clGetDeviceInfo(dev, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof(pci), &pci, NULL) ==
	    CL_SUCCESS) {
		ev.flags = GPUPROBE_APPF_PCI_KNOWN;
		/* packed as GPUPROBE_BDF() of linux/gpuprobe.h: domain, bus, devfn */
		ev.kind = (pci.pci_domain & 0xffff) << 16 | (pci.pci_bus & 0xff) << 8 |
			  (pci.pci_device & 0x1f) << 3 | (pci.pci_function & 0x7);
	}
	appwriter_set_name(&ev, name);
	appwriter_put(&ev);
}

static void count_calibration(struct ocl_queue *e, const struct clock_point *pt, uint64_t cost)
{
	e->calibrated_at = pt->host_ns;
	e->calibrations++;
	e->cost_ns += cost;
	if (pt->error_ns < e->bound_min)
		e->bound_min = pt->error_ns;
	if (pt->error_ns > e->bound_max)
		e->bound_max = pt->error_ns;
}

/* Index of dev; *added: first seen (its DEVICE record is due). */
static uint32_t device_index(cl_device_id dev, bool *added)
{
	*added = false;
	for (unsigned int i = 0; i < ndevices; i++)
		if (devices[i] == dev)
			return i;
	if (ndevices < MAX_QUEUES) {
		devices[ndevices++] = dev;
		*added = true;
	}
	return ndevices - 1;
}

void ocl_queue_added(cl_command_queue q)
{
	struct ocl_queue entry = { .queue = q, .bound_min = UINT64_MAX };
	struct clock_point pt;
	bool calibrated, new_device;
	uint64_t cost = 0;

	cl->clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof(entry.device), &entry.device, NULL);
	calibrated = !calibrate(q, &pt, &cost);
	if (calibrated) {
		clock_map_add(&entry.clock, pt);
		count_calibration(&entry, &pt, cost);
	}
	pthread_mutex_lock(&lock);
	entry.device_index = device_index(entry.device, &new_device);
	entry.index = nqueues;
	if (nqueues < MAX_QUEUES)
		queues[nqueues++] = entry;
	pthread_mutex_unlock(&lock);
	if (new_device)
		put_device(entry.device, entry.device_index);
	if (calibrated)
		put_clock(&entry, &pt);
	else
		appwriter_note(GPUPROBE_APP_OPENCL, PREFIX,
			       "queue %u: device clock not calibrated (marker failed): its commands get no times",
			       entry.index);
}

/* After the application's clFinish(q): a new point when the last is old (drift). */
static void recalibrate_if_due(cl_command_queue q)
{
	struct clock_point pt;
	struct ocl_queue *e = NULL;
	uint64_t now = appwriter_mono_ns(), cost = 0;

	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < nqueues; i++)
		if (queues[i].queue == q)
			e = &queues[i];
	pthread_mutex_unlock(&lock);
	if (!e || !e->clock.n || now - e->calibrated_at < RECALIBRATE_NS ||
	    calibrate(q, &pt, &cost))
		return;
	pthread_mutex_lock(&lock);
	clock_map_add(&e->clock, pt);
	count_calibration(e, &pt, cost);
	pthread_mutex_unlock(&lock);
	put_clock(e, &pt);
}

uint32_t ocl_queue_index(cl_command_queue q)
{
	uint32_t index = UINT32_MAX;

	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < nqueues; i++)
		if (queues[i].queue == q)
			index = queues[i].index;
	pthread_mutex_unlock(&lock);
	return index;
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

void ocl_queue_wait_event(cl_command_queue q, uint64_t corr, uint64_t entry_ns,
			  uint64_t return_ns)
{
	struct gpuprobe_app_event ev;

	appwriter_init_event(&ev, GPUPROBE_APP_OPENCL, GPUPROBE_APP_SYNC);
	ev.kind = GPUPROBE_SYNC_STREAM;
	ev.flags = GPUPROBE_APPF_BLOCKING;
	ev.tid = appwriter_tid();
	ev.stream = ocl_queue_index(q);
	ev.correlation = corr;
	ev.start_ns = entry_ns;
	ev.end_ns = return_ns;
	appwriter_set_name(&ev, "clFinish");
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
	if (status == CL_COMPLETE && !q.clock.n) {
		uncalibrated++;		/* device times only: none written */
	} else if (status == CL_COMPLETE &&
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
		uint64_t error_ns;

		clock_map_to_host(&q.clock, start, &ev.start_ns, &error_ns);
		clock_map_to_host(&q.clock, end, &ev.end_ns, &error_ns);
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

	if (q)
		recalibrate_if_due(q);
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

/* What a queue's calibrations cost and found: bounds, how far its device clock drifted. */
static void note_clock(const struct ocl_queue *e)
{
	const struct clock_point *a = &e->clock.p[0], *b = &e->clock.p[e->clock.n - 1];
	int64_t moved;
	double span;

	if (!e->clock.n)
		return;
	moved = (int64_t)(b->host_ns - b->device_ns) - (int64_t)(a->host_ns - a->device_ns);
	span = (double)(b->host_ns - a->host_ns) / 1e9;
	/* short notes: the trace keeps 63 characters of each */
	appwriter_note(GPUPROBE_APP_OPENCL, PREFIX, "queue %u clock: %u calibrations, bound %llu..%llu ns",
		       e->index, e->calibrations, (unsigned long long)e->bound_min,
		       (unsigned long long)e->bound_max);
	appwriter_note(GPUPROBE_APP_OPENCL, PREFIX, "queue %u offset moved %lld ns in %.3f s (%.2f ppm)",
		       e->index, (long long)moved, span, span > 0 ? (double)moved / span / 1e3 : 0.0);
	appwriter_note(GPUPROBE_APP_OPENCL, PREFIX, "queue %u calibrations took %llu us in all",
		       e->index, (unsigned long long)(e->cost_ns / 1000));
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
	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < nqueues; i++)
		note_clock(&queues[i]);
	pthread_mutex_unlock(&lock);
	if (uncalibrated)
		appwriter_note(GPUPROBE_APP_OPENCL, PREFIX,
			       "%llu commands on queues whose clock was never calibrated: not written",
			       (unsigned long long)uncalibrated);
	appwriter_flush();
}
