// SPDX-License-Identifier: GPL-2.0
/*
 * `explain` on synthetic timelines with known answers: the waterfall's
 * matching and steps, its classes, causality (violations detected, the
 * clock bound honoured), events counted per window, and a trace file
 * loaded for one target and one thread.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explain.h"
#include "synth.h"
#include "testlib.h"

#define T0	1000000000ull		/* first GPU end */
#define PERIOD	1000000ull		/* between waits */
#define NWAITS	9

struct fixture {
	struct explain_timeline t;
	struct explain_irq irqs[64];
	struct explain_sched wakes[64], switches[64];
	struct explain_dma dma[16];
	struct explain_bounce bounces[4];
	struct explain_wait w[64];
	size_t nw;
};

static void fixture_init(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->t.irqs = f->irqs;
	f->t.wakeups = f->wakes;
	f->t.switch_ins = f->switches;
	f->t.dma = f->dma;
	f->t.bounces = f->bounces;
	f->t.sched_records = 1;
}

/* A wait whose GPU work ends at end; the other times relative to end (0: none). */
static void add_wait(struct fixture *f, uint64_t end, int64_t entry, int64_t exit, int64_t wake,
		     int64_t sw, int64_t ret)
{
	f->w[f->nw++] = (struct explain_wait){ end - 50000, end, end + ret };
	if (exit)
		f->irqs[f->t.nirqs++] = (struct explain_irq){ end + entry, end + exit, 14, 42 };
	if (wake)
		f->wakes[f->t.nwakeups++] = (struct explain_sched){ end + wake, 7 };
	if (sw)
		f->switches[f->t.nswitch_ins++] = (struct explain_sched){ end + sw, 7 };
}

static bool near(double a, double b)
{
	return fabs(a - b) < 0.5;
}

/* The H200's shape: MSI 7 us after the GPU, the handler wakes the thread from inside. */
static void test_wake_inside_handler(void)
{
	struct explain_waterfall out = { 0 };
	static struct fixture f;

	fixture_init(&f);
	for (int i = 0; i < NWAITS; i++)
		add_wait(&f, T0 + i * PERIOD, 7000, 40000, 36000, 37000, 38000 + i * 10);
	explain_waterfall(&f.t, f.w, f.nw, 3000, &out);
	CHECK_EQ_U64(out.count[WAIT_INTERRUPT], NWAITS);
	CHECK(near(out.step[STEP_END_TO_ENTRY].p50, 7000), "end->entry %f", out.step[0].p50);
	CHECK(near(out.step[STEP_ENTRY_TO_WAKE].p50, 29000), "entry->wake %f", out.step[1].p50);
	CHECK(near(out.step[STEP_EXIT_TO_WAKE].p99, 0), "exit->wake %f", out.step[2].p99);
	CHECK(near(out.step[STEP_WAKE_TO_RETURN].p50, 2040), "wake->return %f", out.step[3].p50);
	CHECK(near(out.end_to_return.p50, 38040), "end->return %f", out.end_to_return.p50);
	CHECK(out.causality_violations == 0 && out.entry_within_bound == 0, "causality holds");
	CHECK_EQ_U64(out.woken_inside, NWAITS);
	CHECK(near(out.after_wake.p50, 4000) && near(out.handler.p50, 33000), "beside the path");
	CHECK(out.wake_to_switch.n == NWAITS && near(out.wake_to_switch.p50, 1000) &&
	      near(out.switch_to_return.p50, 1040), "switch-in split");
}

/* A threaded handler: the wake-up comes after the hard handler's exit. */
static void test_deferred_wake(void)
{
	struct explain_waterfall out = { 0 };
	static struct fixture f;

	fixture_init(&f);
	for (int i = 0; i < NWAITS; i++)
		add_wait(&f, T0 + i * PERIOD, 5000, 10000, 15000, 0, 20000);
	explain_waterfall(&f.t, f.w, f.nw, 1000, &out);
	CHECK_EQ_U64(out.count[WAIT_INTERRUPT], NWAITS);
	for (int k = 0; k < STEPS; k++)
		CHECK(near(out.step[k].p50, 5000), "step %d p50 %f", k, out.step[k].p50);
	CHECK(out.woken_inside == 0 && out.wake_to_switch.n == 0, "no wake inside, no switch-in");
	CHECK_EQ_U64(out.causality_violations, 0);
}

/*
 * The classes: a handler still running from before the GPU ended
 * (coalesced), a wait with no wake-up, a wake-up with no handler, and the
 * clock error bound deciding whether an early handler entry counts.
 */
