// SPDX-License-Identifier: GPL-2.0
/*
 * The IOMMU part accounting (analysis/iommu_parts.c) on a hand-made trace:
 * four DMA calls of one target, their parts written on other CPUs before
 * and after them (records out of time order, as the module writes them),
 * a lazy unmap whose deferral holds nested parts, a flush-queue timer
 * outside any call, a part whose call is not in the trace, and a call
 * whose parts add up to more than it.  Every expectation is worked by hand
 * in the comments.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg.h"
#include "iommu_mode.h"
#include "report.h"
#include "testlib.h"
#include "tests.h"

#define EDU	GPUPROBE_BDF(0, 0, 0x08)	/* 0000:00:01.0 */

static void put_dma(struct agg *a, uint16_t op, uint64_t ts, uint64_t dur, uint16_t flags)
{
	struct gpuprobe_rec_dma r = {
		.hdr = { .type = GPUPROBE_EV_DMA, .size = sizeof(r), .cpu = 0, .flags = flags,
			 .ts_ns = ts },
		.bdf = EDU, .op = op, .bytes = 4096, .nents = 1, .duration_ns = dur,
	};

	agg_add(a, &r.hdr);
}

static void put_part(struct agg *a, uint16_t part, uint64_t call_ts, uint64_t self,
		     uint16_t depth, uint16_t flags)
{
	struct gpuprobe_rec_iommu_part r = {
		.hdr = { .type = GPUPROBE_EV_IOMMU_PART, .size = sizeof(r), .cpu = 1,
			 .flags = flags, .ts_ns = call_ts + 1 },
		.bdf = EDU, .part = part, .depth = depth, .duration_ns = self, .self_ns = self,
		.call_ts = call_ts, .domain = 7, .arg = 1,
	};

	agg_add(a, &r.hdr);
}

/* A mode record of bdf: VT-d present, the domain of that type. */
static void put_mode(struct agg *a, uint32_t bdf, const char *domain_type)
{
	struct tracefile_rec_iommu_mode m = {
		.hdr = { .type = TRACEFILE_REC_IOMMU_MODE, .size = sizeof(m), .ts_ns = 1 },
		.bdf = bdf, .flags = IOMMU_MODE_PRESENT, .vendor = "intel",
	};

	snprintf(m.domain_type, sizeof(m.domain_type), "%s", domain_type);
	agg_add(a, &m.hdr);
}

static void put_trace(struct agg *a)
{
	/* map 1 at 1000 (1000 ns): IOVA 100 (rcache missed), page table 300 */
	put_part(a, GPUPROBE_PART_IOVA_ALLOC, 1000, 100, 0, GPUPROBE_PART_SLOW);
	put_part(a, GPUPROBE_PART_PGTABLE_MAP, 1000, 300, 0, 0);
	put_dma(a, GPUPROBE_DMA_MAP_PAGE, 1000, 1000, 0);
	/* strict unmap 2 at 3000 (2000 ns): its record first, parts after */
	put_dma(a, GPUPROBE_DMA_UNMAP_PAGE, 3000, 2000, 0);
	put_part(a, GPUPROBE_PART_PGTABLE_UNMAP, 3000, 200, 0, 0);
	put_part(a, GPUPROBE_PART_INVALIDATE, 3000, 1200, 0, 0);
	put_part(a, GPUPROBE_PART_IOVA_FREE, 3000, 50, 0, 0);
	/*
	 * lazy unmap 3 at 6000 (1000 ns): deferral 530 of which 250 its own;
	 * in it a full queue's flush (30 own) and its invalidation (200)
	 */
	put_part(a, GPUPROBE_PART_INVALIDATE, 6000, 200, 2, 0);
	put_part(a, GPUPROBE_PART_FLUSH, 6000, 30, 1, 0);
	put_part(a, GPUPROBE_PART_IOVA_FREE, 6000, 50, 1, 0);
	put_part(a, GPUPROBE_PART_DEFER, 6000, 250, 0, 0);
	put_dma(a, GPUPROBE_DMA_UNMAP_PAGE, 6000, 1000, 0);
	/* map 4 at 8000 (100 ns), whose IOVA part says 150: over */
	put_dma(a, GPUPROBE_DMA_MAP_PAGE, 8000, 100, 0);
	put_part(a, GPUPROBE_PART_IOVA_ALLOC, 8000, 150, 0, 0);
	/* the flush-queue timer: 40 own, its flush 60 own, that flush's invalidation 300 */
	put_part(a, GPUPROBE_PART_INVALIDATE, 0, 300, 2, 0);
	put_part(a, GPUPROBE_PART_FLUSH, 0, 60, 1, 0);
	put_part(a, GPUPROBE_PART_FQ_TIMER, 0, 40, 0, 0);
	/* a part of a call the trace lost, and an untimed call: in no split */
	put_part(a, GPUPROBE_PART_PGTABLE_MAP, 9999, 10, 0, 0);
	put_dma(a, GPUPROBE_DMA_MAP_PAGE, 12000, 0, GPUPROBE_DMA_UNTIMED);
}

