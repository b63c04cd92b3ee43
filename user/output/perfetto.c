// SPDX-License-Identifier: GPL-2.0
/*
 * `export --perfetto`: Chrome trace-event JSON for ui.perfetto.dev, streamed
 * record by record.
 *
 * Perfetto tracks: process "CPUs" has one thread per CPU; each target has a
 * process with one thread per vector, plus "DMA" and "IOMMU" threads; the
 * workload's CUDA/OpenCL calls are on its own threads (its pid and tids),
 * device work on a thread per stream/queue of its process.  Which ids are
 * real and which made up (above PID_MAX_LIMIT): perfetto_ids.h.
 * Timestamps stay absolute CLOCK_MONOTONIC, so other monotonic traces
 * (CUPTI, OpenCL mapped to host time) line up.
 *
 * A merged trace (record --guest): the guest's tracks are processes of
 * their own (made-up ids of machine 1, the guest's tasks' ids moved above
 * the host's), its times on the host clock through the file's clock fit,
 * and a flow arrow goes from each host interrupt to the guest interrupt it
 * became.
 *
 * Two passes when the trace may hold application events: a CUPTI sync
 * record names no thread, the API call with its correlation id does.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "iommu_parts.h"
#include "agg.h"
#include "attribute.h"
#include "export.h"
#include "json.h"
#include "machine.h"
#include "perfetto_ids.h"
#include "strtab.h"
#include "tracefile.h"
#include "util.h"

/* made-up threads: what they are */
enum track_kind { TK_CPU = 1, TK_VECTOR, TK_DMA, TK_IOMMU, TK_STREAM, TK_CALLS = TK_STREAM + 4,
		  TK_FQ = TK_CALLS + 4, TK_KVM };

struct exporter {
	FILE *out;
	const struct trace_info *info;		/* of the machine whose record is written */
	const struct trace_info *host_info;
	const struct passthrough *pt;
	int machine;				/* 1 while writing a guest's record */
	bool first_event;
	bool app_named[2][3];			/* made-up API processes named, by machine, api */
	struct pf_tracks tracks;		/* made-up threads, named at first use */
	struct pf_calls calls;			/* pass one: API calls, for syncs' threads */
	char prefix[2][96];			/* merged: "host NAME: ", "guest NAME: " */
	struct strtab strings;			/* whole names (TRACEFILE_REC_STRING) */
};


static void begin_event(struct exporter *e)
{
	fputs(e->first_event ? "\n" : ",\n", e->out);
	e->first_event = false;
}

static void print_us(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%03u", ns / 1000, (unsigned int)(ns % 1000));
}

static int target_pid(const struct exporter *e, uint32_t bdf)
{
	for (unsigned int i = 0; i < e->info->targets.count; i++)
		if (e->info->targets.t[i].bdf == bdf)
			return PF_SYNTH_PID(e->machine, PF_PID_TARGET((int)i));
	return PF_SYNTH_PID(e->machine, PF_PID_TARGET(TARGET_MAX));	/* unattributed or unknown */
}

static void name_process(struct exporter *e, int pid, const char *name, int sort)
{
	begin_event(e);
	fprintf(e->out, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":", pid);
	json_write_escaped(e->out, name);
	fprintf(e->out, "}},\n{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}",
		pid, sort);
}

/*
 * The made-up thread (kind, id) of process pid, named "prefix number" (or
 * "prefix" for number < 0) the first time an event lands on it.
 */
static int synth_track(struct exporter *e, int pid, enum track_kind kind, uint32_t id,
		       const char *prefix, int number)
{
	bool fresh;
	int tid = pf_synth_tid(&e->tracks, pid, kind, id, &fresh);
	char name[64];

	if (tid < 0)	/* out of memory: one thread for the rest, unnamed */
		return PF_SYNTH_TID_END - 1;
	if (!fresh)
		return tid;
	if (number >= 0)
		snprintf(name, sizeof(name), "%s %d", prefix, number);
	else
		snprintf(name, sizeof(name), "%s", prefix);
	begin_event(e);
	fprintf(e->out, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":\"%s\"}}",
		pid, tid, name);
	return tid;
}

