// SPDX-License-Identifier: GPL-2.0
/*
 * Behaviour that surviving mutants (scripts/mutate.py, Documentation/
 * testing.md) showed untested, each expectation worked by hand from the
 * interface's definition, not from the code's output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clocksync.h"
#include "hist.h"
#include "json.h"
#include "machine.h"
#include "metrics.h"
#include "prometheus.h"
#include "stats.h"
#include "synth.h"
#include "testlib.h"
#include "tgid_cache.h"
#include "tests.h"
#include "util.h"

/*
 * Beyond the first and the last exchange the offset follows the fitted
 * drift (clocksync.h: "their line beyond the first and last").  Two exact
 * points: at host 1 s the guest is 5 ms ahead, at host 2 s 5.001 ms: the
 * offset grows by 1 us per s, 1000 ppb.  On that line the guest time of
 * host 3 s is 3 s + 5.002 ms, of host 0 it is 4.999 ms; each must map back
 * to its host time.  The casts of the fit may cost a nanosecond: within 1.
 * (Killed: clocksync.c's `/ 1e9` of the extrapolation turned into `* 1e9`.)
 */
void test_mutant_clock_extrapolation(void)
{
	struct clock_fit *f = calloc(1, sizeof(*f));
	const struct clock_point a = { 1000000000ull, 1005000000ull, 5000000, 0 };
	const struct clock_point b = { 2000000000ull, 2005001000ull, 5001000, 0 };
	uint64_t host = 0;

	if (!f) {
		CHECK(0, "out of memory");
		return;
	}
	clock_fit_init(f);
	CHECK(clock_fit_add(f, &a) == 0 && clock_fit_add(f, &b) == 0, "two points");
	clock_fit_solve(f);
	CHECK(f->drift_ppb == 1000, "drift %lld ppb, expected 1000", (long long)f->drift_ppb);
	CHECK(clock_guest_to_host(f, 3005002000ull, &host), "mapping after the last point");
	CHECK(llabs((long long)(host - 3000000000ull)) <= 1, "after the last point: host %llu, expected 3000000000",
	      (unsigned long long)host);
	CHECK(clock_guest_to_host(f, 4999000ull, &host), "mapping before the first point");
	CHECK(llabs((long long)host) <= 1, "before the first point: host %llu, expected 0",
	      (unsigned long long)host);
	free(f);
}

static void put_dma(struct metrics *m, uint16_t op, uint64_t bytes, uint16_t flags)
{
	struct gpuprobe_rec_dma r = {
		.hdr = { .type = GPUPROBE_EV_DMA, .size = sizeof(r), .ts_ns = 100, .flags = flags },
		.bdf = GPUPROBE_BDF(0, 6, 0), .op = op, .bytes = bytes, .duration_ns = 500,
	};

	metrics_add_record(m, &r.hdr);
}

/*
 * serve counts DMA calls per operation of enum gpuprobe_dma_op, 1-based up
 * to GPUPROBE_DMA_UNMAP_RESOURCE (8); an operation it does not know is
 * "other", slot 0.  The last known one has a slot of its own.  A call
 * flagged GPUPROBE_DMA_UNTIMED (uapi: no duration) is counted, as untimed,
 * and not in the latency histogram: map_page 3 calls, 1 untimed, 2 timed.
 * (Killed: metrics.c's `r->op <= METRICS_DMA_OPS` turned into `<`, and its
 * untimed test negated.)
 */
void test_mutant_dma_last_op(void)
{
	static struct target_set set;
	struct metrics m;

	memset(&set, 0, sizeof(set));
	set.count = 1;
	set.t[0].bdf = GPUPROBE_BDF(0, 6, 0);
	strcpy(set.t[0].name, "0000:00:06.0");
	CHECK(!metrics_init(&m, &set, "host", "tracefs"), "metrics_init");
	m.detailed = true;
	put_dma(&m, GPUPROBE_DMA_UNMAP_RESOURCE, 4096, 0);
	put_dma(&m, GPUPROBE_DMA_MAP_PAGE, 512, 0);
	put_dma(&m, GPUPROBE_DMA_MAP_PAGE, 512, 0);
	put_dma(&m, GPUPROBE_DMA_MAP_PAGE, 512, GPUPROBE_DMA_UNTIMED);
	put_dma(&m, GPUPROBE_DMA_UNMAP_RESOURCE + 1, 8, 0);
	CHECK_EQ_U64(m.t[0].dma[8].calls, 1);
	CHECK_EQ_U64(m.t[0].dma[8].bytes, 4096);
	CHECK_EQ_U64(m.t[0].dma[1].calls, 3);
	CHECK_EQ_U64(m.t[0].dma[1].untimed, 1);
	CHECK_EQ_U64(m.t[0].dma[1].latency.count, 2);
	CHECK_EQ_U64(m.t[0].dma[0].calls, 1);
	CHECK_EQ_U64(m.t[0].dma[0].bytes, 8);
	metrics_free(&m);
}