void test_iommu_parts_split(void)
{
	static struct trace_info info;
	static struct trace_reader r;
	const struct parts_target *t;
	struct agg *a = agg_new(&info);

	CHECK(a != NULL, "agg_new");
	if (!a)
		return;
	put_trace(a);
	/* parts that are none, 9 (one past fq_timer) and 0xffff, in map 1: counted, dropped */
	put_part(a, PARTS_N, 1000, 5000, 0, 0);
	put_part(a, 0xffff, 1000, 5000, 0, 0);
	agg_finish(a, &r);
	/* 2 + 3 + 4 + 1 (the calls) + 3 (the timer) + 1 (orphan) + the 2 that are none */
	CHECK_EQ_U64(a->parts->records, 16);
	CHECK_EQ_U64(a->parts->dropped, 2);
	CHECK_EQ_U64(a->parts->ntargets, 1);
	t = &a->parts->targets[0];
	CHECK_EQ_U64(t->bdf, EDU);
	/* maps 1000 + 100, unmaps 2000 + 1000; the untimed map in neither */
	CHECK_EQ_U64(t->calls[PARTS_MAP], 2);
	CHECK_EQ_U64(t->calls[PARTS_UNMAP], 2);
	CHECK_EQ_U64(parts_call_ns(t), 4100);
	/* invalidation 1200 + 200 + 30 (the flush); page tables 300 + 200; IOVA 100 + 50 + 50 + 150; deferral 250 */
	CHECK_EQ_U64(parts_group_ns(t, PARTS_G_INVALIDATE), 1430);
	CHECK_EQ_U64(parts_group_ns(t, PARTS_G_PGTABLE), 500);
	CHECK_EQ_U64(parts_group_ns(t, PARTS_G_IOVA), 350);
	CHECK_EQ_U64(parts_group_ns(t, PARTS_G_DEFER), 250);
	/* 4100 - 1430 - 500 - 350 - 250 */
	CHECK_EQ_U64(parts_group_ns(t, PARTS_G_OTHER), 1570);
	CHECK_EQ_U64(t->group_ns[PARTS_UNMAP][PARTS_G_INVALIDATE], 1430);
	CHECK_EQ_U64(t->calls_with_parts[PARTS_MAP], 2);
	CHECK_EQ_U64(t->calls_with_parts[PARTS_UNMAP], 2);
	CHECK_EQ_U64(t->over, 1);
	/* unmap 2 invalidated at its top level; unmap 3 has no page-table part */
	CHECK_EQ_U64(t->unmaps_deferred, 0);
	CHECK_EQ_U64(t->unmaps_uninvalidated, 0);
	CHECK_EQ_U64(t->orphans, 1);
	/* timer 40 + flush 60 + invalidation 300 */
	CHECK_EQ_U64(t->outside, 3);
	CHECK_EQ_U64(t->outside_ns, 400);
	CHECK_EQ_U64(t->part[GPUPROBE_PART_INVALIDATE].count, 3);
	CHECK_EQ_U64(t->part[GPUPROBE_PART_INVALIDATE].in_call, 2);
	CHECK_EQ_U64(t->part[GPUPROBE_PART_INVALIDATE].arg_sum, 3);
	/* own times, in the calls or not: invalidations 1200, 200, 300; flushes 30, 60 */
	CHECK(t->part[GPUPROBE_PART_INVALIDATE].self_ns &&
	      t->part[GPUPROBE_PART_INVALIDATE].self_ns->count == 3 &&
	      t->part[GPUPROBE_PART_INVALIDATE].self_ns->sum == 1700 &&
	      t->part[GPUPROBE_PART_INVALIDATE].self_ns->min == 200 &&
	      t->part[GPUPROBE_PART_INVALIDATE].self_ns->max == 1200, "invalidate's own-time histogram");
	CHECK(t->part[GPUPROBE_PART_FLUSH].self_ns && t->part[GPUPROBE_PART_FLUSH].self_ns->count == 2 &&
	      t->part[GPUPROBE_PART_FLUSH].self_ns->sum == 90, "flush's own-time histogram");
	CHECK_EQ_U64(t->part[GPUPROBE_PART_IOVA_ALLOC].count, 2);
	CHECK_EQ_U64(t->part[GPUPROBE_PART_IOVA_ALLOC].slow, 1);
	CHECK_EQ_U64(t->part[GPUPROBE_PART_PGTABLE_MAP].count, 2);
	CHECK_EQ_U64(t->part[GPUPROBE_PART_PGTABLE_MAP].in_call, 1);
	CHECK_EQ_U64(t->part[GPUPROBE_PART_IOVA_FREE].count, 2);
	CHECK_EQ_U64(t->part[GPUPROBE_PART_DEFER].count, 1);
	CHECK_EQ_U64(t->part[GPUPROBE_PART_FQ_TIMER].count, 1);
	CHECK_EQ_U64(t->part[GPUPROBE_PART_FLUSH].count, 2);
	CHECK_EQ_U64(t->part[GPUPROBE_PART_FLUSH].in_call, 1);
	agg_free(a);
}

