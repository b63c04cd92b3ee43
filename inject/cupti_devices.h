/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CUDA library's devices and clock checks: a DEVICE record (CUDA ordinal
 * -> PCI function) for each device a context is created on, and CLOCK
 * records that bound CUPTI's device-time mapping (cudaclock.h), measured
 * after the application's own synchronising calls.
 */
#ifndef GPUPROBE_CUPTI_DEVICES_H
#define GPUPROBE_CUPTI_DEVICES_H

#include <stdbool.h>
#include <stdint.h>

#include <cupti.h>

/* Enables the callbacks it needs on subscriber; 0 or -1 (a note says why). */
int cupti_devices_start(CUpti_SubscriberHandle subscriber);
/* Before cupti_devices_start: no clock checks (the ops carry no device times to check). */
void cupti_devices_no_checks(void);
void CUPTIAPI cupti_devices_callback(void *userdata, CUpti_CallbackDomain domain,
				     CUpti_CallbackId cbid, const void *data);
/* A memset record of a clock check: consumed (true), not an application op. */
bool cupti_clock_take_memset(uint32_t device, uint32_t stream, uint64_t start, uint64_t end);
/*
 * A synchronization record on a clock check's own stream (CUPTI records its
 * polling there): dropped and counted, not an application wait.
 */
bool cupti_clock_take_sync(uint32_t stream);
/* A driver call made by a clock check (thread tid, entered at start). */
bool cupti_clock_own_call(uint32_t tid, uint64_t start);
/*
 * A check runs in the exit callback of the application's call, inside it:
 * the call's end as the application saw it done, before the check began.
 */
uint64_t cupti_clock_trim_call(uint32_t tid, uint64_t start, uint64_t end);
/* Whether this thread is inside a clock check (its calls are not the application's). */
bool cupti_clock_in_check(void);
/* At exit, after the last records: what the checks found, as a note. */
void cupti_devices_finish(void);

#endif /* GPUPROBE_CUPTI_DEVICES_H */
