// SPDX-License-Identifier: GPL-2.0
/*
 * The waits timed from CUPTI's driver-API callbacks (inject/cuptisync.c),
 * without CUDA: CUPTI's callback data is built here as CUPTI hands it over
 * (entry, then exit, of one invocation: the same correlationData, the call's
 * parameters and return value), and the two CUPTI calls the code makes are
 * faked (cuptiGetStreamIdEx from a table of streams, cuptiEnableCallback
 * recording what is enabled).  The SYNC records written to
 * $GPUPROBE_APP_EVENTS are read back and compared with what attribution
 * reads (user/analysis/attribute_match.c: a stream sync takes its stream's
 * ops, so the stream id must be the CUPTI id of the call's stream; every
 * other wait takes its thread's; all but the stream wait are blocking), the
 * expectations written by hand; their times against this program's own
 * CLOCK_MONOTONIC brackets around the entry and the exit.  Run by
 * user/tests/inject.sh.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>
#include <cupti.h>

#include "appwriter.h"
#include "cuptisync.h"
#include "fake_cupti.h"

#define NO_STREAM	0xffffffffu
#define WAIT_NS		2000000ull	/* how long each fake call "waits" */
#define CONTEXT		((CUcontext)0x7700)	/* the context every call is made in */
#define OTHER_CONTEXT	((CUcontext)0x7800)

/* ---- fake CUPTI ---- */

/*
 * Streams, by context.  An explicit stream handle names its
 * stream alone, with or without the context; the default streams (the NULL
 * handle) are one per context, so CUPTI can name them only given the
 * context: with a NULL context it answers CUPTI_ERROR_INVALID_STREAM, as
 * CUPTI 13 did on the H200 for torch's default stream (the 44 "other" syncs
 * of Documentation/results/h200-2026-12-02b; the device probe of
 * h200-2026-12-02c asks CUPTI itself).
 */
static const struct {
	CUcontext context;
	CUstream stream;
	uint8_t per_thread;
	uint32_t id;
} streams[] = {
	{ CONTEXT, (CUstream)0x5000, 0, 21 },
	{ CONTEXT, (CUstream)0x5000, 1, 21 },	/* an explicit stream is itself in either mode */
	{ CONTEXT, NULL, 0, 7 },		/* the legacy default stream */
	{ CONTEXT, NULL, 1, 13 },		/* this thread's per-thread default stream */
	{ OTHER_CONTEXT, (CUstream)0x5100, 0, 31 },	/* another context's stream */
};

CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext context, CUstream stream, uint8_t per_thread,
					uint32_t *id)
{
	*id = 0xdead;	/* nothing promises the id is left alone on failure */
	if (!stream && !context)
		return CUPTI_ERROR_INVALID_STREAM;	/* whose default stream? */
	for (size_t i = 0; i < N(streams); i++) {
		if (streams[i].stream == stream && streams[i].per_thread == per_thread &&
		    (!context || context == streams[i].context)) {
			*id = streams[i].id;
			return CUPTI_SUCCESS;
		}
	}
	return CUPTI_ERROR_INVALID_STREAM;
}

/* ---- one invocation, as CUPTI calls back ---- */

struct call {
	CUpti_CallbackId cbid;
	const char *what;
	const void *params;
	CUresult result;
	bool skip_entry;		/* CUPTI saw the exit only */
	uint64_t t0, t1, t2, t3;	/* before/after the entry, before/after the exit */
};

static void invoke(struct call *c)
{
	uint64_t correlation_data = 0;
	CUresult result = c->result;
	CUpti_CallbackData cb = {
		.callbackSite = CUPTI_API_ENTER,
		.functionName = c->what,
		.functionParams = c->params,
		.functionReturnValue = &result,
		.context = CONTEXT,
		.contextUid = 1,
		.correlationData = &correlation_data,
		.correlationId = 4242,	/* the driver call's: the record must not claim it */
	};
	struct timespec wait = { 0, (long)WAIT_NS };

	c->t0 = fake_mono_ns();
	if (!c->skip_entry)
		cupti_sync_callback(c->cbid, &cb);
	c->t1 = fake_mono_ns();
	nanosleep(&wait, NULL);
	cb.callbackSite = CUPTI_API_EXIT;
	c->t2 = fake_mono_ns();
	cupti_sync_callback(c->cbid, &cb);
	c->t3 = fake_mono_ns();
}

