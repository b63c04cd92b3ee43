// SPDX-License-Identifier: GPL-2.0
/*
 * CUDA devices to PCI functions, and checks of CUPTI's clock.
 *
 * DEVICE: when a context is created, its device's CUDA ordinal (CUPTI's
 * deviceId) is resolved to a PCI function with cuDeviceGetPCIBusId, found at
 * run time in the libcuda that loaded us, so that each op is charged only with
 * its own GPU's kernel events.
 *
 * CLOCK: CUPTI maps the GPU's timestamps to our CLOCK_MONOTONIC callback by
 * its own calibration, which we cannot read.  We check it: after the
 * application's own synchronising call returns (the device is idle for that
 * thread, as the OpenCL layer re-calibrates after clFinish), when the last
 * check of the device is older than CHECK_EVERY_NS, CHECK_TRIES 4-byte
 * memsets are issued on a stream of ours and polled to completion
 * (cuStreamQuery: no interrupt, no sleep) between two clock_gettime calls.
 * Their CUPTI times against those brackets give the offset's interval and
 * the error bound (cudaclock.c).  The memsets and our driver calls are not
 * written as the application's.  GPUPROBE_CUDA_CLOCK_CHECK=0 turns the checks
 * off (no bound is then measured, and the report says so).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appwriter.h"
#include "cudaclock.h"
#include "cupti_devices.h"

#define PREFIX			"gpuprobe (CUDA)"
#define MAX_DEVICES		256
#define MAX_CONTEXTS		64
#define MAX_CHECKS		64	/* in flight: issued, CUPTI records not yet seen */
#define CHECK_TRIES		5
#define CHECK_EVERY_NS		200000000ull	/* 200 ms, as the OpenCL layer */
#define POLL_LIMIT_NS		50000000ull	/* a 4-byte memset is not that slow: give up */
#define CHECK_SPAN_NS		1000000000ull	/* no check lasts longer (own-call search) */

static struct {
	CUresult (*device_get)(CUdevice *, int);
	CUresult (*pci_bus_id)(char *, int, CUdevice);
	CUresult (*device_name)(char *, int, CUdevice);
	CUresult (*ctx_current)(CUcontext *);
	CUresult (*stream_create)(CUstream *, unsigned int);
	CUresult (*stream_query)(CUstream);
	CUresult (*mem_alloc)(CUdeviceptr *, size_t);
	CUresult (*memset32)(CUdeviceptr, unsigned int, size_t, CUstream);
} cu;

struct check_ctx {
	CUcontext ctx;
	uint32_t device, stream_id;
	CUstream stream;
	CUdeviceptr word;
	bool failed;			/* setup failed: no checks on it */
};

struct check {
	bool used, done;
	uint32_t device, stream_id;
	unsigned int issued, completed, seen;
	struct cuda_clock_try tries[CHECK_TRIES];
};

struct own_span {
	uint32_t tid;
	uint64_t begin, end;		/* end 0: still running */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool checks_on, devices_written[MAX_DEVICES];
static uint64_t last_check_ns[MAX_DEVICES];
static struct check_ctx contexts[MAX_CONTEXTS];
static struct check checks[MAX_CHECKS];
static struct own_span *spans;
static size_t nspans, spans_cap;
static __thread bool in_check;

static struct {
	uint64_t checks, inconsistent, incomplete, skipped, failed, cost_ns;
	uint64_t syncs_taken;		/* sync records of the checks' polling, dropped */
	uint64_t bound_min, bound_max, first_host, last_host;
	int64_t first_offset, last_offset;
} summary = { .bound_min = UINT64_MAX };

static int resolve_libcuda(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);

