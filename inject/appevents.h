/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Application events: what the CUDA (CUPTI injection) and OpenCL (ICD layer)
 * libraries write while the traced workload runs, and what `gpuprobe-trace
 * record` merges into the trace file afterwards.
 *
 * The file named by $GPUPROBE_APP_EVENTS is a plain sequence of fixed
 * 136-byte records, appended with O_APPEND by every process of the workload
 * (one write() per batch of whole records, so processes never interleave
 * inside a record).  There is no file header: each record carries its own
 * magic, version and size, and a reader skips what it does not recognise.
 * Every timestamp is CLOCK_MONOTONIC ns, the clock of the kernel events.
 */
#ifndef GPUPROBE_APPEVENTS_H
#define GPUPROBE_APPEVENTS_H

#include <stdint.h>

#define GPUPROBE_APP_EVENTS_ENV		"GPUPROBE_APP_EVENTS"
#define GPUPROBE_APP_MAGIC		0x4750	/* "PG" */
#define GPUPROBE_APP_VERSION		1
#define GPUPROBE_APP_NAME_LEN		64

enum gpuprobe_app_type {
	GPUPROBE_APP_KERNEL = 1,	/* device execution of a kernel */
	GPUPROBE_APP_MEMCPY,		/* device execution of a copy */
	GPUPROBE_APP_MEMSET,
	GPUPROBE_APP_SYNC,		/* a host thread waiting for the device */
	GPUPROBE_APP_API,		/* a host API call (driver/runtime/OpenCL) */
	GPUPROBE_APP_NOTE,		/* library status: name holds the text */
	GPUPROBE_APP_DEVICE,		/* a device of the API and its PCI function */
	GPUPROBE_APP_CLOCK,		/* a device-clock calibration point */
	GPUPROBE_APP_OVERHEAD,		/* time the API's tracer spent (CUPTI's OVERHEAD records) */
	GPUPROBE_APP_NAME,		/* a piece of a long name's whole text */
};

/*
 * NAME: a name longer than the name field is written whole once per
 * process, in pieces, before the first event that carries its short form
 * (GPUPROBE_APPF_TRUNCATED_NAME: 46 characters, '~', 16 hex digits of its
 * FNV-1a hash): correlation = that hash, bytes = the whole length (cut at
 * GPUPROBE_APP_WHOLE_NAME_MAX; then flag GPUPROBE_APPF_TRUNCATED_NAME), kind =
 * the piece's number, name = its GPUPROBE_APP_NAME_PIECE characters,
 * NUL-terminated (the last piece's fewer).  record joins the
 * pieces into one string record of the trace (TRACEFILE_REC_STRING).
 */
#define GPUPROBE_APP_WHOLE_NAME_MAX	16384u
#define GPUPROBE_APP_NAME_PIECE		(GPUPROBE_APP_NAME_LEN - 1)

/*
 * OVERHEAD: kind = CUPTI's CUpti_ActivityOverheadKind, start_ns/end_ns its
 * span (both 0: CUPTI could not time it), correlation its API call's (0 for
 * buffer flushes).  Only CUPTI's own kinds (GPUPROBE_OVERHEAD_IS_CUPTI) are
 * the tracer's cost; the driver's compiler and module loading would run
 * untraced too.
 */
#define GPUPROBE_OVERHEAD_CUPTI_FIRST	(1u << 16)	/* CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH */
#define GPUPROBE_OVERHEAD_CUPTI_RESOURCE (3u << 16)
#define GPUPROBE_OVERHEAD_CUPTI_BUFFER_REQUEST (7u << 16)
#define GPUPROBE_OVERHEAD_IS_CUPTI(k)	(((k) >= GPUPROBE_OVERHEAD_CUPTI_FIRST && \
					  (k) <= GPUPROBE_OVERHEAD_CUPTI_RESOURCE) || \
					 (k) == GPUPROBE_OVERHEAD_CUPTI_BUFFER_REQUEST)

