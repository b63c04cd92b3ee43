/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread id -> process id for the tracefs source: its events carry the
 * thread (common_pid) only, and the KVM injection record names the VMM
 * process.  Read from /proc/TID/status once per thread, while the thread
 * lives (the source decodes while recording); a small round-robin table.
 */
#ifndef GPUPROBE_TGID_CACHE_H
#define GPUPROBE_TGID_CACHE_H

#include <stdint.h>

#define TGID_CACHE_SLOTS	64

struct tgid_cache {
	const char *proc_root;		/* NULL: /proc */
	unsigned int next;
	struct { uint32_t tid, tgid; } slot[TGID_CACHE_SLOTS];
};

/* The process of thread tid; 0 when it is gone or unreadable. */
uint32_t tgid_of(struct tgid_cache *c, uint32_t tid);

#endif /* GPUPROBE_TGID_CACHE_H */
