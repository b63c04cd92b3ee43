// SPDX-License-Identifier: GPL-2.0
/*
 * `export --perfetto`: Chrome trace-event JSON for ui.perfetto.dev, streamed
 * record by record.
 *
 * Perfetto tracks: process 1 "CPUs" has one thread per CPU; each target has a
 * process with one thread per vector, plus "DMA" and "IOMMU" threads.
 * Timestamps stay absolute CLOCK_MONOTONIC, so other monotonic traces
 * (CUPTI, OpenCL mapped to host time) line up.
 *
 * A merged trace (record --guest): the guest's tracks are processes of
 * their own, PID_GUEST_OFFSET above the host's, its times on the host clock
 * through the file's clock fit, and a flow arrow goes from each host
 * interrupt to the guest interrupt it became.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "attribute.h"
#include "export.h"
#include "json.h"
#include "machine.h"
#include "tracefile.h"
#include "util.h"

#define PID_CPUS		1
#define PID_CUDA		2
#define PID_OPENCL		3
#define TID_HOST_BASE		1000000	/* host threads; device streams below */
#define PID_TARGET_BASE		10
#define TID_DMA			1
#define TID_IOMMU		2
#define TID_VECTOR_BASE		100
#define MAX_NAMED_TRACKS	4096
#define TRACK_SLOTS		(2 * MAX_NAMED_TRACKS)	/* power of two */
#define PID_GUEST_OFFSET	1000

struct exporter {
	FILE *out;
	const struct trace_info *info;		/* of the machine whose record is written */
	const struct trace_info *host_info;
	const struct passthrough *pt;
	int pid_offset;				/* PID_GUEST_OFFSET while writing a guest's record */
	bool first_event;
	/* tracks already named, (pid << 32 | tid) + 1 by hash; 0 = empty slot */
	unsigned int ntracks;
	uint64_t tracks[TRACK_SLOTS];
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
			return e->pid_offset + PID_TARGET_BASE + (int)i;
	return e->pid_offset + PID_TARGET_BASE + TARGET_MAX;	/* unattributed or unknown */
}

static void name_process(struct exporter *e, int pid, const char *name, int sort)
{
	begin_event(e);
	fprintf(e->out, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":", pid);
	json_write_escaped(e->out, name);
	fprintf(e->out, "}},\n{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}",
		pid, sort);
}

/* Name a track the first time an event lands on it. */
static void use_track(struct exporter *e, int pid, int tid, const char *prefix, int number)
{
	uint64_t key = ((uint64_t)pid << 32 | (uint32_t)tid) + 1;
	unsigned int slot = (unsigned int)((key * 0x9e3779b97f4a7c15ull) >> 40) & (TRACK_SLOTS - 1);
	char name[64];

	for (; e->tracks[slot]; slot = (slot + 1) & (TRACK_SLOTS - 1))
		if (e->tracks[slot] == key)
			return;
	if (e->ntracks < MAX_NAMED_TRACKS) {	/* beyond: named again, harmless */
		e->tracks[slot] = key;
		e->ntracks++;
	}
	if (number >= 0)
		snprintf(name, sizeof(name), "%s %d", prefix, number);
	else
		snprintf(name, sizeof(name), "%s", prefix);
	begin_event(e);
	fprintf(e->out, "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":\"%s\"}}",
		pid, tid, name);
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
	int pid = target_pid(e, r->bdf), tid = TID_VECTOR_BASE + (int)r->vector;
	char name[32];

	snprintf(name, sizeof(name), "irq %u", r->irq);
	use_track(e, e->pid_offset + PID_CPUS, r->hdr.cpu, "CPU", r->hdr.cpu);
	use_track(e, pid, tid, "vector", (int)r->vector);
	for (int pass = 0; pass < 2; pass++) {
		complete_event(e, pass ? pid : e->pid_offset + PID_CPUS, pass ? tid : r->hdr.cpu, "irq", name,
			       r->hdr.ts_ns, r->duration_ns);
		fprintf(e->out, ",\"args\":{\"vector\":%u,\"handled\":%s}}", r->vector,
			r->hdr.flags & GPUPROBE_IRQ_HANDLED ? "true" : "false");
	}
}

static void perfetto_dma(struct exporter *e, const struct gpuprobe_rec_dma *r)
{
	int pid = target_pid(e, r->bdf);

	use_track(e, pid, TID_DMA, "DMA", -1);
	complete_event(e, pid, TID_DMA, "dma", dma_op_name(r->op), r->hdr.ts_ns, r->duration_ns);
	fprintf(e->out, ",\"args\":{\"bytes\":%" PRIu64 ",\"nents\":%u,\"dir\":%u,\"dma_addr\":\"0x%" PRIx64 "\"}}",
		(uint64_t)r->bytes, r->nents, r->dir, (uint64_t)r->dma_addr);
}

static void perfetto_iommu(struct exporter *e, const struct gpuprobe_rec_iommu *r)
{
	int pid = target_pid(e, r->bdf);

	use_track(e, pid, TID_IOMMU, "IOMMU", -1);
	complete_event(e, pid, TID_IOMMU, "iommu", iommu_op_name(r->op), r->hdr.ts_ns,
		       r->duration_ns);
	fprintf(e->out, ",\"args\":{\"size\":%" PRIu64 ",\"iova\":\"0x%" PRIx64 "\"}}",
		(uint64_t)r->size, (uint64_t)r->iova);
}