static int cpu_tid(struct exporter *e, int machine, unsigned int cpu)
{
	return synth_track(e, PF_SYNTH_PID(machine, PF_PID_CPUS), TK_CPU, cpu, "CPU", (int)cpu);
}

static void complete_event(struct exporter *e, int pid, int tid, const char *cat,
			   const char *name, uint64_t ts, uint64_t dur)
{
	begin_event(e);
	fprintf(e->out, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"cat\":\"%s\",\"name\":\"%s\",\"ts\":",
		pid, tid, cat, name);
	print_us(e->out, ts);
	fputs(",\"dur\":", e->out);
	print_us(e->out, dur);
}

static void perfetto_irq(struct exporter *e, const struct gpuprobe_rec_irq *r)
{
	int pid = target_pid(e, r->bdf), cpus = PF_SYNTH_PID(e->machine, PF_PID_CPUS);
	int cpu = cpu_tid(e, e->machine, r->hdr.cpu);
	int tid = synth_track(e, pid, TK_VECTOR, r->vector, "vector", (int)r->vector);
	char name[32];

	snprintf(name, sizeof(name), "irq %u", r->irq);
	for (int pass = 0; pass < 2; pass++) {
		complete_event(e, pass ? pid : cpus, pass ? tid : cpu, "irq", name,
			       r->hdr.ts_ns, r->duration_ns);
		fprintf(e->out, ",\"args\":{\"vector\":%u,\"handled\":%s}}", r->vector,
			r->hdr.flags & GPUPROBE_IRQ_HANDLED ? "true" : "false");
	}
}

static void perfetto_dma(struct exporter *e, const struct gpuprobe_rec_dma *r)
{
	int pid = target_pid(e, r->bdf), tid = synth_track(e, pid, TK_DMA, 0, "DMA", -1);

	complete_event(e, pid, tid, "dma", dma_op_name(r->op), r->hdr.ts_ns, r->duration_ns);
	fprintf(e->out, ",\"args\":{\"bytes\":%" PRIu64 ",\"nents\":%u,\"dir\":%u,\"dma_addr\":\"0x%" PRIx64 "\"}}",
		(uint64_t)r->bytes, r->nents, r->dir, (uint64_t)r->dma_addr);
}

static void perfetto_iommu(struct exporter *e, const struct gpuprobe_rec_iommu *r)
{
	int pid = target_pid(e, r->bdf), tid = synth_track(e, pid, TK_IOMMU, 0, "IOMMU", -1);

	complete_event(e, pid, tid, "iommu", iommu_op_name(r->op), r->hdr.ts_ns,
		       r->duration_ns);
	fprintf(e->out, ",\"args\":{\"size\":%" PRIu64 ",\"iova\":\"0x%" PRIx64 "\"}}",
		(uint64_t)r->size, (uint64_t)r->iova);
}

/*
 * A part of a DMA call's IOMMU work on the call's own track, where it nests
 * inside the call's slice; the flush queue's timer on a track of its own.
 */
static void perfetto_part(struct exporter *e, const struct gpuprobe_rec_iommu_part *r)
{
	int pid = target_pid(e, r->bdf);
	int tid = r->call_ts ? synth_track(e, pid, TK_DMA, 0, "DMA", -1) :
			       synth_track(e, pid, TK_FQ, 0, "IOMMU flush queue", -1);

	complete_event(e, pid, tid, "iommu_part", iommu_part_name(r->part), r->hdr.ts_ns,
		       r->duration_ns);
	fprintf(e->out, ",\"args\":{\"self_ns\":%" PRIu64 ",\"depth\":%u,\"arg\":%u}}",
		(uint64_t)r->self_ns, r->depth, r->arg);
}