static void put_irq_ns(struct metrics *m, uint64_t ts, uint64_t duration_ns)
{
	struct gpuprobe_rec_irq r = {
		.hdr = { .type = GPUPROBE_EV_IRQ, .size = sizeof(r), .ts_ns = ts },
		.bdf = GPUPROBE_BDF(0, 6, 0), .irq = 40, .vector = 0, .duration_ns = duration_ns,
	};

	metrics_add_record(m, &r.hdr);
}

/*
 * serve counts an interrupt in the cut at or after it ("records up to a
 * cut count in it", test_metrics.c): one at exactly the cut's time is in
 * that cut, not ahead of it.  Baseline at 100; irqs at 150 and 200; cut at
 * 200: 2 counted, 0 ahead.
 * (Killed: metrics.c's `ts_ns > cut_ns` turned into `>=`.)
 */
void test_mutant_metrics_at_the_cut(void)
{
	static struct target_set set;
	const struct kernel_count k0 = { .irq = 40, .count = 10, .cut_ns = 100 };
	const struct kernel_count k1 = { .irq = 40, .count = 12, .cut_ns = 200 };
	struct metrics m;

	memset(&set, 0, sizeof(set));
	set.count = 1;
	set.t[0].bdf = GPUPROBE_BDF(0, 6, 0);
	strcpy(set.t[0].name, "0000:00:06.0");
	set.t[0].nvec = 1;
	set.t[0].vec[0] = (struct target_vector){ .index = 0, .irq = 40 };
	CHECK(!metrics_init(&m, &set, "host", "tracefs"), "metrics_init");
	metrics_kernel_count(&m, GPUPROBE_BDF(0, 6, 0), 0, &k0);
	metrics_kernel_count(&m, GPUPROBE_BDF(0, 6, 0), 0, &k1);
	put_irq_ns(&m, 150, 1000);
	put_irq_ns(&m, 200, 1000);
	CHECK_EQ_U64(m.t[0].vec[0].interrupts, 2);
	CHECK_EQ_U64(m.t[0].vec[0].ahead, 0);
	metrics_free(&m);
}

/*
 * Prometheus buckets are cumulative: le="x" counts every sample <= x,
 * those below the first bound printed too.  Handlers of 300 ns and 3 us:
 * le=1.024e-06 holds 1 (300 ns), le=2.048e-06 1, le=4.096e-06 both.
 * (Killed: prometheus.c's sum of the buckets below LE_FIRST, b++ -> b--.)
 */
void test_mutant_prometheus_low_buckets(void)
{
	static struct target_set set;
	const struct kernel_count k0 = { .irq = 40, .count = 0, .cut_ns = 100 };
	const struct kernel_count k1 = { .irq = 40, .count = 2, .cut_ns = 200 };
	struct metrics m;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	memset(&set, 0, sizeof(set));
	set.count = 1;
	set.t[0].bdf = GPUPROBE_BDF(0, 6, 0);
	strcpy(set.t[0].name, "0000:00:06.0");
	set.t[0].nvec = 1;
	set.t[0].vec[0] = (struct target_vector){ .index = 0, .irq = 40 };
	CHECK(!metrics_init(&m, &set, "host", "tracefs"), "metrics_init");
	metrics_kernel_count(&m, GPUPROBE_BDF(0, 6, 0), 0, &k0);
	put_irq_ns(&m, 150, 300);
	put_irq_ns(&m, 160, 3000);
	metrics_kernel_count(&m, GPUPROBE_BDF(0, 6, 0), 0, &k1);
	out = open_memstream(&text, &len);
	if (!out) {
		CHECK(0, "open_memstream");
		metrics_free(&m);
		return;
	}
	prometheus_write(out, &m, "0.1");
	fclose(out);
	CHECK(strstr(text, "handler_duration_seconds_bucket{bdf=\"0000:00:06.0\",driver=\"\",role=\"host\",vector=\"0\",le=\"1.024e-06\"} 1\n") &&
	      strstr(text, "le=\"2.048e-06\"} 1\n") && strstr(text, "le=\"4.096e-06\"} 2\n"),
	      "cumulative buckets from the first:\n%s", text);
	free(text);
	metrics_free(&m);
}