	if (!h)
		h = dlopen("libcuda.so.1", RTLD_NOW);
	if (!h)
		return -1;
	*(void **)&cu.device_get = dlsym(h, "cuDeviceGet");
	*(void **)&cu.pci_bus_id = dlsym(h, "cuDeviceGetPCIBusId");
	*(void **)&cu.device_name = dlsym(h, "cuDeviceGetName");
	*(void **)&cu.ctx_current = dlsym(h, "cuCtxGetCurrent");
	*(void **)&cu.stream_create = dlsym(h, "cuStreamCreate");
	*(void **)&cu.stream_query = dlsym(h, "cuStreamQuery");
	*(void **)&cu.mem_alloc = dlsym(h, "cuMemAlloc_v2");
	*(void **)&cu.memset32 = dlsym(h, "cuMemsetD32Async");
	return cu.device_get && cu.pci_bus_id ? 0 : -1;
}

/* The DEVICE record of CUDA device ordinal id, once. */
static void put_device(uint32_t id)
{
	struct gpuprobe_app_event ev;
	char bus_id[32] = "", name[GPUPROBE_APP_NAME_LEN] = "";
	CUdevice dev;
	uint32_t bdf;

	if (id >= MAX_DEVICES || devices_written[id])
		return;
	devices_written[id] = true;
	appwriter_init_event(&ev, GPUPROBE_APP_CUDA, GPUPROBE_APP_DEVICE);
	ev.device = id;
	if (cu.device_get && cu.device_get(&dev, (int)id) == CUDA_SUCCESS) {
		if (cu.device_name)
			cu.device_name(name, sizeof(name) - 1, dev);
		if (cu.pci_bus_id(bus_id, sizeof(bus_id), dev) == CUDA_SUCCESS &&
		    cuda_pci_bus_id_parse(bus_id, &bdf)) {
			ev.flags = GPUPROBE_APPF_PCI_KNOWN;
			ev.kind = bdf;
		}
	}
	if (!(ev.flags & GPUPROBE_APPF_PCI_KNOWN))
		/* its ops are then charged only when the trace holds one GPU */
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "CUDA device %u: PCI function unknown (%s)",
			       id, cu.pci_bus_id ? "cuDeviceGetPCIBusId failed" : "no libcuda");
	appwriter_set_name(&ev, name);
	appwriter_put(&ev);
}

static struct check_ctx *context_of(CUcontext ctx, bool create)
{
	struct check_ctx *free_slot = NULL;

	for (unsigned int i = 0; i < MAX_CONTEXTS; i++) {
		if (contexts[i].ctx == ctx)
			return &contexts[i];
		if (!contexts[i].ctx && !free_slot)
			free_slot = &contexts[i];
	}
	if (!create || !free_slot)
		return NULL;
	*free_slot = (struct check_ctx){ .ctx = ctx };
	if (cuptiGetDeviceId(ctx, &free_slot->device) != CUPTI_SUCCESS ||
	    free_slot->device >= MAX_DEVICES)
		free_slot->failed = true;
	return free_slot;
}

