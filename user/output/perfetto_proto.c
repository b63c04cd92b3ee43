// SPDX-License-Identifier: GPL-2.0
/*
 * `export --perfetto-proto`: a native Perfetto trace (protos/perfetto/trace/
 * trace.proto: Trace of TracePackets with TrackDescriptors and TrackEvents),
 * written with lib/pbenc.c, no Perfetto SDK.  Layout and flows:
 * Documentation/fleet.md, "Native Perfetto export".
 *
 *  - one sequence (trusted_packet_sequence_id 1), interned event names and
 *    categories, every packet on BUILTIN_CLOCK_MONOTONIC (the trace's
 *    clock), and a ClockSnapshot of MONOTONIC and REALTIME at the start, so
 *    a Perfetto/ftrace trace of the same run (BOOTTIME, with its own
 *    snapshots) merges on the same timeline;
 *  - per-CPU interrupt tracks under "CPUs"; per target, DMA and IOMMU spans
 *    on async lanes (a span goes to the first lane free at its start, so
 *    overlapping calls never break slice nesting) and a swiotlb track;
 *  - CUDA/OpenCL: a track per stream/queue (device work) and per host
 *    thread (API calls, waits), kernel names demangled;
 *  - flows interrupt -> wake-up -> the wait it ended: the interrupt whose
 *    handler ended last before a followed thread's wake-up (within 10 ms,
 *    one wake-up per interrupt), and the SYNC call of that thread that the
 *    wake-up falls in.  They need the whole file: a first pass collects them.
 */
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "array.h"
#include "attribute.h"
#include "demangle.h"
#include "export.h"
#include "pbenc.h"
#include "tracefile.h"
#include "util.h"

/* trace.proto field numbers */
#define TRACE_PACKET			1
#define PKT_TIMESTAMP			8
#define PKT_SEQ_ID			10
#define PKT_TRACK_EVENT			11
#define PKT_INTERNED			12
#define PKT_SEQ_FLAGS			13
#define PKT_CLOCK_SNAPSHOT		6
#define PKT_CLOCK_ID			58
#define PKT_TRACK_DESCRIPTOR		60
#define SEQ_INCREMENTAL_CLEARED		1
#define SEQ_NEEDS_INCREMENTAL		2
#define CLOCK_REALTIME_ID		1
#define CLOCK_MONOTONIC_ID		3
#define SNAP_CLOCKS			1
#define SNAP_PRIMARY			2
#define TD_UUID				1
#define TD_NAME				2
#define TD_PROCESS			3
#define TD_PARENT			5
#define PD_PID				1
#define PD_NAME				6
#define TE_CATEGORY_IIDS		3
#define TE_DEBUG			4
#define TE_TYPE				9
#define TE_NAME_IID			10
#define TE_TRACK_UUID			11
#define TE_FLOW_IDS			47
#define TE_TERMINATING_FLOWS		48
#define TYPE_BEGIN			1
#define TYPE_END			2
#define TYPE_INSTANT			3
#define DA_NAME				10
#define DA_UINT				3
#define DA_STRING			6
#define ID_CATEGORIES			1
#define ID_NAMES			2

#define UUID_CPUS		1
#define UUID_CUDA		2
#define UUID_OPENCL		3
#define UUID_TARGET(i)		(100 + (uint64_t)(i))
#define UUID_CPU(c)		(0x1000000ull + (c))
/* per target i: lanes of DMA and IOMMU, swiotlb */
#define UUID_LANE(i, kind, n)	(0x2000000ull + ((uint64_t)(i) << 16) + ((uint64_t)(kind) << 8) + (n))
#define UUID_APP(api, host, id)	(0x100000000ull * (2 + (api) * 2 + (host)) + (id))
#define MAX_LANES		64
#define MAX_INTERNED		4096
#define WAKE_WINDOW_NS		10000000ull

enum lane_kind { LANE_DMA, LANE_IOMMU, LANE_SWIOTLB, LANE_KINDS };

struct lane {
	uint64_t end;
	bool named;
};

struct sync_span {
	uint64_t start, end;
	uint32_t tid;
	size_t idx;		/* among the file's sync calls */
};

