// SPDX-License-Identifier: GPL-2.0
/*
 * `gpuprobe-trace export`: Chrome trace-event JSON for ui.perfetto.dev and
 * flat CSV, both streamed record by record.
 *
 * Perfetto tracks: process 1 "CPUs" has one thread per CPU; each target has a
 * process with one thread per vector, plus "DMA" and "IOMMU" threads.
 * Timestamps stay absolute CLOCK_MONOTONIC, so other monotonic traces
 * (CUPTI, OpenCL mapped to host time) line up.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg.h"
#include "attribute.h"
#include "cmds.h"
#include "json.h"
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

struct exporter {
	FILE *out;
	const struct trace_info *info;
	bool first_event;
	/* tracks already named, (pid << 32 | tid) + 1 by hash; 0 = empty slot */
	unsigned int ntracks;
	uint64_t tracks[TRACK_SLOTS];
};

static const char *record_type_name(uint16_t type)
{
	switch (type) {
	case GPUPROBE_EV_IRQ:		return "irq";
	case GPUPROBE_EV_LOST:		return "lost";
	case GPUPROBE_EV_TARGET:	return "target";
	case GPUPROBE_EV_WAKEUP:	return "wakeup";
	case GPUPROBE_EV_SWITCH:	return "switch";
	case GPUPROBE_EV_DMA:		return "dma";
	case GPUPROBE_EV_IOMMU:		return "iommu";
	case GPUPROBE_EV_SWIOTLB:	return "swiotlb";
	case TRACEFILE_REC_IRQ_COUNT:	return "irq_count";
	case TRACEFILE_REC_APP:		return "app";
	default:			return "unknown";
	}
}