/* Our stream and word in ctx (current on this thread), made at its first check. */
static int check_setup(struct check_ctx *c)
{
	if (c->stream)
		return 0;
	if (!cu.stream_create || !cu.stream_query || !cu.mem_alloc || !cu.memset32 ||
	    cu.stream_create(&c->stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
	    cuptiGetStreamIdEx(c->ctx, c->stream, 0, &c->stream_id) != CUPTI_SUCCESS ||
	    cu.mem_alloc(&c->word, sizeof(uint32_t)) != CUDA_SUCCESS) {
		c->failed = true;
		return -1;
	}
	return 0;
}

static void put_clock(const struct check *k, const struct cuda_clock_fit *fit)
{
	struct gpuprobe_app_event ev;
	int64_t middle = fit->offset_lo + (fit->offset_hi - fit->offset_lo) / 2;

	appwriter_init_event(&ev, GPUPROBE_APP_CUDA, GPUPROBE_APP_CLOCK);
	ev.device = k->device;
	ev.stream = GPUPROBE_APP_ALL_STREAMS;
	ev.kind = k->completed;
	ev.start_ns = ev.end_ns = fit->host_ns;
	ev.queued_ns = fit->host_ns + (uint64_t)middle;
	ev.bytes = fit->bound_ns;
	if (!fit->consistent)
		ev.flags = GPUPROBE_APPF_CLOCK_INCONSISTENT;
	appwriter_set_name(&ev, "CUPTI clock check");
	appwriter_put(&ev);

	summary.checks++;
	summary.inconsistent += !fit->consistent;
	if (fit->bound_ns < summary.bound_min)
		summary.bound_min = fit->bound_ns;
	if (fit->bound_ns > summary.bound_max)
		summary.bound_max = fit->bound_ns;
	if (!summary.first_host) {
		summary.first_host = fit->host_ns;
		summary.first_offset = middle;
	}
	summary.last_host = fit->host_ns;
	summary.last_offset = middle;
}

/* Under lock: a check done and all its memsets seen becomes a CLOCK record. */
static void check_finish(struct check *k)
{
	struct cuda_clock_fit fit;

	if (!k->done || k->seen < k->completed)
		return;
	if (cuda_clock_fit(k->tries, k->completed, &fit))
		put_clock(k, &fit);
	k->used = false;
}

/* Under lock: our driver calls of thread tid from begin on, kept sorted by begin. */
static struct own_span *span_open(uint32_t tid, uint64_t begin)
{
	size_t i;

	if (nspans == spans_cap) {
		size_t cap = spans_cap ? spans_cap * 2 : 256;
		struct own_span *n = realloc(spans, cap * sizeof(*n));

		if (!n)
			return NULL;
		spans = n;
		spans_cap = cap;
	}
	for (i = nspans; i > 0 && spans[i - 1].begin > begin; i--)
		;
	memmove(&spans[i + 1], &spans[i], (nspans - i) * sizeof(*spans));
	spans[i] = (struct own_span){ tid, begin, 0 };
	nspans++;
	return &spans[i];
}

/* Index of the first span beginning after t; the caller holds the lock. */
static size_t first_span_after(uint64_t t)
{
	size_t lo = 0, hi = nspans;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (spans[mid].begin <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool cupti_clock_own_call(uint32_t tid, uint64_t start)
{
	bool own = false;
	size_t lo;

	pthread_mutex_lock(&lock);
	lo = first_span_after(start);
	while (lo-- > 0 && !own && spans[lo].begin + CHECK_SPAN_NS >= start)
		own = spans[lo].tid == tid && (!spans[lo].end || start <= spans[lo].end);
	pthread_mutex_unlock(&lock);
	return own;
}

uint64_t cupti_clock_trim_call(uint32_t tid, uint64_t start, uint64_t end)
{
	size_t lo;

	pthread_mutex_lock(&lock);
	lo = first_span_after(end);
	while (lo-- > 0 && spans[lo].begin >= start)
		if (spans[lo].tid == tid)
			end = spans[lo].begin;
	pthread_mutex_unlock(&lock);
	return end;
}

bool cupti_clock_take_memset(uint32_t device, uint32_t stream, uint64_t start, uint64_t end)
{
	bool ours = false;

	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < MAX_CONTEXTS && !ours; i++)
		ours = contexts[i].stream && contexts[i].device == device &&
		       contexts[i].stream_id == stream;
	for (unsigned int i = 0; i < MAX_CHECKS && ours; i++) {
		struct check *k = &checks[i];

		if (!k->used || k->device != device || k->stream_id != stream ||
		    k->seen >= k->issued)
			continue;
		k->tries[k->seen].gpu_start = start;
		k->tries[k->seen].gpu_end = end;
		k->seen++;
		check_finish(k);
		break;
	}
	pthread_mutex_unlock(&lock);
	return ours;
}

bool cupti_clock_in_check(void)
{
	return in_check;
}

bool cupti_clock_take_sync(uint32_t stream)
{
	bool ours = false;

	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < MAX_CONTEXTS && !ours; i++)
		ours = contexts[i].stream && contexts[i].stream_id == stream;
	summary.syncs_taken += ours;
	pthread_mutex_unlock(&lock);
	return ours;
}

/* Under lock: a free check slot for c, or NULL (counted). */
static struct check *check_slot(const struct check_ctx *c)
{
	for (unsigned int i = 0; i < MAX_CHECKS; i++) {
		if (checks[i].used)
			continue;
		checks[i] = (struct check){ .used = true, .device = c->device,
					    .stream_id = c->stream_id };
		return &checks[i];
	}
	summary.skipped++;
	return NULL;
}

/* One try: a memset issued and polled to completion between two clock reads. */
static int check_try(struct check_ctx *c, struct check *k, unsigned int i)
{
	uint64_t before = appwriter_mono_ns(), after;
	CUresult r = cu.memset32(c->word, i, 1, c->stream);

	if (r != CUDA_SUCCESS)
		return -1;
	pthread_mutex_lock(&lock);
	k->tries[k->issued++].before = before;
	pthread_mutex_unlock(&lock);
	do {
		r = cu.stream_query(c->stream);
		after = appwriter_mono_ns();
	} while (r == CUDA_ERROR_NOT_READY && after - before < POLL_LIMIT_NS);
	if (r != CUDA_SUCCESS)
		return -1;
	pthread_mutex_lock(&lock);
	k->tries[i].after = after;
	k->completed = i + 1;
	pthread_mutex_unlock(&lock);
	return 0;
}

static void check_clock(struct check_ctx *c, uint64_t now)
{
	struct own_span *span;
	struct check *k = NULL;
	size_t span_index = 0;
	uint64_t end;
	bool failed = false;

	pthread_mutex_lock(&lock);
	span = span_open(appwriter_tid(), now);
	if (span)
		span_index = (size_t)(span - spans);
	pthread_mutex_unlock(&lock);
	if (!span)
		return;
	in_check = true;
	if (!check_setup(c)) {
		pthread_mutex_lock(&lock);
		k = check_slot(c);
		pthread_mutex_unlock(&lock);
	} else {
		failed = true;
	}
	for (unsigned int i = 0; k && i < CHECK_TRIES && !failed; i++)
		failed = check_try(c, k, i) != 0;
	in_check = false;
	end = appwriter_mono_ns();
	pthread_mutex_lock(&lock);
	/* spans only move up when an earlier one is inserted: find ours again */
	while (span_index < nspans && !(spans[span_index].begin == now && !spans[span_index].end))
		span_index++;
	if (span_index < nspans)
		spans[span_index].end = end;
	summary.cost_ns += end - now;
	summary.failed += failed;
	last_check_ns[c->device] = end;
	if (k) {
		k->done = true;
		check_finish(k);
	}
	pthread_mutex_unlock(&lock);
}

static bool synchronising(CUpti_CallbackId cbid)
{
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
	case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
	case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
		return true;
	default:
		return false;
	}
}

