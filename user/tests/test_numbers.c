// SPDX-License-Identifier: GPL-2.0
/*
 * Numbers as the tool prints them: one percentile convention (nearest rank)
 * for exact sample sets and histograms, and JSON that loses nothing
 * (doubles that read back as themselves, integers as integers, UTF-8 kept).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hist.h"
#include "json.h"
#include "cmds.h"
#include "synth.h"
#include "stats.h"
#include "testlib.h"
#include "tests.h"

/* ceil(p * n / 100) in integers: the definition, without floating point. */
static uint64_t rank_by_integers(unsigned int p, uint64_t n)
{
	uint64_t r = (p * n + 99) / 100;

	return r ? r : 1;
}

/* p7 of 1..100 is 7, not 8 (0.07 * 100 > 7 in binary floating point). */
void test_percentile_nearest_rank(void)
{
	double v[100];
	static struct hist h;
	struct sample_stats s;

	hist_init(&h);
	for (int i = 0; i < 100; i++) {
		v[i] = i + 1;
		hist_add(&h, (uint64_t)i + 1);
	}
	CHECK(percentile_sorted(v, 100, 7) == 7, "exact p7 %g", percentile_sorted(v, 100, 7));
	CHECK_EQ_U64(hist_percentile(&h, 7), 7);
	CHECK(percentile_sorted(v, 100, 57) == 57, "exact p57 %g", percentile_sorted(v, 100, 57));
	CHECK_EQ_U64(hist_percentile(&h, 57), 57);
	sample_stats_of(v, 100, &s);
	CHECK(s.p50 == 50 && s.p99 == 99, "p50 %g p99 %g", s.p50, s.p99);
	for (uint64_t n = 1; n <= 300; n++)
		for (unsigned int p = 1; p <= 100; p++)
			if (nearest_rank(p, n) != rank_by_integers(p, n)) {
				CHECK(0, "rank of p%u among %llu: %llu, expected %llu", p,
				      (unsigned long long)n, (unsigned long long)nearest_rank(p, n),
				      (unsigned long long)rank_by_integers(p, n));
				return;
			}
}

/*
 * The low edge of x's bucket, from the layout lib/hist.h documents rather
 * than from its code: values below 64 exact, each power of two [2^k,
 * 2^(k+1)) above cut into 64 buckets of 2^(k-6).
 */
static uint64_t bucket_low_by_layout(uint64_t x)
{
	unsigned int k = 63;

	if (x < 64)
		return x;
	while (!(x >> k))
		k--;
	return x - x % (1ull << (k - 6));
}

/*
 * The histogram's percentile is the low edge of the bucket of the exact
 * (nearest-rank) sample, for every percentile of a skewed set.
 */