struct flow_links {
	/* by the record's position among its type in the file; 0: no flow */
	uint64_t *irq_flow, *wake_flow, *sync_flow;
	bool *wake_ends;	/* the flow ends at the wake-up: no wait found */
	size_t nirq, nwake, nsync;
};

struct proto_writer {
	FILE *out;
	const struct trace_info *info;
	struct pb packet, body, sub, sub2;
	struct lane lanes[TARGET_MAX + 1][LANE_KINDS][MAX_LANES];
	uint64_t *named_tracks;		/* tracks described so far */
	size_t nnamed, named_cap;
	char *interned[MAX_INTERNED];
	unsigned int ninterned;
	/* pass one */
	struct { uint64_t end; size_t idx; } *irqs;
	struct { uint64_t ts; uint32_t pid; size_t idx; } *wakes;
	struct sync_span *syncs;
	size_t nirqs, nwakes, nsyncs, cap_irqs, cap_wakes, cap_syncs;
	struct flow_links flows;
	size_t irq_seen, wake_seen, sync_seen;
};

static void emit_packet(struct proto_writer *w)
{
	struct pb trace = { 0 };

	pb_varint(&w->packet, PKT_SEQ_ID, 1);
	pb_message(&trace, TRACE_PACKET, &w->packet);
	if (!trace.oom)
		fwrite(trace.buf, 1, trace.len, w->out);
	pb_free(&trace);
	pb_reset(&w->packet);
}

/* The name's iid, interned (sent in this packet's InternedData) on first use. */
static uint64_t intern(struct proto_writer *w, const char *name, struct pb *interned)
{
	struct pb entry = { 0 };
	unsigned int i;

	for (i = 0; i < w->ninterned; i++)
		if (!strcmp(w->interned[i], name))
			return i + 1;
	if (w->ninterned >= MAX_INTERNED)
		return 0;	/* beyond: the name is sent inline */
	w->interned[w->ninterned++] = strdup(name);
	pb_varint(&entry, 1, w->ninterned);
	pb_string(&entry, 2, name);
	pb_message(interned, ID_NAMES, &entry);
	pb_free(&entry);
	return w->ninterned;
}

static bool track_named(struct proto_writer *w, uint64_t uuid)
{
	for (size_t i = 0; i < w->nnamed; i++)
		if (w->named_tracks[i] == uuid)
			return true;
	if (array_reserve((void **)&w->named_tracks, &w->named_cap, w->nnamed + 1, sizeof(uint64_t)))
		return true;
	w->named_tracks[w->nnamed++] = uuid;
	return false;
}

static void describe_track(struct proto_writer *w, uint64_t uuid, uint64_t parent,
			   const char *name, int pid)
{
	struct pb td = { 0 }, pd = { 0 };

	if (track_named(w, uuid))
		return;
	pb_varint(&td, TD_UUID, uuid);
	pb_string(&td, TD_NAME, name);
	if (parent)
		pb_varint(&td, TD_PARENT, parent);
	if (pid >= 0) {
		pb_varint(&pd, PD_PID, (uint64_t)pid);
		pb_string(&pd, PD_NAME, name);
		pb_message(&td, TD_PROCESS, &pd);
	}
	pb_message(&w->packet, PKT_TRACK_DESCRIPTOR, &td);
	emit_packet(w);
	pb_free(&td);
	pb_free(&pd);
}

struct event_args {
	const char *keys[4];
	uint64_t values[4];
	const char *str_key, *str_value;
	uint64_t flow, end_flow;
};

