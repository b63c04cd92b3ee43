// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests: record codec, histogram maths, report maths on a trace
 * with known totals, JSON validity, corrupt-file handling and fuzzing.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg.h"
#include "cmds.h"
#include "hist.h"
#include "json.h"
#include "report.h"
#include "synth.h"
#include "testlib.h"
#include "tests.h"
#include "util.h"

/* Read path fully into a fresh agg; NULL (and err filled) on reader error. */
struct agg *load_agg(const char *path, struct trace_info *info, char *err, size_t errlen)
{
	const struct gpuprobe_rec_hdr *rec;
	struct trace_reader r;
	struct agg *a;
	int n;

	if (trace_reader_open(&r, path, info)) {
		snprintf(err, errlen, "%s", r.error);
		trace_reader_close(&r);
		return NULL;
	}
	a = agg_new(info);
	while ((n = trace_reader_next(&r, &rec)) > 0)
		agg_add(a, rec);
	if (n < 0) {
		snprintf(err, errlen, "%s", r.error);
		agg_free(a);
		trace_reader_close(&r);
		return NULL;
	}
	agg_finish(a, &r);
	trace_reader_close(&r);
	return a;
}

/* ---- histogram maths ---- */

static void test_hist_small_values_exact(void)
{
	static struct hist h;

	hist_init(&h);
	for (uint64_t v = 1; v <= 100; v++)
		hist_add(&h, v);
	CHECK_EQ_U64(h.count, 100);
	CHECK_EQ_U64(h.min, 1);
	CHECK_EQ_U64(h.max, 100);
	CHECK_EQ_U64(hist_mean(&h), 50);	/* 5050 / 100 */
	CHECK_EQ_U64(hist_percentile(&h, 50), 50);
	CHECK_EQ_U64(hist_percentile(&h, 99), 99);
	CHECK_EQ_U64(hist_percentile(&h, 100), 100);
	CHECK_EQ_U64(hist_percentile(&h, 1), 1);
}

static void test_hist_bucket_edges(void)
{
	static struct hist h;

	/* 1..1000: p50 = 500 (a bucket edge), p99 = 990 -> bucket [984, 992) */
	hist_init(&h);
	for (uint64_t v = 1; v <= 1000; v++)
		hist_add(&h, v);
	CHECK_EQ_U64(hist_percentile(&h, 50), 500);
	CHECK_EQ_U64(hist_percentile(&h, 99), 984);
	CHECK_EQ_U64(hist_percentile(&h, 90), 896);	/* 900 -> [896, 904) */
	/* one value: every percentile is that value (clamped to min/max) */
	hist_init(&h);
	hist_add(&h, 12345);
	CHECK_EQ_U64(hist_percentile(&h, 50), 12345);
	CHECK_EQ_U64(hist_percentile(&h, 99), 12345);
	/* empty */
	hist_init(&h);
	CHECK_EQ_U64(hist_percentile(&h, 50), 0);
}

static void test_hist_relative_error(void)
{
	uint32_t x = 12345;

	for (int i = 0; i < 100000; i++) {
		uint64_t v, low, next;
		unsigned int idx;

		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		v = ((uint64_t)x << (i % 32)) | (i & 7);
		idx = hist_index(v);
		low = hist_bucket_low(idx);
		next = idx + 1 < HIST_BUCKETS ? hist_bucket_low(idx + 1) : UINT64_MAX;
		CHECK(idx < HIST_BUCKETS, "index %u out of range for %llu", idx, (unsigned long long)v);
		CHECK(low <= v && v < next, "%llu not in bucket [%llu, %llu)",
		      (unsigned long long)v, (unsigned long long)low, (unsigned long long)next);
		CHECK((v - low) * 64 <= v, "relative error over 1/64 for %llu", (unsigned long long)v);
		if (test_failed_checks)
			return;
	}
	CHECK_EQ_U64(hist_index(UINT64_MAX), HIST_BUCKETS - 1);
}

static void test_hist_log2_slots(void)
{
	uint64_t slots[HIST_LOG2_SLOTS];
	static struct hist h;

	hist_init(&h);
	hist_add(&h, 0);
	hist_add(&h, 1);
	hist_add(&h, 2);
	hist_add(&h, 3);
	hist_add(&h, 1024);
	hist_add(&h, 2047);
	hist_add(&h, 1ull << 40);
	hist_log2(&h, slots);
	CHECK_EQ_U64(slots[0], 2);	/* 0 and 1, as bcc */
	CHECK_EQ_U64(slots[1], 2);	/* 2..3 */
	CHECK_EQ_U64(slots[10], 2);	/* 1024..2047 */
	CHECK_EQ_U64(slots[40], 1);
	CHECK_EQ_U64(slots[11], 0);
}