/*
 * DEVICE: device = the API's device number (CUDA ordinal as CUPTI's
 * deviceId, OpenCL device index as in the events' device field), kind = its
 * PCI function packed as GPUPROBE_BDF() (valid only with
 * GPUPROBE_APPF_PCI_KNOWN: the platform may not say), name = device name.
 *
 * CLOCK: one measurement of the device clock against CLOCK_MONOTONIC for
 * (device, stream): start_ns = the host time it maps to, queued_ns = the
 * device time read, bytes = the error bound in ns (half the shortest round
 * trip).  Device times of that queue are mapped through these points; the
 * analysis widens every window edge that is a device time by the bound.
 * CUDA: CUPTI maps device times itself, for the whole device, so stream =
 * GPUPROBE_APP_ALL_STREAMS; the record checks CUPTI's mapping with brackets
 * (inject/cudaclock.h): start_ns = a host time of the check, queued_ns =
 * CUPTI's time for it (queued_ns - start_ns: CUPTI's offset, middle of the
 * interval it was found in), bytes = the error bound (the larger end of that
 * interval); flags GPUPROBE_APPF_CLOCK_INCONSISTENT when the brackets did not
 * agree on one offset.
 */
#define GPUPROBE_APP_ALL_STREAMS	0xffffffffu

enum gpuprobe_app_api {
	GPUPROBE_APP_CUDA = 1,
	GPUPROBE_APP_OPENCL,
};

/* Copy direction (kind field of MEMCPY records). */
enum gpuprobe_app_copy {
	GPUPROBE_COPY_UNKNOWN = 0,
	GPUPROBE_COPY_HTOD,
	GPUPROBE_COPY_DTOH,
	GPUPROBE_COPY_DTOD,
	GPUPROBE_COPY_HTOH,
	GPUPROBE_COPY_PTOP,		/* peer to peer */
};

/* Kind field of SYNC records. */
enum gpuprobe_app_sync {
	GPUPROBE_SYNC_OTHER = 0,
	GPUPROBE_SYNC_DEVICE,		/* cudaDeviceSynchronize / cuCtxSynchronize */
	GPUPROBE_SYNC_STREAM,		/* cudaStreamSynchronize / clFinish */
	GPUPROBE_SYNC_EVENT,		/* cudaEventSynchronize / clWaitForEvents */
	GPUPROBE_SYNC_STREAM_WAIT,	/* cudaStreamWaitEvent (no host wait) */
};

/* flags */
#define GPUPROBE_APPF_PINNED		(1u << 0)	/* host side is page-locked */
#define GPUPROBE_APPF_PAGEABLE		(1u << 1)	/* host side is pageable */
#define GPUPROBE_APPF_BLOCKING		(1u << 2)	/* API call waited for the device */
#define GPUPROBE_APPF_DEVICE_CLOCK	(1u << 3)	/* times mapped from the device clock */
#define GPUPROBE_APPF_TRUNCATED_NAME	(1u << 4)
#define GPUPROBE_APPF_PCI_KNOWN		(1u << 5)	/* DEVICE: kind holds its BDF */
#define GPUPROBE_APPF_CLOCK_INCONSISTENT (1u << 6)	/* CLOCK: brackets disagree */

struct gpuprobe_app_event {
	uint16_t magic;			/* GPUPROBE_APP_MAGIC */
	uint8_t version;		/* GPUPROBE_APP_VERSION */
	uint8_t api;			/* enum gpuprobe_app_api */
	uint16_t size;			/* sizeof(struct gpuprobe_app_event) */
	uint16_t type;			/* enum gpuprobe_app_type */
	uint32_t kind;			/* copy direction, sync kind, API cbid */
	uint32_t flags;			/* GPUPROBE_APPF_* */
	uint32_t pid;
	uint32_t tid;			/* host thread (API, SYNC); 0 for device work */
	uint32_t device;		/* CUDA device id / OpenCL device index */
	uint32_t stream;		/* CUDA stream id / OpenCL queue index */
	uint64_t correlation;		/* CUDA correlation id; OpenCL: enqueue call number */
	uint64_t start_ns;		/* device start, or API entry */
	uint64_t end_ns;		/* device end, or API return */
	uint64_t queued_ns;		/* API entry that issued it (0: unknown) */
	uint64_t bytes;			/* copies and memsets */
	char name[GPUPROBE_APP_NAME_LEN];	/* kernel or API name, NUL-terminated */
};

_Static_assert(sizeof(struct gpuprobe_app_event) == 136, "app event layout");

#endif /* GPUPROBE_APPEVENTS_H */
