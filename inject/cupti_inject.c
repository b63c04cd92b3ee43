// SPDX-License-Identifier: GPL-2.0
/*
 * libgpuprobe_cupti.so: loaded by the CUDA driver at cuInit through
 * CUDA_INJECTION64_PATH, it records the workload's kernels, copies, memsets
 * and API calls with CUPTI's activity API, stamped on CLOCK_MONOTONIC (the
 * kernel events' clock), and its synchronisations timed from driver-API
 * callbacks (cuptisync.h; GPUPROBE_CUDA_SYNCS=activity: CUPTI's activity
 * kind, as before 2026-12-02c), into $GPUPROBE_APP_EVENTS.
 *
 * Each CUDA device used is mapped to its PCI function and CUPTI's clock is
 * checked against ours while the workload runs (cupti_devices.c).
 *
 * Buffers are flushed at exit and, best effort, on SIGTERM/SIGINT before
 * the previous handler runs.  Only one CUPTI client can own a process:
 * when another (Nsight, a profiler in the app) got there first, we say so
 * and step aside rather than disturb it.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "appwriter.h"
#include "cupti_devices.h"
#include "cupti_records.h"
#include "cuptiapi.h"
#include "cuptiops.h"
#include "cuptiselect.h"
#include "cuptisync.h"
#include "cuptitune.h"

#define PREFIX	"gpuprobe (CUDA)"

static CUpti_SubscriberHandle subscriber;
static bool active, sync_callbacks, api_callbacks, ops_callbacks;
static struct sigaction previous[2];
static const int chained_signals[2] = { SIGTERM, SIGINT };

static uint64_t CUPTIAPI monotonic_timestamp(void)
{
	return appwriter_mono_ns();
}

static const char *result_string(CUptiResult r)
{
	const char *s = NULL;

	if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
		return "unknown CUPTI error";
	return s;
}

static void flush_all(void)
{
	if (!active)
		return;
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	appwriter_flush();
}

/* Short notes (63 characters in the trace), only when some wait was not recorded. */
static void note_sync_counts(void)
{
	struct cupti_sync_counts c;

	cupti_sync_counts(&c);
	if (c.unknown_streams)
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "syncs: %llu of %llu without stream id",
			       (unsigned long long)c.unknown_streams,
			       (unsigned long long)c.written);
	if (c.failed_calls || c.no_entry)
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "syncs not recorded: %llu failed, %llu unpaired",
			       (unsigned long long)c.failed_calls, (unsigned long long)c.no_entry);
}

static void at_exit(void)
{
	flush_all();
	if (active)
		cupti_devices_finish();
	if (sync_callbacks)
		note_sync_counts();
	if (cupti_records_dropped())
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
			       "CUPTI dropped %llu activity records; counts are low",
			       (unsigned long long)cupti_records_dropped());
	appwriter_flush();
}

static void on_fatal_signal(int sig, siginfo_t *info, void *uctx)
{
	const struct sigaction *old = &previous[sig == SIGINT];

	flush_all();
	if (old->sa_flags & SA_SIGINFO) {
		if (old->sa_sigaction)
			old->sa_sigaction(sig, info, uctx);
		return;
	}
	if (old->sa_handler == SIG_IGN)
		return;
	if (old->sa_handler != SIG_DFL) {
		old->sa_handler(sig);
		return;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void chain_signals(void)
{
	struct sigaction sa = { 0 };

	sa.sa_sigaction = on_fatal_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	for (unsigned int i = 0; i < 2; i++)
		sigaction(chained_signals[i], &sa, &previous[i]);
}

/*
 * One subscriber, one callback: the sync and API records' exit stamps come
 * before the clock check that cupti_devices.c may run in the same exit
 * callback.
 */
static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
				 CUpti_CallbackId cbid, const void *data)
{
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API && sync_callbacks)
		cupti_sync_callback(cbid, data);
	if ((domain == CUPTI_CB_DOMAIN_DRIVER_API || domain == CUPTI_CB_DOMAIN_RUNTIME_API) &&
	    api_callbacks)
		cupti_api_callback(domain, cbid, data);
	if ((domain == CUPTI_CB_DOMAIN_DRIVER_API || domain == CUPTI_CB_DOMAIN_RUNTIME_API) &&
	    ops_callbacks)
		cupti_ops_callback(domain, cbid, data);
	cupti_devices_callback(userdata, domain, cbid, data);
}