static void test_hist_merge(void)
{
	static struct hist a, b;

	hist_init(&a);
	hist_init(&b);
	for (uint64_t v = 1; v <= 50; v++)
		hist_add(&a, v);
	for (uint64_t v = 51; v <= 100; v++)
		hist_add(&b, v);
	hist_merge(&a, &b);
	CHECK_EQ_U64(a.count, 100);
	CHECK_EQ_U64(a.min, 1);
	CHECK_EQ_U64(a.max, 100);
	CHECK_EQ_U64(hist_percentile(&a, 50), 50);
}

/* ---- codec ---- */

static void test_codec_round_trip(void)
{
	const char *path = test_tmp_path("codec.trace");
	static struct trace_info in, out;
	struct gpuprobe_rec_irq irq;
	struct gpuprobe_rec_dma dma;
	const struct gpuprobe_rec_hdr *rec;
	struct trace_writer w;
	struct trace_reader r;

	synth_info(&in);
	in.targets.count = 2;
	in.targets.t[1] = in.targets.t[0];
	in.targets.t[1].bdf = GPUPROBE_BDF(1, 0x41, 0x08);
	in.targets.t[1].nvec = 1;
	copy_string(in.targets.t[1].driver, sizeof(in.targets.t[1].driver), "");
	synth_irq(&irq, 1234567, 3, 5, 4321, true);
	synth_dma(&dma, 7654321, GPUPROBE_DMA_MAP_SG, 1 << 20, 17, 999);
	CHECK(trace_writer_open(&w, path, &in) == 0, "cannot write %s", path);
	CHECK(trace_writer_put(&w, &irq.hdr) == 0, "put irq");
	CHECK(trace_writer_put(&w, &dma.hdr) == 0, "put dma");
	CHECK(trace_writer_finish(&w, 9999999, 7) == 0, "finish");

	CHECK(trace_reader_open(&r, path, &out) == 0, "open: %s", r.error);
	CHECK(!strcmp(out.host, "synthetic-host") && !strcmp(out.kernel_release, "6.1.0-synthetic"),
	      "strings differ");
	CHECK_EQ_U64(out.start_ns, in.start_ns);
	CHECK_EQ_U64(out.source, TRACE_SOURCE_SYNTHETIC);
	CHECK_EQ_U64(out.targets.count, 2);
	CHECK_EQ_U64(out.targets.t[0].nvec, SYNTH_NVEC);
	CHECK_EQ_U64(out.targets.t[0].vec[7].irq, SYNTH_IRQ_BASE + 7);
	CHECK(!strcmp(out.targets.t[0].driver, "nvidia"), "driver");
	CHECK(!strcmp(out.targets.t[1].name, "0001:41:01.0"), "bdf %s", out.targets.t[1].name);
	CHECK(trace_reader_next(&r, &rec) == 1 && !memcmp(rec, &irq, sizeof(irq)), "irq differs");
	CHECK(trace_reader_next(&r, &rec) == 1 && !memcmp(rec, &dma, sizeof(dma)), "dma differs");
	CHECK(trace_reader_next(&r, &rec) == 0, "clean end: %s", r.error);
	CHECK(r.seen_end && r.end.exit_status == 7 && r.end.hdr.ts_ns == 9999999, "end record");
	trace_reader_close(&r);
	unlink(path);
}

static void test_bdf_parse_format(void)
{
	char name[BDF_STRLEN];
	uint32_t bdf;

	CHECK(bdf_parse("0000:00:06.0", &bdf) == 0 && bdf == GPUPROBE_BDF(0, 0, 0x30), "full form");
	CHECK(bdf_parse("41:00.1", &bdf) == 0 && bdf == GPUPROBE_BDF(0, 0x41, 1), "short form");
	CHECK(bdf_parse("0000:00:20.0", &bdf) < 0, "device 0x20 accepted");
	CHECK(bdf_parse("virtio1", &bdf) < 0, "name accepted");
	CHECK(bdf_parse("0000:00:06.0x", &bdf) < 0, "trailing junk accepted");
	bdf_format(GPUPROBE_BDF(0x10, 0xaf, (0x1f << 3) | 7), name);
	CHECK(!strcmp(name, "0010:af:1f.7"), "format %s", name);
}

/* ---- report maths on the known trace (totals listed in synth.c) ---- */

