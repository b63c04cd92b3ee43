// SPDX-License-Identifier: GPL-2.0
/*
 * CUDA synchronisations timed from CUPTI's driver-API callbacks (cuptisync.h).
 *
 * Entry: CLOCK_MONOTONIC into the call's correlationData (CUPTI keeps it
 * from the entry to the exit callback of one invocation).  Exit: the clock
 * again, first thing, before the clock check that may follow in the same
 * callback (cupti_devices.c), so that the wait never holds a check; then one
 * SYNC record.  The stream is named by its CUPTI id (the id the kernel and
 * copy records carry): cuptiGetStreamIdEx of the call's handle in the
 * call's context, the per-thread default stream for the _ptsz variants'
 * NULL handle.
 */
#include <stdatomic.h>
#include <string.h>

#include <cuda.h>

#include "appwriter.h"
#include "cuptisync.h"

static atomic_uint_least64_t written, failed_calls, unknown_streams, no_entry;

enum cupti_sync_source cupti_sync_source_of(const char *value)
{
	if (!value || !*value || !strcmp(value, "callbacks"))
		return CUPTI_SYNC_CALLBACKS;
	if (!strcmp(value, "activity"))
		return CUPTI_SYNC_ACTIVITY;
	return CUPTI_SYNC_INVALID;
}

void cupti_sync_fill(struct gpuprobe_app_event *ev, uint32_t kind, uint32_t stream,
		     uint64_t correlation, uint64_t start_ns, uint64_t end_ns)
{
	static const char *const names[] = {
		[GPUPROBE_SYNC_OTHER] = "sync", [GPUPROBE_SYNC_DEVICE] = "context_synchronize",
		[GPUPROBE_SYNC_STREAM] = "stream_synchronize",
		[GPUPROBE_SYNC_EVENT] = "event_synchronize",
		[GPUPROBE_SYNC_STREAM_WAIT] = "stream_wait_event",
	};

	if (kind > GPUPROBE_SYNC_STREAM_WAIT)
		kind = GPUPROBE_SYNC_OTHER;
	appwriter_init_event(ev, GPUPROBE_APP_CUDA, GPUPROBE_APP_SYNC);
	ev->kind = kind;
	if (kind != GPUPROBE_SYNC_STREAM_WAIT)
		ev->flags = GPUPROBE_APPF_BLOCKING;
	ev->stream = stream;
	ev->correlation = correlation;
	ev->start_ns = start_ns;
	ev->end_ns = end_ns;
	appwriter_set_name(ev, names[kind]);
}

uint32_t cupti_sync_kind_of_activity(CUpti_ActivitySynchronizationType type)
{
	switch (type) {
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:	return GPUPROBE_SYNC_EVENT;
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:	return GPUPROBE_SYNC_STREAM_WAIT;
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:	return GPUPROBE_SYNC_STREAM;
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:	return GPUPROBE_SYNC_DEVICE;
	default:							return GPUPROBE_SYNC_OTHER;
	}
}

/* The waits CUPTI's SYNCHRONIZATION kind reports, by the driver calls that make them. */
static const struct {
	CUpti_CallbackId cbid;
	uint32_t kind;
} sync_calls[] = {
	{ CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, GPUPROBE_SYNC_DEVICE },
	{ CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2, GPUPROBE_SYNC_DEVICE },
	{ CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, GPUPROBE_SYNC_STREAM },
	{ CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, GPUPROBE_SYNC_STREAM },
	{ CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize, GPUPROBE_SYNC_EVENT },
	{ CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, GPUPROBE_SYNC_STREAM_WAIT },
	{ CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz, GPUPROBE_SYNC_STREAM_WAIT },
};

bool cupti_sync_kind_of_call(CUpti_CallbackId cbid, uint32_t *kind)
{
	for (size_t i = 0; i < sizeof(sync_calls) / sizeof(sync_calls[0]); i++) {
		if (sync_calls[i].cbid == cbid) {
			*kind = sync_calls[i].kind;
			return true;
		}
	}
	return false;
}

