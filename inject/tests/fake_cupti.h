/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the CUDA-less tests of inject/ share (cupti_sync_calls.c,
 * cupti_api_calls.c): the failure count and CHECK, a CLOCK_MONOTONIC
 * reading for the brackets around each faked invocation, the events file
 * the library writes ($GPUPROBE_APP_EVENTS, a temporary file) and a fake
 * cuptiEnableCallback that records which callbacks are enabled, per domain,
 * and can refuse the n-th enable.
 */
#ifndef GPUPROBE_FAKE_CUPTI_H
#define GPUPROBE_FAKE_CUPTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cupti.h>

#include "appevents.h"

#define N(a)		(sizeof(a) / sizeof((a)[0]))
#define FAKE_CBIDS	1024	/* callback ids the fake cuptiEnableCallback takes, per domain */

extern unsigned int failures;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		failures++;						\
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);	\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
	}								\
} while (0)

/* [0] driver API, [1] runtime API: whether cuptiEnableCallback left the id enabled */
extern bool fake_enabled[2][FAKE_CBIDS];
/* enables seen since the last reset; the one numbered fail_enable_at is refused (0: none) */
extern unsigned int fake_enable_calls, fake_fail_enable_at;
/* Domains other than these two are refused, as CUPTI refuses unknown ones. */
void fake_enable_reset(void);
unsigned int fake_enabled_count(bool runtime);

uint64_t fake_mono_ns(void);

/* A temporary events file set as $GPUPROBE_APP_EVENTS and opened by appwriter: 0, or -1. */
int fake_events_open(char *path_template);
/* The records in it (after appwriter_flush), at most max. */
size_t fake_events_read(const char *path, struct gpuprobe_app_event *ev, size_t max);
/* Removes the file, prints "name: N failed", the exit status. */
int fake_finish(const char *name, const char *path);

#endif /* GPUPROBE_FAKE_CUPTI_H */