static void check_known_vectors(const struct agg *a)
{
	const struct agg_vector *v0 = NULL, *v1 = NULL;

	for (unsigned int i = 0; i < a->nvectors; i++) {
		if (a->vectors[i].irq == 100)
			v0 = &a->vectors[i];
		if (a->vectors[i].irq == 101)
			v1 = &a->vectors[i];
	}
	CHECK(v0 && v1, "vectors 0 and 1 missing");
	if (!v0 || !v1)
		return;
	CHECK_EQ_U64(v0->count, 1000);
	CHECK_EQ_U64(v0->handled, 1000);
	CHECK_EQ_U64(v0->in_window, 1000);
	CHECK_EQ_U64(v0->kstop - v0->kstart, 1000);
	CHECK_EQ_U64(hist_percentile(v0->handler_ns, 50), 500);
	CHECK_EQ_U64(hist_percentile(v0->handler_ns, 99), 984);
	CHECK_EQ_U64(v0->handler_ns->max, 1000);
	CHECK_EQ_U64(v1->count, 12);
	CHECK_EQ_U64(v1->handled, 5);
	CHECK_EQ_U64(v1->in_window, 10);
	CHECK_EQ_U64(v1->kstop - v1->kstart, 10);
	CHECK_EQ_U64(v1->index, 1);
	CHECK(v1->in_header && (v1->flags & VECTOR_MSIX), "vector 1 header data");
}

static void check_known_target(const struct agg *a)
{
	const struct agg_target *gpu = NULL, *none = NULL;

	for (unsigned int i = 0; i < a->ntargets; i++) {
		if (a->targets[i].bdf == SYNTH_GPU_BDF)
			gpu = &a->targets[i];
		if (a->targets[i].bdf == GPUPROBE_BDF_NONE)
			none = &a->targets[i];
	}
	CHECK(gpu && none, "targets missing");
	if (!gpu || !none)
		return;
	CHECK_EQ_U64(gpu->irq_count, 1012);
	CHECK(gpu->dma[GPUPROBE_DMA_MAP_SG] && gpu->dma[GPUPROBE_DMA_UNMAP_SG] &&
	      gpu->dma[GPUPROBE_DMA_MAP_PAGE], "dma ops missing");
	if (!gpu->dma[GPUPROBE_DMA_MAP_SG] || !gpu->dma[GPUPROBE_DMA_MAP_PAGE])
		return;
	CHECK_EQ_U64(gpu->dma[GPUPROBE_DMA_MAP_SG]->calls, 7);
	CHECK_EQ_U64(gpu->dma[GPUPROBE_DMA_MAP_SG]->bytes, 7 * 12288);
	CHECK_EQ_U64(gpu->dma[GPUPROBE_DMA_MAP_SG]->segments, 21);
	CHECK_EQ_U64(hist_percentile(&gpu->dma[GPUPROBE_DMA_MAP_SG]->latency_ns, 50), 2000);
	CHECK_EQ_U64(gpu->dma[GPUPROBE_DMA_MAP_PAGE]->bytes, 4096);
	CHECK_EQ_U64(gpu->iommu[GPUPROBE_IOMMU_MAP].count, 4);
	CHECK_EQ_U64(gpu->iommu[GPUPROBE_IOMMU_MAP].bytes, 4 * 8192);
	CHECK_EQ_U64(gpu->iommu[GPUPROBE_IOMMU_MAP].time_ns->sum, 400);
	CHECK_EQ_U64(gpu->iommu[GPUPROBE_IOMMU_UNMAP].time_ns->sum, 200);
	CHECK_EQ_U64(gpu->iommu[GPUPROBE_IOMMU_FAULT].count, 1);
	CHECK_EQ_U64(none->iommu[GPUPROBE_IOMMU_MAP].count, 2);
	CHECK_EQ_U64(gpu->swiotlb_bounces, 2);
	CHECK_EQ_U64(gpu->swiotlb_bytes, 1024);
	CHECK_EQ_U64(gpu->target_events, 1);
}

