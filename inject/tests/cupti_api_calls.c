// SPDX-License-Identifier: GPL-2.0
/*
 * The API calls timed from CUPTI's callbacks (inject/cuptiapi.c,
 * GPUPROBE_CUDA_API_SOURCE=callbacks), without CUDA: CUPTI's names for a
 * few callback ids are faked (a driver and a runtime table, the names as
 * CUPTI 13 spells them), so are cuptiEnableCallback and the clock check's
 * "inside a check" flag.  Only the calls attribution reads (cuptiselect.c)
 * may be enabled, all of them must be; an invocation gives the record the
 * activity path gives (cupti_records.c put_api): the id, the caller's
 * thread, the invocation's correlation id (its op's), entry and exit inside
 * this program's CLOCK_MONOTONIC brackets, BLOCKING for a call that waits,
 * the name.  Run by user/tests/inject.sh.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include "appwriter.h"
#include "cupti_devices.h"
#include "cuptiapi.h"
#include "fake_cupti.h"

/* ---- fake CUPTI: ids 1..N of each domain ---- */

static const char *const driver_names[] = {
	NULL, "cuLaunchKernel", "cuCtxGetCurrent", "cuMemcpyDtoH_v2", "cuStreamQuery",
	"cuMemcpyHtoDAsync_v2",
};
static const char *const runtime_names[] = {
	NULL, "cudaLaunchKernel_v7000", "cudaGetDevice_v3020", "cudaStreamSynchronize_v3020",
	"cudaEventQuery_v3020",
};

static bool no_driver_names;	/* a CUPTI that names no driver call */

CUptiResult CUPTIAPI cuptiGetCallbackName(CUpti_CallbackDomain domain, uint32_t cbid,
					  const char **name)
{
	const char *const *t = domain == CUPTI_CB_DOMAIN_DRIVER_API ? driver_names : runtime_names;
	size_t n = domain == CUPTI_CB_DOMAIN_DRIVER_API ? N(driver_names) : N(runtime_names);

	if (cbid >= n || !t[cbid] || (no_driver_names && domain == CUPTI_CB_DOMAIN_DRIVER_API))
		return CUPTI_ERROR_INVALID_PARAMETER;
	*name = t[cbid];
	return CUPTI_SUCCESS;
}

static bool checking;

bool cupti_clock_in_check(void)
{
	return checking;
}

/* ---- invocations ---- */

struct call {
	CUpti_CallbackDomain domain;
	CUpti_CallbackId cbid;
	uint32_t correlation;
	uint64_t t0, t1, t2, t3;
};

#define CALL(d, id, corr)	{ .domain = d, .cbid = id, .correlation = corr }

static void invoke(struct call *c)
{
	uint64_t data = 0;
	CUpti_CallbackData cb = {
		.callbackSite = CUPTI_API_ENTER,
		.correlationData = &data,
		.correlationId = c->correlation,
	};
	struct timespec wait = { 0, 1000000 };

	c->t0 = fake_mono_ns();
	cupti_api_callback(c->domain, c->cbid, &cb);
	c->t1 = fake_mono_ns();
	nanosleep(&wait, NULL);
	cb.callbackSite = CUPTI_API_EXIT;
	c->t2 = fake_mono_ns();
	cupti_api_callback(c->domain, c->cbid, &cb);
	c->t3 = fake_mono_ns();
}

static void test_enable(void)
{
	struct call launch = CALL(CUPTI_CB_DOMAIN_DRIVER_API, 1, 301);
	struct call runtime_launch = CALL(CUPTI_CB_DOMAIN_RUNTIME_API, 1, 302);

	CHECK(cupti_api_callbacks_start(NULL, false) == 3, "driver only: 3 calls");
	CHECK(fake_enabled[0][1] && fake_enabled[0][3] && fake_enabled[0][5] &&
	      fake_enabled_count(false) == 3,
	      "driver: launch, blocking copy, async copy; not cuCtxGetCurrent, cuStreamQuery");
	CHECK(fake_enabled_count(true) == 0, "GPUPROBE_CUDA_RUNTIME=0: no runtime callback");
	fake_enable_reset();
	/* a refusal halfway: nothing left enabled, nothing recorded */
	fake_fail_enable_at = 5;	/* the second runtime call's: one of each domain to undo */
	CHECK(cupti_api_callbacks_start(NULL, true) == -1, "refusal not reported");
	CHECK(fake_enabled_count(false) + fake_enabled_count(true) == 0,
	      "callbacks left after a refusal");
	/* and none recorded, should CUPTI still call back (test_records counts the file) */
	invoke(&launch);
	invoke(&runtime_launch);
	fake_fail_enable_at = 0;
	/* no driver call selected is no refusal: the runtime's are still taken */
	no_driver_names = true;
	CHECK(cupti_api_callbacks_start(NULL, true) == 2, "runtime only: 2 calls");
	CHECK(fake_enabled_count(false) == 0 && fake_enabled_count(true) == 2, "runtime only: enabled");
	no_driver_names = false;
	fake_enable_reset();
	CHECK(cupti_api_callbacks_start(NULL, true) == 5, "driver and runtime: 5 calls");
	CHECK(fake_enabled[1][1] && fake_enabled[1][3] && fake_enabled_count(true) == 2,
	      "runtime: cudaLaunchKernel, cudaStreamSynchronize; not cudaGetDevice, cudaEventQuery");
}

