/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Buffered, thread-safe writer of application events to $GPUPROBE_APP_EVENTS,
 * shared by the CUDA and OpenCL libraries.  Without the variable every call
 * is a no-op, so the libraries can be loaded outside `gpuprobe-trace record`.
 */
#ifndef GPUPROBE_APPWRITER_H
#define GPUPROBE_APPWRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "appevents.h"

/* Opens the file named by the environment; false when tracing is off. */
bool appwriter_open(void);
/* Fills magic, version, size, pid; the caller fills the rest. */
void appwriter_init_event(struct gpuprobe_app_event *ev, uint8_t api, uint16_t type);
void appwriter_set_name(struct gpuprobe_app_event *ev, const char *name);
void appwriter_put(const struct gpuprobe_app_event *ev);
/* Writes what is buffered.  Safe in a signal handler (gives up if locked). */
void appwriter_flush(void);
/* A one-line status note for the report, and on stderr with prefix. */
void appwriter_note(uint8_t api, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

uint64_t appwriter_mono_ns(void);
uint32_t appwriter_tid(void);

#endif /* GPUPROBE_APPWRITER_H */