static void fake_status(const char *root, uint32_t tid, uint32_t tgid, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%u", root, tid);
	mkdir(path, 0700);
	snprintf(path, len, "%s/%u/status", root, tid);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "Name:\tworker\nTgid:\t%u\nPid:\t%u\n", tgid, tid);
		fclose(f);
	}
}

/*
 * tgid_cache.h: /proc/TID/status is read once per thread, while it lives;
 * the tracefs source decodes a thread's events after it may have exited.
 * A fake /proc with threads 100 and 101 of process 7: both looked up, then
 * their status files gone (the threads exited): both still give 7; a
 * thread never seen and gone gives 0, as does tid 0 (the idle task).
 * (Killed: tgid_cache.c's lookup loop, i++ -> i--, which saw slot 0 only.)
 */
void test_mutant_tgid_cached(void)
{
	char root[64], p100[96], p101[96], dir[96];
	struct tgid_cache c = { 0 };

	snprintf(root, sizeof(root), "%s", test_tmp_path("proc"));
	CHECK(mkdir(root, 0700) == 0, "mkdir %s", root);
	c.proc_root = root;
	fake_status(root, 100, 7, p100, sizeof(p100));
	fake_status(root, 101, 7, p101, sizeof(p101));
	CHECK_EQ_U64(tgid_of(&c, 100), 7);
	CHECK_EQ_U64(tgid_of(&c, 101), 7);
	unlink(p100);
	unlink(p101);
	CHECK_EQ_U64(tgid_of(&c, 101), 7);
	CHECK_EQ_U64(tgid_of(&c, 100), 7);
	CHECK_EQ_U64(tgid_of(&c, 102), 0);
	CHECK_EQ_U64(tgid_of(&c, 0), 0);
	snprintf(dir, sizeof(dir), "%s/100", root);
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/101", root);
	rmdir(dir);
	rmdir(root);
}

/*
 * Every target gets its samples, not only the first: two targets, 00:06.0
 * with vectors on irqs 40 and 41, 00:07.0 with one on irq 50; the vectors
 * gauge is the count of vectors with an irq: 2 and 1.
 * (Killed: prometheus.c's loop over the targets of that family, i++ -> i--.)
 */
void test_mutant_prometheus_every_target(void)
{
	static struct target_set set;
	struct metrics m;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	memset(&set, 0, sizeof(set));
	set.count = 2;
	set.t[0].bdf = GPUPROBE_BDF(0, 6, 0);
	strcpy(set.t[0].name, "0000:00:06.0");
	set.t[0].nvec = 2;
	set.t[0].vec[0] = (struct target_vector){ .index = 0, .irq = 40 };
	set.t[0].vec[1] = (struct target_vector){ .index = 1, .irq = 41 };
	set.t[1].bdf = GPUPROBE_BDF(0, 7, 0);
	strcpy(set.t[1].name, "0000:00:07.0");
	set.t[1].nvec = 1;
	set.t[1].vec[0] = (struct target_vector){ .index = 0, .irq = 50 };
	CHECK(!metrics_init(&m, &set, "host", "tracefs"), "metrics_init");
	out = open_memstream(&text, &len);
	if (!out) {
		CHECK(0, "open_memstream");
		metrics_free(&m);
		return;
	}
	prometheus_write(out, &m, "0.1");
	fclose(out);
	CHECK(strstr(text, "gpuprobe_target_vectors{bdf=\"0000:00:06.0\",driver=\"\",role=\"host\"} 2\n") &&
	      strstr(text, "gpuprobe_target_vectors{bdf=\"0000:00:07.0\",driver=\"\",role=\"host\"} 1\n"),
	      "vectors of both targets:\n%s", text);
	CHECK(strstr(text, "gpuprobe_target_bound{bdf=\"0000:00:07.0\"") &&
	      strstr(text, "gpuprobe_untracked_vector_records_total{bdf=\"0000:00:07.0\""),
	      "the second target's other samples");
	free(text);
	metrics_free(&m);
}

/*
 * Nearest rank: the p-th percentile of n sorted values is the value of
 * rank ceil(p * n / 100), at least rank 1: p0 (and anything not above 0)
 * is the smallest value, p100 the largest.  Hand-worked for 1..10.
 * (Killed: stats.c's `return 1` for p <= 0 turned into `return 2`.)
 */
