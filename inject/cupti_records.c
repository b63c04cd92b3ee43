// SPDX-License-Identifier: GPL-2.0
/*
 * CUPTI activity records to application events.  Timestamps come from our
 * timestamp callback (CLOCK_MONOTONIC), so they are copied unchanged.  The
 * record versions are those of the CUPTI this library is built against;
 * CUPTI hands out records of the version its headers define.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "appwriter.h"
#include "cupti_devices.h"
#include "cupti_records.h"
#include "cuptiselect.h"
#include "cuptisync.h"

#define ACTIVITY_BUFFER_SIZE	(4u << 20)	/* unless GPUPROBE_CUDA_TUNE=hostbuf= */
#define ACTIVITY_POOL		8	/* buffers kept for reuse */

static atomic_uint_least64_t dropped, written;

/*
 * Activity buffers are handed to CUPTI already zeroed
 * (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, set by
 * cupti_records_start): otherwise CUPTI zeroes each 4 MiB buffer itself, in
 * the thread that needed it, which for API records is the application's
 * (per-thread buffers, CUPTI's default).  A completed buffer is zeroed on
 * CUPTI's worker thread, after its records are written, and kept for the
 * next request, its pages already faulted in; a new one comes from calloc
 * (fresh zero pages, no memset).
 */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *pool[ACTIVITY_POOL];
static unsigned int npool;
static bool zeroed_buffers;
static size_t buffer_size = ACTIVITY_BUFFER_SIZE;

void cupti_records_set_buffer_size(size_t bytes)
{
	buffer_size = bytes;
}

uint64_t cupti_records_dropped(void)
{
	return atomic_load(&dropped);
}

uint64_t cupti_records_written(void)
{
	return atomic_load(&written);
}

void cupti_records_start(void)
{
	uint8_t on = 1;
	size_t size = sizeof(on);

	zeroed_buffers = cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER,
						   &size, &on) == CUPTI_SUCCESS;
}

void CUPTIAPI cupti_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	uint8_t *b = NULL;

	pthread_mutex_lock(&pool_lock);
	if (npool)
		b = pool[--npool];
	pthread_mutex_unlock(&pool_lock);
	if (!b)
		b = calloc(1, buffer_size);	/* 16-byte aligned: CUPTI needs 8 */
	*buffer = b;
	*size = b ? buffer_size : 0;
	*max_records = 0;	/* as many as fit */
}

/* A buffer CUPTI is done with: zeroed and kept, or freed. */
static void buffer_recycle(uint8_t *buffer)
{
	bool kept = false;

	if (!buffer)
		return;
	if (zeroed_buffers) {
		memset(buffer, 0, buffer_size);
		pthread_mutex_lock(&pool_lock);
		if (npool < ACTIVITY_POOL) {
			pool[npool++] = buffer;
			kept = true;
		}
		pthread_mutex_unlock(&pool_lock);
	}
	if (!kept)
		free(buffer);
}

static uint32_t copy_direction(uint8_t copy_kind)
{
	switch (copy_kind) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:	return GPUPROBE_COPY_HTOD;
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:	return GPUPROBE_COPY_DTOH;
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:	return GPUPROBE_COPY_DTOD;
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:	return GPUPROBE_COPY_HTOH;
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:	return GPUPROBE_COPY_PTOP;
	default:				return GPUPROBE_COPY_UNKNOWN;
	}
}

/* The host side of a copy decides pinned or pageable. */
static uint32_t host_memory_flags(uint8_t kind)
{
	if (kind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED)
		return GPUPROBE_APPF_PINNED;
	if (kind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE)
		return GPUPROBE_APPF_PAGEABLE;
	return 0;
}

static void put_memcpy(const CUpti_ActivityMemcpy6 *m)
{
	struct gpuprobe_app_event ev;

	appwriter_init_event(&ev, GPUPROBE_APP_CUDA, GPUPROBE_APP_MEMCPY);
	ev.kind = copy_direction(m->copyKind);
	ev.flags = host_memory_flags(m->srcKind) | host_memory_flags(m->dstKind);
	ev.device = m->deviceId;
	ev.stream = m->streamId;
	ev.correlation = m->correlationId;
	ev.start_ns = m->start;
	ev.end_ns = m->end;
	ev.bytes = m->bytes;
	appwriter_set_name(&ev, "memcpy");
	appwriter_put(&ev);
}

