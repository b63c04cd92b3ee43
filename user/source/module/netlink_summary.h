/* SPDX-License-Identifier: GPL-2.0 */
/* The module's summary mode for `serve` (netlink_summary.c). */
#ifndef GPUPROBE_NETLINK_SUMMARY_H
#define GPUPROBE_NETLINK_SUMMARY_H

#include <stdint.h>

#include "target.h"

#define SUMMARY_BUCKETS	64	/* the module's log2(ns) buckets */

struct summary_session;
typedef void (*summary_hist_fn)(void *ctx, uint32_t bdf, uint32_t vector,
				const uint64_t buckets[SUMMARY_BUCKETS]);

/* TARGET_ADD each target, START in summary mode; NULL with err. */
struct summary_session *summary_open(const struct target_set *set, char *err, size_t errlen);
/* Every histogram (cumulative for the session) and the drop counters; -1 with err. */
int summary_read(struct summary_session *s, summary_hist_fn fn, void *ctx, uint64_t *dropped,
		 char *err, size_t errlen);
/* STOP, TARGET_DEL what it added; NULL is fine. */
void summary_close(struct summary_session *s);

#endif /* GPUPROBE_NETLINK_SUMMARY_H */
