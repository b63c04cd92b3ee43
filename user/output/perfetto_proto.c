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
 *  - per-CPU interrupt tracks under "CPUs"; per target, a track per vector
 *    (the same slices, as the JSON export has), DMA and IOMMU spans on
 *    async lanes (a span goes to the first lane free at its start, so
 *    overlapping calls never break slice nesting) and a swiotlb track;
 *    the IOMMU parts of each DMA call nested in its slice, on its lane,
 *    those in no call (the flush queue's timer) on lanes of their own
 *    (those lanes: perfetto_proto_dma.c; perfetto_parts.c lays the parts
 *    out in the first pass: a part's record comes before its call's);
 *  - CUDA/OpenCL: the workload's process (its pid) with a track per
 *    stream/queue (device work), and its threads' own thread tracks
 *    (ThreadDescriptor pid/tid, which a Perfetto/ftrace trace of the run
 *    merges with the real threads) for API calls and waits, kernel names
 *    demangled.  Made-up ids (CPUs, targets): perfetto_ids.h;
 *  - flows interrupt -> wake-up -> the woken thread at the wake-up, inside
 *    the wait it ended (perfetto_flows.c finds them in a first pass: they
 *    need the whole file).
 */
#include <stdlib.h>
#include <string.h>

#include "attribute.h"
#include "demangle.h"
#include "export.h"
#include "perfetto_proto.h"
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
#define TD_THREAD			4
#define TD_PARENT			5
#define PD_PID				1
#define PD_NAME				6
#define THD_PID				1
#define THD_TID				2
#define TE_CATEGORY_IIDS		3
#define TE_DEBUG			4
#define TE_TYPE				9
#define TE_NAME_IID			10
#define TE_TRACK_UUID			11
#define TE_FLOW_IDS			47
#define TE_TERMINATING_FLOWS		48
#define DA_NAME				10
#define DA_UINT				3
#define DA_STRING			6
#define ID_CATEGORIES			1
#define ID_NAMES			2

/* interned once, iid = index + 1 */
static const char *const categories[] = { "irq", "dma", "iommu", "sched", "other", "iommu_part" };

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

/* true when uuid was described before (or cannot be remembered: then never again) */
static bool track_described(struct proto_writer *w, uint64_t uuid)
{
	bool fresh;

	return pf_synth_tid(&w->described, (int)(uuid >> 32), 0, (uint32_t)uuid, &fresh) < 0 ||
	       !fresh;
}

static void emit_descriptor(struct proto_writer *w, struct pb *td)
{
	pb_message(&w->packet, PKT_TRACK_DESCRIPTOR, td);
	emit_packet(w);
	pb_free(td);
}

void proto_describe_track(struct proto_writer *w, uint64_t uuid, uint64_t parent,
			  const char *name)
{
	struct pb td = { 0 };

	if (track_described(w, uuid))
		return;
	pb_varint(&td, TD_UUID, uuid);
	pb_string(&td, TD_NAME, name);
	if (parent)
		pb_varint(&td, TD_PARENT, parent);
	emit_descriptor(w, &td);
}

/* A process track: name NULL for a real process (its name is its own, ftrace's). */
static void describe_process(struct proto_writer *w, uint64_t uuid, int pid, const char *name)
{
	struct pb td = { 0 }, pd = { 0 };

	if (track_described(w, uuid))
		return;
	pb_varint(&td, TD_UUID, uuid);
	if (name)
		pb_string(&td, TD_NAME, name);
	pb_varint(&pd, PD_PID, (uint64_t)pid);
	if (name)
		pb_string(&pd, PD_NAME, name);
	pb_message(&td, TD_PROCESS, &pd);
	pb_free(&pd);
	emit_descriptor(w, &td);
}

/* Categories: their own table, one iid each, fixed; "other" for any not in it. */
static uint64_t category_iid(const char *category)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(categories); i++)
		if (!strcmp(categories[i], category))
			return i + 1;
	return 5;
}


void proto_track_event(struct proto_writer *w, uint64_t track, int type, uint64_t ts,
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
		pb_varint(te, TE_CATEGORY_IIDS, category_iid(category));
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

void proto_slice(struct proto_writer *w, uint64_t track, uint64_t ts, uint64_t dur,
		 const char *category, const char *name, const struct event_args *a)
{
	proto_track_event(w, track, TYPE_BEGIN, ts, category, name, a);
	proto_track_event(w, track, TYPE_END, ts + dur, category, name, NULL);
}

int proto_target_index(const struct proto_writer *w, uint32_t bdf)
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
	proto_describe_track(w, UUID_CPU(cpu), UUID_CPUS, name);
	return UUID_CPU(cpu);
}


