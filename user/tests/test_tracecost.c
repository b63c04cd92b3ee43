// SPDX-License-Identifier: GPL-2.0
/*
 * The tracing-cost line (analysis/tracecost.c) on a synthetic trace whose
 * counts are known: 5 CUDA API calls, 2 kernels, 3 OpenCL calls, 10
 * interrupts, and 5 CUPTI overhead records of which three are CUPTI's own
 * (buffer flush 1000 ns, instrumentation 2000 ns, buffer request 4000 ns:
 * 7000 ns) and two are not the tracer's (the driver's compiler, 50000 ns; a
 * full command buffer, 8000 ns).  CUDA records: 5 + 2 + 5 = 12; OpenCL 3.
 * Kernel side: the 10 interrupts plus what the writer puts in any trace,
 * counted from a trace with no event at all.  Wall: 100 us.
 *
 * With cuda=1000,opencl=500,kernel=100 ns a record the estimate is
 * 12 x 1000 + 3 x 500 + K x 100 ns; with "none" it is CUPTI's 7000 ns (a
 * lower bound); with none given, the H200's per-record cost and its
 * interval: 12 x TRACE_COST_H200_CUDA_NS [12 x LO, 12 x HI], each end at
 * least CUPTI's 7000 ns (OpenCL and the kernel side: 0).  Large: the
 * interval's upper end at 3 % of wall or more; with a 10 s wall nothing is.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demangle.h"
#include "json_read.h"
#include "strtab.h"
#include "synth.h"
#include "testlib.h"
#include "tracecost.h"
#include "tests.h"
#include "util.h"

#define WALL	100000ull

static void put(struct trace_writer *w, uint8_t api, uint16_t type, uint32_t kind, uint64_t t,
		uint64_t len)
{
	struct tracefile_rec_app r = {
		.hdr = { .type = TRACEFILE_REC_APP, .size = sizeof(r), .ts_ns = t },
		.ev = { .magic = GPUPROBE_APP_MAGIC, .version = GPUPROBE_APP_VERSION, .api = api,
			.size = sizeof(r.ev), .type = type, .kind = kind, .pid = 7, .tid = 7,
			.correlation = t, .start_ns = t, .end_ns = t + len },
	};

	copy_string(r.ev.name, sizeof(r.ev.name), "x");
	trace_writer_put(w, &r.hdr);
}

/* The trace described above (events false: none at all); 0 on success. */
static int write_cost_trace(const char *path, bool events, uint64_t wall)
{
	static const struct { uint32_t kind; uint64_t ns; } overhead[] = {
		{ 1u << 16, 1000 }, { 2u << 16, 2000 }, { 7u << 16, 4000 },
		{ 1, 50000 }, { 6u << 16, 8000 },
	};
	struct trace_writer w;
	struct trace_info info;
	uint64_t t0;

	synth_info(&info);
	t0 = info.start_ns;
	if (trace_writer_open(&w, path, &info))
		return -1;
	for (unsigned int i = 0; events && i < 10; i++) {
		struct gpuprobe_rec_irq irq;

		synth_irq(&irq, t0 + 1000 + i * 100, 0, 0, 50, true);
		trace_writer_put(&w, &irq.hdr);
	}
	for (unsigned int i = 0; events && i < 5; i++)
		put(&w, GPUPROBE_APP_CUDA, GPUPROBE_APP_API, 0, t0 + 2000 + i * 100, 50);
	for (unsigned int i = 0; events && i < 2; i++)
		put(&w, GPUPROBE_APP_CUDA, GPUPROBE_APP_KERNEL, 0, t0 + 3000 + i * 100, 50);
	for (unsigned int i = 0; events && i < 3; i++)
		put(&w, GPUPROBE_APP_OPENCL, GPUPROBE_APP_API, 0, t0 + 4000 + i * 100, 50);
	for (unsigned int i = 0; events && i < 5; i++)
		put(&w, GPUPROBE_APP_CUDA, GPUPROBE_APP_OVERHEAD, overhead[i].kind,
		    t0 + 5000 + i * 100000, overhead[i].ns);
	return trace_writer_finish(&w, t0 + wall, 0);
}