void test_mutant_percentile_p0(void)
{
	const double v[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

	CHECK_EQ_U64(nearest_rank(0, 10), 1);
	CHECK_EQ_U64(nearest_rank(-5, 10), 1);
	CHECK_EQ_U64(nearest_rank(100, 10), 10);
	CHECK_EQ_U64(nearest_rank(25, 10), 3);
	CHECK(percentile_sorted(v, 10, 0) == 1.0, "p0 of 1..10 is 1");
}

/*
 * JSON text is UTF-8 (RFC 8259): a byte that starts no UTF-8 sequence is
 * written as U+FFFD (json.h).  0x80 is a continuation byte, never a start:
 * "a\x80b" is "a\ufffdb"; a well-formed "\xc3\xa9" (e acute) stays as it is.
 * (Killed: json.c's `*p >= 0x80` turned into `> 0x80`, which wrote 0x80 raw.)
 */
void test_mutant_json_lone_continuation(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out) {
		CHECK(0, "open_memstream");
		return;
	}
	json_write_escaped(out, "a\x80" "b \xc3\xa9");
	fclose(out);
	CHECK(!strcmp(text, "\"a\\ufffdb \xc3\xa9\""), "escaped: %s", text);
	free(text);
}

/*
 * The log2 histogram as bcc prints it: one line per slot from the first
 * to the last one used, 40 columns between the bars, the largest slot
 * full of stars and each other one val * 40 / max of them.  600 and 700
 * in slot 512..1023, 1500 in 1024..2047: 40 stars, then 20 and 20 blanks.
 * (Killed: hist.c's star loop `i < STARS_WIDTH` turned into `<=`.)
 */
void test_mutant_hist_stars(void)
{
	static struct hist h;
	char *text = NULL, want[256];
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	if (!out) {
		CHECK(0, "open_memstream");
		return;
	}
	hist_init(&h);
	hist_add(&h, 600);
	hist_add(&h, 700);
	hist_add(&h, 1500);
	hist_print_log2(out, &h, "nsecs");
	fclose(out);
	snprintf(want, sizeof(want), "%12s -> %-12s : %-9s |%40s|\n%12s -> %-12s : %-9s |%-40s|\n",
		 "512", "1023", "2", "****************************************",
		 "1024", "2047", "1", "********************");
	CHECK(strstr(text, want) != NULL, "histogram lines:\n%s\nexpected:\n%s", text, want);
	free(text);
}

/*
 * The header's record version (a u32 at offset 16, tracefile.h) names the
 * layout of every record after it: this tool reads 1 to
 * GPUPROBE_RECORD_VERSION, and refuses 0 and anything newer rather than
 * misreading it.  (Killed: tracefile_read.c's `> GPUPROBE_RECORD_VERSION`
 * turned into `<`.)
 */
void test_mutant_record_version_refused(void)
{
	const char *path = test_tmp_path("recver");
	const uint32_t versions[] = { 0, GPUPROBE_RECORD_VERSION + 1, 7, GPUPROBE_RECORD_VERSION };
	struct trace_info *info = malloc(sizeof(*info));
	struct trace_reader r;

	CHECK(info && !synth_write_known(path), "write the known trace");
	for (size_t i = 0; info && i < sizeof(versions) / sizeof(versions[0]); i++) {
		uint32_t v = versions[i];
		int fd = open(path, O_WRONLY);
		bool ok = v >= 1 && v <= GPUPROBE_RECORD_VERSION;
		char want[64];
		int rc;

		CHECK(fd >= 0 && pwrite(fd, &v, sizeof(v), 16) == sizeof(v), "patch the record version");
		if (fd >= 0)
			close(fd);
		rc = trace_reader_open(&r, path, info);
		snprintf(want, sizeof(want), "record version %u at offset 16", v);
		if (ok)
			CHECK(rc == 0 && info->record_version == v, "record version %u refused: %s", v, r.error);
		else
			CHECK(rc != 0 && strstr(r.error, want), "record version %u: rc %d, error '%s'", v, rc,
			      r.error);
		trace_reader_close(&r);
	}
	free(info);
	unlink(path);
}

/*
 * A machine record (merged traces) carries each target's vectors as
 * struct tracefile_vector after its struct tracefile_target: three vectors
 * make it sizeof(rec) + sizeof(target) + 3 * sizeof(vector) bytes, and each
 * comes back as written, the first (index 0) too.  (Killed: machine.c's
 * vector loop started at 1.)
 */