static void perfetto_instant(struct exporter *e, const struct gpuprobe_rec_hdr *h,
			     const char *name, const char *scope)
{
	int cpu = cpu_tid(e, e->machine, h->cpu);

	begin_event(e);
	fprintf(e->out, "{\"ph\":\"i\",\"s\":\"%s\",\"pid\":%d,\"tid\":%d,\"cat\":\"%s\",\"name\":\"%s\",\"ts\":",
		scope, PF_SYNTH_PID(e->machine, PF_PID_CPUS), cpu, tracefile_record_type_name(h->type), name);
	print_us(e->out, h->ts_ns);
	fputs("}", e->out);
}

/*
 * The process and thread of an app event: the workload's own where the
 * event names them; a made-up process per API for events of no known pid,
 * a made-up thread per stream/queue, and one for calls of no known thread.
 */
static void app_track(struct exporter *e, const struct gpuprobe_app_event *ev, int *pid, int *tid)
{
	int api = ev->api == GPUPROBE_APP_OPENCL ? GPUPROBE_APP_OPENCL : GPUPROBE_APP_CUDA;
	const char *api_name = api == GPUPROBE_APP_OPENCL ? "OpenCL" : "CUDA";
	bool host = ev->type >= GPUPROBE_APP_SYNC;
	uint32_t thread = host ? pf_app_tid(&e->calls, e->machine, ev) : 0;
	char prefix[128];

	if (pf_known_id(ev->pid)) {
		*pid = pf_real_id(e->machine, ev->pid);
	} else {
		*pid = PF_SYNTH_PID(e->machine, PF_PID_APP(api));
		if (!e->app_named[e->machine][api]) {
			e->app_named[e->machine][api] = true;
			snprintf(prefix, sizeof(prefix), "%s%s", e->prefix[e->machine],
				 api == GPUPROBE_APP_OPENCL ? "OpenCL" : "CUDA (CUPTI)");
			name_process(e, *pid, prefix, e->machine * 1000 + 1);
		}
	}
	if (host && pf_known_id(thread)) {
		*tid = pf_real_id(e->machine, thread);	/* the task's own name is ftrace's */
	} else if (host) {
		snprintf(prefix, sizeof(prefix), "%s calls, thread unknown", api_name);
		*tid = synth_track(e, *pid, TK_CALLS + api, 0, prefix, -1);
	} else {
		snprintf(prefix, sizeof(prefix), "%s %s", api_name,
			 api == GPUPROBE_APP_OPENCL ? "queue" : "stream");
		*tid = synth_track(e, *pid, TK_STREAM + api, ev->stream, prefix, (int)ev->stream);
	}
}

/* CUDA/OpenCL: device work on one track per stream/queue, calls per thread. */
static void perfetto_app(struct exporter *e, const struct tracefile_rec_app *r)
{
	const struct gpuprobe_app_event *ev = &r->ev;
	int pid, tid;

	if (ev->type >= GPUPROBE_APP_NOTE)	/* notes, device maps, clock points: no time span */
		return;
	app_track(e, ev, &pid, &tid);
	begin_event(e);
	fprintf(e->out, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"cat\":\"%s\",\"name\":",
		pid, tid, attr_type_name(ev->type));
	/* whole, as CUPTI named it (the JSON trace has always kept names mangled) */
	json_write_escaped(e->out, strtab_whole(&e->strings, ev->name, ev->flags));
	fputs(",\"ts\":", e->out);
	print_us(e->out, ev->start_ns);
	fputs(",\"dur\":", e->out);
	print_us(e->out, ev->end_ns - ev->start_ns);
	fprintf(e->out, ",\"args\":{\"bytes\":%" PRIu64 ",\"direction\":\"%s\",\"correlation\":%" PRIu64 ",\"pid\":%u}}",
		(uint64_t)ev->bytes, ev->type == GPUPROBE_APP_MEMCPY ? attr_copy_name(ev->kind) : "",
		(uint64_t)ev->correlation, ev->pid);
}

static void perfetto_record(void *state, const struct gpuprobe_rec_hdr *h);

/*
 * A guest's record with its times moved to the host clock (the fit of the
 * report, else the writer's); NULL when the guest is not drawn.
 */