static void test_classes(void)
{
	struct explain_waterfall out = { 0 };
	static struct fixture f;
	uint64_t e = T0;

	fixture_init(&f);
	add_wait(&f, e, -20000, 30000, 15000, 0, 17000);		/* coalesced */
	add_wait(&f, e += PERIOD, 0, 0, 0, 0, 3000);			/* not asleep */
	add_wait(&f, e += PERIOD, 0, 0, 9000, 0, 11000);		/* other waker */
	add_wait(&f, e += PERIOD, -2000, 20000, 10000, 0, 12000);	/* within the bound */
	explain_waterfall(&f.t, f.w, f.nw, 3000, &out);
	CHECK(out.count[WAIT_COALESCED] == 1 && out.count[WAIT_NOT_ASLEEP] == 1 &&
	      out.count[WAIT_OTHER_WAKER] == 1 && out.count[WAIT_INTERRUPT] == 1,
	      "classes %zu %zu %zu %zu", out.count[0], out.count[1], out.count[2], out.count[3]);
	CHECK(near(out.step[STEP_END_TO_ENTRY].p50, -2000), "signed first step %f", out.step[0].p50);
	CHECK(near(out.coalesced_end_to_wake.p50, 15000), "coalesced end->wake");
	CHECK(out.all_end_to_return.n == 4, "every sample in the measured distribution");

	/* A tighter bound: the early entry is now a handler from before the GPU ended. */
	explain_waterfall(&f.t, f.w, f.nw, 1000, &out);
	CHECK(out.count[WAIT_COALESCED] == 2 && out.count[WAIT_INTERRUPT] == 0, "bound 1 us");
}

/*
 * Causality: the device clock maps GPU end 50 us late for two waits, so
 * their return (and wake-up) come before "GPU end"; a bound of 3 us does
 * not cover it (violations, the worst 50 us early); one of 60 us does.  An
 * interrupt-path entry 2 us before GPU end is within a 3 us bound: counted
 * as such, no violation.
 */
static void test_causality_violation(void)
{
	struct explain_waterfall out = { 0 };
	static struct fixture f;

	fixture_init(&f);
	add_wait(&f, T0, 7000, 40000, 36000, 0, 38000);			/* fine */
	add_wait(&f, T0 + PERIOD, -88000, -60000, -62000, 0, -50000);	/* return 50 us early */
	add_wait(&f, T0 + 2 * PERIOD, -85000, -60000, -61000, 0, -50000);
	add_wait(&f, T0 + 3 * PERIOD, -2000, 30000, 20000, 0, 25000);	/* entry within 3 us */
	/* the waits began before their early events */
	f.w[1].launched_ns = T0 + PERIOD - 100000;
	f.w[2].launched_ns = T0 + 2 * PERIOD - 100000;
	explain_waterfall(&f.t, f.w, f.nw, 3000, &out);
	CHECK_EQ_U64(out.causality_violations, 2);
	CHECK_EQ_U64(out.violation_return, 2);
	CHECK_EQ_U64(out.violation_wake, 2);
	CHECK(out.worst_violation_ns == 62000, "worst %lld", (long long)out.worst_violation_ns);
	CHECK_EQ_U64(out.entry_within_bound, 1);
	CHECK(out.clock_error_known && near(out.clock_error_ns, 3000), "bound kept");
	explain_waterfall(&f.t, f.w, f.nw, 70000, &out);
	CHECK_EQ_U64(out.causality_violations, 0);
	/* Unmeasured: checked against 0, said so; the early entry is then coalesced, no violation */
	explain_waterfall(&f.t, f.w, f.nw, -1, &out);
	CHECK(!out.clock_error_known && out.causality_violations == 2 && out.count[WAIT_COALESCED] == 3,
	      "unmeasured: %zu violations", out.causality_violations);
}

static void test_stat_nearest_rank(void)
{
	double v[100];
	struct sample_stats s;

	for (int i = 0; i < 100; i++)
		v[i] = 100 - i;
	s = explain_stat_of(v, 100);
	CHECK(s.n == 100 && near(s.p50, 50) && near(s.p99, 99) && near(s.min, 1) && near(s.max, 100) &&
	      near(s.mean, 50.5), "stat %f %f %f", s.p50, s.p99, s.mean);
	s = explain_stat_of(v, 0);
	CHECK(s.n == 0 && s.p50 == 0, "empty");
}

/*
 * explain --json's windows and components of the loads below: per probe its
 * ops and calls, per op the maps and their bytes; the 1 MiB copy's one
 * interrupt over 4 ops of 1 MiB is 0.25 per MiB.
 */
