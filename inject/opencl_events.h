/* SPDX-License-Identifier: GPL-2.0 */
/*
 * OpenCL command bookkeeping for the layer: queues (with their device-clock
 * offset to CLOCK_MONOTONIC) and commands whose profiling times are read
 * once they complete.
 */
#ifndef GPUPROBE_OPENCL_EVENTS_H
#define GPUPROBE_OPENCL_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include <CL/cl_icd.h>

/* What the layer knows about one enqueued command. */
struct ocl_command {
	cl_event event;
	cl_command_queue queue;
	uint16_t type;			/* GPUPROBE_APP_KERNEL, _MEMCPY */
	uint32_t kind;			/* copy direction */
	uint32_t flags;
	uint64_t correlation;
	uint64_t api_entry_ns;
	uint64_t bytes;
	char name[64];
};

void ocl_events_init(const struct _cl_icd_dispatch *target);
/* A new queue (profiling forced on): calibrate its device clock. */
void ocl_queue_added(cl_command_queue q);
/* Track cmd until its event completes; the event is retained by the caller. */
void ocl_command_track(const struct ocl_command *cmd);
/* Emit every completed command (of queue q, or all when q is NULL). */
void ocl_commands_resolve(cl_command_queue q);
/* Host API call record (enqueue calls, waits). */
void ocl_api_event(uint16_t type, uint32_t kind, uint32_t flags, const char *name,
		   uint64_t correlation, uint64_t entry_ns, uint64_t return_ns);
/* clFinish(q): a wait for one queue (SYNC, kind STREAM, stream = its index). */
void ocl_queue_wait_event(cl_command_queue q, uint64_t correlation, uint64_t entry_ns,
			  uint64_t return_ns);
uint64_t ocl_next_correlation(void);
/* The layer's index of queue q (the events' stream), UINT32_MAX if unknown. */
uint32_t ocl_queue_index(cl_command_queue q);
/* At exit: resolve what completed, note what did not. */
void ocl_events_finish(void);

#endif /* GPUPROBE_OPENCL_EVENTS_H */