static void perfetto_instant(struct exporter *e, const struct gpuprobe_rec_hdr *h,
			     const char *name, const char *scope)
{
	use_track(e, e->pid_offset + PID_CPUS, h->cpu, "CPU", h->cpu);
	begin_event(e);
	fprintf(e->out, "{\"ph\":\"i\",\"s\":\"%s\",\"pid\":%d,\"tid\":%u,\"cat\":\"%s\",\"name\":\"%s\",\"ts\":",
		scope, e->pid_offset + PID_CPUS, h->cpu, tracefile_record_type_name(h->type), name);
	print_us(e->out, h->ts_ns);
	fputs("}", e->out);
}

/* CUDA/OpenCL: device work on one track per stream/queue, calls per thread. */
static void perfetto_app(struct exporter *e, const struct tracefile_rec_app *r)
{
	const struct gpuprobe_app_event *ev = &r->ev;
	int pid = e->pid_offset + (ev->api == GPUPROBE_APP_OPENCL ? PID_OPENCL : PID_CUDA);
	bool host = ev->type >= GPUPROBE_APP_SYNC;
	int tid = host ? TID_HOST_BASE + (int)(ev->tid % TID_HOST_BASE) : (int)ev->stream;

	if (ev->type >= GPUPROBE_APP_NOTE)	/* notes, device maps, clock points: no time span */
		return;
	use_track(e, pid, tid, host ? "thread" : ev->api != GPUPROBE_APP_OPENCL ? "stream" : "queue",
		  host ? (int)ev->tid : (int)ev->stream);
	begin_event(e);
	fprintf(e->out, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"cat\":\"%s\",\"name\":",
		pid, tid, attr_type_name(ev->type));
	json_write_escaped(e->out, ev->name);
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
 * A guest's record: its times moved to the host clock (the fit of the
 * report, else the writer's), drawn on the guest's processes.
 */
static void perfetto_guest(struct exporter *e, const struct tracefile_rec_guest *g)
{
	static unsigned char buf[TRACEFILE_REC_MAX_SIZE];
	const struct gpuprobe_rec_hdr *in = guest_record_inner(g);
	struct gpuprobe_rec_hdr *copy = (void *)buf;
	uint64_t host = g->hdr.ts_ns;
	int64_t delta;

	if (!e->pt || !e->pt->guest || g->machine != MACHINE_GUEST)
		return;
	if (e->pt->have_fit)
		clock_guest_to_host(&e->pt->fit, in->ts_ns, &host);
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
	e->info = &e->pt->guest->info;
	e->pid_offset = PID_GUEST_OFFSET;
	perfetto_record(e, copy);
	e->info = e->host_info;
	e->pid_offset = 0;
}

static void perfetto_record(void *state, const struct gpuprobe_rec_hdr *h)
{
	struct exporter *e = state;

	switch (h->type) {
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
static void name_machine(struct exporter *e, const struct trace_info *info, int offset,
			 const char *prefix)
{
	char name[160];

	snprintf(name, sizeof(name), "%sCPUs", prefix);
	name_process(e, offset + PID_CPUS, name, offset);
	snprintf(name, sizeof(name), "%sCUDA (CUPTI)", prefix);
	name_process(e, offset + PID_CUDA, name, offset + 1);
	snprintf(name, sizeof(name), "%sOpenCL", prefix);
	name_process(e, offset + PID_OPENCL, name, offset + 1);
	for (unsigned int i = 0; i < info->targets.count; i++) {
		const struct target *t = &info->targets.t[i];

		snprintf(name, sizeof(name), "%s%s %04x:%04x %s", prefix, t->name, t->vendor,
			 t->device, t->driver);
		name_process(e, offset + PID_TARGET_BASE + (int)i, name, offset + 1 + (int)i);
	}
	snprintf(name, sizeof(name), "%sunattributed", prefix);
	name_process(e, offset + PID_TARGET_BASE + TARGET_MAX, name, offset + 1000);
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
		char prefix[96];

		snprintf(prefix, sizeof(prefix), "host %s: ", info->host);
		name_machine(e, info, 0, prefix);
		snprintf(prefix, sizeof(prefix), "guest %s: ", pt->guest->info.host);
		name_machine(e, &pt->guest->info, PID_GUEST_OFFSET, prefix);
	} else {
		name_machine(e, info, 0, "");
	}
	return e;
}

/* Host interrupt -> the guest interrupt it became, as flow arrows between the CPU slices. */
static void perfetto_flows(struct exporter *e)
{
	for (uint64_t i = 0; e->pt && e->pt->pairs && i < e->pt->irq_paired; i++) {
		const struct pt_pair *p = &e->pt->pairs[i];

		begin_event(e);
		fprintf(e->out, "{\"ph\":\"s\",\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":%u,\"cat\":\"passthrough\",\"name\":\"msi to guest\",\"ts\":",
			i + 1, PID_CPUS, p->host_cpu);
		print_us(e->out, p->host_ts);
		fputs("}", e->out);
		begin_event(e);
		fprintf(e->out, "{\"ph\":\"f\",\"bp\":\"e\",\"id\":%" PRIu64 ",\"pid\":%d,\"tid\":%u,\"cat\":\"passthrough\",\"name\":\"msi to guest\",\"ts\":",
			i + 1, PID_GUEST_OFFSET + PID_CPUS, p->guest_cpu);
		print_us(e->out, p->guest_ts);
		fputs("}", e->out);
	}
}

static void perfetto_end(void *state)
{
	struct exporter *e = state;

	perfetto_flows(e);
	fputs("\n]}\n", e->out);
	free(e);
}

const struct export_writer perfetto_writer = {
	.begin = perfetto_begin,
	.record = perfetto_record,
	.end = perfetto_end,
};