/*
 * Lazy mode's deferral counted where queue_iova() has no part (inlined):
 * an unmap that cleared page tables and ran no invalidation at its own top
 * level, in a domain the trace's mode record says is lazy.  Six calls,
 * worked by hand: two such; in a strict domain, or with no mode record,
 * the same two are invalidations not seen, not deferrals.
 */
static void deferred_of(const char *domain_type, uint64_t deferred, uint64_t uninvalidated)
{
	static struct trace_info info;
	static struct trace_reader r;
	struct agg *a = agg_new(&info);
	const struct parts_target *t;

	CHECK(a != NULL, "agg_new");
	if (!a)
		return;
	if (domain_type)
		put_mode(a, EDU, domain_type);
	/* lazy unmap at 1000: the page table only */
	put_dma(a, GPUPROBE_DMA_UNMAP_PAGE, 1000, 500, 0);
	put_part(a, GPUPROBE_PART_PGTABLE_UNMAP, 1000, 100, 0, 0);
	/* lazy unmap at 3000, the queue full: its flush (top) and that flush's invalidation */
	put_part(a, GPUPROBE_PART_INVALIDATE, 3000, 300, 1, 0);
	put_part(a, GPUPROBE_PART_FLUSH, 3000, 20, 0, 0);
	put_part(a, GPUPROBE_PART_PGTABLE_UNMAP, 3000, 100, 0, 0);
	put_part(a, GPUPROBE_PART_IOVA_FREE, 3000, 40, 0, 0);
	put_dma(a, GPUPROBE_DMA_UNMAP_PAGE, 3000, 900, 0);
	/* strict unmap at 5000: its own invalidation at the top (neither) */
	put_dma(a, GPUPROBE_DMA_UNMAP_PAGE, 5000, 900, 0);
	put_part(a, GPUPROBE_PART_INVALIDATE, 5000, 600, 0, 0);
	put_part(a, GPUPROBE_PART_PGTABLE_UNMAP, 5000, 100, 0, 0);
	put_part(a, GPUPROBE_PART_IOVA_FREE, 5000, 40, 0, 0);
	/* an unmap without parts (its probes missed): nothing to infer from */
	put_dma(a, GPUPROBE_DMA_UNMAP_PAGE, 7000, 300, 0);
	/* a map, its page table only: not an unmap */
	put_dma(a, GPUPROBE_DMA_MAP_PAGE, 9000, 300, 0);
	put_part(a, GPUPROBE_PART_PGTABLE_MAP, 9000, 100, 0, 0);
	/* an unmap with an invalidation and no page-table part: neither */
	put_dma(a, GPUPROBE_DMA_UNMAP_PAGE, 11000, 900, 0);
	put_part(a, GPUPROBE_PART_INVALIDATE, 11000, 600, 0, 0);
	agg_finish(a, &r);
	CHECK_EQ_U64(a->parts->ntargets, 1);
	t = &a->parts->targets[0];
	CHECK_EQ_U64(t->calls[PARTS_UNMAP], 5);
	CHECK(t->unmaps_deferred == deferred && t->unmaps_uninvalidated == uninvalidated,
	      "domain %s: %llu deferred (want %llu), %llu uninvalidated (want %llu)",
	      domain_type ? domain_type : "(no mode record)",
	      (unsigned long long)t->unmaps_deferred, (unsigned long long)deferred,
	      (unsigned long long)t->unmaps_uninvalidated, (unsigned long long)uninvalidated);
	agg_free(a);
}

