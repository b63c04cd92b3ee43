// SPDX-License-Identifier: GPL-2.0
/*
 * Kernels, copies and memsets from the launching calls' callbacks
 * (inject/cuptiops.c, GPUPROBE_CUDA_OPS=callbacks), without CUDA: CUPTI's
 * stream and device ids are faked (stream handle 0x10 is stream 7 of device
 * 2; any other handle is unknown), so is cuptiEnableCallback
 * (fake_cupti.c).  Each launch, copy and memset call gives one record of
 * its type with the kernel's symbol name, the stream and device ids, the
 * bytes and direction the call's parameters give, the call's correlation id
 * and the call's entry and exit as times; a driver call made inside a
 * runtime call gives none of its own; other calls give nothing.  The
 * expected values are written out here.  Run by user/tests/inject.sh.
 */
#include <string.h>
#include <time.h>

#include "appwriter.h"
#include "cuptiops.h"
#include "fake_cupti.h"

#define STREAM		((CUstream)0x10)
#define STREAM_ID	7
#define DEVICE_ID	2

CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext context, CUstream stream, uint8_t per_thread,
					uint32_t *id)
{
	(void)context;
	(void)per_thread;
	if (stream != STREAM)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*id = STREAM_ID;
	return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext context, uint32_t *id)
{
	(void)context;
	*id = DEVICE_ID;
	return CUPTI_SUCCESS;
}

#define CALL(d, id, p, sym, corr) \
	{ .domain = d, .cbid = id, .params = p, .symbol = sym, .correlation = corr }

struct call {
	CUpti_CallbackDomain domain;
	CUpti_CallbackId cbid;
	const void *params;
	const char *symbol;
	uint32_t correlation;
	uint64_t t0, t1, t2, t3;
};

static void site(struct call *c, CUpti_ApiCallbackSite where, uint64_t *data)
{
	CUpti_CallbackData cb = {
		.callbackSite = where,
		.correlationData = data,
		.correlationId = c->correlation,
		.functionParams = c->params,
		.symbolName = c->symbol,
		.context = (CUcontext)0x1,
	};

	cupti_ops_callback(c->domain, c->cbid, &cb);
}

/* One invocation; inner (if any) is made between this one's entry and exit. */
static void invoke(struct call *c, struct call *inner)
{
	struct timespec wait = { 0, 1000000 };
	uint64_t data = 0;

	c->t0 = fake_mono_ns();
	site(c, CUPTI_API_ENTER, &data);
	c->t1 = fake_mono_ns();
	if (inner)
		invoke(inner, NULL);
	nanosleep(&wait, NULL);
	c->t2 = fake_mono_ns();
	site(c, CUPTI_API_EXIT, &data);
	c->t3 = fake_mono_ns();
}

static void test_enable(void)
{
	int n;

	fake_enable_reset();
	n = cupti_ops_start(NULL);
	CHECK(n == 28, "%d calls enabled, want 28", n);
	CHECK(fake_enabled[1][CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000] &&
	      fake_enabled[0][CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel] &&
	      fake_enabled[1][CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020] &&
	      fake_enabled[0][CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async],
	      "a launch, copy and memset of each domain enabled");
	CHECK(!fake_enabled[1][CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020] &&
	      !fake_enabled[0][CUPTI_DRIVER_TRACE_CBID_cuStreamQuery], "nothing else");
	CHECK(fake_enabled_count(false) + fake_enabled_count(true) == 28, "28 enabled in all");
	fake_enable_reset();
	fake_fail_enable_at = 20;
	CHECK(cupti_ops_start(NULL) == -1, "a refusal not reported");
	CHECK(fake_enabled_count(false) + fake_enabled_count(true) == 0, "callbacks left after a refusal");
	fake_enable_reset();
	CHECK(cupti_ops_from_callbacks("callbacks") && !cupti_ops_from_callbacks("activity") &&
	      !cupti_ops_from_callbacks("") && !cupti_ops_from_callbacks(NULL),
	      "GPUPROBE_CUDA_OPS: only 'callbacks' asks for them");
}

