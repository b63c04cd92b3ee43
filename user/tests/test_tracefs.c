// SPDX-License-Identifier: GPL-2.0
/*
 * The tracefs source's decoder against crafted raw events, parsed with
 * libtraceevent from format files saved from a 6.18 kernel (tests/formats/),
 * so DMA, IOMMU and swiotlb decoding is checked on machines whose devices
 * never emit those events.
 */
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>

#include "agg.h"
#include "report.h"
#include "synth.h"
#include "testlib.h"
#include "tracefs_decoder.h"
#include "tracefs_source.h"
#include "tracefs_vectors.h"

#define MAX_RECORDS	32

struct crafted {
	struct tep_event *event;
	unsigned char data[1024];
	unsigned int tail;
};

struct collected {
	int n;
	uint64_t rec[MAX_RECORDS][12];
};

static struct tep_handle *tep;
static struct tracefs_source *dec;
static struct collected got;

static int collect(void *ctx, const struct gpuprobe_rec_hdr *rec)
{
	struct collected *c = ctx;

	if (c->n < MAX_RECORDS && rec->size <= sizeof(c->rec[0]))
		memcpy(c->rec[c->n++], rec, rec->size);
	return 0;
}

static const struct record_sink sink = { collect, &got };

static int load_formats(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[512], system[32], buf[16384];
		size_t len;
		FILE *f;

		if (!strstr(de->d_name, ".format"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		snprintf(system, sizeof(system), "%.*s", (int)strcspn(de->d_name, "_"), de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		if (tep_parse_event(tep, buf, len, system) == 0)
			n++;
	}
	closedir(d);
	return n;
}

static void craft(struct crafted *c, const char *system, const char *name)
{
	struct tep_format_field *f;
	uint16_t type;

	memset(c, 0, sizeof(*c));
	c->event = tep_find_event_by_name(tep, system, name);
	if (!c->event)
		return;
	type = (uint16_t)c->event->id;
	memcpy(c->data, &type, sizeof(type));
	for (f = c->event->format.fields; f; f = f->next)
		if ((unsigned int)(f->offset + f->size) > c->tail)
			c->tail = (unsigned int)(f->offset + f->size);
	c->tail = (c->tail + 7) & ~7u;
}

static void set_num(struct crafted *c, const char *field, uint64_t v)
{
	struct tep_format_field *f = c->event ? tep_find_field(c->event, field) : NULL;

	CHECK(f != NULL, "no field %s", field);
	if (f)
		memcpy(c->data + f->offset, &v, (size_t)f->size);	/* little endian */
}

/* A __data_loc field: (length << 16) | offset, relative when the kernel says so. */
static void set_dynamic(struct crafted *c, const char *field, const void *p, unsigned int len)
{
	struct tep_format_field *f = c->event ? tep_find_field(c->event, field) : NULL;
	uint32_t loc, off = c->tail;

	CHECK(f != NULL, "no field %s", field);
	if (!f)
		return;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off -= (uint32_t)(f->offset + f->size);
	loc = (len << 16) | off;
	memcpy(c->data + f->offset, &loc, sizeof(loc));
	memcpy(c->data + c->tail, p, len);
	c->tail = (c->tail + len + 3) & ~3u;
}

static void set_string(struct crafted *c, const char *field, const char *s)
{
	set_dynamic(c, field, s, (unsigned int)strlen(s) + 1);
}

static void feed(struct crafted *c, uint64_t ts, int cpu, int missed)
{
	struct tep_record r = {
		.ts = ts, .cpu = cpu, .size = (int)c->tail, .data = c->data,
		.missed_events = missed,
	};

	CHECK(c->event != NULL, "event missing from the formats");
	if (c->event)
		tracefs_decoder_feed(dec, &r, cpu, &sink);
}

static const void *last(void)
{
	return got.n ? (const void *)got.rec[got.n - 1] : NULL;
}

static void test_irq_pair(void)
{
	const struct gpuprobe_rec_irq *irq;
	struct crafted c;

	craft(&c, "irq", "irq_handler_entry");
	set_num(&c, "irq", SYNTH_IRQ_BASE + 3);
	set_string(&c, "name", "nvidia");
	feed(&c, 1000, 1, 0);
	craft(&c, "irq", "irq_handler_exit");
	set_num(&c, "irq", SYNTH_IRQ_BASE + 3);
	set_num(&c, "ret", 1);
	feed(&c, 1500, 1, 0);
	irq = last();
	CHECK(got.n == 1 && irq->hdr.type == GPUPROBE_EV_IRQ, "no irq record");
	if (got.n != 1)
		return;
	CHECK(irq->bdf == SYNTH_GPU_BDF && irq->vector == 3 && irq->irq == SYNTH_IRQ_BASE + 3,
	      "attribution wrong");
	CHECK(irq->hdr.ts_ns == 1000 && irq->duration_ns == 500 && irq->hdr.cpu == 1 &&
	      irq->hdr.flags == GPUPROBE_IRQ_HANDLED, "timing or flags wrong");
}

static void test_dma_single(void)
{
	const struct gpuprobe_rec_dma *d;
	struct crafted c;

	craft(&c, "dma", "dma_map_phys");
	set_string(&c, "device", "0000:01:00.0");
	set_num(&c, "dma_addr", 0xabc000);
	set_num(&c, "phys_addr", 0x123000);
	set_num(&c, "size", 8192);
	set_num(&c, "dir", 1);
	feed(&c, 2000, 0, 0);
	d = last();
	CHECK(d && d->hdr.type == GPUPROBE_EV_DMA && d->op == GPUPROBE_DMA_MAP_PAGE &&
	      d->bdf == SYNTH_GPU_BDF && d->bytes == 8192 && d->dma_addr == 0xabc000 &&
	      d->dir == 1 && d->nents == 1, "dma_map_phys decoded wrong");
	craft(&c, "dma", "dma_alloc");
	set_string(&c, "device", "0000:01:00.0");
	set_num(&c, "size", 65536);
	feed(&c, 2100, 0, 0);
	d = last();
	CHECK(d && d->op == GPUPROBE_DMA_ALLOC && d->bytes == 65536, "dma_alloc decoded wrong");
	/* a device name that is no PCI address is not ours */
	craft(&c, "dma", "dma_unmap_phys");
	set_string(&c, "device", "virtio1");
	set_num(&c, "size", 4096);
	feed(&c, 2200, 0, 0);
	CHECK(got.n == 3, "non-PCI device recorded (%d records)", got.n);
}

static void test_dma_scatterlist(void)
{
	uint64_t addrs[3] = { 0x1000, 0x2000, 0x3000 };
	uint32_t lengths[3] = { 4096, 8192, 100 };
	const struct gpuprobe_rec_dma *d;
	struct crafted c;

	craft(&c, "dma", "dma_map_sg");
	set_string(&c, "device", "0000:01:00.0");
	set_num(&c, "full_nents", 3);
	set_num(&c, "full_ents", 3);
	set_dynamic(&c, "phys_addrs", addrs, sizeof(addrs));
	set_dynamic(&c, "dma_addrs", addrs, sizeof(addrs));
	set_dynamic(&c, "lengths", lengths, sizeof(lengths));
	set_num(&c, "dir", 2);
	feed(&c, 3000, 0, 0);
	d = last();
	CHECK(d && d->op == GPUPROBE_DMA_MAP_SG && d->bytes == 12388 && d->nents == 3 &&
	      d->dma_addr == 0x1000 && d->dir == 2, "dma_map_sg decoded wrong: %llu bytes, %u nents",
	      d ? (unsigned long long)d->bytes : 0ull, d ? d->nents : 0);
	craft(&c, "dma", "dma_unmap_sg");
	set_string(&c, "device", "0000:01:00.0");
	set_dynamic(&c, "addrs", addrs, 2 * sizeof(addrs[0]));
	feed(&c, 3100, 0, 0);
	d = last();
	CHECK(d && d->op == GPUPROBE_DMA_UNMAP_SG && d->nents == 2 && d->bytes == 0,
	      "dma_unmap_sg decoded wrong");
}

static void test_iommu_swiotlb(void)
{
	const struct gpuprobe_rec_iommu *io;
	const struct gpuprobe_rec_swiotlb *sw;
	struct crafted c;

	craft(&c, "iommu", "map");
	set_num(&c, "iova", 0xfff000);
	set_num(&c, "paddr", 0x5000);
	set_num(&c, "size", 4096);
	feed(&c, 4000, 1, 0);
	io = last();
	CHECK(io && io->op == GPUPROBE_IOMMU_MAP && io->bdf == GPUPROBE_BDF_NONE &&
	      io->size == 4096 && io->paddr == 0x5000, "iommu map decoded wrong");
	craft(&c, "iommu", "unmap");
	set_num(&c, "iova", 0xfff000);
	set_num(&c, "size", 8192);
	set_num(&c, "unmapped_size", 4096);
	feed(&c, 4100, 1, 0);
	io = last();
	CHECK(io && io->op == GPUPROBE_IOMMU_UNMAP && io->size == 4096, "unmap must count what was unmapped");
	craft(&c, "iommu", "io_page_fault");
	set_string(&c, "device", "0000:01:00.0");
	set_string(&c, "driver", "nvidia");
	set_num(&c, "iova", 0xdead000);
	feed(&c, 4200, 1, 0);
	io = last();
	CHECK(io && io->op == GPUPROBE_IOMMU_FAULT && io->bdf == SYNTH_GPU_BDF &&
	      io->iova == 0xdead000, "io_page_fault decoded wrong");
	craft(&c, "swiotlb", "swiotlb_bounced");
	set_string(&c, "dev_name", "0000:01:00.0");
	set_num(&c, "size", 512);
	feed(&c, 4300, 0, 0);
	sw = last();
	CHECK(sw && sw->hdr.type == GPUPROBE_EV_SWIOTLB && sw->bdf == SYNTH_GPU_BDF &&
	      sw->bytes == 512, "swiotlb_bounced decoded wrong");
}

static void test_sched_and_missed(void)
{
	const struct gpuprobe_rec_sched *s;
	const struct gpuprobe_rec_lost *l;
	struct crafted c;
	int before;

	craft(&c, "sched", "sched_wakeup");
	set_num(&c, "pid", 77);
	set_num(&c, "target_cpu", 1);
	feed(&c, 5000, 0, 0);
	s = last();
	CHECK(s && s->hdr.type == GPUPROBE_EV_WAKEUP && s->pid == 77 && s->target_cpu == 1,
	      "sched_wakeup decoded wrong");
	craft(&c, "sched", "sched_switch");
	set_num(&c, "prev_pid", 5);
	set_num(&c, "next_pid", 77);
	before = got.n;
	feed(&c, 5100, 1, 12);		/* the page says 12 events were lost before it */
	CHECK(got.n == before + 2, "missed events not reported");
	if (got.n != before + 2)
		return;
	l = (const void *)got.rec[before];
	s = last();
	CHECK(l->hdr.type == GPUPROBE_EV_LOST && l->count == 12 && l->hdr.cpu == 1, "lost record wrong");
	CHECK(s->hdr.type == GPUPROBE_EV_SWITCH && s->pid == 77 && s->prev_pid == 5, "switch wrong");
	feed(&c, 5200, 1, -1);		/* lost, count unknown */
	l = (const void *)got.rec[got.n - 2];
	CHECK(l->hdr.type == GPUPROBE_EV_LOST && (l->hdr.flags & TRACEFILE_LOST_COUNT_UNKNOWN),
	      "unknown-count loss not flagged");
}

/*
 * A page's losses are said with its first event, whatever that event is:
 * one of a type this decoder has no use for (or cannot find) still carries
 * them.  Before the dispatch slots such an event was skipped whole.
 */
static void test_missed_on_unknown_type(void)
{
	const struct gpuprobe_rec_lost *l;
	struct crafted c;
	uint16_t nosuch = 0xfffe;
	int before;

	craft(&c, "sched", "sched_wakeup");
	memcpy(c.data, &nosuch, sizeof(nosuch));	/* common_type: no such event */
	before = got.n;
	feed(&c, 6000, 1, 9);
	CHECK(got.n == before + 1, "a page's 9 lost events went with its unknown first event (%d records)",
	      got.n - before);
	l = last();
	CHECK(l && l->hdr.type == GPUPROBE_EV_LOST && l->count == 9 && l->hdr.cpu == 1,
	      "lost record wrong");
}

/*
 * Two event types whose ids share a dispatch slot (ids 64 apart): each
 * event is decoded as its own type however they alternate.  The second is
 * a copy of sched_wakeup's format under a name the decoder does not bind.
 */
static void test_dispatch_slot_shared(void)
{
	char fmt[16384], other[16384 + 64], *id, *name;
	struct tep_event *wakeup = tep_find_event_by_name(tep, "sched", "sched_wakeup");
	struct crafted w, x;
	FILE *f = fopen("formats/sched_sched_wakeup.format", "r");
	size_t len = f ? fread(fmt, 1, sizeof(fmt) - 1, f) : 0;
	int before;

	if (f)
		fclose(f);
	fmt[len] = '\0';
	id = strstr(fmt, "ID: ");
	name = strstr(fmt, "name: sched_wakeup");
	CHECK(wakeup && id && name, "sched_wakeup's format");
	if (!wakeup || !id || !name)
		return;
	/* "name: sched_wakeup\nID: N\n..." -> "name: sched_waking\nID: N+64\n..." */
	snprintf(other, sizeof(other), "name: sched_waking\nID: %d\n%s", wakeup->id + 64,
		 strchr(id, '\n') + 1);
	CHECK(tep_parse_event(tep, other, strlen(other), "sched") == 0, "parse the copy");
	craft(&w, "sched", "sched_wakeup");
	set_num(&w, "pid", 31);
	craft(&x, "sched", "sched_waking");
	set_num(&x, "pid", 32);
	CHECK(x.event && (unsigned int)x.event->id % DISPATCH_SLOTS ==
			 (unsigned int)wakeup->id % DISPATCH_SLOTS, "ids share a slot");
	for (int i = 0; i < 3; i++) {
		const struct gpuprobe_rec_sched *s;

		before = got.n;
		feed(&w, 7000 + 10 * i, 0, 0);
		s = last();
		CHECK(got.n == before + 1 && s->hdr.type == GPUPROBE_EV_WAKEUP && s->pid == 31,
		      "round %d: sched_wakeup decoded", i);
		before = got.n;
		feed(&x, 7005 + 10 * i, 0, 0);
		CHECK(got.n == before, "round %d: the unbound type gave %d records", i, got.n - before);
	}
}

/* ---- vectors that appear while recording, over a sysfs tree of our own ---- */

static char sysroot[256];

/* path under sysroot, its folders made; text written when not NULL */
static void sys_file(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sysroot, rel);
	for (char *p = path + strlen(sysroot) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	if (!text) {
		mkdir(path, 0755);
		return;
	}
	f = fopen(path, "w");
	CHECK(f != NULL, "cannot write %s", path);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

#define GPU_DIR	"bus/pci/devices/0000:01:00.0/"

/* The synthetic GPU (irqs 100..107) and other devices' irqs 0..99. */
static void make_sysfs(void)
{
	char rel[64];

	snprintf(sysroot, sizeof(sysroot), "%s", test_tmp_path("sysfs"));
	mkdir(sysroot, 0755);
	sys_file(GPU_DIR "vendor", "0x10de\n");
	sys_file(GPU_DIR "device", "0x2335\n");
	sys_file(GPU_DIR "class", "0x030200\n");
	for (int irq = 0; irq < 100 + SYNTH_NVEC; irq++) {
		snprintf(rel, sizeof(rel), "kernel/irq/%d/per_cpu_count", irq);
		sys_file(rel, "0,0\n");
	}
	for (int irq = 100; irq < 100 + SYNTH_NVEC; irq++) {
		snprintf(rel, sizeof(rel), GPU_DIR "msi_irqs/%d", irq);
		sys_file(rel, "msix\n");
	}
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	return remove(path);
}

static void remove_sysfs(void)
{
	nftw(sysroot, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void feed_irq(uint32_t irq, uint64_t ts)
{
	struct crafted c;

	craft(&c, "irq", "irq_handler_entry");
	set_num(&c, "irq", irq);
	set_string(&c, "name", "nvidia");
	feed(&c, ts, 0, 0);
	craft(&c, "irq", "irq_handler_exit");
	set_num(&c, "irq", irq);
	set_num(&c, "ret", 1);
	feed(&c, ts + 400, 0, 0);
}

static void check_filter(const struct vector_tracker *vt, const char *want)
{
	char filter[256];

	CHECK(vectors_irq_filter(vt, filter, sizeof(filter)) == 0 && !strcmp(filter, want),
	      "irq filter '%s', expected '%s'", filter, want);
}

static uint16_t rec_type(int i)
{
	const struct gpuprobe_rec_hdr *h = (const void *)got.rec[i];

	return h->type;
}

/* A vector born after tracing was on: recorded from its first interrupt, window from 0. */
static void check_late_from_first_irq(struct vector_tracker *vt)
{
	const struct tracefile_rec_vector *v = (const void *)got.rec[0];
	const struct tracefile_rec_irq_count *k = (const void *)got.rec[1];
	const struct gpuprobe_rec_target *t = (const void *)got.rec[2];
	const struct gpuprobe_rec_irq *irq = (const void *)got.rec[3];

	check_filter(vt, "irq>=100");
	vectors_tracing_on(vt, 500);
	sys_file(GPU_DIR "msi_irqs/120", "msix\n");
	sys_file("kernel/irq/120/per_cpu_count", "0,1\n");
	got.n = 0;
	feed_irq(120, 1000);
	CHECK_EQ_U64(got.n, 4);
	if (got.n != 4)
		return;
	CHECK(rec_type(0) == TRACEFILE_REC_VECTOR && v->irq == 120 && v->index == SYNTH_NVEC &&
	      v->change == VECTOR_ADDED && (v->flags & VECTOR_MSIX), "vector record");
	CHECK(rec_type(2) == GPUPROBE_EV_TARGET && t->event == GPUPROBE_TARGET_VECTORS &&
	      t->nvec == SYNTH_NVEC + 1 && t->bdf == SYNTH_GPU_BDF, "target record");
	CHECK(rec_type(1) == TRACEFILE_REC_IRQ_COUNT && k->phase == IRQ_COUNT_START &&
	      k->count == 0 && k->hdr.ts_ns == 500 && k->irq == 120, "count from tracing on");
	CHECK(rec_type(3) == GPUPROBE_EV_IRQ && irq->irq == 120 && irq->vector == SYNTH_NVEC &&
	      irq->bdf == SYNTH_GPU_BDF && irq->duration_ns == 400, "the late vector's interrupt");
}

static void test_late_vectors(void)
{
	static struct trace_info info;
	struct source_config cfg = { .event_mask = GPUPROBE_EVMASK_ALL };
	struct tracefs_source *main_dec = dec;
	const struct tracefile_rec_irq_count *k;
	const struct tracefile_rec_vector *v;
	struct vector_tracker *vt;
	char gone[512];

	make_sysfs();
	synth_info(&info);
	cfg.targets = &info.targets;
	cfg.sysfs_root = sysroot;
	dec = tracefs_decoder_new(tep, &cfg);
	CHECK(dec != NULL, "decoder");
	if (!dec) {
		dec = main_dec;
		remove_sysfs();
		return;
	}
	vt = tracefs_decoder_vectors(dec);
	check_late_from_first_irq(vt);

	/* another device's new irq: dropped, counted, excluded from then on */
	sys_file("kernel/irq/130/per_cpu_count", "0,0\n");
	got.n = 0;
	feed_irq(130, 2000);
	CHECK_EQ_U64(got.n, 0);
	CHECK_EQ_U64(vt->unknown_irqs, 1);
	CHECK(vt->filter_changed, "the filter must drop irq 130");
	check_filter(vt, "(irq>=100&&irq<=129)||irq>=131");

	/* an irq excluded at the start, now the GPU's: filter first, then its count */
	vt->filter_changed = false;
	sys_file(GPU_DIR "msi_irqs/50", "msix\n");
	sys_file("kernel/irq/50/per_cpu_count", "3,4\n");
	got.n = 0;
	vectors_rescan(vt, 3000, &sink);
	CHECK(got.n == 2 && rec_type(0) == TRACEFILE_REC_VECTOR && rec_type(1) == GPUPROBE_EV_TARGET,
	      "rescan records");
	CHECK(vt->filter_changed, "the filter must take irq 50");
	check_filter(vt, "irq==50||(irq>=100&&irq<=129)||irq>=131");
	vectors_put_pending_counts(vt, &sink);
	k = (const void *)got.rec[2];
	CHECK(got.n == 3 && rec_type(2) == TRACEFILE_REC_IRQ_COUNT && k->irq == 50 &&
	      k->count == 7 && k->phase == IRQ_COUNT_START, "count read after the filter");

	/* stop counts of both late vectors; then one goes */
	sys_file("kernel/irq/120/per_cpu_count", "5,6\n");
	got.n = 0;
	vectors_put_stop_counts(vt, &sink);
	k = (const void *)got.rec[0];
	CHECK(got.n == 2 && k->irq == 120 && k->count == 11 && k->phase == IRQ_COUNT_STOP,
	      "stop counts");
	got.n = 0;
	snprintf(gone, sizeof(gone), "%s/" GPU_DIR "msi_irqs/120", sysroot);
	unlink(gone);
	vectors_rescan(vt, 4000, &sink);
	v = (const void *)got.rec[0];
	CHECK(got.n == 2 && v->change == VECTOR_GONE && v->irq == 120, "a vector gone");
	tracefs_decoder_free(dec);
	dec = main_dec;
	remove_sysfs();
}

/* report: a late vector's index, its window, and the count of such vectors */
static void test_report_late_vector(void)
{
	static struct trace_info info;
	struct tracefile_rec_vector v = {
		.hdr = { .type = TRACEFILE_REC_VECTOR, .size = sizeof(v), .ts_ns = 700 },
		.bdf = SYNTH_GPU_BDF, .irq = 120, .index = 8, .flags = VECTOR_MSIX,
		.change = VECTOR_ADDED,
	};
	struct tracefile_rec_irq_count start, stop;
	struct gpuprobe_rec_irq irq;
	struct trace_reader r = { .seen_end = true };
	struct agg *a;

	char *text = NULL;
	size_t len = 0;
	FILE *out;

	synth_info(&info);
	v.hdr.ts_ns = info.start_ns + 1500000000ull;	/* 1.5 s into the recording */
	a = agg_new(&info);
	if (!a)
		return;
	agg_add(a, &v.hdr);
	synth_irq_count(&start, 500, 120, IRQ_COUNT_START, 0);
	agg_add(a, &start.hdr);
	for (int i = 0; i < 3; i++) {
		synth_irq(&irq, 1000 + i, 0, 0, 100, true);
		irq.irq = 120;
		irq.vector = 8;
		agg_add(a, &irq.hdr);
	}
	synth_irq_count(&stop, 5000, 120, IRQ_COUNT_STOP, 3);
	agg_add(a, &stop.hdr);
	agg_finish(a, &r);
	CHECK_EQ_U64(a->vectors_not_in_header, 1);
	CHECK_EQ_U64(a->irqs_not_in_header, 3);
	for (unsigned int i = 0; i < a->nvectors; i++)
		if (a->vectors[i].irq == 120)
			CHECK(a->vectors[i].resolved_late && a->vectors[i].index == 8 &&
			      a->vectors[i].in_window == 3 && a->vectors[i].kstop == 3,
			      "late vector in the report");
	CHECK_EQ_U64(a->targets[0].irq_count, 3);
	out = open_memstream(&text, &len);
	if (out) {
		report_text_targets(out, a, false);
		fclose(out);
	}
	CHECK(text && strstr(text, "vector 8 (irq 120, MSI-X, resolved while recording at +1.500 s): 3 irqs"),
	      "the text's late vector line: %s", text ? text : "");
	free(text);
	agg_free(a);
}

/* The task the event ran in (common_pid). */
static void set_pid(struct crafted *c, int32_t pid)
{
	struct tep_format_field *f = c->event ? tep_find_common_field(c->event, "common_pid") : NULL;

	CHECK(f != NULL && f->size == 4, "no common_pid");
	if (f && f->size == 4)
		memcpy(c->data + f->offset, &pid, sizeof(pid));
}

static const struct gpuprobe_rec_kvm *vcpu_step(const char *name, int32_t pid, uint64_t ts)
{
	int before = got.n;
	struct crafted c;

	craft(&c, "kvm", name);
	set_pid(&c, pid);
	if (!strcmp(name, "kvm_entry")) {
		set_num(&c, "vcpu_id", 2);
	} else if (!strcmp(name, "kvm_exit")) {
		set_num(&c, "vcpu_id", 2);
		set_num(&c, "exit_reason", 0x7c);
		set_num(&c, "isa", 2);
	} else if (!strcmp(name, "kvm_pi_irte_update")) {
		set_num(&c, "host_irq", 27);
		set_num(&c, "vcpu_id", 2);
		set_num(&c, "gvec", 0x42);
		set_num(&c, "set", 1);
	} else {	/* kvm_eoi, kvm_pv_eoi */
		set_num(&c, "apicid", 2);
		set_num(&c, "vector", 0x42);
	}
	feed(&c, ts, 1, 0);
	return got.n == before + 1 ? last() : NULL;
}

/*
 * The vCPU thread's steps (6.18's formats): each field where the uapi
 * record says (Documentation/trace-format.md, stages 5-9), kept for the
 * workload's process (pid 1 here) and dropped for another's.
 */
static void test_kvm_vcpu_steps(void)
{
	static const struct { const char *name; uint16_t stage; uint32_t vcpu, vector, level, host_irq; } want[] = {
		{ "kvm_entry", GPUPROBE_KVM_ENTRY, 2, 0, 0, 0 },
		{ "kvm_exit", GPUPROBE_KVM_EXIT, 2, 0x7c, GPUPROBE_KVM_ISA_SVM, 0 },
		{ "kvm_eoi", GPUPROBE_KVM_EOI, 2, 0x42, 0, 0 },
		{ "kvm_pv_eoi", GPUPROBE_KVM_PV_EOI, 2, 0x42, 0, 0 },
		{ "kvm_pi_irte_update", GPUPROBE_KVM_PI_IRTE, 2, 0x42, 1, 27 },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct gpuprobe_rec_kvm *k = vcpu_step(want[i].name, 1, 1000 + i);

		CHECK(k != NULL && k->hdr.type == TRACEFILE_REC_KVM, "%s: no KVM record", want[i].name);
		if (!k)
			continue;
		CHECK(k->stage == want[i].stage && k->vcpu == want[i].vcpu && k->vector == want[i].vector &&
		      k->level == want[i].level && k->host_irq == want[i].host_irq && k->tid == 1 &&
		      k->pid == 1 && k->bdf == GPUPROBE_BDF_NONE && k->hdr.ts_ns == 1000 + i,
		      "%s: stage %u vcpu %u vector %#x level %u host_irq %u tid %u pid %u", want[i].name,
		      k->stage, k->vcpu, k->vector, k->level, k->host_irq, k->tid, k->pid);
		/* another process's VM: not the workload's */
		CHECK(vcpu_step(want[i].name, (int32_t)getpid(), 2000 + i) == NULL,
		      "%s of another process kept", want[i].name);
	}
}

/*
 * -- CMD: ftrace records a wake-up a followed task makes of a stranger (the
 * waker is in set_event_pid); the module records only the followed task's.
 * In a guest trace of the nested testbed 70 of 99 wake-ups were of kernel
 * threads the workload woke, any of which after a guest interrupt passed
 * for the workload's thread waking.  Kept: the workload's, and a task gone by now.
 */
static void test_stranger_wakeup_dropped(void)
{
	struct source_config cfg = { .event_mask = GPUPROBE_EVMASK_ALL, .workload_pid = getpid() };
	struct tracefs_source *main_dec = dec;
	static struct trace_info info;
	struct { uint32_t pid; bool kept; const char *what; } w[3] = {
		{ (uint32_t)getpid(), true, "the workload's" },
		{ 1, false, "init's, a stranger alive" },
		{ 0, true, "a task gone by now" },
	};
	pid_t gone = fork();
	struct crafted c;

	if (gone == 0)
		_exit(0);
	CHECK(gone > 0 && waitpid(gone, NULL, 0) == gone, "a child to outlive");
	w[2].pid = (uint32_t)gone;
	synth_info(&info);
	cfg.targets = &info.targets;
	dec = tracefs_decoder_new(tep, &cfg);
	CHECK(dec != NULL, "decoder");
	if (!dec) {
		dec = main_dec;
		return;
	}
	tracefs_follow_workload(dec, getpid());
	got.n = 0;
	for (int i = 0; i < 3; i++) {
		int before = got.n;

		craft(&c, "sched", "sched_wakeup");
		set_num(&c, "pid", w[i].pid);
		set_num(&c, "target_cpu", 0);
		feed(&c, 7000 + (uint64_t)i, 0, 0);
		CHECK((got.n == before + 1) == w[i].kept, "wake-up of pid %u (%s): %s", w[i].pid,
		      w[i].what, w[i].kept ? "dropped" : "kept");
	}
	tracefs_decoder_free(dec);
	dec = main_dec;
}

/*
 * In a pid namespace of its own (the recorder's kernel pid 90000, the
 * workload's 90001, pid 1 there): only those two are given this
 * namespace's pids; every other kernel pid is 0, even one that is a pid
 * of this namespace (kernel pid 1, the host's init, is not the workload);
 * the workload's process's KVM records from a thread not mapped are
 * dropped and counted.
 */
static void test_pidns_pids(void)
{
	const struct gpuprobe_rec_sched *s;
	const struct gpuprobe_rec_kvm *k;
	struct crafted c;

	dec->own_pidns = true;
	dec->kpid_self = 90000;
	dec->kpid_workload = 90001;
	dec->unmapped_dropped = 0;
	craft(&c, "sched", "sched_wakeup");
	set_num(&c, "pid", 90001);
	feed(&c, 7000, 0, 0);
	s = last();
	CHECK(s && s->hdr.type == GPUPROBE_EV_WAKEUP && s->pid == 1, "the workload's wake-up: pid %u, want 1",
	      s ? s->pid : 0);
	set_num(&c, "pid", 1);
	feed(&c, 7001, 0, 0);
	s = last();
	CHECK(s && s->hdr.type == GPUPROBE_EV_WAKEUP && s->pid == 0,
	      "kernel pid 1's wake-up (not the workload): pid %u, want 0", s ? s->pid : 0);
	craft(&c, "sched", "sched_switch");
	set_num(&c, "prev_pid", 2);
	set_num(&c, "next_pid", 90000);
	feed(&c, 7002, 0, 0);
	s = last();
	CHECK(s && s->hdr.type == GPUPROBE_EV_SWITCH && s->prev_pid == 0 && s->pid == (uint32_t)getpid(),
	      "switch from kernel pid 2 to the recorder: prev %u next %u, want 0 %d",
	      s ? s->prev_pid : 0, s ? s->pid : 0, (int)getpid());
	k = vcpu_step("kvm_entry", 90001, 7003);
	CHECK(k && k->pid == 1, "the workload's main thread's KVM entry: kept as pid 1 (%u)", k ? k->pid : 0);
	CHECK(vcpu_step("kvm_entry", 90002, 7004) == NULL && dec->unmapped_dropped == 1,
	      "a thread not mapped: dropped and counted (%llu)", (unsigned long long)dec->unmapped_dropped);
	dec->own_pidns = false;
	dec->kpid_self = getpid();
	dec->kpid_workload = 1;
}

int main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		{ "tracefs decode: irq entry/exit into one record", test_irq_pair },
		{ "tracefs decode: dma_map_phys, dma_alloc, foreign device", test_dma_single },
		{ "tracefs decode: dma_map_sg/unmap_sg arrays", test_dma_scatterlist },
		{ "tracefs decode: iommu map/unmap/fault, swiotlb", test_iommu_swiotlb },
		{ "tracefs decode: sched events and missed-event pages", test_sched_and_missed },
		{ "tracefs decode: a stranger's wake-up by the workload dropped", test_stranger_wakeup_dropped },
		{ "tracefs: a page's losses said by an event of unknown type", test_missed_on_unknown_type },
		{ "tracefs: two event types in one dispatch slot", test_dispatch_slot_shared },
		{ "tracefs vectors: late vector, foreign irq, excluded irq, stop, gone", test_late_vectors },
		{ "report: a vector resolved while recording", test_report_late_vector },
		{ "tracefs decode: kvm_entry/exit/eoi/pv_eoi/pi_irte_update of the workload only", test_kvm_vcpu_steps },
		{ "tracefs decode: in a pid namespace, pids not mapped are 0, unmapped threads' KVM records counted", test_pidns_pids },
	};
	static struct trace_info info;
	struct source_config cfg = { .event_mask = GPUPROBE_EVMASK_ALL, .workload_pid = 1 };
	int passed = 0, failed, nformats;

	tep = tep_alloc();
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	nformats = load_formats(argc > 1 ? argv[1] : "formats");
	synth_info(&info);
	cfg.targets = &info.targets;
	dec = tracefs_decoder_new(tep, &cfg);
	if (nformats < 14 || !dec) {
		printf("FAIL loading tests/formats (%d formats)\n0 passed, 1 failed\n", nformats);
		return 1;
	}
	failed = run_tests(cases, (int)(sizeof(cases) / sizeof(cases[0])), &passed);
	tracefs_decoder_free(dec);
	tep_free(tep);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
