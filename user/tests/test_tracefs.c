// SPDX-License-Identifier: GPL-2.0
/*
 * The tracefs source's decoder against crafted raw events, parsed with
 * libtraceevent from format files saved from a 6.18 kernel (tests/formats/),
 * so DMA, IOMMU and swiotlb decoding is checked on machines whose devices
 * never emit those events.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "synth.h"
#include "testlib.h"
#include "tracefs_decoder.h"

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

int main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		{ "tracefs decode: irq entry/exit into one record", test_irq_pair },
		{ "tracefs decode: dma_map_phys, dma_alloc, foreign device", test_dma_single },
		{ "tracefs decode: dma_map_sg/unmap_sg arrays", test_dma_scatterlist },
		{ "tracefs decode: iommu map/unmap/fault, swiotlb", test_iommu_swiotlb },
		{ "tracefs decode: sched events and missed-event pages", test_sched_and_missed },
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