static int claim_cupti(void)
{
	char other[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = "";
	CUpti_SubscriberParams params = {
		.structSize = CUpti_SubscriberParams_STRUCT_SIZE,
		.subscriberName = "gpuprobe",
		.oldSubscriberName = other,
		.oldSubscriberSize = sizeof(other),
	};
	CUptiResult r = cuptiSubscribe_v2(&subscriber, on_callback, NULL, &params);

	if (r == CUPTI_SUCCESS)
		return 0;
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
			       "another CUPTI user owns this process (%s): no CUDA events; "
			       "run without it (Nsight, torch.profiler) or record with --no-inject",
			       other[0] ? other : "Nsight, cuda-gdb or an in-app profiler");
	else
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "cuptiSubscribe failed: %s; no CUDA events",
			       result_string(r));
	return -1;
}

static const CUpti_ActivityKind wanted[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
	CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMSET,
	CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,	/* only with GPUPROBE_CUDA_SYNCS=activity */
};

/*
 * The calls of one API domain that attribution uses (cuptiselect.h), enabled
 * one callback id at a time; the number enabled, or -1 when CUPTI refuses
 * (then the caller records every call, as before the selection).
 */
static int enable_selected(CUpti_CallbackDomain domain, uint32_t ids)
{
	bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
	int n = 0;

	for (uint32_t cbid = 1; cbid < ids; cbid++) {
		const char *name = NULL;
		CUptiResult r;

		if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS ||
		    !cupti_api_selected(runtime, name))
			continue;
		r = runtime ? cuptiActivityEnableRuntimeApi(cbid, 1) :
			cuptiActivityEnableDriverApi(cbid, 1);
		if (r != CUPTI_SUCCESS) {
			appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
				       "cannot select CUPTI's %s API records (%s for %s): recording every call",
				       runtime ? "runtime" : "driver", result_string(r), name);
			return -1;
		}
		n++;
	}
	return n;
}

/*
 * GPUPROBE_CUDA_API_SOURCE=callbacks (an experiment, cuptiapi.h): the
 * selected calls timed from callbacks, no API activity at all; true when so.
 */
static bool api_from_callbacks(bool runtime)
{
	const char *value = getenv(GPUPROBE_CUDA_API_SOURCE_ENV);
	int n;

	if (!value || !*value || !strcmp(value, "activity"))
		return false;
	if (strcmp(value, "callbacks")) {
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "%s=%s: not 'activity' or 'callbacks'",
			       GPUPROBE_CUDA_API_SOURCE_ENV, value);
		return false;
	}
	n = cupti_api_callbacks_start(subscriber, runtime);
	if (n < 0) {
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
			       "cannot time API calls from callbacks: CUPTI's API records instead");
		return false;
	}
	api_callbacks = true;
	appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "API records: %d calls timed from callbacks", n);
	return true;
}

/*
 * API records: by default only the calls attribution uses; every call with
 * GPUPROBE_CUDA_API=all (record --api-calls all).  The runtime's records
 * matter for an app on the runtime (torch launches through cudaLaunchKernel,
 * and its kernels' and syncs' correlation ids are the runtime call's:
 * without them no op knows the thread that issued it);
 * GPUPROBE_CUDA_RUNTIME=0 leaves them out.
 */
static void enable_api_records(void)
{
	const char *rt = getenv("GPUPROBE_CUDA_RUNTIME");
	bool runtime = !rt || strcmp(rt, "0");
	enum cupti_api_mode mode = cupti_api_mode_of(getenv(GPUPROBE_CUDA_API_ENV));
	int nd = -1, nr = -1;
	CUptiResult r = CUPTI_SUCCESS;

	if (mode == CUPTI_API_INVALID)
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "%s=%s: not 'attribution' or 'all': "
			       "recording the calls attribution uses", GPUPROBE_CUDA_API_ENV,
			       getenv(GPUPROBE_CUDA_API_ENV));
	if (mode != CUPTI_API_ALL && api_from_callbacks(runtime))
		return;
	if (mode != CUPTI_API_ALL)
		nd = enable_selected(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE);
	if (nd < 0)
		r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER);
	if (r != CUPTI_SUCCESS)
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "cannot enable CUPTI's driver API records (%s)",
			       result_string(r));
	if (runtime && mode != CUPTI_API_ALL)
		nr = enable_selected(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE);
	if (runtime && nr < 0) {
		r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
		if (r != CUPTI_SUCCESS)
			appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
				       "cannot enable CUPTI's runtime API records (%s): ops launched through the runtime have no issuing thread",
				       result_string(r));
	}
	/* the default is silent: a trace's notes are few (8), kept for what went wrong */
	if (nd < 0 || (runtime && nr < 0))
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "API records: every %s call",
			       nd < 0 && runtime && nr < 0 ? "driver and runtime" :
			       nd < 0 ? "driver" : "runtime");
}

/*
 * GPUPROBE_CUDA_LEAVE_OUT=kernels,copies,syncs,api,timestamps,overhead,activities,devices:
 * a diagnostic, to measure what each part of the recording costs
 * (scripts/h200-cost.sh split); a trace recorded with it lacks those records
 * (syncs: from either source; timestamps: CUPTI's own clock, so its records
 * are not on the kernel side's clock; activities: no activity API at all,
 * only the subscriber and its callbacks; devices: no context callbacks, so
 * no DEVICE records and no clock checks).
 */