static void test_records(const char *path)
{
	struct call rec[] = {
		CALL(CUPTI_CB_DOMAIN_RUNTIME_API, 1, 101),	/* cudaLaunchKernel */
		CALL(CUPTI_CB_DOMAIN_DRIVER_API, 1, 102),		/* cuLaunchKernel, nested */
		CALL(CUPTI_CB_DOMAIN_DRIVER_API, 3, 103),		/* cuMemcpyDtoH_v2 */
		CALL(CUPTI_CB_DOMAIN_RUNTIME_API, 3, 104),	/* cudaStreamSynchronize */
	};
	static const struct { uint32_t flags; const char *name; } want[] = {
		{ 0, "cudaLaunchKernel_v7000" }, { 0, "cuLaunchKernel" },
		{ GPUPROBE_APPF_BLOCKING, "cuMemcpyDtoH_v2" },
		{ GPUPROBE_APPF_BLOCKING, "cudaStreamSynchronize_v3020" },
	};
	struct call none[] = {
		CALL(CUPTI_CB_DOMAIN_DRIVER_API, 2, 201),		/* cuCtxGetCurrent */
		CALL(CUPTI_CB_DOMAIN_RUNTIME_API, 4, 202),	/* cudaEventQuery */
		CALL(CUPTI_CB_DOMAIN_RESOURCE, 1, 203),
	};
	struct call in_check = CALL(CUPTI_CB_DOMAIN_DRIVER_API, 5, 204);	/* a check's memset */
	uint64_t no_entry = 0;
	CUpti_CallbackData exit_only = {
		.callbackSite = CUPTI_API_EXIT, .correlationData = &no_entry, .correlationId = 205,
	};
	struct gpuprobe_app_event ev[16];
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	size_t n;

	for (size_t i = 0; i < N(rec); i++) {
		invoke(&rec[i]);
		if (i == 0)
			for (size_t u = 0; u < N(none); u++)
				invoke(&none[u]);
	}
	checking = true;
	invoke(&in_check);
	checking = false;
	cupti_api_callback(CUPTI_CB_DOMAIN_DRIVER_API, 1, &exit_only);	/* no entry seen: no span */
	appwriter_flush();
	n = fake_events_read(path, ev, N(ev));
	CHECK(n == N(rec), "%zu records, want %zu", n, N(rec));
	for (size_t i = 0; i < N(rec) && i < n; i++) {
		const struct gpuprobe_app_event *e = &ev[i];
		const struct call *c = &rec[i];

		CHECK(e->api == 1 && e->type == 5, "%s: api %u type %u, want CUDA API (1, 5)",
		      want[i].name, e->api, e->type);
		CHECK(e->kind == c->cbid, "%s: kind %u, want the id %u", want[i].name, e->kind, c->cbid);
		CHECK(e->correlation == c->correlation, "%s: correlation %llu, want %u", want[i].name,
		      (unsigned long long)e->correlation, c->correlation);
		CHECK(e->flags == want[i].flags, "%s: flags %#x, want %#x", want[i].name, e->flags,
		      want[i].flags);
		CHECK(!strcmp(e->name, want[i].name), "name '%s', want '%s'", e->name, want[i].name);
		CHECK(e->tid == tid && e->pid == (uint32_t)getpid(), "%s: tid %u pid %u", want[i].name,
		      e->tid, e->pid);
		CHECK(e->start_ns >= c->t0 && e->start_ns <= c->t1, "%s: start outside the entry",
		      want[i].name);
		CHECK(e->end_ns >= c->t2 && e->end_ns <= c->t3, "%s: end outside the exit",
		      want[i].name);
	}
}

int main(void)
{
	char path[] = "/tmp/gpuprobe-cupti-api.XXXXXX";

	if (fake_events_open(path))
		return 2;
	test_enable();
	test_records(path);
	return fake_finish("cupti_api_calls", path);
}