static void track_event(struct proto_writer *w, uint64_t track, int type, uint64_t ts,
			const char *category, const char *name, const struct event_args *a)
{
	struct pb *te = &w->body, *interned = &w->sub, *da = &w->sub2;
	uint64_t iid;

	pb_reset(te);
	pb_reset(interned);
	pb_varint(&w->packet, PKT_TIMESTAMP, ts);
	pb_varint(&w->packet, PKT_CLOCK_ID, CLOCK_MONOTONIC_ID);
	pb_varint(te, TE_TYPE, (uint64_t)type);
	pb_varint(te, TE_TRACK_UUID, track);
	if (type != TYPE_END) {
		iid = intern(w, name, interned);
		if (iid)
			pb_varint(te, TE_NAME_IID, iid);
		else
			pb_string(te, 23, name);
		/* categories: their own table, one iid each, fixed */
		pb_varint(te, TE_CATEGORY_IIDS, !strcmp(category, "irq") ? 1 :
			  !strcmp(category, "dma") ? 2 : !strcmp(category, "iommu") ? 3 :
			  !strcmp(category, "sched") ? 4 : 5);
	}
	for (int i = 0; a && i < 4 && a->keys[i]; i++) {
		pb_reset(da);
		pb_string(da, DA_NAME, a->keys[i]);
		pb_varint(da, DA_UINT, a->values[i]);
		pb_message(te, TE_DEBUG, da);
	}
	if (a && a->str_key) {
		pb_reset(da);
		pb_string(da, DA_NAME, a->str_key);
		pb_string(da, DA_STRING, a->str_value);
		pb_message(te, TE_DEBUG, da);
	}
	if (a && a->flow)
		pb_fixed64(te, TE_FLOW_IDS, a->flow);
	if (a && a->end_flow)
		pb_fixed64(te, TE_TERMINATING_FLOWS, a->end_flow);
	pb_message(&w->packet, PKT_TRACK_EVENT, te);
	if (interned->len)
		pb_message(&w->packet, PKT_INTERNED, interned);
	pb_varint(&w->packet, PKT_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL);
	emit_packet(w);
}

static void slice(struct proto_writer *w, uint64_t track, uint64_t ts, uint64_t dur,
		  const char *category, const char *name, const struct event_args *a)
{
	track_event(w, track, TYPE_BEGIN, ts, category, name, a);
	track_event(w, track, TYPE_END, ts + dur, category, name, NULL);
}

static int target_index(const struct proto_writer *w, uint32_t bdf)
{
	for (unsigned int i = 0; i < w->info->targets.count; i++)
		if (w->info->targets.t[i].bdf == bdf)
			return (int)i;
	return TARGET_MAX;	/* unattributed */
}

static uint64_t cpu_track(struct proto_writer *w, unsigned int cpu)
{
	char name[32];

	snprintf(name, sizeof(name), "CPU %u", cpu);
	describe_track(w, UUID_CPU(cpu), UUID_CPUS, name, -1);
	return UUID_CPU(cpu);
}

/* The first lane of the kind free at ts: overlapping spans take separate lanes. */
static uint64_t lane_track(struct proto_writer *w, uint32_t bdf, enum lane_kind kind,
			   uint64_t ts, uint64_t end)
{
	static const char *const names[LANE_KINDS] = { "DMA", "IOMMU", "swiotlb" };
	int t = target_index(w, bdf);
	struct lane *lanes = w->lanes[t][kind];
	unsigned int n;
	char name[32];

	for (n = 0; n < MAX_LANES - 1 && lanes[n].named && lanes[n].end > ts; n++)
		;
	if (!lanes[n].named) {
		if (n)
			snprintf(name, sizeof(name), "%s (%u)", names[kind], n + 1);
		else
			snprintf(name, sizeof(name), "%s", names[kind]);
		describe_track(w, UUID_LANE(t, kind, n), UUID_TARGET(t), name, -1);
		lanes[n].named = true;
	}
	if (end > lanes[n].end)
		lanes[n].end = end;
	return UUID_LANE(t, kind, n);
}

static uint64_t next_flow(uint64_t *table, size_t n, size_t *seen)
{
	return *seen < n && table ? table[(*seen)++] : ((*seen)++, 0);
}

static void proto_irq(struct proto_writer *w, const struct gpuprobe_rec_irq *r)
{
	struct event_args a = { .keys = { "irq", "vector", "handled" },
				.values = { r->irq, r->vector, !!(r->hdr.flags & GPUPROBE_IRQ_HANDLED) } };
	char name[32];

	a.flow = next_flow(w->flows.irq_flow, w->flows.nirq, &w->irq_seen);
	snprintf(name, sizeof(name), "irq %u", r->irq);
	slice(w, cpu_track(w, r->hdr.cpu), r->hdr.ts_ns, r->duration_ns, "irq", name, &a);
}