/* After the application's synchronising call: check the clock if due. */
static void after_sync(const CUpti_CallbackData *cb)
{
	struct check_ctx *c;
	CUcontext current = NULL;
	uint64_t now = appwriter_mono_ns();
	bool due;

	if (cb->callbackSite != CUPTI_API_EXIT || !cb->context || in_check ||
	    !cu.ctx_current || cu.ctx_current(&current) != CUDA_SUCCESS || current != cb->context)
		return;
	pthread_mutex_lock(&lock);
	c = context_of(cb->context, true);
	due = c && !c->failed && now - last_check_ns[c->device] >= CHECK_EVERY_NS;
	if (due)
		last_check_ns[c->device] = now;	/* one thread checks at a time */
	pthread_mutex_unlock(&lock);
	if (due)
		check_clock(c, now);
}

static void on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
	struct check_ctx *c;
	uint32_t id;

	if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
		if (cuptiGetDeviceId(rd->context, &id) == CUPTI_SUCCESS) {
			pthread_mutex_lock(&lock);
			put_device(id);
			pthread_mutex_unlock(&lock);
		}
		return;
	}
	pthread_mutex_lock(&lock);
	c = context_of(rd->context, false);
	if (c)	/* its stream and word go with it */
		*c = (struct check_ctx){ 0 };
	pthread_mutex_unlock(&lock);
}