static const struct gpuprobe_rec_hdr *guest_copy(const struct exporter *e,
						 const struct tracefile_rec_guest *g)
{
	static unsigned char buf[TRACEFILE_REC_MAX_SIZE];
	const struct gpuprobe_rec_hdr *in = guest_record_inner(g);
	struct gpuprobe_rec_hdr *copy = (void *)buf;
	uint64_t host = g->hdr.ts_ns;
	int64_t delta;

	if (!e->pt || !e->pt->guest || g->machine != MACHINE_GUEST)
		return NULL;
	/*
	 * The pairs' clock: the exact one where the report used it (its
	 * counter of unsampled times is the only state it changes).
	 */
	if (!e->pt->clock_exact ||
	    !tsc_guest_to_host((struct tsc_clock *)e->pt->tsc, in->ts_ns, in->cpu, &host)) {
		if (e->pt->have_fit)
			clock_guest_to_host(&e->pt->fit, in->ts_ns, &host);
	}
	delta = (int64_t)(host - in->ts_ns);
	memcpy(buf, in, in->size);
	copy->ts_ns += (uint64_t)delta;
	if (copy->type == TRACEFILE_REC_APP && copy->size >= sizeof(struct tracefile_rec_app)) {
		struct gpuprobe_app_event *ev = &((struct tracefile_rec_app *)buf)->ev;

		ev->start_ns += (uint64_t)delta;
		ev->end_ns += (uint64_t)delta;
		if (ev->queued_ns)
			ev->queued_ns += (uint64_t)delta;
	}
	return copy;
}

/* A guest's record, drawn on the guest's processes. */
static void perfetto_guest(struct exporter *e, const struct tracefile_rec_guest *g)
{
	const struct gpuprobe_rec_hdr *copy = guest_copy(e, g);

	if (!copy)
		return;
	e->info = &e->pt->guest->info;
	e->machine = 1;
	perfetto_record(e, copy);
	e->info = e->host_info;
	e->machine = 0;
}

static void perfetto_record(void *state, const struct gpuprobe_rec_hdr *h)
{
	struct exporter *e = state;

	switch (h->type) {
	case TRACEFILE_REC_STRING:
		strtab_add(&e->strings, h);
		break;
	case TRACEFILE_REC_GUEST:
		perfetto_guest(e, (const struct tracefile_rec_guest *)h);
		break;
	case TRACEFILE_REC_APP:
		perfetto_app(e, (const struct tracefile_rec_app *)h);
		break;
	case GPUPROBE_EV_IRQ:
		perfetto_irq(e, (const struct gpuprobe_rec_irq *)h);
		break;
	case GPUPROBE_EV_DMA:
		perfetto_dma(e, (const struct gpuprobe_rec_dma *)h);
		break;
	case GPUPROBE_EV_IOMMU:
		perfetto_iommu(e, (const struct gpuprobe_rec_iommu *)h);
		break;
	case GPUPROBE_EV_IOMMU_PART:
		perfetto_part(e, (const struct gpuprobe_rec_iommu_part *)h);
		break;
	case GPUPROBE_EV_WAKEUP:
	case GPUPROBE_EV_SWITCH:
	case GPUPROBE_EV_SWIOTLB:
	case TRACEFILE_REC_KVM:
		perfetto_instant(e, h, tracefile_record_type_name(h->type), "t");
		break;
	case GPUPROBE_EV_LOST:
		perfetto_instant(e, h, "records lost", "g");
		break;
	}
}

/* One machine's processes; prefix "" for a single machine's trace (names as ever). */
static void name_machine(struct exporter *e, const struct trace_info *info, int machine,
			 const char *prefix)
{
	char name[160];

	snprintf(name, sizeof(name), "%sCPUs", prefix);
	name_process(e, PF_SYNTH_PID(machine, PF_PID_CPUS), name, machine * 1000);
	for (unsigned int i = 0; i < info->targets.count; i++) {
		const struct target *t = &info->targets.t[i];

		snprintf(name, sizeof(name), "%s%s %04x:%04x %s", prefix, t->name, t->vendor,
			 t->device, t->driver);
		name_process(e, PF_SYNTH_PID(machine, PF_PID_TARGET((int)i)), name,
			     machine * 1000 + 2 + (int)i);
	}
	snprintf(name, sizeof(name), "%sunattributed", prefix);
	name_process(e, PF_SYNTH_PID(machine, PF_PID_TARGET(TARGET_MAX)), name, machine * 1000 + 999);
}