static void proto_wakeup(struct proto_writer *w, const struct gpuprobe_rec_sched *r)
{
	size_t i = w->wake_seen;
	struct event_args a = { .keys = { "pid", "target_cpu" }, .values = { r->pid, r->target_cpu } };
	uint64_t f = next_flow(w->flows.wake_flow, w->flows.nwake, &w->wake_seen);

	if (f && w->flows.wake_ends[i])
		a.end_flow = f;
	else
		a.flow = f;
	track_event(w, cpu_track(w, r->hdr.cpu), TYPE_INSTANT, r->hdr.ts_ns, "sched", "wakeup", &a);
}

static void proto_app(struct proto_writer *w, const struct tracefile_rec_app *r)
{
	const struct gpuprobe_app_event *ev = &r->ev;
	bool host = ev->type >= GPUPROBE_APP_SYNC;
	int api = ev->api == GPUPROBE_APP_OPENCL ? 1 : 0;
	uint32_t id = host ? ev->tid : ev->stream;
	uint64_t track = UUID_APP(api, host, id);
	struct event_args a = { .keys = { "bytes", "correlation", "pid" },
				.values = { ev->bytes, ev->correlation, ev->pid } };
	char tname[64], name[GPUPROBE_APP_NAME_LEN * 4];
	const char *shown;

	if (ev->type >= GPUPROBE_APP_NOTE)
		return;
	snprintf(tname, sizeof(tname), "%s %s %u", api ? "OpenCL" : "CUDA",
		 host ? "thread" : api ? "queue" : "stream", id);
	describe_track(w, track, api ? UUID_OPENCL : UUID_CUDA, tname, -1);
	shown = demangle_name(ev->name, name, sizeof(name));
	if (shown != ev->name) {
		a.str_key = "mangled";
		a.str_value = ev->name;
	}
	if (ev->type == GPUPROBE_APP_SYNC)
		a.end_flow = next_flow(w->flows.sync_flow, w->flows.nsync, &w->sync_seen);
	slice(w, track, ev->start_ns, ev->end_ns - ev->start_ns, attr_type_name(ev->type), shown, &a);
}

static void proto_record(void *state, const struct gpuprobe_rec_hdr *h)
{
	struct proto_writer *w = state;

	switch (h->type) {
	case TRACEFILE_REC_APP:
		proto_app(w, (const struct tracefile_rec_app *)h);
		break;
	case GPUPROBE_EV_IRQ:
		proto_irq(w, (const struct gpuprobe_rec_irq *)h);
		break;
	case GPUPROBE_EV_DMA: {
		const struct gpuprobe_rec_dma *r = (const void *)h;
		struct event_args a = { .keys = { "bytes", "nents", "dir", "iommu_calls" },
					.values = { r->bytes, r->nents, r->dir, r->iommu_calls } };

		slice(w, lane_track(w, r->bdf, LANE_DMA, h->ts_ns, h->ts_ns + r->duration_ns),
		      h->ts_ns, r->duration_ns, "dma", dma_op_name(r->op), &a);
		break;
	}
	case GPUPROBE_EV_IOMMU: {
		const struct gpuprobe_rec_iommu *r = (const void *)h;
		struct event_args a = { .keys = { "size", "iova" }, .values = { r->size, r->iova } };

		slice(w, lane_track(w, r->bdf, LANE_IOMMU, h->ts_ns, h->ts_ns + r->duration_ns),
		      h->ts_ns, r->duration_ns, "iommu", iommu_op_name(r->op), &a);
		break;
	}
	case GPUPROBE_EV_SWIOTLB: {
		const struct gpuprobe_rec_swiotlb *r = (const void *)h;
		struct event_args a = { .keys = { "bytes", "dir" }, .values = { r->bytes, r->dir } };

		track_event(w, lane_track(w, r->bdf, LANE_SWIOTLB, 0, 0), TYPE_INSTANT, h->ts_ns,
			    "dma", "swiotlb bounce", &a);
		break;
	}
	case GPUPROBE_EV_WAKEUP:
		proto_wakeup(w, (const struct gpuprobe_rec_sched *)h);
		break;
	case GPUPROBE_EV_LOST: {
		struct event_args a = { .keys = { "count" },
					.values = { ((const struct gpuprobe_rec_lost *)h)->count } };

		track_event(w, cpu_track(w, h->cpu), TYPE_INSTANT, h->ts_ns, "other", "records lost", &a);
		break;
	}
	}
}