static json_t *cost_json(const char *path, const char *env)
{
	char err[256];
	char *text;
	json_t *doc;

	if (env)
		setenv("GPUPROBE_TRACE_COST", env, 1);
	text = test_report(path, true);
	unsetenv("GPUPROBE_TRACE_COST");
	doc = text ? jread_parse(text, err, sizeof(err)) : NULL;
	free(text);
	CHECK(doc, "report --json of %s", path);
	return doc;
}

void test_tracing_cost(void)
{
	const char *empty = test_tmp_path("cost-empty"), *path = test_tmp_path("cost");
	uint64_t base, k;
	const json_t *tc;
	json_t *doc;
	char *text;

	CHECK(!write_cost_trace(empty, false, WALL), "write %s", empty);
	doc = cost_json(empty, NULL);
	base = jread_u64(jread_get(doc, "trace"), "records", 0);
	jread_free(doc);
	unlink(empty);
	k = base + 10;

	CHECK(!write_cost_trace(path, true, WALL), "write %s", path);
	doc = cost_json(path, "none");
	tc = jread_get(doc, "tracing_cost");
	CHECK_EQ_U64(jread_u64(tc, "cuda_records", 0), 12);
	CHECK_EQ_U64(jread_u64(tc, "opencl_records", 0), 3);
	CHECK_EQ_U64(jread_u64(tc, "kernel_records", 0), k);
	CHECK_EQ_U64(jread_u64(tc, "cupti_overhead_records", 0), 3);
	CHECK_EQ_U64(jread_u64(tc, "cupti_overhead_ns", 0), 7000);
	CHECK_EQ_U64((uint64_t)jread_number(tc, "estimate_ns", 0), 7000);
	CHECK(json_is_null(jread_get(tc, "calibration")), "none: no calibration");
	CHECK(json_is_true(jread_get(tc, "large")), "7 us of 100 us is large");
	jread_free(doc);

	/* none given: the H200's, with its interval */
	doc = cost_json(path, NULL);
	tc = jread_get(doc, "tracing_cost");
	CHECK(!strcmp(jread_string(tc, "calibration", ""), TRACE_COST_H200_SOURCE), "the H200's named");
	CHECK(jread_number(tc, "estimate_ns", 0) == 12 * TRACE_COST_H200_CUDA_NS,
	      "estimate %g", jread_number(tc, "estimate_ns", 0));
	CHECK(jread_number(tc, "estimate_lo_ns", 0) ==
	      (12 * TRACE_COST_H200_CUDA_LO_NS > 7000 ? 12 * TRACE_COST_H200_CUDA_LO_NS : 7000),
	      "low end %g", jread_number(tc, "estimate_lo_ns", 0));
	CHECK(jread_number(tc, "estimate_hi_ns", 0) == 12 * TRACE_COST_H200_CUDA_HI_NS,
	      "high end %g", jread_number(tc, "estimate_hi_ns", 0));
	CHECK(jread_number(tc, "share_of_wall_hi", 0) * WALL > 12 * TRACE_COST_H200_CUDA_HI_NS - 1 &&
	      jread_number(tc, "share_of_wall_hi", 0) * WALL < 12 * TRACE_COST_H200_CUDA_HI_NS + 1,
	      "share_hi %g", jread_number(tc, "share_of_wall_hi", 0));
	jread_free(doc);

	doc = cost_json(path, "kernel=100,cuda=1000,opencl=500");
	tc = jread_get(doc, "tracing_cost");
	CHECK_EQ_U64((uint64_t)jread_number(tc, "estimate_ns", 0), 12 * 1000 + 3 * 500 + k * 100);
	CHECK(!strcmp(jread_string(tc, "calibration", ""), "GPUPROBE_TRACE_COST"), "calibration named");
	CHECK(jread_number(tc, "share_of_wall", 0) * WALL > 12 * 1000 + 3 * 500 + k * 100 - 1 &&
	      jread_number(tc, "share_of_wall", 0) * WALL < 12 * 1000 + 3 * 500 + k * 100 + 1,
	      "share %g", jread_number(tc, "share_of_wall", 0));
	jread_free(doc);

	setenv("GPUPROBE_TRACE_COST", "cuda=1000,opencl=500,kernel=100", 1);
	text = test_report(path, false);
	unsetenv("GPUPROBE_TRACE_COST");
	CHECK(text && strstr(text, "tracing cost: about ") &&
	      strstr(text, "CUDA records 12, OpenCL 3, kernel side ") &&
	      strstr(text, "  warning: tracing may have taken up to 14.5 %"), "text:\n%s",
	      text ? text : "(none)");
	free(text);
	unlink(path);

	/*
	 * Over 600 us with the H200's: the estimate under 3 % of wall
	 * (12 x 816.5 = 9.8 us), its interval's upper end not (12 x 1736 =
	 * 20.8 us, 3.47 %): warned.
	 */
	CHECK(!write_cost_trace(path, true, 600000), "write %s", path);
	text = test_report(path, false);
	CHECK(text && strstr(text, "tracing cost: about ") &&
	      strstr(text, "CUDA records x 816 ns [412, 1736]") &&
	      strstr(text, "warning: tracing may have taken up to 3.5 %"),
	      "text:\n%s", text ? text : "(none)");
	free(text);
	unlink(path);

	/* the same records over 10 s: under 3 %, no warning; "none": a lower bound */
	CHECK(!write_cost_trace(path, true, 10000000000ull), "write %s", path);
	text = test_report(path, false);
	CHECK(text && strstr(text, "tracing cost: about 0.010 ms [0.007, 0.021]") &&
	      !strstr(text, "warning: tracing"), "text:\n%s", text ? text : "(none)");
	free(text);
	setenv("GPUPROBE_TRACE_COST", "none", 1);
	text = test_report(path, false);
	unsetenv("GPUPROBE_TRACE_COST");
	CHECK(text && strstr(text, "tracing cost: at least 0.007 ms") &&
	      strstr(text, "no per-record cost, as asked") && !strstr(text, "warning: tracing"),
	      "text:\n%s", text ? text : "(none)");
	free(text);
	unlink(path);
}

