/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernels, copies and memsets recorded from the launching calls' callbacks
 * instead of CUPTI's activity kinds (GPUPROBE_CUDA_OPS=callbacks, an
 * experiment of issue 24).  CUPTI's kernel, memcpy and memset kinds cost a
 * launch-bound loop most of the tracing cost (each GPU op instrumented,
 * Documentation/results/h100-2026-12-07b); callbacks on the launching calls
 * alone cost what a callback costs.  What is lost: the records' times are the
 * launching call's entry and return on the host, not the op's execution on
 * the device (flag GPUPROBE_APPF_DEVICE_CLOCK absent), and a copy's
 * direction is known only where the call says it.  Names, counts, streams,
 * bytes and correlation ids are the same.
 */
#ifndef GPUPROBE_CUPTIOPS_H
#define GPUPROBE_CUPTIOPS_H

#include <stdbool.h>

#include <cupti.h>

#define GPUPROBE_CUDA_OPS_ENV	"GPUPROBE_CUDA_OPS"

/* Whether GPUPROBE_CUDA_OPS asks for callbacks ("activity", NULL or "": no). */
bool cupti_ops_from_callbacks(const char *value);

/* Enable the launching calls' callbacks; the number enabled, -1 when CUPTI refuses (none left on). */
int cupti_ops_start(CUpti_SubscriberHandle subscriber);

/* The subscriber's callback for those calls: entry stamps, exit writes the op. */
void cupti_ops_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			const CUpti_CallbackData *cb);

#endif /* GPUPROBE_CUPTIOPS_H */