void test_iommu_parts_deferred_inferred(void)
{
	deferred_of("DMA-FQ", 2, 0);
	deferred_of("DMA", 0, 2);
	deferred_of(NULL, 0, 2);
}

/* The answer line: 4100 ns split 1430/500/350/250/1570 = 34.9/12.2/8.5/6.1/38.3 %. */
void test_iommu_parts_text(void)
{
	static struct trace_info info;
	static struct trace_reader r;
	struct agg *a = agg_new(&info);
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	CHECK(a != NULL, "agg_new");
	if (!a)
		return;
	put_trace(a);
	agg_finish(a, &r);
	out = open_memstream(&buf, &len);
	CHECK(out != NULL, "open_memstream");
	if (out) {
		iommu_parts_print_text(out, a);
		fclose(out);
		CHECK(buf && strstr(buf, ": invalidation 34.9 %, page tables 12.2 %, IOVA 8.5 %, "
				    "deferral 6.1 %, other 38.3 %\n"), "answer line:\n%s", buf);
		CHECK(buf && strstr(buf, "WRONG: 1 calls whose parts add up to more"), "over:\n%s", buf);
		CHECK(buf && strstr(buf, "per unmap: 1.50us, of it invalidation 715ns"),
		      "per unmap:\n%s", buf);
	}
	free(buf);
	agg_free(a);
}

/* A trace without part records prints nothing and keeps no calls. */
void test_iommu_parts_absent(void)
{
	static struct trace_info info;
	static struct trace_reader r;
	struct agg *a = agg_new(&info);
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	CHECK(a != NULL, "agg_new");
	if (!a)
		return;
	put_dma(a, GPUPROBE_DMA_MAP_PAGE, 1000, 1000, 0);
	agg_finish(a, &r);
	CHECK_EQ_U64(a->parts->ncalls, 0);
	out = open_memstream(&buf, &len);
	if (out) {
		iommu_parts_print_text(out, a);
		fclose(out);
		CHECK_EQ_U64(len, 0);
	}
	free(buf);
	agg_free(a);
	iommu_parts_free(NULL);	/* as free(NULL): nothing */
}

