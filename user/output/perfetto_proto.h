/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside `export --perfetto-proto`: the writer's state and the calls its
 * files share.  perfetto_proto.c writes the packets, tracks and most
 * events; perfetto_proto_dma.c a target's DMA, IOMMU and swiotlb lanes
 * and the IOMMU parts nested in them.
 */
#ifndef GPUPROBE_PERFETTO_PROTO_H
#define GPUPROBE_PERFETTO_PROTO_H

#include <stdio.h>

#include "pbenc.h"
#include "perfetto_flows.h"
#include "perfetto_ids.h"
#include "perfetto_parts.h"
#include "strtab.h"
#include "tracefile.h"

/* TrackEvent.type */
#define TYPE_BEGIN			1
#define TYPE_END			2
#define TYPE_INSTANT			3

/* track uuids: what the track is (kind) and which (a < 2^24) */
#define UUID(kind, a, b)	((uint64_t)(kind) << 56 | (uint64_t)(a) << 32 | (uint32_t)(b))
enum uuid_kind {
	U_CPUS = 1, U_APP_PROC, U_TARGET, U_PROC, U_CPU, U_LANE, U_VECTOR, U_THREAD,
	U_STREAM = 16,		/* + api */
	U_CALLS = 20,		/* + api: calls of no known thread */
};
#define UUID_CPUS		UUID(U_CPUS, 0, 0)
#define UUID_TARGET(i)		UUID(U_TARGET, 0, i)
#define UUID_CPU(c)		UUID(U_CPU, 0, c)
/* per target i: lanes of DMA, IOMMU, swiotlb, IOMMU parts in no call; vectors */
#define UUID_LANE(i, kind, n)	UUID(U_LANE, i, (kind) << 8 | (n))
#define UUID_VECTOR(i, v)	UUID(U_VECTOR, i, v)
#define MAX_LANES		64
#define MAX_INTERNED		4096

enum lane_kind { LANE_DMA, LANE_IOMMU, LANE_SWIOTLB, LANE_PARTS, LANE_KINDS };

struct lane {
	uint64_t end;
	bool named;
};

struct proto_writer {
	FILE *out;
	const struct trace_info *info;
	struct pb packet, body, sub, sub2;
	struct lane lanes[TARGET_MAX + 1][LANE_KINDS][MAX_LANES];
	struct pf_tracks described;	/* tracks described so far, by uuid */
	char *interned[MAX_INTERNED];
	unsigned int ninterned;
	struct pf_flows flows;		/* pass one */
	struct pf_parts parts;		/* pass one */
	struct strtab strings;		/* whole names (TRACEFILE_REC_STRING, before the events) */
};

struct event_args {
	const char *keys[4];
	uint64_t values[4];
	const char *str_key, *str_value;
	uint64_t flow, end_flow;
};

/* A track under parent, described at its first use. */
void proto_describe_track(struct proto_writer *w, uint64_t uuid, uint64_t parent,
			  const char *name);
/* One TrackEvent packet (name and category unused for TYPE_END); a: NULL, none. */
void proto_track_event(struct proto_writer *w, uint64_t track, int type, uint64_t ts,
		       const char *category, const char *name, const struct event_args *a);
void proto_slice(struct proto_writer *w, uint64_t track, uint64_t ts, uint64_t dur,
		 const char *category, const char *name, const struct event_args *a);
/* The target's index in the header; TARGET_MAX: none of them (unattributed). */
int proto_target_index(const struct proto_writer *w, uint32_t bdf);

/* perfetto_proto_dma.c */
void proto_dma(struct proto_writer *w, const struct gpuprobe_rec_dma *r);
void proto_part(struct proto_writer *w, const struct gpuprobe_rec_iommu_part *r);
void proto_iommu(struct proto_writer *w, const struct gpuprobe_rec_iommu *r);
void proto_swiotlb(struct proto_writer *w, const struct gpuprobe_rec_swiotlb *r);

#endif /* GPUPROBE_PERFETTO_PROTO_H */