void test_tracing_cost_parse(void)
{
	struct trace_cost_calib c = { .source = "here" };

	CHECK(!trace_cost_parse("cuda=250", &c) && c.known && c.cuda_ns == 250 && c.opencl_ns == 0 &&
	      c.kernel_ns == 0 && !strcmp(c.source, "here"), "cuda only");
	CHECK(!trace_cost_parse("opencl=1.5,kernel=40", &c) && c.opencl_ns == 1.5 && c.kernel_ns == 40 &&
	      c.cuda_ns == 0, "two, fractional");
	CHECK(trace_cost_parse("", &c), "empty");
	CHECK(trace_cost_parse("cuda", &c), "no value");
	CHECK(trace_cost_parse("cuda=", &c), "empty value");
	CHECK(trace_cost_parse("cuda=-1", &c), "negative");
	CHECK(trace_cost_parse("cuda=-0", &c), "negative zero");
	CHECK(trace_cost_parse("kernel=-0.0", &c), "negative zero");
	CHECK(trace_cost_parse("cuda=1x", &c), "trailing junk");
	CHECK(trace_cost_parse("gpu=1", &c), "unknown layer");
	CHECK(trace_cost_parse("cuda=1,", &c), "trailing comma");
	CHECK(trace_cost_parse("cuda=nan", &c), "nan");
	CHECK(!trace_cost_parse("cuda=250", &c) && c.cuda_lo_ns == 250 && c.cuda_hi_ns == 250,
	      "a given cost is its own interval");
	CHECK(!trace_cost_parse("none", &c) && !c.known && c.none && !strcmp(c.source, "here"),
	      "none");
	CHECK(trace_cost_parse("none,cuda=1", &c), "none and a cost");
}

/*
 * The string table alone (lib/strtab.c): a record is taken only when its
 * length, NUL and hash hold (FNV-1a of "abc" is 0xe71fa2190541574b, from the
 * algorithm's published test values); a short form finds its whole name
 * only with the same hash and the same first characters.
 */