static void put_memset(const CUpti_ActivityMemset4 *m)
{
	struct gpuprobe_app_event ev;

	if (cupti_clock_take_memset(m->deviceId, m->streamId, m->start, m->end))
		return;	/* a clock check's, not the application's */
	appwriter_init_event(&ev, GPUPROBE_APP_CUDA, GPUPROBE_APP_MEMSET);
	ev.flags = host_memory_flags((uint8_t)m->memoryKind);
	ev.device = m->deviceId;
	ev.stream = m->streamId;
	ev.correlation = m->correlationId;
	ev.start_ns = m->start;
	ev.end_ns = m->end;
	ev.bytes = m->bytes;
	appwriter_set_name(&ev, "memset");
	appwriter_put(&ev);
}

static void put_kernel(const CUpti_ActivityKernel10 *k)
{
	struct gpuprobe_app_event ev;

	appwriter_init_event(&ev, GPUPROBE_APP_CUDA, GPUPROBE_APP_KERNEL);
	ev.device = k->deviceId;
	ev.stream = k->streamId;
	ev.correlation = k->correlationId;
	ev.start_ns = k->start;
	ev.end_ns = k->end;
	appwriter_set_name(&ev, k->name);
	appwriter_put(&ev);
}

/* SYNCHRONIZATION activity records (GPUPROBE_CUDA_SYNCS=activity): cuptisync.c's record. */
static void put_sync(const CUpti_ActivitySynchronization2 *s)
{
	struct gpuprobe_app_event ev;

	if (cupti_clock_take_sync(s->streamId))
		return;	/* the polling of a clock check, on its own stream */
	cupti_sync_fill(&ev, cupti_sync_kind_of_activity(s->type), s->streamId, s->correlationId,
			s->start, s->end);
	appwriter_put(&ev);
}

static void put_api(const CUpti_ActivityAPI *a)
{
	CUpti_CallbackDomain domain = a->kind == CUPTI_ACTIVITY_KIND_DRIVER ?
		CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
	struct gpuprobe_app_event ev;
	const char *name = NULL;

	if (cupti_clock_own_call(a->threadId, a->start))
		return;	/* a clock check's driver call */
	if (cuptiGetCallbackName(domain, a->cbid, &name) != CUPTI_SUCCESS || !name)
		name = "cuda_api";
	appwriter_init_event(&ev, GPUPROBE_APP_CUDA, GPUPROBE_APP_API);
	ev.kind = a->cbid;
	ev.pid = a->processId;
	ev.tid = a->threadId;
	ev.correlation = a->correlationId;
	ev.start_ns = a->start;
	ev.end_ns = cupti_clock_trim_call(a->threadId, a->start, a->end);
	if (cupti_api_blocks(name))
		ev.flags |= GPUPROBE_APPF_BLOCKING;
	appwriter_set_name(&ev, name);
	appwriter_put(&ev);
}

/* CUPTI's own time in the workload; the tracing-cost line of `report` sums it. */
static void put_overhead(CUpti_ActivityOverhead3 *o)
{
	struct gpuprobe_app_event ev;

	appwriter_init_event(&ev, GPUPROBE_APP_CUDA, GPUPROBE_APP_OVERHEAD);
	ev.kind = (uint32_t)o->overheadKind;
	ev.correlation = o->correlationId;
	ev.start_ns = o->start;
	ev.end_ns = o->end;
	appwriter_set_name(&ev, "cupti_overhead");
	appwriter_put(&ev);
	free(o->overheadData);	/* ours to free, CUPTI says */
	o->overheadData = NULL;
}

static void put_record(CUpti_Activity *rec)
{
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		put_kernel((const CUpti_ActivityKernel10 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		put_memcpy((const CUpti_ActivityMemcpy6 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_MEMSET:
		put_memset((const CUpti_ActivityMemset4 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
		put_sync((const CUpti_ActivitySynchronization2 *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_DRIVER:
	case CUPTI_ACTIVITY_KIND_RUNTIME:
		put_api((const CUpti_ActivityAPI *)rec);
		break;
	case CUPTI_ACTIVITY_KIND_OVERHEAD:
		put_overhead((CUpti_ActivityOverhead3 *)rec);
		break;
	default:
		return;
	}
	atomic_fetch_add(&written, 1);
}

void CUPTIAPI cupti_buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
				    size_t size, size_t valid_size)
{
	CUpti_Activity *rec = NULL;
	size_t lost = 0;

	(void)size;
	while (cuptiActivityGetNextRecord(buffer, valid_size, &rec) == CUPTI_SUCCESS)
		put_record(rec);
	if (cuptiActivityGetNumDroppedRecords(ctx, stream_id, &lost) == CUPTI_SUCCESS && lost)
		atomic_fetch_add(&dropped, lost);
	buffer_recycle(buffer);
	appwriter_flush();
}
