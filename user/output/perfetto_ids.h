/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pids and tids both Perfetto exports give their tracks.  Perfetto
 * keys processes and threads by pid and tid, and merges a track with the
 * same pid/tid of an ftrace trace opened beside it: a made-up id below the
 * kernel's PID_MAX_LIMIT would land on a real task (1 is init, 2 kthreadd).
 *
 *  - real ids where the trace knows them: the workload's pid and its
 *    threads' tids from the application events (a CUPTI sync record names
 *    no thread: its API call does, by correlation id) and the wake-ups;
 *  - everything that is no task (CPUs, targets, vectors, DMA, streams):
 *    ids from PF_SYNTH_BASE up, above PID_MAX_LIMIT, so no real task can
 *    have them;
 *  - a merged trace's guest tasks: their pid/tid + PF_GUEST_REAL_BASE (the
 *    guest's pids are another kernel's, they would clash with the host's).
 *
 * Every id stays below 2^31: Perfetto reads pid/tid as int32.
 */
#ifndef GPUPROBE_PERFETTO_IDS_H
#define GPUPROBE_PERFETTO_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "appevents.h"

/* include/linux/threads.h, 64-bit: 4 * 1024 * 1024; pid_max cannot exceed it */
#define PF_PID_MAX_LIMIT	4194304u
#define PF_SYNTH_BASE		0x40000000	/* 1073741824 */
/* made-up processes of machine m (0 host, 1 guest) */
#define PF_SYNTH_PID(m, k)	(PF_SYNTH_BASE + (m) * 0x10000 + (k))
#define PF_PID_CPUS		1
#define PF_PID_APP(api)		(1 + (api))	/* the API's events of no known pid */
#define PF_PID_TARGET(i)	(16 + (i))	/* i up to TARGET_MAX: unattributed */
/* made-up threads, numbered in order of first use */
#define PF_SYNTH_TID_BASE	(PF_SYNTH_BASE + 0x100000)
#define PF_SYNTH_TID_END	0x50000000
#define PF_GUEST_REAL_BASE	0x50000000

static inline bool pf_known_id(uint32_t id)
{
	return id && id < PF_PID_MAX_LIMIT;
}

/* A real pid/tid of machine m (0 host, 1 guest) as exported. */
static inline int pf_real_id(int m, uint32_t id)
{
	return (m ? PF_GUEST_REAL_BASE : 0) + (int)id;
}

/* API calls by (machine, api, pid, correlation): whose thread a sync record is. */
struct pf_call {
	uint32_t machine, api, pid, tid;
	uint64_t correlation, start, end;
};

struct pf_calls {
	struct pf_call *c;
	size_t n, cap;
	bool oom;
};

void pf_calls_add(struct pf_calls *calls, int machine, const struct gpuprobe_app_event *ev);
void pf_calls_sort(struct pf_calls *calls);
/*
 * ev's thread: its tid, else (a sync record) the tid of the API call with its
 * correlation id when the record lies inside that call; 0: unknown.
 */
uint32_t pf_app_tid(const struct pf_calls *calls, int machine, const struct gpuprobe_app_event *ev);
void pf_calls_free(struct pf_calls *calls);

/* Made-up threads by (pid, kind, id). */
struct pf_tracks {
	struct pf_track { int pid, tid; uint32_t kind, id; } *slot;
	size_t cap, n;
};

/* The track's tid (*fresh: its first use, name it); -1 when out of memory or ids. */
int pf_synth_tid(struct pf_tracks *t, int pid, uint32_t kind, uint32_t id, bool *fresh);
void pf_tracks_free(struct pf_tracks *t);

#endif /* GPUPROBE_PERFETTO_IDS_H */