static bool left_out(const char *part)
{
	const char *list = getenv("GPUPROBE_CUDA_LEAVE_OUT");
	size_t n = strlen(part);

	for (const char *p = list; p && *p; p += strcspn(p, ",")) {
		p += *p == ',';
		if (!strncmp(p, part, n) && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

/*
 * Where the waits come from (cuptisync.h): the driver-API callbacks of the
 * synchronising calls by default, unless CUPTI refuses them; CUPTI's
 * SYNCHRONIZATION activity kind with GPUPROBE_CUDA_SYNCS=activity.
 */
static bool syncs_from_activity(void)
{
	const char *value = getenv(GPUPROBE_CUDA_SYNCS_ENV);
	enum cupti_sync_source source = cupti_sync_source_of(value);

	if (left_out("syncs"))
		return false;
	if (source == CUPTI_SYNC_INVALID)
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "%s=%s: not 'callbacks' or 'activity': "
			       "the driver callbacks", GPUPROBE_CUDA_SYNCS_ENV, value);
	if (source == CUPTI_SYNC_ACTIVITY)
		return true;
	if (cupti_sync_start(subscriber)) {
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
			       "cannot time the waits from driver callbacks: CUPTI's sync records instead");
		return true;
	}
	sync_callbacks = true;
	return false;
}

static struct cupti_tune tune;

/* One GPUPROBE_CUDA_TUNE item's outcome: stderr always (a diagnostic), the trace when refused. */
static void tune_result(enum cupti_tune_key key, CUptiResult r)
{
	fprintf(stderr, PREFIX ": %s=%ld: %s\n", cupti_tune_name(key), tune.value[key],
		r == CUPTI_SUCCESS ? "set" : result_string(r));
	if (r != CUPTI_SUCCESS)
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "%s=%ld refused: %s",
			       cupti_tune_name(key), tune.value[key], result_string(r));
}

static void tune_attribute(enum cupti_tune_key key, CUpti_ActivityAttribute attr, bool byte)
{
	uint8_t b = (uint8_t)tune.value[key];
	size_t v = (size_t)tune.value[key], size = byte ? sizeof(b) : sizeof(v);

	if (key == CUPTI_TUNE_DEVBUF)
		v <<= 20;
	if (tune.value[key] != CUPTI_TUNE_UNSET)
		tune_result(key, cuptiActivitySetAttribute(attr, &size, byte ? (void *)&b : (void *)&v));
}

/* GPUPROBE_CUDA_TUNE (cuptitune.h): what must be set before any kind is enabled. */
static void tune_before(void)
{
	const char *value = getenv(GPUPROBE_CUDA_TUNE_ENV);
	char bad[64];

	if (cupti_tune_parse(value, &tune, bad, sizeof(bad)))
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "%s: '%s' not understood: ignored from there",
			       GPUPROBE_CUDA_TUNE_ENV, bad);
	tune_attribute(CUPTI_TUNE_PINNED, CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, true);
	tune_attribute(CUPTI_TUNE_DEVBUF, CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, false);
	tune_attribute(CUPTI_TUNE_POOL, CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, false);
	tune_attribute(CUPTI_TUNE_PREALLOC, CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE, false);
	tune_attribute(CUPTI_TUNE_SEMAPOOL, CUPTI_ACTIVITY_ATTR_PROFILING_SEMAPHORE_POOL_SIZE, false);
	tune_attribute(CUPTI_TUNE_PERTHREAD, CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, true);
	if (tune.value[CUPTI_TUNE_LATENCY] != CUPTI_TUNE_UNSET)
		tune_result(CUPTI_TUNE_LATENCY,
			    cuptiActivityEnableLatencyTimestamps((uint8_t)tune.value[CUPTI_TUNE_LATENCY]));
	if (tune.value[CUPTI_TUNE_LAUNCHATTR] != CUPTI_TUNE_UNSET)
		tune_result(CUPTI_TUNE_LAUNCHATTR,
			    cuptiActivityEnableLaunchAttributes((uint8_t)tune.value[CUPTI_TUNE_LAUNCHATTR]));
	if (tune.value[CUPTI_TUNE_HOSTBUF] != CUPTI_TUNE_UNSET)
		cupti_records_set_buffer_size((size_t)tune.value[CUPTI_TUNE_HOSTBUF] << 10);
}