/* An untimed DMA call counts as a call, not as a latency of 0. */
static void test_untimed_dma_not_a_latency(void)
{
	static struct trace_info info;
	const struct agg_dma_op *op = NULL;
	struct gpuprobe_rec_dma d;
	struct agg *a = agg_new(&info);

	CHECK(a != NULL, "agg_new");
	if (!a)
		return;
	synth_dma(&d, 1000, GPUPROBE_DMA_MAP_PAGE, 4096, 1, 700);
	agg_add(a, &d.hdr);
	synth_dma(&d, 2000, GPUPROBE_DMA_MAP_PAGE, 4096, 1, 0);
	d.hdr.flags = GPUPROBE_DMA_UNTIMED;
	agg_add(a, &d.hdr);
	for (unsigned int i = 0; i < a->ntargets; i++)
		if (a->targets[i].bdf == SYNTH_GPU_BDF)
			op = a->targets[i].dma[GPUPROBE_DMA_MAP_PAGE];
	CHECK(op != NULL, "map_page op missing");
	if (op) {
		CHECK_EQ_U64(op->calls, 2);
		CHECK_EQ_U64(op->latency_ns.count, 1);
		CHECK_EQ_U64(op->latency_ns.min, 700);
	}
	agg_free(a);
}

static void test_report_maths(void)
{
	const char *path = test_tmp_path("known.trace");
	static struct trace_info info;
	char err[512] = "";
	struct agg *a;

	CHECK(synth_write_known(path) == 0, "cannot write %s", path);
	a = load_agg(path, &info, err, sizeof(err));
	CHECK(a, "load: %s", err);
	if (!a)
		return;
	/* 4 irq counts + 1012 irq + 15 dma + 11 iommu + 2 swiotlb + 2 lost + 11 sched + 1 target */
	CHECK_EQ_U64(a->records, 1058);
	CHECK_EQ_U64(a->unknown_records, 1);
	CHECK_EQ_U64(a->lost, 7);
	CHECK_EQ_U64(a->lost_reports, 2);
	CHECK_EQ_U64(a->wakeups, 5);
	CHECK_EQ_U64(a->switches, 6);
	CHECK_EQ_U64(a->overflow, 0);
	CHECK(a->complete && a->exit_status == 0, "end record");
	CHECK(agg_duration_s(a) > 0.0029999 && agg_duration_s(a) < 0.0030001,
	      "duration %f", agg_duration_s(a));
	check_known_vectors(a);
	check_known_target(a);
	agg_free(a);
	unlink(path);
}

/* ---- JSON ---- */

static void test_report_json_valid(void)
{
	const char *trace = test_tmp_path("json.trace"), *json = test_tmp_path("report.json");
	FILE *out;

	CHECK(synth_write_known(trace) == 0, "cannot write %s", trace);
	out = fopen(json, "w");
	CHECK(out && report_file(trace, true, out) == 0, "report --json failed");
	if (out)
		fclose(out);
	CHECK(test_python_json(json,
		"t=d[\"targets\"][0]\n"
		"assert d[\"schema\"]==\"gpuprobe-report\" and d[\"version\"]==1\n"
		"assert t[\"bdf\"]==\"0000:01:00.0\" and t[\"irq_count\"]==1012, t[\"irq_count\"]\n"
		"v=[x for x in t[\"vectors\"] if x[\"irq\"]==101][0]\n"
		"assert v[\"kernel_count\"][\"delta\"]==10 and v[\"kernel_count\"][\"match\"]\n"
		"assert t[\"vectors\"][0][\"handler_ns\"][\"p99\"]==984\n"
		"assert sum(b[\"count\"] for b in t[\"vectors\"][0][\"handler_ns\"][\"log2\"])==1000\n"
		"assert d[\"drops\"][\"lost\"]==7 and d[\"trace\"][\"complete\"]\n"
		"assert t[\"iommu\"][\"faults\"]==1 and t[\"swiotlb\"][\"bytes\"]==1024") == 0,
	      "python3 rejected %s", json);
	unlink(trace);
	unlink(json);
}

static void test_json_escaping(void)
{
	const char *path = test_tmp_path("escape.json");
	struct json j;
	FILE *f = test_json_begin(&j, path);

	if (!f)
		return;
	json_kv_string(&j, "quote\"back\\slash", "tab\tnl\nctl\x01 high\xff");
	json_key(&j, "empty_array");
	json_array_begin(&j);
	json_array_end(&j);
	json_key(&j, "nested");
	json_array_begin(&j);
	json_object_begin(&j);
	json_object_end(&j);
	json_u64(&j, UINT64_MAX);
	json_double(&j, 1.0 / 0.0);
	json_array_end(&j);
	json_object_end(&j);
	fclose(f);
	CHECK(test_python_json(path,
		"assert d[\"quote\\\"back\\\\slash\"].startswith(\"tab\\tnl\\nctl\\x01\")\n"
		"assert d[\"nested\"]==[{}, 18446744073709551615, None] and d[\"empty_array\"]==[]") == 0,
	      "python3 rejected %s", path);
	unlink(path);
}