static void check_loads_json(struct explain_load *l, size_t n)
{
	static struct explain_result r;
	const char *path = test_tmp_path("loads.json");
	FILE *f = fopen(path, "w");

	CHECK(f != NULL, "open %s", path);
	if (!f)
		return;
	for (size_t i = 0; i < n; i++)
		l[i].bytes_per_op = explain_size_of(l[i].probe);
	snprintf(r.apis[0].api, sizeof(r.apis[0].api), "cuda");
	r.apis[0].loads = l;
	r.apis[0].nloads = n;
	r.apis[0].have_windows = true;
	r.napis = 1;
	explain_print_json(f, &r);
	fclose(f);
	CHECK(test_python_json(path,
		"w=[(x[\"probe\"],x[\"windows\"],x[\"ops\"],x[\"dma_map_calls\"],x[\"dma_unmap_calls\"]) for x in d[\"apis\"][0][\"windows\"]]\n"
		"assert w==[(\"pin.first.4KiB\",2,2,2,2),(\"pin.repeat.4KiB\",1,1,1,0),(\"h2d.pageable.1MiB\",1,4,1,0)], w\n"
		"c={x[\"name\"]:x[\"value\"] for x in d[\"components\"]}\n"
		"assert c[\"pin.first.4KiB.dma_maps_per_op\"]==1 and c[\"pin.first.4KiB.dma_map_bytes_per_op\"]==6144, c\n"
		"assert c[\"h2d.pageable.1MiB.dma_map_bytes_per_op\"]==16384 and c[\"h2d.pageable.1MiB.irqs_per_mib\"]==0.25, c\n") == 0,
	      "explain --json's windows and components (above)");
	unlink(path);
}

/* DMA maps, unmaps, interrupts and bounces counted per window, summed per probe. */
static void test_window_loads(void)
{
	static struct fixture f;
	struct explain_window w[] = {
		{ "pin.first.4KiB", 1000, 2000, 1 },
		{ "pin.repeat.4KiB", 3000, 4000, 1 },
		{ "pin.first.4KiB", 5000, 6000, 1 },
		{ "h2d.pageable.1MiB", 7000, 9000, 4 },
	};
	struct explain_load *l;
	size_t n;

	fixture_init(&f);
	f.dma[f.t.ndma++] = (struct explain_dma){ 500, 4096, 1, GPUPROBE_DMA_MAP_SG };	/* before */
	f.dma[f.t.ndma++] = (struct explain_dma){ 1000, 4096, 1, GPUPROBE_DMA_MAP_SG };
	f.dma[f.t.ndma++] = (struct explain_dma){ 1500, 0, 1, GPUPROBE_DMA_UNMAP_SG };
	f.dma[f.t.ndma++] = (struct explain_dma){ 1600, 0, 1, GPUPROBE_DMA_UNMAP_SG };
	f.dma[f.t.ndma++] = (struct explain_dma){ 3500, 4096, 2, GPUPROBE_DMA_MAP_PAGE };
	f.dma[f.t.ndma++] = (struct explain_dma){ 5500, 8192, 3, GPUPROBE_DMA_MAP_SG };
	/* neither a map nor an unmap: pin.first's unmaps are the two unmap_sg */
	f.dma[f.t.ndma++] = (struct explain_dma){ 5600, 8192, 1, GPUPROBE_DMA_ALLOC };
	f.dma[f.t.ndma++] = (struct explain_dma){ 8000, 65536, 16, GPUPROBE_DMA_MAP_SG };
	f.irqs[f.t.nirqs++] = (struct explain_irq){ 7500, 7600, 0, 42 };
	f.irqs[f.t.nirqs++] = (struct explain_irq){ 9001, 9100, 0, 42 };	/* after */
	f.bounces[f.t.nbounces++] = (struct explain_bounce){ 8500, 4096 };
	n = explain_loads(&f.t, w, 4, &l);
	CHECK_EQ_U64(n, 3);
	CHECK(!strcmp(l[0].probe, "pin.first.4KiB") && l[0].windows == 2 && l[0].ops == 2 &&
	      l[0].map_calls == 2 && l[0].map_bytes == 12288 && l[0].map_segments == 4 &&
	      l[0].unmap_calls == 2 && l[0].window_ns == 2000, "pin.first load");
	CHECK(l[1].map_calls == 1 && l[1].map_segments == 2 && l[1].irqs == 0, "pin.repeat load");
	CHECK(l[2].ops == 4 && l[2].map_calls == 1 && l[2].irqs == 1 && l[2].bounces == 1 &&
	      l[2].bounce_bytes == 4096, "copy load");
	if (n == 3)
		check_loads_json(l, n);
	free(l);
	CHECK(explain_size_of("pin.first.4KiB") == 4096 && explain_size_of("d2d.256MiB") == 256u << 20 &&
	      explain_size_of("h2d.x.100B") == 100 && explain_size_of("launch_latency") == 0, "sizes");
}