/*
 * More targets' IOMMU mode records than the table keeps (issue 28): 19
 * records, bdfs 0000:00:00.0 to 0000:00:02.2; the first 16 are shown, the
 * 3 others counted and warned of (text and JSON), never dropped silently.
 * With 16, none is dropped and nothing is warned of.
 */
static void modes_of(unsigned int n, const char *json_asserts, bool warned)
{
	static struct trace_info info;
	static struct trace_reader r;
	struct agg *a = agg_new(&info);
	const char *path = test_tmp_path("modes.json");
	char *buf = NULL;
	size_t len = 0;
	struct json j;
	FILE *out;

	CHECK(a != NULL, "agg_new");
	if (!a)
		return;
	for (unsigned int i = 0; i < n; i++)
		put_mode(a, GPUPROBE_BDF(0, 0, i), "DMA");
	agg_finish(a, &r);
	CHECK(a->parts && a->parts->nmodes == (n < 16 ? n : 16) &&
	      a->parts->modes_dropped == (n > 16 ? n - 16 : 0),
	      "%u mode records: %u kept, %llu dropped", n, a->parts ? a->parts->nmodes : 0,
	      a->parts ? (unsigned long long)a->parts->modes_dropped : 0ull);
	out = open_memstream(&buf, &len);
	if (out) {
		iommu_parts_print_text(out, a);
		fclose(out);
		CHECK(buf && strstr(buf, "  0000:00:01.7:\n") && !strstr(buf, "0000:00:02.0"),
		      "%u modes: the 16th shown, the 17th not: %s", n, buf ? buf : "");
		CHECK(buf && !!strstr(buf, "  warning: 3 more IOMMU mode records not shown: this tool keeps the first 16\n") == warned &&
		      !!strstr(buf, "warning") == warned, "%u modes: the warning: %s", n, buf ? buf : "");
	}
	free(buf);
	out = test_json_begin(&j, path);
	if (out) {
		iommu_parts_print_json(&j, a);
		json_object_end(&j);
		fclose(out);
		CHECK(!test_python_json(path, json_asserts), "%u modes: report --json (above)", n);
		unlink(path);
	}
	agg_free(a);
}

void test_iommu_parts_modes_dropped(void)
{
	modes_of(19, "assert len(d[\"iommu_mode\"])==16 and d[\"iommu_mode_dropped\"]==3, d\n"
		     "assert [m[\"bdf\"] for m in d[\"iommu_mode\"]][-1]==\"0000:00:01.7\", d\n", true);
	modes_of(16, "assert len(d[\"iommu_mode\"])==16 and d[\"iommu_mode_dropped\"]==0, d\n", false);
}

/* A file of a made-up sysfs/procfs tree under root, its folders made. */
static void put_file(const char *root, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	if (!text)	/* a folder */
		return;
	f = fopen(path, "w");
	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s", path);
}

static void put_link(const char *root, const char *rel, const char *to)
{
	char path[512];

	put_file(root, rel, NULL);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	CHECK(symlink(to, path) == 0, "symlink %s", path);
}

static void read_mode(const char *root, const char *bdf, struct tracefile_rec_iommu_mode *m,
		      char **text)
{
	size_t len = 0;
	FILE *out;

	memset(m, 0xa5, sizeof(*m));	/* what read leaves unset shows */
	iommu_mode_read(root, bdf, 0x0100, m);
	*text = NULL;
	out = open_memstream(text, &len);
	if (out) {
		iommu_mode_print(out, "", m);
		fclose(out);
	}
}