static uint64_t vector_track(struct proto_writer *w, uint32_t bdf, uint32_t vector)
{
	int t = proto_target_index(w, bdf);
	char name[32];

	snprintf(name, sizeof(name), "vector %u", vector);
	proto_describe_track(w, UUID_VECTOR(t, vector), UUID_TARGET(t), name);
	return UUID_VECTOR(t, vector);
}

static void proto_irq(struct proto_writer *w, const struct gpuprobe_rec_irq *r)
{
	struct event_args a = { .keys = { "irq", "vector", "handled" },
				.values = { r->irq, r->vector, !!(r->hdr.flags & GPUPROBE_IRQ_HANDLED) } };
	char name[32];

	a.flow = pf_flows_next_irq(&w->flows);
	snprintf(name, sizeof(name), "irq %u", r->irq);
	proto_slice(w, cpu_track(w, r->hdr.cpu), r->hdr.ts_ns, r->duration_ns, "irq", name, &a);
	a.flow = 0;	/* the flow starts on the CPU's slice, once */
	proto_slice(w, vector_track(w, r->bdf, r->vector), r->hdr.ts_ns, r->duration_ns, "irq", name,
		    &a);
}

/* The workload's process (its own pid), else a made-up one for the API. */
static uint64_t process_track(struct proto_writer *w, uint32_t pid, int api)
{
	if (pf_known_id(pid)) {
		describe_process(w, UUID(U_PROC, 0, pid), (int)pid, NULL);
		return UUID(U_PROC, 0, pid);
	}
	describe_process(w, UUID(U_APP_PROC, 0, api), PF_SYNTH_PID(0, PF_PID_APP(api)),
			 api == GPUPROBE_APP_OPENCL ? "OpenCL" : "CUDA (CUPTI)");
	return UUID(U_APP_PROC, 0, api);
}

/*
 * A thread's own track: its ThreadDescriptor's pid/tid tie it to the real
 * thread (one track per thread, as Perfetto wants); named after the API
 * that first drew on it, the thread's name stays its own.
 */
static uint64_t thread_track(struct proto_writer *w, uint32_t pid, uint32_t tid, int api)
{
	uint32_t key = pf_known_id(pid) ? pid : 0;
	uint64_t uuid = UUID(U_THREAD, key, tid);
	struct pb td = { 0 }, thd = { 0 };
	char name[64];

	if (key)
		process_track(w, pid, api);
	if (track_described(w, uuid))
		return uuid;
	snprintf(name, sizeof(name), "%s thread %u", api == GPUPROBE_APP_OPENCL ? "OpenCL" : "CUDA",
		 tid);
	pb_varint(&td, TD_UUID, uuid);
	pb_string(&td, TD_NAME, name);
	if (key)
		pb_varint(&thd, THD_PID, key);
	pb_varint(&thd, THD_TID, tid);
	pb_message(&td, TD_THREAD, &thd);
	pb_free(&thd);
	emit_descriptor(w, &td);
	return uuid;
}

/* Device work: a track per stream/queue of the process; calls: their thread's. */
static uint64_t app_track(struct proto_writer *w, const struct gpuprobe_app_event *ev)
{
	int api = ev->api == GPUPROBE_APP_OPENCL ? GPUPROBE_APP_OPENCL : GPUPROBE_APP_CUDA;
	const char *api_name = api == GPUPROBE_APP_OPENCL ? "OpenCL" : "CUDA";
	bool host = ev->type >= GPUPROBE_APP_SYNC;
	uint32_t key = pf_known_id(ev->pid) ? ev->pid : 0, tid = 0;
	uint64_t proc, uuid;
	char name[64];

	if (host) {
		tid = pf_app_tid(&w->flows.calls, 0, ev);
		if (pf_known_id(tid))
			return thread_track(w, ev->pid, tid, api);
	}
	proc = process_track(w, ev->pid, api);
	if (host) {
		uuid = UUID(U_CALLS + api, key, 0);
		snprintf(name, sizeof(name), "%s calls, thread unknown", api_name);
	} else {
		uuid = UUID(U_STREAM + api, key, ev->stream);
		snprintf(name, sizeof(name), "%s %s %u", api_name,
			 api == GPUPROBE_APP_OPENCL ? "queue" : "stream", ev->stream);
	}
	proto_describe_track(w, uuid, proc, name);
	return uuid;
}

/*
 * A wake-up on its CPU; one that ended a wait goes on, at the same time, to
 * the woken thread's track, inside that wait, where its flow ends.  Written
 * right after the CPU's: Perfetto takes events of one timestamp in file
 * order, and the flow must pass the CPU first.
 */
