/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The selected CUDA API calls (cuptiselect.h) as API application events,
 * timed by the library from CUPTI's callbacks instead of CUPTI's API
 * activity records: GPUPROBE_CUDA_API_SOURCE=callbacks (an experiment; the
 * default stays activity).
 *
 * Why: on the H200's launch-bound torch loop, recording every API call
 * (1 427 319 records) cost the same as recording the selection (122 208),
 * about 13 % of the step against no API records at all
 * (Documentation/results/h200-2026-12-02): the cost is CUPTI hooking every
 * call once any API activity is enabled, not the records.  Callbacks are
 * enabled per call id, so only the selected calls pay.
 *
 * The record is the activity path's (cupti_records.c put_api): kind = the
 * callback id, the calling thread (gettid), the call's correlation id (the
 * one its kernel, copy or memset record carries: CUPTI gives the same id to
 * the callback and to the activity records of one invocation), entry and
 * exit on CLOCK_MONOTONIC, BLOCKING for the calls that wait
 * (cupti_api_blocks), CUPTI's name for the id.  The exit stamp is taken
 * before the clock check that may run in the same callback, so no call
 * needs trimming; the checks' own calls are not recorded.
 */
#ifndef GPUPROBE_CUPTIAPI_H
#define GPUPROBE_CUPTIAPI_H

#include <stdbool.h>

#include <cupti.h>

#define GPUPROBE_CUDA_API_SOURCE_ENV	"GPUPROBE_CUDA_API_SOURCE"

/*
 * Enables the callbacks of the selected driver calls and, with runtime, the
 * selected runtime calls: the number enabled, or -1 when CUPTI refused one
 * (then none is: the caller uses the activity records).
 */
int cupti_api_callbacks_start(CUpti_SubscriberHandle subscriber, bool runtime);

/* The subscriber's driver and runtime API callback (entry and exit). */
void cupti_api_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			const CUpti_CallbackData *cb);

#endif /* GPUPROBE_CUPTIAPI_H */
