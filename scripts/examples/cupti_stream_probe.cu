// SPDX-License-Identifier: GPL-2.0
/*
 * Asks CUPTI itself how cuptiGetStreamIdEx names the stream of a
 * cuStreamSynchronize from inside the driver-API callback, as
 * inject/cuptisync.c does: with a NULL context and with the callback's
 * context, for the legacy default stream, the per-thread default stream and
 * an explicit stream (scripts/h200-calls.sh).  Prints CUPTI's version and
 * one line per case:  probe STREAM ctx=NULL|cb -> RESULT id ID
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <stdio.h>
#include <string.h>

static const char *label = "";

static void CUPTIAPI on_cb(void *u, CUpti_CallbackDomain d, CUpti_CallbackId cbid, const void *data)
{
	const CUpti_CallbackData *cb = (const CUpti_CallbackData *)data;
	CUstream st;
	uint8_t pt = 0;

	(void)u;
	if (d != CUPTI_CB_DOMAIN_DRIVER_API || cb->callbackSite != CUPTI_API_EXIT)
		return;
	if (cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize) {
		st = ((const cuStreamSynchronize_params *)cb->functionParams)->hStream;
	} else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz) {
		st = ((const cuStreamSynchronize_ptsz_params *)cb->functionParams)->hStream;
		pt = 1;
	} else {
		return;
	}
	if (st == CU_STREAM_LEGACY) {
		st = NULL;
		pt = 0;
	} else if (st == CU_STREAM_PER_THREAD) {
		st = NULL;
		pt = 1;
	}
	for (int c = 0; c < 2; c++) {
		uint32_t id = 0xdead;
		CUptiResult r = cuptiGetStreamIdEx(c ? cb->context : NULL, st, pt, &id);
		const char *s = NULL;

		cuptiGetResultString(r, &s);
		printf("probe %s (%s, handle %p, per-thread %u) ctx=%s -> %s id %u\n", label,
		       cb->functionName, (void *)st, pt, c ? "cb" : "NULL", s ? s : "?", id);
	}
}

int main(void)
{
	CUpti_SubscriberHandle sub;
	cudaStream_t s;
	uint32_t v = 0;

	cuptiGetVersion(&v);
	printf("cupti api version %u\n", v);
	if (cuptiSubscribe(&sub, on_cb, NULL) != CUPTI_SUCCESS)
		return 1;
	cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize);
	cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API,
			    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz);
	cudaSetDevice(0);
	cudaStreamCreate(&s);
	label = "legacy default (0)";
	cudaStreamSynchronize(0);
	label = "cudaStreamLegacy";
	cudaStreamSynchronize(cudaStreamLegacy);
	label = "cudaStreamPerThread";
	cudaStreamSynchronize(cudaStreamPerThread);
	label = "explicit";
	cudaStreamSynchronize(s);
	cuptiUnsubscribe(sub);
	return 0;
}