#define CALL(call, label, parameters) \
	{ .cbid = CUPTI_DRIVER_TRACE_CBID_##call, .what = label, .params = parameters }

struct expect {
	uint32_t kind, flags, stream;
	const char *name;
};

static void check_record(const struct gpuprobe_app_event *ev, const struct call *c,
			 const struct expect *e, uint32_t tid)
{
	CHECK(ev->magic == 0x4750 && ev->version == 1 && ev->size == 136, "%s: header", c->what);
	CHECK(ev->api == 1 && ev->type == 4, "%s: api %u type %u, want CUDA SYNC (1, 4)", c->what,
	      ev->api, ev->type);
	CHECK(ev->kind == e->kind, "%s: kind %u, want %u", c->what, ev->kind, e->kind);
	CHECK(ev->flags == e->flags, "%s: flags %#x, want %#x", c->what, ev->flags, e->flags);
	CHECK(ev->stream == e->stream, "%s: stream %u, want %u", c->what, ev->stream, e->stream);
	CHECK(!strcmp(ev->name, e->name), "%s: name '%s', want '%s'", c->what, ev->name, e->name);
	CHECK(ev->pid == (uint32_t)getpid(), "%s: pid %u", c->what, ev->pid);
	CHECK(ev->tid == tid, "%s: tid %u, want the caller's %u", c->what, ev->tid, tid);
	/* correlation 0: never checked against the driver call record's span */
	CHECK(ev->correlation == 0, "%s: correlation %llu, want 0", c->what,
	      (unsigned long long)ev->correlation);
	CHECK(ev->start_ns >= c->t0 && ev->start_ns <= c->t1,
	      "%s: start %llu outside the entry [%llu, %llu]", c->what,
	      (unsigned long long)ev->start_ns, (unsigned long long)c->t0, (unsigned long long)c->t1);
	CHECK(ev->end_ns >= c->t2 && ev->end_ns <= c->t3,
	      "%s: end %llu outside the exit [%llu, %llu]", c->what,
	      (unsigned long long)ev->end_ns, (unsigned long long)c->t2, (unsigned long long)c->t3);
	CHECK(ev->end_ns - ev->start_ns >= WAIT_NS, "%s: wait %llu ns, the call took over %llu",
	      c->what, (unsigned long long)(ev->end_ns - ev->start_ns), WAIT_NS);
	CHECK(!ev->device && !ev->queued_ns && !ev->bytes, "%s: stray fields", c->what);
}

static uint32_t tid_of_thread;

static void *thread_call(void *arg)
{
	tid_of_thread = (uint32_t)syscall(SYS_gettid);
	invoke(arg);
	return NULL;
}

static void test_records(const char *path)
{
	cuStreamSynchronize_params stream_5000 = { .hStream = (CUstream)0x5000 };
	cuStreamSynchronize_params stream_null = { .hStream = NULL };
	cuStreamSynchronize_params stream_other = { .hStream = (CUstream)0x5100 };
	cuStreamSynchronize_params stream_unknown = { .hStream = (CUstream)0x6000 };
	cuStreamSynchronize_params stream_legacy = { .hStream = CU_STREAM_LEGACY };
	cuStreamSynchronize_params stream_per_thread = { .hStream = CU_STREAM_PER_THREAD };
	cuStreamWaitEvent_params wait_unknown = { .hStream = (CUstream)0x6000,
						  .hEvent = (CUevent)0x9000 };
	cuStreamSynchronize_ptsz_params ptsz_null = { .hStream = NULL };
	cuStreamSynchronize_ptsz_params ptsz_legacy = { .hStream = CU_STREAM_LEGACY };
	cuStreamWaitEvent_params wait_5000 = { .hStream = (CUstream)0x5000,
					       .hEvent = (CUevent)0x9000 };
	cuStreamWaitEvent_ptsz_params wait_ptsz_null = { .hStream = NULL,
							 .hEvent = (CUevent)0x9000 };
	cuEventSynchronize_params event = { .hEvent = (CUevent)0x9000 };
	cuCtxSynchronize_v2_params ctx_v2 = { .ctx = (CUcontext)0x7700 };
	struct call recorded[] = {
		CALL(cuStreamSynchronize, "cuStreamSynchronize(s)", &stream_5000),
		CALL(cuStreamSynchronize, "cuStreamSynchronize(0)", &stream_null),
		CALL(cuStreamSynchronize_ptsz, "cuStreamSynchronize_ptsz(0)", &ptsz_null),
		CALL(cuCtxSynchronize, "cuCtxSynchronize", NULL),
		CALL(cuCtxSynchronize_v2, "cuCtxSynchronize_v2", &ctx_v2),
		CALL(cuEventSynchronize, "cuEventSynchronize", &event),
		CALL(cuStreamWaitEvent, "cuStreamWaitEvent(s)", &wait_5000),
		CALL(cuStreamWaitEvent_ptsz, "cuStreamWaitEvent_ptsz(0)", &wait_ptsz_null),
		CALL(cuStreamSynchronize, "cuStreamSynchronize(unknown)", &stream_unknown),
		CALL(cuStreamSynchronize, "cuStreamSynchronize(CU_STREAM_LEGACY)", &stream_legacy),
		CALL(cuStreamSynchronize, "cuStreamSynchronize(CU_STREAM_PER_THREAD)",
		     &stream_per_thread),
		CALL(cuStreamWaitEvent, "cuStreamWaitEvent(unknown)", &wait_unknown),
		CALL(cuStreamSynchronize, "cuStreamSynchronize(no parameters)", NULL),
		CALL(cuStreamSynchronize_ptsz, "cuStreamSynchronize_ptsz(CU_STREAM_LEGACY)",
		     &ptsz_legacy),
		CALL(cuStreamSynchronize, "cuStreamSynchronize(another context's)", &stream_other),
	};
	static const struct expect want[] = {
		{ GPUPROBE_SYNC_STREAM, GPUPROBE_APPF_BLOCKING, 21, "stream_synchronize" },
		{ GPUPROBE_SYNC_STREAM, GPUPROBE_APPF_BLOCKING, 7, "stream_synchronize" },
		{ GPUPROBE_SYNC_STREAM, GPUPROBE_APPF_BLOCKING, 13, "stream_synchronize" },
		{ GPUPROBE_SYNC_DEVICE, GPUPROBE_APPF_BLOCKING, NO_STREAM, "context_synchronize" },
		{ GPUPROBE_SYNC_DEVICE, GPUPROBE_APPF_BLOCKING, NO_STREAM, "context_synchronize" },
		{ GPUPROBE_SYNC_EVENT, GPUPROBE_APPF_BLOCKING, NO_STREAM, "event_synchronize" },
		{ GPUPROBE_SYNC_STREAM_WAIT, 0, 21, "stream_wait_event" },
		{ GPUPROBE_SYNC_STREAM_WAIT, 0, 13, "stream_wait_event" },
		/* a stream nobody's ops carry: the thread's ops, as a device sync */
		{ GPUPROBE_SYNC_OTHER, GPUPROBE_APPF_BLOCKING, NO_STREAM, "sync" },
		{ GPUPROBE_SYNC_STREAM, GPUPROBE_APPF_BLOCKING, 7, "stream_synchronize" },
		{ GPUPROBE_SYNC_STREAM, GPUPROBE_APPF_BLOCKING, 13, "stream_synchronize" },
		{ GPUPROBE_SYNC_STREAM_WAIT, 0, NO_STREAM, "stream_wait_event" },
		{ GPUPROBE_SYNC_OTHER, GPUPROBE_APPF_BLOCKING, NO_STREAM, "sync" },
		{ GPUPROBE_SYNC_STREAM, GPUPROBE_APPF_BLOCKING, 7, "stream_synchronize" },
		{ GPUPROBE_SYNC_STREAM, GPUPROBE_APPF_BLOCKING, 31, "stream_synchronize" },
	};
	/* none of these is a wait the record holds */
	struct call unrecorded[] = {
		{ .cbid = CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
		  .what = "failed cuStreamSynchronize", .params = &stream_5000,
		  .result = CUDA_ERROR_ILLEGAL_ADDRESS },
		{ .cbid = CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize, .what = "exit without entry",
		  .params = &event, .skip_entry = true },
		CALL(cuLaunchKernel, "cuLaunchKernel", NULL),
		CALL(cuEventQuery, "cuEventQuery", &event),
		CALL(cuStreamQuery, "cuStreamQuery", &stream_5000),
		CALL(cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2", NULL),
	};
	struct call threaded = CALL(cuCtxSynchronize, "cuCtxSynchronize (thread)", NULL);
	static const struct expect want_threaded = {
		GPUPROBE_SYNC_DEVICE, GPUPROBE_APPF_BLOCKING, NO_STREAM, "context_synchronize"
	};
	struct gpuprobe_app_event ev[64];
	struct cupti_sync_counts counts;
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	pthread_t thread;
	size_t n, k = 0;

	for (size_t i = 0; i < N(recorded); i++) {
		invoke(&recorded[i]);
		if (i == 0)	/* a call of nothing else in between */
			for (size_t u = 0; u < N(unrecorded); u++)
				invoke(&unrecorded[u]);
	}
	if (pthread_create(&thread, NULL, thread_call, &threaded) || pthread_join(thread, NULL)) {
		CHECK(0, "no thread");
		return;
	}
	appwriter_flush();
	n = fake_events_read(path, ev, N(ev));
	CHECK(n == N(recorded) + 1, "%zu records, want %zu (one a wait)", n, N(recorded) + 1);
	for (size_t i = 0; i < N(recorded) && k < n; i++, k++)
		check_record(&ev[k], &recorded[i], &want[i], tid);
	if (k < n)
		check_record(&ev[k], &threaded, &want_threaded, tid_of_thread);
	CHECK(tid_of_thread && tid_of_thread != tid, "the thread's tid");
	cupti_sync_counts(&counts);
	CHECK(counts.written == N(recorded) + 1, "written %llu", (unsigned long long)counts.written);
	CHECK(counts.failed_calls == 1, "failed calls %llu", (unsigned long long)counts.failed_calls);
	CHECK(counts.no_entry == 1, "exits without entry %llu", (unsigned long long)counts.no_entry);
	CHECK(counts.unknown_streams == 3, "unknown streams %llu",
	      (unsigned long long)counts.unknown_streams);
}

/* The calls whose callbacks are enabled: exactly the synchronising ones (cupti_driver_cbid.h). */
static void test_enabled(void)
{
	static const CUpti_CallbackId want[] = {
		CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2,
		CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
		CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
		CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize, CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent,
		CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz,
	};
	unsigned int on = 0;

	CHECK(cupti_sync_start(NULL) == 0, "cupti_sync_start failed");
	on = fake_enabled_count(false) + fake_enabled_count(true);
	CHECK(on == N(want), "%u callbacks enabled, want %zu", on, N(want));
	for (size_t i = 0; i < N(want); i++)
		CHECK(fake_enabled[0][want[i]], "callback %u not enabled", want[i]);
	/* all or none: a refusal halfway leaves nothing enabled */
	fake_enable_reset();
	fake_fail_enable_at = 3;
	CHECK(cupti_sync_start(NULL) == -1, "a refused callback not reported");
	on = fake_enabled_count(false) + fake_enabled_count(true);
	CHECK(on == 0, "%u callbacks left enabled after a refusal", on);
	fake_fail_enable_at = 0;
}

/* CUPTI's own sync records (GPUPROBE_CUDA_SYNCS=activity) map to the same kinds. */
static void test_activity_kinds(void)
{
	CHECK(cupti_sync_kind_of_activity(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE) ==
	      GPUPROBE_SYNC_EVENT, "event");
	CHECK(cupti_sync_kind_of_activity(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT) ==
	      GPUPROBE_SYNC_STREAM_WAIT, "stream wait");
	CHECK(cupti_sync_kind_of_activity(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE) ==
	      GPUPROBE_SYNC_STREAM, "stream");
	CHECK(cupti_sync_kind_of_activity(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE) ==
	      GPUPROBE_SYNC_DEVICE, "context");
	CHECK(cupti_sync_kind_of_activity(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN) ==
	      GPUPROBE_SYNC_OTHER, "unknown");
}

/* A kind beyond the known ones is written as "other", never indexed past the names. */
static void test_fill(void)
{
	struct gpuprobe_app_event ev;

	cupti_sync_fill(&ev, 9, 5, 6, 7, 8);
	CHECK(ev.kind == GPUPROBE_SYNC_OTHER && !strcmp(ev.name, "sync") &&
	      ev.flags == GPUPROBE_APPF_BLOCKING, "kind 9: kind %u name '%s'", ev.kind, ev.name);
	CHECK(ev.stream == 5 && ev.correlation == 6 && ev.start_ns == 7 && ev.end_ns == 8 &&
	      ev.type == 4 && ev.api == 1, "kind 9: fields");
}

static void test_source(void)
{
	/* the callbacks by default: CUPTI's sync kind taxes every call (cuptisync.h) */
	CHECK(cupti_sync_source_of(NULL) == CUPTI_SYNC_CALLBACKS, "unset");
	CHECK(cupti_sync_source_of("") == CUPTI_SYNC_CALLBACKS, "empty");
	CHECK(cupti_sync_source_of("callbacks") == CUPTI_SYNC_CALLBACKS, "callbacks");
	CHECK(cupti_sync_source_of("activity") == CUPTI_SYNC_ACTIVITY, "activity");
	CHECK(cupti_sync_source_of("cupti") == CUPTI_SYNC_INVALID, "a typo is no source");
	CHECK(cupti_sync_source_of("1") == CUPTI_SYNC_INVALID, "1 is no source");
}

int main(void)
{
	char path[] = "/tmp/gpuprobe-cupti-sync.XXXXXX";

	if (fake_events_open(path))
		return 2;
	test_source();
	test_fill();
	test_activity_kinds();
	test_enabled();
	test_records(path);
	return fake_finish("cupti_sync_calls", path);
}