/* ---- pass one: the flows ---- */

static void proto_prepass(void *state, const struct gpuprobe_rec_hdr *h)
{
	struct proto_writer *w = state;

	if (h->type == GPUPROBE_EV_IRQ) {
		const struct gpuprobe_rec_irq *r = (const void *)h;

		if (!array_reserve((void **)&w->irqs, &w->cap_irqs, w->nirqs + 1, sizeof(*w->irqs))) {
			w->irqs[w->nirqs].end = h->ts_ns + r->duration_ns;
			w->irqs[w->nirqs].idx = w->nirqs;
			w->nirqs++;
		}
	} else if (h->type == GPUPROBE_EV_WAKEUP) {
		if (!array_reserve((void **)&w->wakes, &w->cap_wakes, w->nwakes + 1, sizeof(*w->wakes))) {
			w->wakes[w->nwakes].ts = h->ts_ns;
			w->wakes[w->nwakes].pid = ((const struct gpuprobe_rec_sched *)h)->pid;
			w->wakes[w->nwakes].idx = w->nwakes;
			w->nwakes++;
		}
	} else if (h->type == TRACEFILE_REC_APP &&
		   ((const struct tracefile_rec_app *)h)->ev.type == GPUPROBE_APP_SYNC) {
		const struct gpuprobe_app_event *ev = &((const struct tracefile_rec_app *)h)->ev;

		if (!array_reserve((void **)&w->syncs, &w->cap_syncs, w->nsyncs + 1, sizeof(*w->syncs))) {
			w->syncs[w->nsyncs].start = ev->start_ns;
			w->syncs[w->nsyncs].end = ev->end_ns;
			w->syncs[w->nsyncs].tid = ev->tid;
			w->syncs[w->nsyncs].idx = w->nsyncs;
			w->nsyncs++;
		}
	}
}