static void *perfetto_begin(FILE *out, const struct trace_info *info, const struct passthrough *pt)
{
	struct exporter *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->out = out;
	e->info = e->host_info = info;
	e->pt = pt && pt->merged && pt->guest ? pt : NULL;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", e->out);
	e->first_event = true;
	if (e->pt) {
		snprintf(e->prefix[0], sizeof(e->prefix[0]), "host %s: ", info->host);
		snprintf(e->prefix[1], sizeof(e->prefix[1]), "guest %s: ", pt->guest->info.host);
	}
	name_machine(e, info, 0, e->prefix[0]);
	if (e->pt)
		name_machine(e, &pt->guest->info, 1, e->prefix[1]);
	return e;
}

/* Pass one, only when the trace may hold application events: the API calls. */
static bool perfetto_wants_prepass(void *state)
{
	const struct exporter *e = state;

	return e->host_info->app_events != TRACEFILE_APP_NONE || e->pt;
}

static void perfetto_prepass(void *state, const struct gpuprobe_rec_hdr *h)
{
	struct exporter *e = state;
	int machine = 0;

	if (h->type == TRACEFILE_REC_GUEST) {
		h = guest_copy(e, (const struct tracefile_rec_guest *)h);
		machine = 1;
	}
	if (h && h->type == TRACEFILE_REC_APP && h->size >= sizeof(struct tracefile_rec_app))
		pf_calls_add(&e->calls, machine, &((const struct tracefile_rec_app *)h)->ev);
}

static void perfetto_between(void *state)
{
	pf_calls_sort(&((struct exporter *)state)->calls);
}

/* A hop of flow id: 's' its start, 't' a step, 'f' its end; each binds to the slice around ts on its track. */
static void flow_hop(struct exporter *e, char ph, uint64_t id, int pid, int tid, uint64_t ts)
{
	begin_event(e);
	fprintf(e->out, "{\"ph\":\"%c\",%s\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":%d,\"cat\":\"passthrough\",\"name\":\"msi to guest\",\"ts\":",
		ph, ph == 'f' ? "\"bp\":\"e\"," : "", id, pid, tid);
	print_us(e->out, ts);
	fputs("}", e->out);
}

/* Where pair i's slices on the vCPU thread end: at the same thread's next injection (slices on a track nest). */
static uint64_t next_injection(const struct exporter *e, uint64_t i, uint64_t end)
{
	const struct pt_pair *p = &e->pt->pairs[i];

	for (uint64_t j = i + 1; j < e->pt->irq_paired && j < i + 64; j++) {
		const struct pt_pair *q = &e->pt->pairs[j];

		if (q->inject_ts && q->vcpu_tid == p->vcpu_tid && q->inject_ts >= p->inject_ts)
			return q->inject_ts < end ? q->inject_ts : end;
	}
	return end;
}

/*
 * Pair i's injection, on the vCPU thread that did it (the VMM's real pid
 * and tid, as an ftrace trace beside this one has them), else on a track
 * of its own.  Where the host path found the VM entry that delivered it:
 * two slices, injection -> that entry, entry -> the guest handler's entry
 * (the vCPU thread runs the guest then); else one, injection -> the guest
 * handler.  *entry_hop: whether the second was drawn (a flow hop there).
 */
