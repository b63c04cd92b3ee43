/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CUDA synchronisations as SYNC application events (appevents.h), from one
 * of two sources, GPUPROBE_CUDA_SYNCS=activity|callbacks:
 *
 *  callbacks (default): the library times the driver's waits itself, from
 *	CUPTI's driver-API callbacks on the synchronising calls only
 *	(cuCtxSynchronize, cuStreamSynchronize, cuEventSynchronize,
 *	cuStreamWaitEvent and their _v2/_ptsz variants): CLOCK_MONOTONIC at
 *	entry and at exit, the stream's CUPTI id from the call's parameters
 *	and context.
 *  activity: CUPTI's SYNCHRONIZATION activity kind, the default until
 *	2026-12-02c.  It taxes every CUDA call, recorded or not: 200-530 ns
 *	on each of cudaGetDevice, cudaEventQuery, cudaEventRecord and
 *	cuCtxGetCurrent on the H200, nothing measurable with the callbacks
 *	(scripts/examples/cuda_calls.cu); on the launch-bound torch loop
 *	callbacks/activity 0.885 [0.739, 1.018], 5 rounds, the same sync
 *	records (44 stream, 620 event, 2 device a run, every stream sync with
 *	its stream; Documentation/results/h200-2026-12-02c).  Before the
 *	stream-id fix the callbacks lost torch's 44 default-stream syncs'
 *	stream (cuptiGetStreamIdEx with a NULL context,
 *	Documentation/results/h200-2026-12-02b).
 *
 * Both write the same record (cupti_sync_fill): type SYNC, kind device,
 * stream, event or stream-wait, BLOCKING unless a stream wait (no host
 * wait), the stream for stream syncs and stream waits
 * (CUPTI_SYNCHRONIZATION_INVALID_VALUE otherwise, as CUPTI's records), the
 * name.  The activity path carries CUPTI's correlation id and no thread
 * (attribution takes both from the API record); the callback path carries
 * the calling thread (gettid, as CUPTI's thread ids) and correlation 0, so
 * that it is never compared with the driver API record's span, whose ends
 * CUPTI takes on either side of our callbacks in an order it does not
 * document: the wait is the call's, by construction.
 *
 * A stream sync whose stream CUPTI cannot name is written as an "other"
 * sync without a stream (it then takes its thread's ops, as a device sync,
 * rather than no op), counted, and the exit note says how many.
 *
 * A call that returned an error waited for nothing: no record.  Blocking
 * cuMemcpy* calls get no SYNC record on either path (CUPTI writes none
 * either): attribution ends their op at the API record's return
 * (cuptiselect.c: cupti_api_blocks).
 */
#ifndef GPUPROBE_CUPTISYNC_H
#define GPUPROBE_CUPTISYNC_H

#include <stdbool.h>
#include <stdint.h>

#include <cupti.h>

#include "appevents.h"

#define GPUPROBE_CUDA_SYNCS_ENV	"GPUPROBE_CUDA_SYNCS"

enum cupti_sync_source {
	CUPTI_SYNC_CALLBACKS,		/* driver-API callbacks (default) */
	CUPTI_SYNC_ACTIVITY,		/* CUPTI_ACTIVITY_KIND_SYNCHRONIZATION */
	CUPTI_SYNC_INVALID,
};

/* The source a GPUPROBE_CUDA_SYNCS value asks for; NULL or "" is the default. */
enum cupti_sync_source cupti_sync_source_of(const char *value);

/* A SYNC event of this kind (enum gpuprobe_app_sync), the rest 0 but pid. */
void cupti_sync_fill(struct gpuprobe_app_event *ev, uint32_t kind, uint32_t stream,
		     uint64_t correlation, uint64_t start_ns, uint64_t end_ns);

/* CUPTI's synchronization record type as our sync kind. */
uint32_t cupti_sync_kind_of_activity(CUpti_ActivitySynchronizationType type);

/* The sync kind of a driver API callback id; false when it is no wait we record. */
bool cupti_sync_kind_of_call(CUpti_CallbackId cbid, uint32_t *kind);

/*
 * Enables the driver-API callbacks of the synchronising calls on subscriber;
 * 0, or -1 when CUPTI refused one (then none is recorded: the caller falls
 * back to the activity kind).
 */
int cupti_sync_start(CUpti_SubscriberHandle subscriber);

/* The subscriber's driver-API callback: entry stamps, exit writes the record. */
void cupti_sync_callback(CUpti_CallbackId cbid, const CUpti_CallbackData *cb);

struct cupti_sync_counts {
	uint64_t written;		/* SYNC records written */
	uint64_t failed_calls;		/* calls that returned an error: no record */
	uint64_t unknown_streams;	/* stream id not found: written with no stream */
	uint64_t no_entry;		/* exit without its entry stamp: no record */
};

void cupti_sync_counts(struct cupti_sync_counts *c);

#endif /* GPUPROBE_CUPTISYNC_H */