static int by_end(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sync calls by thread, then start: one thread's calls do not overlap. */
static int by_tid_start(const void *a, const void *b)
{
	const struct sync_span *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The sync call of thread tid in progress at ts that no flow ends at yet:
 * a binary search for its last call started by ts, then back while the
 * calls still reach ts.  O(log n) a wake-up (it was a scan of every sync).
 */
static struct sync_span *sync_at(struct proto_writer *w, uint32_t tid, uint64_t ts)
{
	size_t lo = 0, hi = w->nsyncs;

	while (lo < hi) {	/* first call after (tid, ts) */
		size_t mid = lo + (hi - lo) / 2;
		const struct sync_span *m = &w->syncs[mid];

		if (m->tid < tid || (m->tid == tid && m->start <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		struct sync_span *c = &w->syncs[lo];

		if (c->tid != tid || c->end < ts)
			return NULL;
		if (!w->flows.sync_flow[c->idx])
			return c;
	}
	return NULL;
}

static void link_flows(struct proto_writer *w)
{
	struct flow_links *f = &w->flows;
	uint64_t next = 1;

	f->nirq = w->nirqs;
	f->nwake = w->nwakes;
	f->nsync = w->nsyncs;
	f->irq_flow = calloc(w->nirqs + 1, sizeof(uint64_t));
	f->wake_flow = calloc(w->nwakes + 1, sizeof(uint64_t));
	f->wake_ends = calloc(w->nwakes + 1, sizeof(bool));
	f->sync_flow = calloc(w->nsyncs + 1, sizeof(uint64_t));
	if (!f->irq_flow || !f->wake_flow || !f->wake_ends || !f->sync_flow)
		return;
	qsort(w->irqs, w->nirqs, sizeof(*w->irqs), by_end);
	qsort(w->wakes, w->nwakes, sizeof(*w->wakes), by_end);
	qsort(w->syncs, w->nsyncs, sizeof(*w->syncs), by_tid_start);
	for (size_t k = 0, i = 0; k < w->nwakes; k++) {
		uint64_t ts = w->wakes[k].ts;
		struct sync_span *sync;

		while (i < w->nirqs && w->irqs[i].end <= ts)
			i++;
		/* w->irqs[i - 1]: the handler that ended last before the wake-up */
		if (!i || f->irq_flow[w->irqs[i - 1].idx] || ts - w->irqs[i - 1].end > WAKE_WINDOW_NS)
			continue;
		f->irq_flow[w->irqs[i - 1].idx] = next;
		f->wake_flow[w->wakes[k].idx] = next;
		f->wake_ends[w->wakes[k].idx] = true;
		sync = sync_at(w, w->wakes[k].pid, ts);
		if (sync) {
			f->sync_flow[sync->idx] = next;
			f->wake_ends[w->wakes[k].idx] = false;
		}
		next++;
	}
}

static void describe_processes(struct proto_writer *w)
{
	static const char *const categories[] = { "irq", "dma", "iommu", "sched", "other" };
	struct pb snap = { 0 }, clock = { 0 }, interned = { 0 }, cat = { 0 };

	/* the clocks at the start: MONOTONIC is the trace's */
	pb_varint(&clock, 1, CLOCK_MONOTONIC_ID);
	pb_varint(&clock, 2, w->info->start_ns);
	pb_message(&snap, SNAP_CLOCKS, &clock);
	pb_reset(&clock);
	pb_varint(&clock, 1, CLOCK_REALTIME_ID);
	pb_varint(&clock, 2, w->info->start_realtime_ns);
	pb_message(&snap, SNAP_CLOCKS, &clock);
	pb_varint(&snap, SNAP_PRIMARY, CLOCK_MONOTONIC_ID);
	pb_varint(&w->packet, PKT_TIMESTAMP, w->info->start_ns);
	pb_varint(&w->packet, PKT_CLOCK_ID, CLOCK_MONOTONIC_ID);
	pb_message(&w->packet, PKT_CLOCK_SNAPSHOT, &snap);
	pb_varint(&w->packet, PKT_SEQ_FLAGS, SEQ_INCREMENTAL_CLEARED);
	for (unsigned int i = 0; i < 5; i++) {
		pb_reset(&cat);
		pb_varint(&cat, 1, i + 1);
		pb_string(&cat, 2, categories[i]);
		pb_message(&interned, ID_CATEGORIES, &cat);
	}
	pb_message(&w->packet, PKT_INTERNED, &interned);
	emit_packet(w);
	pb_free(&snap);
	pb_free(&clock);
	pb_free(&interned);
	pb_free(&cat);

	describe_track(w, UUID_CPUS, 0, "CPUs", 1);
	describe_track(w, UUID_CUDA, 0, "CUDA (CUPTI)", 2);
	describe_track(w, UUID_OPENCL, 0, "OpenCL", 3);
	for (unsigned int i = 0; i < w->info->targets.count; i++) {
		const struct target *t = &w->info->targets.t[i];
		char name[96];

		snprintf(name, sizeof(name), "%s %04x:%04x %s", t->name, t->vendor, t->device, t->driver);
		describe_track(w, UUID_TARGET(i), 0, name, 10 + (int)i);
	}
	describe_track(w, UUID_TARGET(TARGET_MAX), 0, "unattributed", 10 + TARGET_MAX);
}

/* pt (a merged trace's host and guest) is not drawn here: perfetto.c does. */
static void *proto_begin(FILE *out, const struct trace_info *info,
			 const struct passthrough *pt)
{
	(void)pt;
	struct proto_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->out = out;
	w->info = info;
	return w;
}

/* Between the passes: flows linked, then the header packets. */
static void proto_between(void *state)
{
	struct proto_writer *w = state;

	link_flows(w);
	describe_processes(w);
}

static void proto_end(void *state)
{
	struct proto_writer *w = state;

	for (unsigned int i = 0; i < w->ninterned; i++)
		free(w->interned[i]);
	pb_free(&w->packet);
	pb_free(&w->body);
	pb_free(&w->sub);
	pb_free(&w->sub2);
	free(w->named_tracks);
	free(w->irqs);
	free(w->wakes);
	free(w->syncs);
	free(w->flows.irq_flow);
	free(w->flows.wake_flow);
	free(w->flows.wake_ends);
	free(w->flows.sync_flow);
	free(w);
}

const struct export_writer perfetto_proto_writer = {
	.begin = proto_begin,
	.prepass = proto_prepass,
	.between = proto_between,
	.record = proto_record,
	.end = proto_end,
};