/* From a file: only the target's events and the thread's, sorted across CPUs. */
static void test_timeline_from_file(void)
{
	const char *path = test_tmp_path("explain.trace");
	struct gpuprobe_rec_sched s = { .hdr = { GPUPROBE_EV_WAKEUP, sizeof(s), 3, 0, 0 } };
	struct gpuprobe_rec_dma d;
	struct gpuprobe_rec_irq irq;
	struct explain_timeline t;
	static struct trace_info info;
	struct trace_writer w;
	char err[256];
	int bad = 0;

	synth_info(&info);
	bad |= trace_writer_open(&w, path, &info);
	synth_irq(&irq, 3000, 1, 0, 500, true);
	bad |= trace_writer_put(&w, &irq.hdr);
	synth_irq(&irq, 2000, 0, 0, 400, true);	/* earlier, from another CPU */
	bad |= trace_writer_put(&w, &irq.hdr);
	irq.bdf = GPUPROBE_BDF(0, 2, 0);		/* another device */
	bad |= trace_writer_put(&w, &irq.hdr);
	s.pid = 77;
	s.hdr.ts_ns = 2500;
	bad |= trace_writer_put(&w, &s.hdr);
	s.pid = 78;				/* another thread */
	bad |= trace_writer_put(&w, &s.hdr);
	s.hdr.type = GPUPROBE_EV_SWITCH;
	s.pid = 77;
	s.hdr.ts_ns = 2600;
	bad |= trace_writer_put(&w, &s.hdr);
	synth_dma(&d, 2700, GPUPROBE_DMA_MAP_SG, 8192, 2, 0);
	bad |= trace_writer_put(&w, &d.hdr);
	/* two checks of CUPTI's clock (one inconsistent), and an OpenCL calibration */
	for (int i = 0; i < 3; i++) {
		struct tracefile_rec_app app = {
			.hdr = { .type = TRACEFILE_REC_APP, .size = sizeof(app), .ts_ns = 2800 + i },
			.ev = { .magic = GPUPROBE_APP_MAGIC, .version = GPUPROBE_APP_VERSION,
				.api = i < 2 ? GPUPROBE_APP_CUDA : GPUPROBE_APP_OPENCL,
				.size = sizeof(app.ev), .type = GPUPROBE_APP_CLOCK,
				.flags = i == 1 ? GPUPROBE_APPF_CLOCK_INCONSISTENT : 0,
				.stream = GPUPROBE_APP_ALL_STREAMS, .bytes = 1000u * (i + 4) },
		};

		bad |= trace_writer_put(&w, &app.hdr);
	}
	bad |= trace_writer_finish(&w, 9000, 0);
	CHECK(!bad, "writing the trace");
	CHECK(explain_timeline_load(&t, path, GPUPROBE_BDF_NONE, 77, err, sizeof(err)) == 0, "%s", err);
	CHECK(t.nirqs == 2 && t.irqs[0].entry_ns == 2000 && t.irqs[0].exit_ns == 2400 &&
	      t.irqs[1].entry_ns == 3000, "irqs of the target, sorted");
	CHECK(t.nwakeups == 1 && t.nswitch_ins == 1 && t.sched_records == 3, "thread's sched events");
	CHECK(t.ndma == 1 && t.dma[0].bytes == 8192 && t.end_ns == 9000, "dma and end");
	CHECK(!strcmp(t.target, "0000:01:00.0"), "target %s", t.target);
	CHECK(t.cupti_checks == 2 && t.cupti_inconsistent == 1 && t.cupti_bound_max_ns == 5000,
	      "CUPTI checks %llu, inconsistent %llu, bound %llu", (unsigned long long)t.cupti_checks,
	      (unsigned long long)t.cupti_inconsistent, (unsigned long long)t.cupti_bound_max_ns);
	explain_timeline_free(&t);
	CHECK(explain_timeline_load(&t, path, GPUPROBE_BDF(0, 9, 0), 77, err, sizeof(err)) == -2 &&
	      strstr(err, "not recorded for 0000:09:00.0"), "unknown device refused (-2, not -1: a usage error): %s", err);
	unlink(path);
}

void test_explain_verdict_first(void);	/* test_explain_verdict.c */

int main(void)
{
	static const struct test_case cases[] = {
		{ "waterfall: wake-up inside the handler (H200 shape)", test_wake_inside_handler },
		{ "waterfall: deferred wake-up after the handler", test_deferred_wake },
		{ "waterfall: coalesced, not asleep, other waker, clock bound", test_classes },
		{ "waterfall: causality violations detected, the clock bound honoured",
		  test_causality_violation },
		{ "stat: nearest-rank p50/p99", test_stat_nearest_rank },
		{ "windows: maps, unmaps, irqs, bounces per probe", test_window_loads },
		{ "timeline: one target and one thread from a file", test_timeline_from_file },
		{ "verdict: first, the largest step and its share of the mean, what was not measured",
		  test_explain_verdict_first },
	};
	int passed = 0, failed = run_tests(cases, sizeof(cases) / sizeof(cases[0]), &passed);

	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