static void injection_slices(struct exporter *e, uint64_t i, int *pid, int *tid, bool *entry_hop)
{
	const struct pt_pair *p = &e->pt->pairs[i];
	bool split = p->entry_ts > p->inject_ts;
	uint64_t end = next_injection(e, i, split ? p->entry_ts :
				      p->guest_ts > p->inject_ts ? p->guest_ts : p->inject_ts + 1);

	if (pf_known_id(p->vmm_pid) && pf_known_id(p->vcpu_tid)) {
		*pid = pf_real_id(0, p->vmm_pid);
		*tid = pf_real_id(0, p->vcpu_tid);
	} else {
		*pid = PF_SYNTH_PID(0, PF_PID_CPUS);
		*tid = synth_track(e, *pid, TK_KVM, 0, "KVM injections", -1);
	}
	complete_event(e, *pid, *tid, "passthrough", split ? "KVM injection -> VM entry" :
		       "KVM injection -> guest entry", p->inject_ts, end > p->inject_ts ? end - p->inject_ts : 1);
	fputs("}", e->out);
	*entry_hop = split && end == p->entry_ts && p->guest_ts > p->entry_ts;
	if (!*entry_hop)
		return;
	end = next_injection(e, i, p->guest_ts);
	complete_event(e, *pid, *tid, "passthrough", "VM entry -> guest handler", p->entry_ts,
		       end - p->entry_ts);
	fputs("}", e->out);
}

/*
 * Each paired interrupt as one flow: the host handler (host CPU) -> its
 * irqfd step inside it (kvm_msi_set_irq: a 1 ns slice nested in the
 * handler's) -> KVM's injection (the vCPU thread) -> the VM entry that
 * delivers it (the same thread) -> the guest handler (guest CPU) -> the
 * guest thread it woke (that thread's track, a 1 ns slice at the
 * wake-up).  Hops the trace lacks are left out; without a wake-up the flow
 * ends at the guest handler.  The EOI, after the handler, is not a hop.
 */
static void perfetto_flows(struct exporter *e)
{
	for (uint64_t i = 0; e->pt && e->pt->pairs && i < e->pt->irq_paired; i++) {
		const struct pt_pair *p = &e->pt->pairs[i];
		int host = cpu_tid(e, 0, p->host_cpu), guest = cpu_tid(e, 1, p->guest_cpu);
		bool woke = p->wake_ts && pf_known_id(p->wake_tid), entry_hop;
		int pid, tid;

		flow_hop(e, 's', i + 1, PF_SYNTH_PID(0, PF_PID_CPUS), host, p->host_ts);
		if (p->irqfd_ts > p->host_ts && p->irqfd_ts < p->host_ts + p->host_duration) {
			complete_event(e, PF_SYNTH_PID(0, PF_PID_CPUS), host, "passthrough",
				       "irqfd (kvm_msi_set_irq)", p->irqfd_ts, 1);
			fputs("}", e->out);
			flow_hop(e, 't', i + 1, PF_SYNTH_PID(0, PF_PID_CPUS), host, p->irqfd_ts);
		}
		if (p->inject_ts) {
			injection_slices(e, i, &pid, &tid, &entry_hop);
			flow_hop(e, 't', i + 1, pid, tid, p->inject_ts);
			if (entry_hop)
				flow_hop(e, 't', i + 1, pid, tid, p->entry_ts);
		}
		flow_hop(e, woke ? 't' : 'f', i + 1, PF_SYNTH_PID(1, PF_PID_CPUS), guest, p->guest_ts);
		if (!woke)
			continue;
		pid = pf_real_id(1, pf_known_id(p->wake_pid) ? p->wake_pid : p->wake_tid);
		tid = pf_real_id(1, p->wake_tid);
		complete_event(e, pid, tid, "passthrough", "woken by the guest interrupt", p->wake_ts, 1);
		fputs("}", e->out);
		flow_hop(e, 'f', i + 1, pid, tid, p->wake_ts);
	}
}

static void perfetto_end(void *state)
{
	struct exporter *e = state;

	perfetto_flows(e);
	fputs("\n]}\n", e->out);
	pf_tracks_free(&e->tracks);
	pf_calls_free(&e->calls);
	strtab_free(&e->strings);
	free(e);
}

const struct export_writer perfetto_writer = {
	.begin = perfetto_begin,
	.wants_prepass = perfetto_wants_prepass,
	.prepass = perfetto_prepass,
	.between = perfetto_between,
	.record = perfetto_record,
	.end = perfetto_end,
};