int cupti_sync_start(CUpti_SubscriberHandle subscriber)
{
	for (size_t i = 0; i < sizeof(sync_calls) / sizeof(sync_calls[0]); i++) {
		if (cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
					sync_calls[i].cbid) == CUPTI_SUCCESS)
			continue;
		while (i-- > 0)	/* all or none: half the waits would be worse than CUPTI's */
			cuptiEnableCallback(0, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
					    sync_calls[i].cbid);
		return -1;
	}
	return 0;
}

/* The stream handle of a stream sync or wait, and whether it names the per-thread stream. */
static CUstream stream_of(CUpti_CallbackId cbid, const void *params, uint8_t *per_thread)
{
	*per_thread = 0;
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
		return ((const cuStreamSynchronize_params *)params)->hStream;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
		*per_thread = 1;
		return ((const cuStreamSynchronize_ptsz_params *)params)->hStream;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
		return ((const cuStreamWaitEvent_params *)params)->hStream;
	case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
		*per_thread = 1;
		return ((const cuStreamWaitEvent_ptsz_params *)params)->hStream;
	default:
		return NULL;
	}
}

/*
 * The CUPTI id of the stream a stream sync or wait names; false when CUPTI
 * does not know it.  The special handles are the default streams: the
 * legacy one (CU_STREAM_LEGACY, as NULL) and this thread's
 * (CU_STREAM_PER_THREAD, as NULL in a _ptsz call).  A default stream is one
 * per context: CUPTI names it only given the call's context (with a NULL
 * context every sync on torch's default stream came out without a stream
 * id, Documentation/results/h200-2026-12-02b); an explicit handle is
 * asked in the same context first, then alone (a stream of another
 * context).
 */
static bool stream_id_of(CUpti_CallbackId cbid, CUcontext context, const void *params,
			 uint32_t *id)
{
	uint8_t per_thread;
	CUstream stream;

	if (!params)
		return false;
	stream = stream_of(cbid, params, &per_thread);
	if (stream == CU_STREAM_LEGACY) {
		stream = NULL;
		per_thread = 0;
	} else if (stream == CU_STREAM_PER_THREAD) {
		stream = NULL;
		per_thread = 1;
	}
	if (cuptiGetStreamIdEx(context, stream, per_thread, id) == CUPTI_SUCCESS)
		return true;
	/* a stream of another context synchronised from this one: named alone */
	return stream && context && cuptiGetStreamIdEx(NULL, stream, per_thread, id) == CUPTI_SUCCESS;
}

void cupti_sync_callback(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
	struct gpuprobe_app_event ev;
	uint64_t now = appwriter_mono_ns();
	uint32_t kind, stream = CUPTI_SYNCHRONIZATION_INVALID_VALUE;

	if (!cb->correlationData || !cupti_sync_kind_of_call(cbid, &kind))
		return;
	if (cb->callbackSite == CUPTI_API_ENTER) {
		*cb->correlationData = now;
		return;
	}
	if (cb->callbackSite != CUPTI_API_EXIT)
		return;
	if (!*cb->correlationData || *cb->correlationData > now) {
		atomic_fetch_add(&no_entry, 1);
		return;
	}
	if (cb->functionReturnValue && *(const CUresult *)cb->functionReturnValue != CUDA_SUCCESS) {
		atomic_fetch_add(&failed_calls, 1);
		return;
	}
	if ((kind == GPUPROBE_SYNC_STREAM || kind == GPUPROBE_SYNC_STREAM_WAIT) &&
	    !stream_id_of(cbid, cb->context, cb->functionParams, &stream)) {
		/*
		 * A stream sync matched by a stream nobody's ops carry would wait
		 * for nothing: it takes its thread's ops, as a device sync does.
		 */
		atomic_fetch_add(&unknown_streams, 1);
		stream = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
		if (kind == GPUPROBE_SYNC_STREAM)
			kind = GPUPROBE_SYNC_OTHER;
	}
	cupti_sync_fill(&ev, kind, stream, 0, *cb->correlationData, now);
	ev.tid = appwriter_tid();
	appwriter_put(&ev);
	atomic_fetch_add(&written, 1);
}

void cupti_sync_counts(struct cupti_sync_counts *c)
{
	c->written = atomic_load(&written);
	c->failed_calls = atomic_load(&failed_calls);
	c->unknown_streams = atomic_load(&unknown_streams);
	c->no_entry = atomic_load(&no_entry);
}