static void test_report_text_runs(void)
{
	const char *trace = test_tmp_path("text.trace");
	char *buf;

	CHECK(synth_write_known(trace) == 0, "cannot write %s", trace);
	buf = test_report(trace, false);
	CHECK(buf != NULL, "report %s", trace);
	if (!buf)
		goto out;
	CHECK(strstr(buf, "vector 1 (irq 101, MSI-X): 12 irqs"), "vector line missing:\n%s", buf);
	CHECK(buf && strstr(buf, "kernel counted 10 (/proc/interrupts delta), trace holds 10 in the same window: match"),
	      "kernel count line missing");
	CHECK(buf && strstr(buf, "512 -> 1023"), "log2 histogram missing");
	/*
	 * synth.c's handler times: vector 0 runs 1..1000 ns (p50 500, max 1 us,
	 * total 1000 * 1001 / 2 = 500500 ns), vector 1 twelve of 5000 ns (60 us);
	 * 5 wake-ups and 6 switches of the workload.
	 */
	CHECK(strstr(buf, "handler time p50 500ns") && strstr(buf, "max 1.00us  total 500.50us"),
	      "vector 0's handler time line missing:\n%s", buf);
	CHECK(strstr(buf, "handler time p50 5.00us  p99 5.00us  max 5.00us  total 60.00us"),
	      "vector 1's handler time line missing");
	CHECK(strstr(buf, "scheduler: 5 wakeups, 6 switches of the workload"), "scheduler line missing");
	/* synth.c's header lists the target's 8 vectors (0-7): none of its interrupts is on another */
	CHECK(!strstr(buf, "not in the header"), "a line of vectors not in the header:\n%s", buf);
	/* one "DMA API:" heading, above the first operation (map_page; map_sg and unmap_sg follow) */
	CHECK(strstr(buf, "  DMA API:\n    map_page ") &&
	      !strstr(strstr(buf, "DMA API:") + 1, "DMA API:"), "the DMA API heading, once, above map_page");
	free(buf);
out:
	unlink(trace);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "hist: values below 64 are exact", test_hist_small_values_exact },
		{ "hist: percentiles at bucket edges", test_hist_bucket_edges },
		{ "hist: relative error below 1/64", test_hist_relative_error },
		{ "hist: log2 slots as bcc", test_hist_log2_slots },
		{ "hist: merge", test_hist_merge },
		{ "codec: write/read round trip", test_codec_round_trip },
		{ "target: BDF parse and format", test_bdf_parse_format },
		{ "report: exact totals on a known trace", test_report_maths },
		{ "report: --json parses and holds the totals", test_report_json_valid },
		{ "report: text output", test_report_text_runs },
		{ "json: escaping and nesting", test_json_escaping },
		{ "percentiles: nearest rank, computed without float overshoot (p7 of 100 is 7)",
		  test_percentile_nearest_rank },
		{ "percentiles: the histogram gives the bucket of the exact nearest-rank sample",
		  test_percentile_hist_agrees },
		{ "json: doubles with %.17g, integers as integers, UTF-8 kept",
		  test_json_lossless },
		{ "reader: bad magic", test_reader_rejects_bad_magic },
		{ "reader: a cut file is read up to its last whole record, the cut's offset named",
		  test_reader_names_truncation_offset },
		{ "reader: a zero-filled tail is a cut", test_reader_zero_tail_is_a_cut },
		{ "reader: cut at every record boundary and inside records: counts of the records before",
		  test_truncation_every_boundary },
		{ "reader: bad record sizes", test_reader_rejects_bad_sizes },
		{ "reader: data after the end record", test_reader_rejects_trailing_data },
		{ "reader: fuzzed flips and truncations (version 1, compact, zstd)",
		  test_fuzz_flips_and_truncations },
		{ "reader: version 3 cut at every chunk boundary and inside chunk headers: counts of the chunks before",
		  test_truncation_every_chunk },
		{ "reader: closing waits for the chunk thread to be done with the file",
		  test_close_waits_for_chunk_thread },
		{ "reader: version 1, compact and zstd files of one trace give back the same records, bit for bit",
		  test_encodings_agree },
		{ "damage: bytes flipped in a chunk: it is skipped and named, the other chunks' counts exact",
		  test_damage_flipped_bytes },
		{ "damage: a damaged chunk header: the next chunk is found, the end record counts the loss",
		  test_damage_headers },
		{ "damage: report (text, --json) marks the file damaged and the counts lower bounds",
		  test_damage_report },
		{ "damage: version 2 files (no checksums) read as before", test_damage_version2_as_before },
		{ "cut: inside compact chunks, every whole record before the cut is read",
		  test_cut_inside_compact_chunks },
		{ "cut: inside zstd chunks, every record zstd gives back before the cut is read",
		  test_cut_inside_zstd_chunks },
		{ "round trip: every record type, adversarial values, every encoding and chunk size: bit for bit",
		  test_roundtrip_every_field },
		{ "round trip: what the format cannot carry is refused (writer: sizes; reader: cpu, type 0, short records)",
		  test_roundtrip_refusals },
		{ "command record: argv back byte for byte in every encoding", test_command_round_trip },
		{ "command record: cut at 4096 bytes with the flag, not before", test_command_cut },
		{ "command record: malformed ones refused by the decoder", test_command_malformed },
		{ "tracefs: irq entry/exit pairing per CPU", test_irq_pairing },
		{ "module: record batches split, misaligned, corrupt", test_record_batches },
		{ "module: START mask from caps", test_module_event_mask },
		{ "tracefs: kernel filter strings", test_tracefs_filters },
		{ "tracefs: pid namespace probe lines among foreign signals", test_pidns_signal_lines },
		{ "tracefs: pid namespace: only known pids mapped, others 0", test_pidns_local_pid },
		{ "info: a user namespace whose root is the host's, from uid_map", test_uid_map_root },
		{ "info: a target irq's chip and delivery from /proc/interrupts (xen-pirq, MSI, event channels)",
		  test_irq_chip_from_proc },
		{ "info: Xen HVM / PV / nopv / KVM / none from a fake /sys/hypervisor and CPUID",
		  test_hypervisor_sysfs },
		{ "attribution: known timeline (phases, overlaps, totals, shares)",
		  test_attribution_known_timeline },
		{ "attribution: none without application records", test_attribution_absent },
		{ "attribution: two GPUs, B's events never charged to A's ops; late vector; unmapped GPU",
		  test_attribution_two_gpus },
		{ "attribution: two threads, two streams: a blocking wait matched by thread and stream",
		  test_attribution_two_threads },
		{ "attribution: a thread unknown (runtime launches, sync without its call): the process's ops",
		  test_attribution_thread_unknown },
		{ "attribution: a sync record outside its API call is not a wait",
		  test_attribution_sync_outside_call },
		{ "attribution: clock error bound widens windows, events in the margin ambiguous",
		  test_attribution_clock_margin },
		{ "attribution: JSON null where not measured", test_attribution_json_nulls },
		{ "OpenCL clock drift: re-calibration keeps every mapped time within its bound",
		  test_clockmap_drift },
		{ "attribution: a CUDA CLOCK record of all streams bounds its device's ops only",
		  test_attribution_clock_all_streams },
		{ "CUDA clock check: the brackets' interval holds CUPTI's offset; moving offsets flagged",
		  test_cudaclock_bracket },
		{ "CUDA device: PCI bus ids as cuDeviceGetPCIBusId prints them", test_cudaclock_pci_bus_id },
		{ "report: a latency not measured is 'not measured' / null, never 0 ns",
		  test_report_not_measured },
		{ "report: untimed DMA calls counted, not in the latency", test_untimed_dma_not_a_latency },
		{ "report: a shared IOMMU domain's work is the domain's, not its first target's",
		  test_report_shared_domain },
		{ "kvm: host handler deliveries paired with the VMM's injections", test_kvm_pairing },
		{ "report --json: kernel_count.match false when the kernel counted more (lost)",
		  test_kernel_count_match },
		{ "irq pairing: another irq's exit does not end the pending entry",
		  test_irq_exit_names_its_irq },
		{ "kvm: a delivery belongs to its own irq's handler", test_kvm_delivery_own_handler },
		{ "passthrough: by rank on one vCPU and one vector", test_rank_pairing_one_vcpu },
		{ "passthrough: by the clock when guest irqs are on two vCPUs", test_rank_pairing_two_vcpus },
		{ "passthrough: by the clock with two target vectors", test_rank_pairing_two_vectors },
		{ "passthrough: a KVM injection paired with the host interrupt of its own irq",
		  test_injection_names_its_irq },
		{ "attribution: IOMMU maps of no device charged to no op of two GPUs",
		  test_unattributed_iommu_two_gpus },
		{ "record: temporary files of killed recorders removed, live and foreign ones kept",
		  test_stale_temp_files_removed },
		{ "record: application events merged past cut and corrupt events",
		  test_app_merge_resyncs },
			{ "clock sync: known offset and drift fitted within the bound; guest times map back",
		  test_clock_fit_known_offset_drift },
		{ "clock sync: no exchange, no mapping (clocks never assumed equal)", test_clock_never_compared },
		{ "exact clock: KVM offset, scaling and a traced mid-run write: guest times to the ns",
		  test_tscclock_known_offset_scaling_change },
		{ "exact clock: a guest clock re-based at the write: each side by its own relation, to the ns",
		  test_tscclock_rebased_guest_clock },
		{ "exact clock: an untraced change, guest_mode, no KVM: refused, saying why",
		  test_tscclock_refuses_what_it_cannot_know },
		{ "exact clock: a write it was not told of moves times by the write / rate, and widens the bound",
		  test_tscclock_write_untraced_is_wrong },
		{ "exact clock: a guest CPU of unknown APIC id takes a vcpu with a relation, not an END-only one",
		  test_tscclock_unknown_cpu_skips_end_only },
		{ "exact clock: a kvm_write_tsc_offset line of the trace file parsed", test_kvm_tsc_trace_line },
		{ "passthrough: N host and N guest interrupts at known offsets: N paired, 0 unpaired",
		  test_passthrough_pairs_exact },
		{ "passthrough: one guest interrupt missing: N-1 paired, 1 host unpaired (the right one)",
		  test_passthrough_one_guest_irq_missing },
		{ "passthrough: a clock offset wrong beyond its bound: order violations counted, not all paired",
		  test_passthrough_wrong_offset_counted },
		{ "passthrough: a bound wider than the spacing: paired by order, counted ambiguous",
		  test_passthrough_wide_bound_by_order },
		{ "passthrough: through KVM injection records: host -> injection -> guest",
		  test_passthrough_through_injections },
		{ "passthrough: a late guest clock, bound wider than the spacing: injections paired by rank",
		  test_passthrough_late_guest_in_order },
		{ "passthrough: injections of other vectors (the guest's timer) left out: N paired",
		  test_passthrough_other_injections },
		{ "passthrough: a host interrupt injected twice (entry cancelled): the last delivered it, N paired",
		  test_passthrough_repeated_injection },
		{ "passthrough: guest DMA maps with the host maps they caused (drifting clock)",
		  test_passthrough_dma_maps },
		{ "passthrough: a guest cut short: host file incomplete, guest marked lost",
		  test_passthrough_guest_cut },
		{ "reader: record types it does not know are skipped and counted", test_unknown_types_skipped },
		{ "reader: a guest wrapper whose record disagrees with it is refused", test_guest_wrapper_checked },
		{ "report --json: machines[] and passthrough for merged traces only",
		  test_passthrough_json_shape },
		{ "serve: interrupts counted up to the kernel count's cut, later ones at the next",
		  test_metrics_cut_consistent },
		{ "serve: a reloaded module's summaries add to the totals", test_metrics_summary_reload },
		{ "serve: a vector rebound onto the same irq number counts its new irq from 0",
		  test_metrics_rebind_same_irq },
		{ "serve: a vector that appears while serving counts from 0, records before its first cut too",
		  test_metrics_late_vector },
		{ "serve: Prometheus exposition (buckets, _sum in seconds, escaped labels)",
		  test_metrics_exposition },
		{ "serve: Prometheus label values escape backslash, quote and newline",
		  test_metrics_label_escaping },
		{ "clock sync: beyond the first and last exchange, the fitted drift", test_mutant_clock_extrapolation },
		{ "serve: DMA calls of the last operation in its own slot, unknown ones 'other', untimed apart",
		  test_mutant_dma_last_op },
		{ "serve: Prometheus buckets count the samples below the first bound printed", test_mutant_prometheus_low_buckets },
		{ "tracefs: a thread's process read once, kept after the thread exits", test_mutant_tgid_cached },
		{ "serve: every target's samples, not only the first's", test_mutant_prometheus_every_target },
		{ "percentiles: p0 and below are the smallest value (rank 1)", test_mutant_percentile_p0 },
		{ "json: a lone continuation byte (0x80) is U+FFFD", test_mutant_json_lone_continuation },
		{ "hist: the log2 histogram's stars, 40 columns, as bcc", test_mutant_hist_stars },
		{ "serve: an interrupt at the cut's time counts in that cut", test_mutant_metrics_at_the_cut },
		{ "CUDA API records: the calls attribution reads selected, the others not",
		  test_cupti_api_selection },
		{ "CUDA API records: GPUPROBE_CUDA_API modes", test_cupti_api_mode },
		{ "report: the tracing cost, counted and estimated, on a trace of known records",
		  test_tracing_cost },
		{ "report: --tracing-cost / GPUPROBE_TRACE_COST parsed, malformed refused",
		  test_tracing_cost_parse },
		{ "names: the string table takes whole records only; a short form finds its own name",
		  test_strtab_records },
		{ "names: long names abbreviated for the text tables", test_name_abbreviate },
		{ "iommu parts: a target's map/unmap time split by hand (nested, out of order, timer, orphan, over)",
		  test_iommu_parts_split },
		{ "iommu parts: the answer line's shares, per unmap, and WRONG for a call its parts exceed",
		  test_iommu_parts_text },
		{ "iommu parts: a trace without part records prints nothing", test_iommu_parts_absent },
		{ "iommu parts: lazy mode's deferrals inferred where queue_iova has no part",
		  test_iommu_parts_deferred_inferred },
		{ "attribution: 300 interrupts out of order, more than one prefix block: every window's count",
		  test_attribution_many_events },
		{ "report: the app's clock bound, devices and API calls with maps (JSON, text)",
		  test_attribution_report_keys },
		{ "reader: record versions 0 and newer than this tool's refused, 1 read", test_mutant_record_version_refused },
		{ "merged traces: a machine record's vectors, the first too, come back as written",
		  test_mutant_machine_vectors },
		{ "report: DMA calls none of which was timed: no latency, no histogram", test_mutant_untimed_dma_text },
		{ "attribution: two processes' waits each matched to their own process's kernel",
		  test_attribution_two_processes },
		{ "report: the passthrough text warns of pairs out of order, and only then", test_passthrough_text_note },
		{ "passthrough: no clock burst, nothing paired: every host and guest interrupt unpaired",
		  test_passthrough_never_compared },
		{ "reader: a header too small for the targets it counts is refused at the first one",
		  test_mutant_truncated_target },
		{ "crossing: 100 interrupts of known stages: exact p50/p99/max/share per stage, either clock",
		  test_crossing_stages_exact },
		{ "crossing: report --json's stages equal the inputs', the bound on crossing stages only",
		  test_crossing_json },
		{ "crossing: exchanges disagreeing beyond both bounds refuse the exact clock, and only then",
		  test_crossing_disagreement_refused },
		{ "crossing: TSC samples beyond the 4096 cap counted and warned of, none at the cap",
		  test_crossing_samples_capped },
		{ "crossing: every key of passthrough.crossing named in report-json.md", test_crossing_documented },
		{ "crossing: the verdict says not to trust it where guest interrupts precede their causes",
		  test_crossing_untrusted_verdict },
		{ "crossing: each interrupt's host path (irqfd, vCPU state, VM entry, EOI exit, exits by reason, route) equal to the inputs'",
		  test_crossing_host_path },
		{ "report: a damaged string table is counted and warned of (text, JSON), its good names used",
		  test_attribution_malformed_strings },
		{ "iommu parts: mode records past the 16 kept are counted and warned of (text, JSON)",
		  test_iommu_parts_modes_dropped },
		{ "round trip: every record type cut short at its start and inside it: the records before it",
		  test_roundtrip_cut_every_record },
		{ "iommu mode: read from made-up sysfs trees (VT-d with and without CM, AMD, another, none)",
		  test_iommu_mode_read },
		{ "exact clock: 2 host and 2 guest samples are enough, 1 each is refused",
		  test_tscclock_two_samples_each },
		{ "exact clock: the narrowest of N reads around rdtscp; records it cannot use refused",
		  test_tscclock_sample_now_and_refusals },
		{ "exact clock: the bound is the widest half windows + the bends + 1, and holds against a known bent truth",
		  test_tscclock_bound_holds_at_window_edges },
		{ "host path: no kvm_entry/exit traced: no search (linear in the pairs); stops at the previous injection",
		  test_hostpath_no_entries_linear },
		{ "host path: a reinjected vector delivered at the entry after it, its EOI found",
		  test_hostpath_reinjection },
		{ "host path: KVM steps beyond the cap counted and warned of", test_hostpath_cap_reported },
		{ "crossing: negative stages taken as 0, counted per stage and warned of",
		  test_crossing_negative_stages_counted },
	};
	int passed = 0, failed;

	failed = run_tests(cases, (int)(sizeof(cases) / sizeof(cases[0])), &passed);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
