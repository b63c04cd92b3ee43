/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flows of `export --perfetto-proto`, found in a first pass over the
 * file: interrupt -> the wake-up it caused -> the woken thread, inside the
 * wait that wake-up ended (perfetto_proto.c draws them).
 */
#ifndef GPUPROBE_PERFETTO_FLOWS_H
#define GPUPROBE_PERFETTO_FLOWS_H

#include "perfetto_ids.h"
#include "tracefile.h"

/* Where a wake-up's flow goes on: tid 0, nowhere (it ends at the wake-up). */
struct pf_wake_link {
	uint64_t flow;			/* 0: none */
	uint32_t pid, tid;		/* the waiting thread, as its SYNC call names it */
	uint8_t api;			/* of that call */
};

struct pf_flows {
	/* pass one */
	struct pf_irq { uint64_t end; size_t idx; } *irqs;
	struct pf_wake { uint64_t ts; uint32_t tid; size_t idx; } *wakes;
	struct pf_sync *syncs;
	size_t nirqs, nwakes, nsyncs, cap_irqs, cap_wakes, cap_syncs;
	struct pf_calls calls;		/* API calls: the thread of a CUPTI sync */
	/* linked, by the record's position among its type in the file */
	uint64_t *irq_flow;		/* 0: no flow */
	struct pf_wake_link *wake_link;
	bool *sync_taken;		/* a flow ends inside it */
	bool oom;
	size_t irq_seen, wake_seen;
};

void pf_flows_add(struct pf_flows *f, const struct gpuprobe_rec_hdr *h);
void pf_flows_link(struct pf_flows *f);
/* Pass two, in file order: the next interrupt's flow, the next wake-up's link. */
uint64_t pf_flows_next_irq(struct pf_flows *f);
struct pf_wake_link pf_flows_next_wake(struct pf_flows *f);
void pf_flows_free(struct pf_flows *f);

#endif /* GPUPROBE_PERFETTO_FLOWS_H */