void test_mutant_machine_vectors(void)
{
	struct machine_desc *m = calloc(1, sizeof(*m)), *back = calloc(1, sizeof(*back));
	static unsigned char buf[TRACEFILE_REC_MAX_SIZE];
	const struct target_vector vec[3] = { { 0, 40, VECTOR_MSIX }, { 1, 41, VECTOR_MSIX }, { 5, 57, 0 } };
	struct target *t;
	char err[256] = "";
	size_t len;

	if (!m || !back) {
		CHECK(0, "out of memory");
		goto out;
	}
	m->machine = 1;
	m->info.targets.count = 1;
	t = &m->info.targets.t[0];
	*t = (struct target){ .bdf = SYNTH_GPU_BDF, .vendor = 0x10de, .device = 0x2335, .class = 0x030200,
			      .nvec = 3 };
	memcpy(t->vec, vec, sizeof(vec));
	copy_string(t->driver, sizeof(t->driver), "vfio-pci");
	len = machine_record_build(m, buf, sizeof(buf));
	CHECK_EQ_U64(len, sizeof(struct tracefile_rec_machine) + sizeof(struct tracefile_target) +
		     3 * sizeof(struct tracefile_vector));
	CHECK(machine_record_decode((const void *)buf, back, err, sizeof(err)) == 0, "decode: %s", err);
	CHECK_EQ_U64(back->info.targets.count, 1);
	CHECK_EQ_U64(back->info.targets.t[0].nvec, 3);
	for (unsigned int v = 0; v < 3; v++) {
		const struct target_vector *g = &back->info.targets.t[0].vec[v];

		CHECK(g->index == vec[v].index && g->irq == vec[v].irq && g->flags == vec[v].flags,
		      "vector %u: index %u irq %u flags %u", v, g->index, g->irq, g->flags);
	}
out:
	free(m);
	free(back);
}

/*
 * DMA calls the source could not time (GPUPROBE_DMA_UNTIMED: no duration)
 * have no latency: report says so and prints no histogram for them, where
 * an empty one would read as calls of 0 ns.  Three untimed map_page calls.
 * (Written for report_text.c's `if (d->latency_ns.max)` made `if (1)`,
 * which it does not kill: that mutant is equivalent, see
 * scripts/mutate-equivalent.txt; the line it checks stays worth checking.)
 */
void test_mutant_untimed_dma_text(void)
{
	const char *path = test_tmp_path("untimed");
	struct gpuprobe_rec_dma d;
	struct trace_writer w;
	struct trace_info info;
	char *buf = NULL;
	const char *at;

	synth_info(&info);
	CHECK(trace_writer_open(&w, path, &info) == 0, "open %s", path);
	for (int i = 0; i < 3; i++) {
		synth_dma(&d, 1000000000ull + 1000 * i, GPUPROBE_DMA_MAP_PAGE, 4096, 1, 0);
		d.hdr.flags = GPUPROBE_DMA_UNTIMED;
		trace_writer_put(&w, &d.hdr);
	}
	CHECK(trace_writer_finish(&w, 1000010000ull, 0) == 0, "finish %s", path);
	buf = test_report(path, false);
	at = buf ? strstr(buf, "map_page       3 calls, 12288 bytes") : NULL;
	CHECK(at, "no map_page line: %s", buf ? buf : "");
	if (at) {
		at = strchr(at, '\n');
		CHECK(at && !strncmp(at + 1, "      latency (0 of 3 calls timed) not measured\n", 48),
		      "latency line: %.120s", at ? at + 1 : "");
		CHECK(at && !strstr(at, "nsecs"), "a histogram of untimed calls: %s", at ? at : "");
	}
	free(buf);
	unlink(path);
}

/*
 * A header whose size (u32 at offset 12) leaves no room for the target it
 * counts: the known trace's one target with its header cut to the fixed
 * part alone.  The reader refuses it at the first target's offset rather
 * than read a target out of nothing.  (For tracefile_read.c's dropped
 * "truncated target" return.)
 */
void test_mutant_truncated_target(void)
{
	const char *path = test_tmp_path("shorthdr");
	const uint32_t fixed = sizeof(struct tracefile_header_fixed);
	struct trace_info *info = malloc(sizeof(*info));
	struct trace_reader r;
	char want[96];
	int fd, rc;

	memset(&r, 0, sizeof(r));
	CHECK(info && !synth_write_known(path), "write the known trace");
	fd = open(path, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, &fixed, sizeof(fixed), 12) == sizeof(fixed), "patch the header size");
	if (fd >= 0)
		close(fd);
	rc = info ? trace_reader_open(&r, path, info) : -1;
	snprintf(want, sizeof(want), "truncated target at offset %u (header too small)", fixed);
	CHECK(rc != 0 && strstr(r.error, want), "rc %d, error '%s', expected '%s'", rc, r.error, want);
	if (info)
		trace_reader_close(&r);
	free(info);
	unlink(path);
}