/*
 * iommu_mode_read on made-up trees (lib/iommu_mode.c): the values worked
 * out from the sysfs layout by hand.
 *   VT-d: iommu -> .../dmar3, cap 0xc00000080 (CM bit 7; SLLPS bits 34, 35:
 *     2M, 1G), type DMA-FQ, io_tlb_nslabs 32768, swiotlb=force: every flag,
 *     page sizes 4K|2M|1G = 0x40201000;
 *   cap 0x3c00000000 (no CM, bits 34-37): 4K|2M|1G|512G|256T = 0x1008040201000;
 *   AMD: iommu -> ivhd0, type identity, debugfs without swiotlb: present and
 *     swiotlb known (not set up), no capability read;
 *   another unit (arm-smmu.0), no debugfs, no cmdline: present only;
 *   no iommu link: nothing but the type read.
 */
void test_iommu_mode_read(void)
{
	char root[] = "/tmp/gpuprobe-test-sysfs-XXXXXX", cmd[600], *text;
	const char *bdf = "0000:01:00.0";
	struct tracefile_rec_iommu_mode m;

	if (!mkdtemp(root)) {
		CHECK(0, "mkdtemp");
		return;
	}
	put_file(root, "sys/bus/pci/devices/0000:01:00.0/iommu_group/type", "DMA-FQ\n");
	put_link(root, "sys/bus/pci/devices/0000:01:00.0/iommu", "../../../../devices/virtual/iommu/dmar3");
	put_file(root, "sys/class/iommu/dmar3/intel-iommu/cap", "c00000080\n");
	put_file(root, "sys/kernel/debug/swiotlb/io_tlb_nslabs", "32768\n");
	put_file(root, "proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/vda1 swiotlb=force quiet\n");
	read_mode(root, bdf, &m, &text);
	CHECK(m.hdr.type == TRACEFILE_REC_IOMMU_MODE && m.hdr.size == 64 && m.hdr.cpu == 0 &&
	      m.hdr.flags == 0 && m.hdr.ts_ns == 0 && m.bdf == 0x0100, "VT-d: header type %u size %u bdf %u",
	      m.hdr.type, m.hdr.size, m.bdf);
	CHECK(m.flags == 0x3f && m.pgsizes == 0x40201000ull && !strcmp(m.vendor, "intel") &&
	      !strcmp(m.domain_type, "DMA-FQ"), "VT-d: flags 0x%x pgsizes 0x%llx vendor '%.16s' type '%.16s'",
	      m.flags, (unsigned long long)m.pgsizes, m.vendor, m.domain_type);
	CHECK(text && !strcmp(text, "IOMMU: intel, domain DMA-FQ: lazy (unmaps queued, invalidated in batches by the flush queue)\n"
			       "  caching mode on (an emulated IOMMU, a vIOMMU: every map invalidates too); page sizes 4K 2M 1G\n"
			       "  swiotlb: set up, forced (swiotlb=force): every map bounces\n"), "VT-d text: %s", text);
	free(text);

	put_file(root, "sys/class/iommu/dmar3/intel-iommu/cap", "3c00000000\n");
	put_file(root, "sys/bus/pci/devices/0000:01:00.0/iommu_group/type", "DMA\n");
	put_file(root, "sys/kernel/debug/swiotlb/io_tlb_nslabs", "0\n");
	put_file(root, "proc/cmdline", "quiet\n");
	read_mode(root, bdf, &m, &text);
	CHECK(m.flags == 0x23 && m.pgsizes == 0x1008040201000ull && !strcmp(m.domain_type, "DMA"),
	      "VT-d, no CM: flags 0x%x pgsizes 0x%llx", m.flags, (unsigned long long)m.pgsizes);
	CHECK(text && !strcmp(text, "IOMMU: intel, domain DMA: strict (an invalidation at every unmap)\n"
			       "  caching mode off; page sizes 4K 2M 1G 512G\n"
			       "  swiotlb: not set up\n"), "VT-d, no CM, text: %s", text);
	free(text);
	/* recorded with --no-iommu-parts: said under the mode (record.c sets the bit) */
	{
		size_t len = 0;
		FILE *out;

		m.flags |= IOMMU_MODE_PARTS_LEFT_OUT;
		text = NULL;
		out = open_memstream(&text, &len);
		if (out) {
			iommu_mode_print(out, "", &m);
			fclose(out);
		}
		CHECK(text && !strcmp(text, "IOMMU: intel, domain DMA: strict (an invalidation at every unmap)\n"
				       "  caching mode off; page sizes 4K 2M 1G 512G\n"
				       "  parts of each map/unmap: not recorded (record --no-iommu-parts)\n"
				       "  swiotlb: not set up\n"), "parts left out, text: %s", text);
		free(text);
	}

	snprintf(cmd, sizeof(cmd), "rm -f %s/sys/bus/pci/devices/0000:01:00.0/iommu %s/sys/kernel/debug/swiotlb/io_tlb_nslabs",
		 root, root);
	CHECK(system(cmd) == 0, "%s", cmd);
	put_link(root, "sys/bus/pci/devices/0000:01:00.0/iommu", "../../../../devices/virtual/iommu/ivhd0");
	put_file(root, "sys/bus/pci/devices/0000:01:00.0/iommu_group/type", "identity\n");
	read_mode(root, bdf, &m, &text);
	CHECK(m.flags == (IOMMU_MODE_PRESENT | IOMMU_MODE_SWIOTLB_KNOWN) && m.pgsizes == 0 &&
	      !strcmp(m.vendor, "amd") && !strcmp(m.domain_type, "identity"),
	      "AMD: flags 0x%x pgsizes 0x%llx vendor '%.16s'", m.flags, (unsigned long long)m.pgsizes, m.vendor);
	CHECK(text && !strcmp(text, "IOMMU: amd, domain identity: identity (passthrough: no translation, no invalidation)\n"
			       "  swiotlb: not set up\n"), "AMD text: %s", text);
	free(text);

	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/bus/pci/devices/0000:01:00.0/iommu %s/sys/kernel/debug %s/proc",
		 root, root, root);
	CHECK(system(cmd) == 0, "%s", cmd);
	put_link(root, "sys/bus/pci/devices/0000:01:00.0/iommu", "arm-smmu.0");
	put_file(root, "sys/bus/pci/devices/0000:01:00.0/iommu_group/type", "unmanaged\n");
	read_mode(root, bdf, &m, &text);
	CHECK(m.flags == IOMMU_MODE_PRESENT && !strcmp(m.vendor, "other") && !strcmp(m.domain_type, "unmanaged"),
	      "other: flags 0x%x vendor '%.16s'", m.flags, m.vendor);
	CHECK(text && !strcmp(text, "IOMMU: other, domain unmanaged: not the DMA API's domain (a VFIO or driver-owned domain)\n"
			       "  swiotlb: unknown (debugfs not readable)\n"), "other text: %s", text);
	free(text);

	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/bus/pci/devices/0000:01:00.0/iommu", root);
	CHECK(system(cmd) == 0, "%s", cmd);
	read_mode(root, bdf, &m, &text);
	CHECK(m.flags == 0 && !m.vendor[0] && m.pgsizes == 0 && !strcmp(m.domain_type, "unmanaged"),
	      "none: flags 0x%x vendor '%.16s'", m.flags, m.vendor);
	CHECK(text && !strcmp(text, "IOMMU: none: no IOMMU translates this device's DMA\n"
			       "  swiotlb: unknown (debugfs not readable)\n"), "none text: %s", text);
	free(text);
	/* no type either: unknown */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/bus/pci/devices/0000:01:00.0/iommu_group/type", root);
	CHECK(system(cmd) == 0, "%s", cmd);
	memset(&m, 0, sizeof(m));
	m.flags = IOMMU_MODE_PRESENT;
	CHECK(!strcmp(iommu_mode_strictness(&m), "domain type unknown"), "no type");
	read_mode(root, bdf, &m, &text);
	CHECK(!m.domain_type[0], "a type read from nothing: '%.16s'", m.domain_type);
	free(text);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK(system(cmd) == 0, "%s", cmd);
}