/* ... and what is set once the kinds are enabled. */
static void tune_after(void)
{
	if (tune.value[CUPTI_TUNE_FLUSH] != CUPTI_TUNE_UNSET)
		tune_result(CUPTI_TUNE_FLUSH,
			    cuptiActivityFlushPeriod((uint32_t)tune.value[CUPTI_TUNE_FLUSH]));
	if (tune.value[CUPTI_TUNE_HWTRACE] != CUPTI_TUNE_UNSET)
		tune_result(CUPTI_TUNE_HWTRACE,
			    cuptiActivityEnableHWTrace((uint8_t)tune.value[CUPTI_TUNE_HWTRACE]));
}

/*
 * GPUPROBE_CUDA_OPS=callbacks (an experiment, cuptiops.h): kernels, copies
 * and memsets from the launching calls' callbacks, on the host's times, and
 * none of CUPTI's GPU activity kinds; no clock checks then (no device times
 * to check).
 */
static void ops_from_callbacks(void)
{
	int n;

	if (!cupti_ops_from_callbacks(getenv(GPUPROBE_CUDA_OPS_ENV)) || left_out("kernels"))
		return;
	n = cupti_ops_start(subscriber);
	if (n < 0) {
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
			       "cannot take ops from callbacks: CUPTI's activity records instead");
		return;
	}
	ops_callbacks = true;
	cupti_devices_no_checks();
	appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "ops from %d calls' callbacks: host times", n);
}

static int enable_activities(void)
{
	bool sync_activity;
	CUptiResult r;

	if (getenv("GPUPROBE_CUDA_LEAVE_OUT"))
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "GPUPROBE_CUDA_LEAVE_OUT=%s: records left out",
			       getenv("GPUPROBE_CUDA_LEAVE_OUT"));

	/* thread ids as the kernel's (gettid), not pthread_self(): sched records match them */
	r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	if (r != CUPTI_SUCCESS)
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
			       "cannot get CUDA thread ids as the kernel's (%s): wake-ups not matched "
			       "to CUDA threads", result_string(r));
	r = left_out("timestamps") ? CUPTI_SUCCESS :
		cuptiActivityRegisterTimestampCallback(monotonic_timestamp);
	if (r != CUPTI_SUCCESS) {
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
			       "cannot put CUPTI on CLOCK_MONOTONIC (%s): no CUDA events",
			       result_string(r));
		return -1;
	}
	tune_before();
	if (left_out("activities"))
		return 0;	/* subscribed, callbacks only */
	cupti_records_start();
	r = cuptiActivityRegisterCallbacks(cupti_buffer_requested, cupti_buffer_completed);
	if (r != CUPTI_SUCCESS) {
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "cuptiActivityRegisterCallbacks: %s",
			       result_string(r));
		return -1;
	}
	sync_activity = syncs_from_activity();
	ops_from_callbacks();
	for (unsigned int i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
		CUpti_ActivityKind kind = wanted[i];

		if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && tune.value[CUPTI_TUNE_KERNEL] == 1)
			kind = CUPTI_ACTIVITY_KIND_KERNEL;	/* serialises the kernels */
		if ((wanted[i] == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
		     (left_out("kernels") || ops_callbacks)) ||
		    ((wanted[i] == CUPTI_ACTIVITY_KIND_MEMCPY ||
		      wanted[i] == CUPTI_ACTIVITY_KIND_MEMSET) && (left_out("copies") || ops_callbacks)) ||
		    (wanted[i] == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION && !sync_activity))
			continue;
		r = cuptiActivityEnable(kind);
		if (r == CUPTI_SUCCESS)
			continue;
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
			       "cannot enable CUPTI activity kind %d: %s%s", (int)kind,
			       result_string(r),
			       r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ||
			       r == CUPTI_ERROR_NOT_COMPATIBLE ?
			       " (another CUPTI user, e.g. Nsight or an in-app profiler?)" : "");
		return -1;
	}
	if (!left_out("api"))
		enable_api_records();
	tune_after();
	/* CUPTI's own cost (buffer flushes, instrumentation): report's tracing cost; optional */
	r = left_out("overhead") ? CUPTI_SUCCESS : cuptiActivityEnable(CUPTI_ACTIVITY_KIND_OVERHEAD);
	if (r != CUPTI_SUCCESS)
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
			       "no CUPTI overhead records (%s): the tracing cost is the per-record estimate only",
			       result_string(r));
	return 0;
}

/* Called by the CUDA driver during cuInit; returning 1 means success. */
__attribute__((visibility("default"))) int InitializeInjection(void)
{
	if (active || !appwriter_open())
		return 1;	/* not under gpuprobe-trace record: stay out of the way */
	if (claim_cupti())
		return 1;
	if (enable_activities()) {
		cuptiActivityFlushAll(0);
		cuptiUnsubscribe(subscriber);
		return 1;
	}
	if (!left_out("devices"))
		cupti_devices_start(subscriber);
	active = true;
	atexit(at_exit);
	chain_signals();
	return 1;
}