/* ---- Perfetto / Chrome trace-event JSON ---- */

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
			return PID_TARGET_BASE + (int)i;
	return PID_TARGET_BASE + TARGET_MAX;	/* unattributed or unknown */
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
	use_track(e, PID_CPUS, r->hdr.cpu, "CPU", r->hdr.cpu);
	use_track(e, pid, tid, "vector", (int)r->vector);
	for (int pass = 0; pass < 2; pass++) {
		complete_event(e, pass ? pid : PID_CPUS, pass ? tid : r->hdr.cpu, "irq", name,
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
	use_track(e, PID_CPUS, h->cpu, "CPU", h->cpu);
	begin_event(e);
	fprintf(e->out, "{\"ph\":\"i\",\"s\":\"%s\",\"pid\":%d,\"tid\":%u,\"cat\":\"%s\",\"name\":\"%s\",\"ts\":",
		scope, PID_CPUS, h->cpu, record_type_name(h->type), name);
	print_us(e->out, h->ts_ns);
	fputs("}", e->out);
}

/* CUDA/OpenCL: device work on one track per stream/queue, calls per thread. */
static void perfetto_app(struct exporter *e, const struct tracefile_rec_app *r)
{
	const struct gpuprobe_app_event *ev = &r->ev;
	int pid = ev->api == GPUPROBE_APP_OPENCL ? PID_OPENCL : PID_CUDA;
	bool host = ev->type >= GPUPROBE_APP_SYNC;
	int tid = host ? TID_HOST_BASE + (int)(ev->tid % TID_HOST_BASE) : (int)ev->stream;

	if (ev->type == GPUPROBE_APP_NOTE)
		return;
	use_track(e, pid, tid, host ? "thread" : pid == PID_CUDA ? "stream" : "queue",
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

static void perfetto_record(struct exporter *e, const struct gpuprobe_rec_hdr *h)
{
	switch (h->type) {
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
		perfetto_instant(e, h, record_type_name(h->type), "t");
		break;
	case GPUPROBE_EV_LOST:
		perfetto_instant(e, h, "records lost", "g");
		break;
	}
}

static void perfetto_begin(struct exporter *e)
{
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", e->out);
	e->first_event = true;
	name_process(e, PID_CPUS, "CPUs", 0);
	name_process(e, PID_CUDA, "CUDA (CUPTI)", 1);
	name_process(e, PID_OPENCL, "OpenCL", 1);
	for (unsigned int i = 0; i < e->info->targets.count; i++) {
		char name[96];
		const struct target *t = &e->info->targets.t[i];

		snprintf(name, sizeof(name), "%s %04x:%04x %s", t->name, t->vendor, t->device,
			 t->driver);
		name_process(e, PID_TARGET_BASE + (int)i, name, 1 + (int)i);
	}
	name_process(e, PID_TARGET_BASE + TARGET_MAX, "unattributed", 1000);
}

static void perfetto_end(struct exporter *e)
{
	fputs("\n]}\n", e->out);
}

/* ---- CSV ---- */

static const char csv_header[] =
	"type,ts_ns,cpu,flags,bdf,irq,vector,duration_ns,op,dir,bytes,nents,addr,paddr,count,pid,prev_pid,target_cpu\n";

struct csv_row {
	const char *bdf;
	uint64_t irq, vector, duration, op, dir, bytes, nents, addr, paddr, count;
	uint64_t pid, prev_pid, target_cpu;
};

static void csv_fill(const struct gpuprobe_rec_hdr *h, struct csv_row *c, char *bdf)
{
	const struct gpuprobe_rec_irq *irq = (const void *)h;
	const struct gpuprobe_rec_dma *dma = (const void *)h;
	const struct gpuprobe_rec_iommu *io = (const void *)h;
	const struct gpuprobe_rec_swiotlb *sw = (const void *)h;
	const struct gpuprobe_rec_sched *s = (const void *)h;
	const struct tracefile_rec_irq_count *ic = (const void *)h;

	memset(c, 0, sizeof(*c));
	c->bdf = "";
	switch (h->type) {
	case GPUPROBE_EV_IRQ:
		bdf_format(irq->bdf, bdf);
		*c = (struct csv_row){ .bdf = bdf, .irq = irq->irq, .vector = irq->vector,
				       .duration = irq->duration_ns };
		break;
	case GPUPROBE_EV_LOST:
		c->count = ((const struct gpuprobe_rec_lost *)h)->count;
		break;
	case GPUPROBE_EV_WAKEUP:
	case GPUPROBE_EV_SWITCH:
		*c = (struct csv_row){ .bdf = "", .pid = s->pid, .prev_pid = s->prev_pid,
				       .target_cpu = s->target_cpu };
		break;
	case GPUPROBE_EV_DMA:
		bdf_format(dma->bdf, bdf);
		*c = (struct csv_row){ .bdf = bdf, .duration = dma->duration_ns, .op = dma->op,
				       .dir = dma->dir, .bytes = dma->bytes, .nents = dma->nents,
				       .addr = dma->dma_addr };
		break;
	case GPUPROBE_EV_IOMMU:
		if (io->bdf != GPUPROBE_BDF_NONE)
			bdf_format(io->bdf, bdf), c->bdf = bdf;
		c->duration = io->duration_ns, c->op = io->op, c->bytes = io->size;
		c->addr = io->iova, c->paddr = io->paddr;
		break;
	case GPUPROBE_EV_SWIOTLB:
		bdf_format(sw->bdf, bdf);
		*c = (struct csv_row){ .bdf = bdf, .dir = sw->dir, .bytes = sw->bytes };
		break;
	case TRACEFILE_REC_IRQ_COUNT:
		bdf_format(ic->bdf, bdf);
		*c = (struct csv_row){ .bdf = bdf, .irq = ic->irq, .op = ic->phase, .count = ic->count };
		break;
	case GPUPROBE_EV_TARGET:
		bdf_format(((const struct gpuprobe_rec_target *)h)->bdf, bdf);
		c->bdf = bdf;
		c->op = ((const struct gpuprobe_rec_target *)h)->event;
		c->count = ((const struct gpuprobe_rec_target *)h)->nvec;
		break;
	}
}

static void csv_record(struct exporter *e, const struct gpuprobe_rec_hdr *h)
{
	char bdf[BDF_STRLEN];
	struct csv_row c;

	csv_fill(h, &c, bdf);
	fprintf(e->out, "%s,%llu,%u,%u,%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,0x%llx,0x%llx,%llu,%llu,%llu,%llu\n",
		record_type_name(h->type), (unsigned long long)h->ts_ns, h->cpu, h->flags, c.bdf,
		(unsigned long long)c.irq, (unsigned long long)c.vector,
		(unsigned long long)c.duration, (unsigned long long)c.op,
		(unsigned long long)c.dir, (unsigned long long)c.bytes,
		(unsigned long long)c.nents, (unsigned long long)c.addr,
		(unsigned long long)c.paddr, (unsigned long long)c.count,
		(unsigned long long)c.pid, (unsigned long long)c.prev_pid,
		(unsigned long long)c.target_cpu);
}

/* ---- driver ---- */

enum export_format { EXPORT_PERFETTO, EXPORT_CSV };

static int finish_output(FILE *out)
{
	if (out == stdout)
		return fflush(out);
	return fclose(out);
}

static int export_file(const char *trace_path, const char *out_path, enum export_format fmt)
{
	const struct gpuprobe_rec_hdr *rec;
	struct exporter *e = calloc(1, sizeof(*e));
	struct trace_info *info = malloc(sizeof(*info));
	struct trace_reader r;
	int n = -1, ret = 1;

	if (!e || !info) {
		errorf("out of memory");
		goto out_free;
	}
	if (trace_reader_open(&r, trace_path, info)) {
		errorf("%s", r.error);
		goto out_free;
	}
	e->info = info;
	e->out = strcmp(out_path, "-") ? fopen(out_path, "w") : stdout;
	if (!e->out) {
		errorf("cannot create %s: %m", out_path);
		goto out_close;
	}
	if (fmt == EXPORT_PERFETTO)
		perfetto_begin(e);
	else
		fputs(csv_header, e->out);
	while ((n = trace_reader_next(&r, &rec)) > 0) {
		if (fmt == EXPORT_PERFETTO)
			perfetto_record(e, rec);
		else
			csv_record(e, rec);
	}
	if (fmt == EXPORT_PERFETTO)
		perfetto_end(e);
	if (n < 0)
		errorf("%s", r.error);
	else if (r.truncated)
		warnf("%s", r.warning);
	if (finish_output(e->out)) {
		errorf("cannot write %s: %m", out_path);
		n = -1;
	}
	if (n < 0 && strcmp(out_path, "-"))
		unlink(out_path);
	ret = n < 0 ? 1 : 0;
out_close:
	trace_reader_close(&r);
out_free:
	free(info);
	free(e);
	return ret;
}

int export_perfetto(const char *trace_path, const char *out_path)
{
	return export_file(trace_path, out_path, EXPORT_PERFETTO);
}

int export_csv(const char *trace_path, const char *out_path)
{
	return export_file(trace_path, out_path, EXPORT_CSV);
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "perfetto", required_argument, NULL, 'p' },
		{ "csv", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *perfetto = NULL, *csv = NULL;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "p:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			perfetto = optarg;
			break;
		case 'c':
			csv = optarg;
			break;
		case 'h':
			usage_of("export", stdout);
			return 0;
		default:
			usage_of("export", stderr);
			return 2;
		}
	}
	if (argc - optind != 1 || (!perfetto && !csv)) {
		errorf("export needs one trace file and --perfetto OUT.json and/or --csv OUT.csv: see gpuprobe-trace export --help");
		return 2;
	}
	if (perfetto)
		ret = export_perfetto(argv[optind], perfetto);
	if (!ret && csv)
		ret = export_csv(argv[optind], csv);
	return ret;
}