void CUPTIAPI cupti_devices_callback(void *userdata, CUpti_CallbackDomain domain,
				     CUpti_CallbackId cbid, const void *data)
{
	(void)userdata;
	if (domain == CUPTI_CB_DOMAIN_RESOURCE)
		on_resource(cbid, data);
	else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && checks_on && synchronising(cbid))
		after_sync(data);
}

static bool no_checks;

void cupti_devices_no_checks(void)
{
	no_checks = true;
}

static bool checks_off_by_user(void)
{
	const char *env = getenv("GPUPROBE_CUDA_CLOCK_CHECK");

	return no_checks || (env && !strcmp(env, "0"));
}

int cupti_devices_start(CUpti_SubscriberHandle subscriber)
{
	static const CUpti_CallbackId syncs[] = {
		CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,
		CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
		CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz,
		CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
		CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2,
		CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds,
	};
	if (resolve_libcuda())
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
			       "cuDeviceGetPCIBusId not found in libcuda.so.1: CUDA devices "
			       "not mapped to PCI functions, CUPTI's clock not checked");
	if (cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
				CUPTI_CBID_RESOURCE_CONTEXT_CREATED) != CUPTI_SUCCESS ||
	    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
				CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) != CUPTI_SUCCESS) {
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
			       "cannot follow CUDA contexts: devices not mapped to PCI functions");
		return -1;
	}
	if (checks_off_by_user() || !cu.memset32)
		return 0;
	for (unsigned int i = 0; i < sizeof(syncs) / sizeof(syncs[0]); i++)
		if (cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, syncs[i]) !=
		    CUPTI_SUCCESS)
			return 0;
	checks_on = true;
	return 0;
}

/* Short notes: the trace keeps 63 characters of each (the full text goes to stderr). */
static void note_checks(void)
{
	appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "CUPTI clock: %llu checks, bound %llu..%llu ns",
		       (unsigned long long)summary.checks, (unsigned long long)summary.bound_min,
		       (unsigned long long)summary.bound_max);
	appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "CUPTI offset %lld -> %lld ns over %.3f s",
		       (long long)summary.first_offset, (long long)summary.last_offset,
		       (double)(summary.last_host - summary.first_host) / 1e9);
	appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "CUPTI checks took %llu us in all",
		       (unsigned long long)(summary.cost_ns / 1000));
	if (summary.syncs_taken)
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "CUPTI checks' own sync records: %llu dropped",
			       (unsigned long long)summary.syncs_taken);
	if (summary.inconsistent || summary.failed || summary.incomplete || summary.skipped)
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
			       "CUPTI checks: %llu inconsistent %llu failed %llu lost %llu skipped",
			       (unsigned long long)summary.inconsistent,
			       (unsigned long long)summary.failed,
			       (unsigned long long)summary.incomplete,
			       (unsigned long long)summary.skipped);
}

void cupti_devices_finish(void)
{
	pthread_mutex_lock(&lock);
	for (unsigned int i = 0; i < MAX_CHECKS; i++)
		summary.incomplete += checks[i].used && checks[i].done;
	if (!checks_on)
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX, "CUPTI clock not checked%s",
			       no_checks ? " (ops from callbacks: no device times)" :
			       checks_off_by_user() ? " (GPUPROBE_CUDA_CLOCK_CHECK=0)" :
			       " (libcuda entry points missing)");
	else if (!summary.checks)
		appwriter_note(GPUPROBE_APP_CUDA, PREFIX,
			       "CUPTI clock not checked: no sync returned, %llu failed",
			       (unsigned long long)summary.failed);
	else
		note_checks();
	pthread_mutex_unlock(&lock);
}