static void test_records(const char *path)
{
	static const char long_name[] = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_"
		"11FillFunctorIfEESt5arrayIPcLm1EEEEvT_T0_T1_";
	cudaLaunchKernel_v7000_params rt_launch = { .stream = (cudaStream_t)STREAM };
	cuLaunchKernel_params drv_launch = { .hStream = STREAM };
	cudaMemcpyAsync_v3020_params rt_copy = {
		.count = 4096, .kind = cudaMemcpyHostToDevice, .stream = (cudaStream_t)STREAM,
	};
	cuMemcpyHtoDAsync_v2_params drv_copy = { .ByteCount = 4096, .hStream = STREAM };
	cuMemsetD32Async_params drv_set = { .N = 100, .hStream = STREAM };
	cuMemcpyDtoHAsync_v2_params lost = { .ByteCount = 8, .hStream = (CUstream)0x20 };
	struct call launch = CALL(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
				&rt_launch, long_name, 11);
	struct call launch_inner = CALL(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
				&drv_launch, long_name, 12);
	struct call copy = CALL(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
				&rt_copy, NULL, 13);
	struct call copy_inner = CALL(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
				&drv_copy, NULL, 14);
	struct call triton = CALL(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
				&drv_launch, "triton_poi_fused_add_0", 15);
	struct call set = CALL(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async,
				&drv_set, NULL, 16);
	struct call other = CALL(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamQuery,
				&drv_set, NULL, 17);
	struct call unknown_stream = CALL(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
				&lost, NULL, 18);
	const struct {
		struct call *c;
		uint16_t type;
		uint32_t kind;
		uint64_t bytes;
		const char *name;
	} want[] = {
		{ &launch, GPUPROBE_APP_KERNEL, 0, 0, "_ZN2at6native29vectorized_elementwise_kerne" },
		{ &copy, GPUPROBE_APP_MEMCPY, GPUPROBE_COPY_HTOD, 4096, "memcpy" },
		{ &triton, GPUPROBE_APP_KERNEL, 0, 0, "triton_poi_fused_add_0" },
		{ &set, GPUPROBE_APP_MEMSET, 0, 400, "memset" },
	};
	struct gpuprobe_app_event ev[16];
	size_t n, k = 0;

	invoke(&launch, &launch_inner);
	invoke(&copy, &copy_inner);
	invoke(&triton, NULL);
	invoke(&set, NULL);
	invoke(&other, NULL);
	invoke(&unknown_stream, NULL);	/* no stream id: not recorded, never on another stream */
	appwriter_flush();
	n = fake_events_read(path, ev, N(ev));
	for (size_t i = 0; i < n; i++) {
		const struct gpuprobe_app_event *e = &ev[i];

		if (e->type == GPUPROBE_APP_NAME)
			continue;	/* the long name's pieces */
		if (k >= N(want)) {
			CHECK(0, "record %zu (type %u '%s') not wanted", i, e->type, e->name);
			continue;
		}
		CHECK(e->api == GPUPROBE_APP_CUDA && e->type == want[k].type, "%s: type %u, want %u",
		      want[k].name, e->type, want[k].type);
		CHECK(!strncmp(e->name, want[k].name, strlen(want[k].name)), "name '%s', want '%s'",
		      e->name, want[k].name);
		CHECK(e->kind == want[k].kind && e->bytes == want[k].bytes,
		      "%s: kind %u bytes %llu, want %u %llu", want[k].name, e->kind,
		      (unsigned long long)e->bytes, want[k].kind, (unsigned long long)want[k].bytes);
		CHECK(e->stream == STREAM_ID && e->device == DEVICE_ID, "%s: stream %u device %u",
		      want[k].name, e->stream, e->device);
		CHECK(e->correlation == want[k].c->correlation, "%s: correlation %llu, want %u",
		      want[k].name, (unsigned long long)e->correlation, want[k].c->correlation);
		CHECK(e->tid == 0 && !(e->flags & GPUPROBE_APPF_DEVICE_CLOCK),
		      "%s: an op (tid 0), host times", want[k].name);
		CHECK(e->start_ns >= want[k].c->t0 && e->start_ns <= want[k].c->t1 &&
		      e->end_ns >= want[k].c->t2 && e->end_ns <= want[k].c->t3,
		      "%s: times outside the call's entry and exit", want[k].name);
		k++;
	}
	CHECK(k == N(want), "%zu ops recorded, want %zu", k, N(want));
}

int main(void)
{
	char path[] = "/tmp/gpuprobe-cupti-ops.XXXXXX";

	if (fake_events_open(path))
		return 2;
	test_enable();
	test_records(path);
	return fake_finish("cupti_ops_calls", path);
}