void test_strtab_records(void)
{
	static char buf[sizeof(struct tracefile_rec_string) + TRACEFILE_STRING_MAX + 8];
	struct tracefile_rec_string *r = (void *)buf;
	struct strtab t = { 0 };
	char name[200], shortn[64];
	const char *w;

	CHECK_EQ_U64(strtab_hash("abc", 3), 0xe71fa2190541574bull);
	/* an empty table (a trace without string records): a short form stays itself */
	snprintf(shortn, sizeof(shortn), "k~%016llx", 0xe71fa2190541574bull);
	CHECK(strtab_whole(&t, shortn, GPUPROBE_APPF_TRUNCATED_NAME) == shortn, "empty table");
	CHECK(strtab_whole(NULL, shortn, GPUPROBE_APPF_TRUNCATED_NAME) == shortn, "no table");
	memset(name, 'q', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	CHECK(strtab_record_build(strtab_hash(name, strlen(name)), name, strlen(name), false, 1,
				  buf, sizeof(buf)) == ((sizeof(*r) + 200 + 7) & ~7ul), "size");
	CHECK(!strtab_add(&t, &r->hdr), "a good record");
	snprintf(shortn, sizeof(shortn), "%.46s~%016llx", name,
		 (unsigned long long)strtab_hash(name, strlen(name)));
	w = strtab_whole(&t, shortn, GPUPROBE_APPF_TRUNCATED_NAME);
	CHECK(w != shortn && !strcmp(w, name), "whole");
	CHECK(strtab_whole(&t, shortn, 0) == shortn, "not flagged shortened: as it is");
	shortn[0] = 'p';	/* same hash, another prefix */
	CHECK(strtab_whole(&t, shortn, GPUPROBE_APPF_TRUNCATED_NAME) == shortn, "prefix differs");
	r->hash ^= 1;		/* a hash that is not the text's */
	CHECK(strtab_add(&t, &r->hdr) && t.malformed == 1, "wrong hash refused");
	r->hash ^= 1;
	r->len = r->hdr.size;	/* longer than the record */
	CHECK(strtab_add(&t, &r->hdr) && t.malformed == 2, "length past the record refused");
	strtab_free(&t);
	/* 1000 names: the table grows from 64 slots to 2048 and finds every one */
	for (unsigned int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "%060u", i);
		CHECK(!strtab_put(&t, strtab_hash(name, 60), name, 60), "put %u", i);
	}
	CHECK(t.n == 1000 && t.cap == 2048, "%zu names in %zu slots", t.n, t.cap);
	for (unsigned int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "%060u", i);
		snprintf(shortn, sizeof(shortn), "%.46s~%016llx", name,
			 (unsigned long long)strtab_hash(name, 60));
		w = strtab_whole(&t, shortn, GPUPROBE_APPF_TRUNCATED_NAME);
		if (w == shortn || strcmp(w, name)) {
			CHECK(0, "name %u not found", i);
			break;
		}
	}
	strtab_free(&t);
}

void test_name_abbreviate(void)
{
	static const char k[] = "void at::native::vectorized_kernel<4, float>(int, float*)";	/* 57 */
	char buf[DEMANGLED_LEN];

	CHECK(!strcmp(name_abbreviate("short_kernel", buf, 30), "short_kernel"), "short: as it is");
	CHECK(!strcmp(name_abbreviate(k, buf, 57), k), "fits: as it is");
	/* parameters first (50 characters), then template arguments (44), then the cut */
	CHECK(!strcmp(name_abbreviate(k, buf, 50), "void at::native::vectorized_kernel<4, float>(...)"), "%s", buf);
	CHECK(!strcmp(name_abbreviate(k, buf, 48), "void at::native::vectorized_kernel<...>(...)"), "%s", buf);
	CHECK(!strcmp(name_abbreviate(k, buf, 30), "void at::native::vectorized..."), "%s", buf);
	CHECK(!strcmp(name_abbreviate("void f<int, int, int, int, int, int, int>(float)", buf, 20),
		      "void f<...>(...)"), "%s", buf);
}