void test_percentile_hist_agrees(void)
{
	static struct hist h;
	double v[997];
	int bad = 0;

	/* the layout worked by hand: 2^9 = 512 <= 990 < 1024 in buckets of 8; 2^18 <= 500000 in 4096s */
	CHECK_EQ_U64(bucket_low_by_layout(63), 63);
	CHECK_EQ_U64(bucket_low_by_layout(129), 128);	/* 128..255: buckets of 2 */
	CHECK_EQ_U64(bucket_low_by_layout(990), 984);
	CHECK_EQ_U64(bucket_low_by_layout(500000), 499712);	/* 122 * 4096 */
	hist_init(&h);
	for (int i = 0; i < 997; i++) {
		uint64_t x = 1000 + (uint64_t)i * i * 37 % 500000;

		v[i] = (double)x;
		hist_add(&h, x);
	}
	for (int i = 1; i < 997; i++)
		for (int k = i; k > 0 && v[k - 1] > v[k]; k--) {
			double t = v[k];

			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	for (unsigned int p = 1; p <= 100; p++) {
		uint64_t exact = (uint64_t)percentile_sorted(v, 997, p);
		uint64_t want = p == 100 ? h.max : nearest_rank(p, 997) == 1 ? h.min :
				bucket_low_by_layout(exact);

		if (hist_percentile(&h, p) != want && bad++ < 3)
			CHECK(0, "p%u: histogram %llu, exact %llu, its bucket %llu", p,
			      (unsigned long long)hist_percentile(&h, p), (unsigned long long)exact,
			      (unsigned long long)want);
	}
}

/* Doubles read back bit for bit; integers print as integers; UTF-8 stays UTF-8. */
void test_json_lossless(void)
{
	const char *path = test_tmp_path("lossless.json");
	struct json j;
	FILE *f = test_json_begin(&j, path);

	if (!f)
		return;
	json_kv_double(&j, "third", 1.0 / 3.0);
	json_kv_double(&j, "sum", 0.1 + 0.2);
	json_kv_double(&j, "ns", 38040.0);
	json_kv_double(&j, "big", 9007199254740992.0);	/* 2^53 */
	json_kv_u64(&j, "u64", 18446744073709551615ull);
	json_kv_string(&j, "kernel", "r\xc3\xa9" "duire_\xe6\x97\xa5\xf0\x9f\x9a\x80");
	json_kv_string(&j, "cut", "ab\xc3");			/* a name cut inside a character */
	json_kv_string(&j, "latin1", "caf\xe9!");
	json_kv_string(&j, "overlong", "\xc0\xaf");
	json_kv_string(&j, "ctl", "\x7f\x01");
	json_object_end(&j);
	fclose(f);
	CHECK(test_python_json(path,
		"assert d[\"third\"]==1.0/3.0 and d[\"sum\"]==0.1+0.2, (d[\"third\"], d[\"sum\"])\n"
		"assert b\"\\\"ns\\\":38040,\" in raw and b\"\\\"big\\\":9007199254740992,\" in raw, raw\n"
		"assert d[\"u64\"]==18446744073709551615\n"
		"assert d[\"kernel\"]==\"r\\u00e9duire_\\u65e5\\U0001f680\", d[\"kernel\"]\n"
		"assert \"r\\u00e9duire\".encode() in raw, raw\n"
		"assert d[\"cut\"]==\"ab\\ufffd\" and d[\"latin1\"]==\"caf\\ufffd!\", (d[\"cut\"], d[\"latin1\"])\n"
		"assert d[\"overlong\"]==\"\\ufffd\\ufffd\" and d[\"ctl\"]==\"\\x7f\\x01\"\n"
		"assert b\"\\\\u007f\" in raw") == 0, "python3 rejected %s", path);
	unlink(path);
}

/*
 * A DMA call without a duration (tracefs dma: events are instants) is "not
 * measured" in text and null in JSON, never a 0 ns latency.
 */
void test_report_not_measured(void)
{
	const char *trace = test_tmp_path("untimed.trace");
	struct gpuprobe_rec_dma d;
	struct trace_writer w;
	struct trace_info info;
	char *buf;

	synth_info(&info);
	CHECK(trace_writer_open(&w, trace, &info) == 0, "open %s", trace);
	synth_dma(&d, 1000, GPUPROBE_DMA_MAP_SG, 4096, 1, 0);
	trace_writer_put(&w, &d.hdr);
	trace_writer_finish(&w, 5000, 0);
	buf = test_report(trace, false);
	CHECK(buf && strstr(buf, "latency (0 of 1 calls timed) not measured") && !strstr(buf, "p50 0 ns"),
	      "text: %s", buf);
	free(buf);
	buf = test_report(trace, true);
	CHECK(buf && strstr(buf, "\"untimed\": 1") && strstr(buf, "\"p50\": null"), "json: %s", buf);
	free(buf);
	unlink(trace);
}

/*
 * A VFIO container holding two targets: every IOMMU map of it is flagged
 * shared and names only the first target.  The report gives that work to
 * the domain, with both targets named (from the DOMAIN target records),
 * and charges none of it to the first target; the second target's own
 * domain keeps its maps.  (Before, the first target had them all.)
 */
void test_report_shared_domain(void)
{
	const uint32_t a = SYNTH_GPU_BDF, b = GPUPROBE_BDF(0, 0x02, 0x00);
	const char *trace = test_tmp_path("shared.trace"), *json = test_tmp_path("shared.json");
	struct gpuprobe_rec_target tr = {
		.hdr = { .type = GPUPROBE_EV_TARGET, .size = sizeof(tr), .ts_ns = 900 },
		.event = GPUPROBE_TARGET_DOMAIN, .domain = 0xabc,
	};
	struct gpuprobe_rec_iommu io;
	struct trace_writer w;
	struct trace_info info;
	char *buf;
	FILE *out;

	synth_info(&info);
	CHECK(trace_writer_open(&w, trace, &info) == 0, "open %s", trace);
	tr.bdf = a;
	trace_writer_put(&w, &tr.hdr);
	tr.bdf = b;
	trace_writer_put(&w, &tr.hdr);
	/* b's own domain too, which no other target is in: not a shared one */
	tr.domain = 0xdef;
	trace_writer_put(&w, &tr.hdr);
	for (int i = 0; i < 5; i++) {
		synth_iommu(&io, 1000 + i, a, GPUPROBE_IOMMU_MAP, 4096, 100 + i);
		io.hdr.flags = GPUPROBE_IOMMU_SHARED_DOMAIN;
		io.domain = 0xabc;
		trace_writer_put(&w, &io.hdr);
		synth_iommu(&io, 2000 + i, a, GPUPROBE_IOMMU_UNMAP, 4096, 50);
		io.hdr.flags = GPUPROBE_IOMMU_SHARED_DOMAIN;
		io.domain = 0xabc;
		trace_writer_put(&w, &io.hdr);
	}
	synth_iommu(&io, 3000, b, GPUPROBE_IOMMU_MAP, 8192, 70);
	io.domain = 0xdef;
	trace_writer_put(&w, &io.hdr);
	trace_writer_finish(&w, 5000, 0);

	buf = test_report(trace, false);
	CHECK(buf && strstr(buf, "IOMMU domain 0x00000abc shared by 0000:01:00.0, 0000:02:00.0") &&
	      strstr(buf, "IOMMU map   5 calls, 20480 bytes"), "text: %s", buf ? buf : "");
	/* 0000:02:00.0's own domain 0xdef is nobody else's: no shared-domain section */
	CHECK(buf && !strstr(buf, "IOMMU domain 0x00000def"), "an unshared domain printed as shared");
	free(buf);
	out = fopen(json, "w");
	CHECK(out && report_file(trace, true, out) == 0, "report --json failed");
	if (out)
		fclose(out);
	CHECK(test_python_json(json,
		"t={x[\"bdf\"]:x for x in d[\"targets\"]}\n"
		"assert t[\"0000:01:00.0\"][\"iommu\"][\"map\"][\"count\"]==0, t[\"0000:01:00.0\"][\"iommu\"]\n"
		"assert t[\"0000:01:00.0\"][\"iommu\"][\"unmap\"][\"count\"]==0\n"
		"assert t[\"0000:02:00.0\"][\"iommu\"][\"map\"][\"count\"]==1\n"
		"assert t[\"0000:02:00.0\"][\"target_events\"]==0\n"
		"[s]=d[\"iommu_domains\"]\n"
		"assert s[\"domain\"]==0xabc and s[\"shared\"], s\n"
		"assert s[\"targets\"]==[\"0000:01:00.0\",\"0000:02:00.0\"], s[\"targets\"]\n"
		"m=s[\"iommu\"][\"map\"]\n"
		"assert m[\"count\"]==5 and m[\"bytes\"]==20480 and m[\"time_ns\"][\"sum\"]==510, m\n"
		"assert s[\"iommu\"][\"unmap\"][\"count\"]==5") == 0,
	      "python3 rejected %s", json);
	unlink(trace);
	unlink(json);
}
