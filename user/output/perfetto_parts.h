/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The IOMMU parts of `export --perfetto-proto`, laid out in a first pass
 * over the file: a part's record comes before its call's (each record is
 * written at its function's return, the call's last, and CPUs deliver out
 * of order), so the parts of each DMA call are kept and nested by time
 * (then depth), to be drawn with the call, on its lane, when its record
 * comes in the second pass.  Parts in no call (call_ts 0: the flush
 * queue's timer, a flush on its own) nest per target and CPU into trees,
 * each drawn at its root's record.  A part that cannot nest (it crosses
 * its call's end or a part it overlaps) is drawn alone, on a lane of its
 * own, so that every part is drawn once and every lane's slices nest.
 */
#ifndef GPUPROBE_PERFETTO_PARTS_H
#define GPUPROBE_PERFETTO_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracefile.h"

enum pf_part_place {
	PF_PART_NESTED,		/* drawn with its call or its tree's root */
	PF_PART_ROOT,		/* no call: a tree of its own, drawn at its record */
	PF_PART_ALONE,		/* cannot nest: drawn alone at its record */
};

struct pf_part {
	uint64_t start, end, call_ts, self_ns;
	uint32_t bdf, arg, cpu;
	uint16_t part, depth, flags;
	uint8_t place;			/* enum pf_part_place */
	long parent;			/* index in pf_parts.p it nests in; -1: its call or none */
	size_t idx;			/* among the file's part records */
	size_t last;			/* ROOT: one past its last descendant */
};

/* What to draw: parts [first, last) of pf_parts.p nested, within [start, end]. */
struct pf_parts_range {
	size_t first, last;
	uint64_t start, end;
};

struct pf_parts_group;

struct pf_parts {
	struct pf_part *p;		/* sorted by key, then start */
	size_t n, cap;
	struct pf_parts_call { uint64_t ts, end; uint32_t bdf; size_t idx; } *calls;
	size_t ncalls, cap_calls;
	struct pf_parts_group *groups;	/* parts of one call, by (bdf, call_ts) */
	size_t ngroups;
	size_t *pos;			/* part record number -> index in p */
	size_t part_seen, dma_seen;	/* pass two */
	bool oom;			/* every part drawn alone */
};

/* Pass one: every record. */
void pf_parts_add(struct pf_parts *p, const struct gpuprobe_rec_hdr *h);
void pf_parts_layout(struct pf_parts *p);
/*
 * Pass two, at every DMA record in file order: true and r when parts are
 * to be drawn inside this call.
 */
bool pf_parts_of_call(struct pf_parts *p, const struct gpuprobe_rec_dma *d,
		      struct pf_parts_range *r);
/* At every part record in file order: what to draw there (r: for ROOT). */
enum pf_part_place pf_parts_at_part(struct pf_parts *p, struct pf_parts_range *r);
/* Each part of r, begun and ended in nesting order (the order of time). */
void pf_parts_walk(const struct pf_parts *p, const struct pf_parts_range *r,
		   void (*draw)(void *ctx, const struct pf_part *part, bool begin), void *ctx);
void pf_parts_free(struct pf_parts *p);

#endif /* GPUPROBE_PERFETTO_PARTS_H */