static void proto_wakeup(struct proto_writer *w, const struct gpuprobe_rec_sched *r)
{
	struct event_args a = { .keys = { "pid", "target_cpu" }, .values = { r->pid, r->target_cpu } };
	struct pf_wake_link link = pf_flows_next_wake(&w->flows);

	if (link.tid)
		a.flow = link.flow;
	else
		a.end_flow = link.flow;
	proto_track_event(w, cpu_track(w, r->hdr.cpu), TYPE_INSTANT, r->hdr.ts_ns, "sched",
			  "wakeup", &a);
	if (!link.tid)
		return;
	a = (struct event_args){ .keys = { "cpu", "target_cpu" },
				 .values = { r->hdr.cpu, r->target_cpu }, .end_flow = link.flow };
	proto_track_event(w, thread_track(w, link.pid, link.tid, link.api), TYPE_INSTANT,
			  r->hdr.ts_ns, "sched", "wakeup", &a);
}

static void proto_app(struct proto_writer *w, const struct tracefile_rec_app *r)
{
	const struct gpuprobe_app_event *ev = &r->ev;
	struct event_args a = { .keys = { "bytes", "correlation", "pid" },
				.values = { ev->bytes, ev->correlation, ev->pid } };
	const char *name = strtab_whole(&w->strings, ev->name, ev->flags);
	char *whole;
	uint64_t track;

	if (ev->type >= GPUPROBE_APP_NOTE)
		return;
	track = app_track(w, ev);
	whole = demangle_whole(name);
	if (whole) {
		a.str_key = "mangled";
		a.str_value = name;
	}
	proto_slice(w, track, ev->start_ns, ev->end_ns - ev->start_ns, attr_type_name(ev->type),
		    whole ? whole : name, &a);
	free(whole);
}


static void proto_record(void *state, const struct gpuprobe_rec_hdr *h)
{
	struct proto_writer *w = state;

	switch (h->type) {
	case TRACEFILE_REC_STRING:
		strtab_add(&w->strings, h);
		break;
	case TRACEFILE_REC_APP:
		proto_app(w, (const struct tracefile_rec_app *)h);
		break;
	case GPUPROBE_EV_IRQ:
		proto_irq(w, (const struct gpuprobe_rec_irq *)h);
		break;
	case GPUPROBE_EV_DMA:
		proto_dma(w, (const struct gpuprobe_rec_dma *)h);
		break;
	case GPUPROBE_EV_IOMMU_PART:
		proto_part(w, (const struct gpuprobe_rec_iommu_part *)h);
		break;
	case GPUPROBE_EV_IOMMU:
		proto_iommu(w, (const struct gpuprobe_rec_iommu *)h);
		break;
	case GPUPROBE_EV_SWIOTLB:
		proto_swiotlb(w, (const struct gpuprobe_rec_swiotlb *)h);
		break;
	case GPUPROBE_EV_WAKEUP:
		proto_wakeup(w, (const struct gpuprobe_rec_sched *)h);
		break;
	case GPUPROBE_EV_LOST: {
		struct event_args a = { .keys = { "count" },
					.values = { ((const struct gpuprobe_rec_lost *)h)->count } };

		proto_track_event(w, cpu_track(w, h->cpu), TYPE_INSTANT, h->ts_ns, "other",
				  "records lost", &a);
		break;
	}
	}
}

static void proto_prepass(void *state, const struct gpuprobe_rec_hdr *h)
{
	struct proto_writer *w = state;

	pf_flows_add(&w->flows, h);
	pf_parts_add(&w->parts, h);
}

static void describe_processes(struct proto_writer *w)
{
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
	for (unsigned int i = 0; i < ARRAY_SIZE(categories); i++) {
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

	describe_process(w, UUID_CPUS, PF_SYNTH_PID(0, PF_PID_CPUS), "CPUs");
	for (unsigned int i = 0; i < w->info->targets.count; i++) {
		const struct target *t = &w->info->targets.t[i];
		char name[96];

		snprintf(name, sizeof(name), "%s %04x:%04x %s", t->name, t->vendor, t->device, t->driver);
		describe_process(w, UUID_TARGET(i), PF_SYNTH_PID(0, PF_PID_TARGET((int)i)), name);
	}
	describe_process(w, UUID_TARGET(TARGET_MAX), PF_SYNTH_PID(0, PF_PID_TARGET(TARGET_MAX)),
			 "unattributed");
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

	pf_flows_link(&w->flows);
	pf_parts_layout(&w->parts);
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
	pf_tracks_free(&w->described);
	pf_flows_free(&w->flows);
	pf_parts_free(&w->parts);
	strtab_free(&w->strings);
	free(w);
}

const struct export_writer perfetto_proto_writer = {
	.begin = proto_begin,
	.prepass = proto_prepass,
	.between = proto_between,
	.record = proto_record,
	.end = proto_end,
};
