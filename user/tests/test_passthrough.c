// SPDX-License-Identifier: GPL-2.0
/*
 * Host + guest traces: the clock fit, the merged file (readers, wrappers),
 * and the pairing of host and guest interrupts on synthetic traces whose
 * every offset is known.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clocksync.h"
#include "machine.h"
#include "passthrough.h"
#include "report.h"
#include "synth.h"
#include "testlib.h"
#include "tests.h"

/* Read a file through the report's passthrough analysis. */
static struct passthrough *load_pt(const char *path, bool *complete)
{
	const struct gpuprobe_rec_hdr *rec;
	struct trace_info *info = malloc(sizeof(*info));
	struct passthrough *pt = passthrough_new();
	struct trace_reader r;
	int n = -1;

	if (info && pt && !trace_reader_open(&r, path, info)) {
		while ((n = trace_reader_next(&r, &rec)) > 0)
			passthrough_add(pt, rec);
		if (complete)
			*complete = r.seen_end;
	}
	CHECK(n == 0, "reading %s: %s", path, r.error);
	trace_reader_close(&r);
	free(info);
	if (n)
		return NULL;
	passthrough_finish(pt);
	return pt;
}

static struct passthrough *merged_trace(const struct synth_merged *o, bool *complete)
{
	const char *path = test_tmp_path("merged");

	CHECK(synth_write_merged(path, o) == 0, "synth_write_merged");
	return load_pt(path, complete);
}

void test_clock_fit_known_offset_drift(void)
{
	/* guest = host + 5 ms + 200 ppm; one-way delays 3..40 us, asymmetric */
	const int64_t offset = 5000000, drift_ppb = 200000;
	struct clock_fit *f = calloc(1, sizeof(*f));
	uint64_t h0 = 1000000000ull;

	clock_fit_init(f);
	for (int burst = 0; burst < 10; burst++) {
		struct clock_sample s[8];
		struct clock_point p;

		for (int i = 0; i < 8; i++) {
			uint64_t t1 = h0 + (uint64_t)burst * 100000000 + (uint64_t)i * 200000;
			uint64_t there = 3000 + (uint64_t)((burst * 7 + i * 13) % 37) * 1000;
			uint64_t back = 4000 + (uint64_t)((burst * 11 + i * 5) % 29) * 1000;
			uint64_t seen = t1 + there;

			s[i].t1 = t1;
			s[i].t2 = seen + (uint64_t)offset + (uint64_t)(drift_ppb * (int64_t)(seen - h0) / 1000000000);
			s[i].t3 = seen + back;
		}
		CHECK(clock_burst_best(s, 8, &p) == 0, "burst %d", burst);
		/* the truth at the point's host time is within its bound */
		CHECK(llabs(p.offset_ns - (offset + drift_ppb * (int64_t)(p.host_ns - h0) / 1000000000)) <=
		      (long long)p.error_ns, "burst %d: offset %lld, bound %llu", burst,
		      (long long)p.offset_ns, (unsigned long long)p.error_ns);
		clock_fit_add(f, &p);
	}
	clock_fit_solve(f);
	CHECK(llabs(f->offset_ns - (offset + drift_ppb * (int64_t)(f->ref_host_ns - h0) / 1000000000)) <=
	      (long long)f->error_ns, "fit offset %lld, bound %llu", (long long)f->offset_ns,
	      (unsigned long long)f->error_ns);
	/* 0.9 s between the first and last burst; bounds of a few us: drift within 30 ppm */
	CHECK(llabs(f->drift_ppb - drift_ppb) < 30000, "drift %lld ppb, expected %lld",
	      (long long)f->drift_ppb, (long long)drift_ppb);
	/* a guest time maps back to the host time it was taken at, within the bound */
	for (uint64_t h = h0; h < h0 + 900000000; h += 50000000) {
		uint64_t g = h + (uint64_t)offset + (uint64_t)(drift_ppb * (int64_t)(h - h0) / 1000000000), back;

		CHECK(clock_guest_to_host(f, g, &back), "mapping");
		CHECK(llabs((long long)(back - h)) <= (long long)f->error_ns,
		      "host %llu mapped back to %llu", (unsigned long long)h, (unsigned long long)back);
	}
	free(f);
}

void test_clock_never_compared(void)
{
	struct clock_fit f;
	uint64_t h;

	clock_fit_init(&f);
	clock_fit_solve(&f);
	CHECK(!clock_guest_to_host(&f, 12345, &h), "no points: no mapping, never equal clocks");
}

void test_passthrough_pairs_exact(void)
{
	struct synth_merged o;
	struct passthrough *pt;
	bool complete = false;

	synth_merged_defaults(&o);
	pt = merged_trace(&o, &complete);
	if (!pt)
		return;
	CHECK(complete, "a merged trace with a whole guest part is complete");
	CHECK(pt->merged && pt->guest && pt->host, "machines");
	CHECK_EQ_U64(pt->host_irq.n, 100);
	CHECK_EQ_U64(pt->guest_irq.n, 100);
	CHECK_EQ_U64(pt->irq_paired, 100);
	CHECK_EQ_U64(pt->irq_unpaired_host, 0);
	CHECK_EQ_U64(pt->irq_unpaired_guest, 0);
	CHECK_EQ_U64(pt->order_violations, 0);
	CHECK_EQ_U64(pt->fit.error_ns, 5000);
	/* 20 us host -> guest, known exactly: the mapping is exact here */
	CHECK_EQ_U64(pt->host_to_guest_ns.min, 20000);
	CHECK_EQ_U64(pt->host_to_guest_ns.max, 20000);
	CHECK_EQ_U64(pt->guest_handler_to_wake_ns.count, 100);
	CHECK_EQ_U64(pt->guest_handler_to_wake_ns.max, 3000);
	CHECK_EQ_U64(pt->guest_agg->records, 200 + 0);
	passthrough_free(pt);
}

void test_passthrough_one_guest_irq_missing(void)
{
	struct synth_merged o;
	struct passthrough *pt;

	synth_merged_defaults(&o);
	o.drop_guest = 37;
	pt = merged_trace(&o, NULL);
	if (!pt)
		return;
	CHECK_EQ_U64(pt->irq_paired, 99);
	CHECK_EQ_U64(pt->irq_unpaired_host, 1);
	CHECK_EQ_U64(pt->irq_unpaired_guest, 0);
	CHECK_EQ_U64(pt->order_violations, 0);
	/* the host interrupt left alone is the 38th */
	CHECK(pt->host_irq.e[37].pair < 0 && pt->host_irq.e[38].pair >= 0, "the right one unpaired");
	passthrough_free(pt);
}

void test_passthrough_wrong_offset_counted(void)
{
	struct synth_merged o;
	struct passthrough *pt;

	synth_merged_defaults(&o);
	/* the bursts say the guest clock is 300 us further ahead than it is, bound 5 us */
	o.offset_error_ns = 300000;
	pt = merged_trace(&o, NULL);
	if (!pt)
		return;
	CHECK(pt->order_violations >= 1, "violations %llu", (unsigned long long)pt->order_violations);
	CHECK(pt->irq_paired != 100, "a wrong offset must not pair all");
	CHECK(strstr(pt->note, "do not trust"), "note: %s", pt->note);
	passthrough_free(pt);
}

void test_passthrough_wide_bound_by_order(void)
{
	struct synth_merged o;
	struct passthrough *pt;

	synth_merged_defaults(&o);
	/* a 2 ms bound over 1 ms spacing, the guest put 300 us early: by order, flagged */
	o.bound_ns = 2000000;
	o.offset_error_ns = 320000;
	pt = merged_trace(&o, NULL);
	if (!pt)
		return;
	CHECK_EQ_U64(pt->irq_paired, 100);
	CHECK_EQ_U64(pt->order_violations, 0);
	CHECK_EQ_U64(pt->ambiguous, 100);
	CHECK_EQ_U64(pt->early_within_bound, 100);
	CHECK(strstr(pt->note, "by order alone"), "note: %s", pt->note);
	passthrough_free(pt);
}

void test_passthrough_through_injections(void)
{
	struct synth_merged o;
	struct passthrough *pt;

	synth_merged_defaults(&o);
	o.injections = true;
	o.drop_guest = 5;
	pt = merged_trace(&o, NULL);
	if (!pt)
		return;
	CHECK_EQ_U64(pt->inject.n, 100);
	CHECK_EQ_U64(pt->irq_paired, 99);
	CHECK_EQ_U64(pt->irq_unpaired_host, 1);
	CHECK_EQ_U64(pt->host_to_inject_ns.count, 99);
	/* each of the 99 through its injection: a non-posted path, said so */
	CHECK_EQ_U64(pt->pairs_injected, 99);
	CHECK_EQ_U64(pt->host_to_inject_ns.max, 4000);
	CHECK_EQ_U64(pt->inject_to_guest_ns.max, 16000);
	CHECK_EQ_U64(pt->host_to_guest_ns.max, 20000);
	passthrough_free(pt);
}

/*
 * The guest's clock put its interrupts up to 320 us late, within a 2 ms
 * bound, with 100 us between interrupts: the latest injection before each
 * guest interrupt is the next one's (on the nested testbed under QEMU 10,
 * 40 of 50 paired, 10 unpaired on each side).  As many injections as guest
 * interrupts: paired by rank, every pair right.
 */
void test_passthrough_late_guest_in_order(void)
{
	struct synth_merged o;
	struct passthrough *pt;

	synth_merged_defaults(&o);
	o.injections = true;
	o.other_injections = true;	/* the target's vector known, the timer's left out */
	o.spacing_ns = 100000;
	o.bound_ns = 2000000;
	o.offset_error_ns = -320000;
	pt = merged_trace(&o, NULL);
	if (!pt)
		return;
	CHECK_EQ_U64(pt->inject.n, 100);
	CHECK(pt->paired_in_order, "paired in order");
	CHECK_EQ_U64(pt->irq_paired, 100);
	CHECK_EQ_U64(pt->irq_unpaired_host, 0);
	CHECK_EQ_U64(pt->irq_unpaired_guest, 0);
	CHECK_EQ_U64(pt->order_violations, 0);
	/* each guest interrupt with its own injection: 16 us + the clock's 320 us */
	CHECK_EQ_U64(pt->inject_to_guest_ns.max, 336000);
	CHECK_EQ_U64(pt->inject_to_guest_ns.min, 336000);
	CHECK_EQ_U64(pt->host_to_inject_ns.max, 4000);
	CHECK(strstr(pt->note, "paired in order"), "note: %s", pt->note);
	passthrough_free(pt);
}

/*
 * Injections of vectors no target's handler routed (the guest's timer,
 * another device) are not the target's: before, each took the place of the
 * target's injection that followed it and the pairs went wrong (on the
 * nested testbed, 47 of 50 paired, 3 unpaired on each side).
 */
void test_passthrough_other_injections(void)
{
	struct synth_merged o;
	struct passthrough *pt;

	synth_merged_defaults(&o);
	o.injections = true;
	o.other_injections = true;
	pt = merged_trace(&o, NULL);
	if (!pt)
		return;
	CHECK_EQ_U64(pt->inject.n, 100);
	CHECK_EQ_U64(pt->injections_other, 100);
	CHECK_EQ_U64(pt->irq_paired, 100);
	CHECK_EQ_U64(pt->irq_unpaired_host, 0);
	CHECK_EQ_U64(pt->irq_unpaired_guest, 0);
	CHECK_EQ_U64(pt->host_to_inject_ns.max, 4000);
	passthrough_free(pt);
}

/*
 * A host interrupt injected twice with none between (the entry carrying the
 * first was cancelled): on the nested testbed one such left a guest and a
 * host interrupt unpaired (119 of 120).  The last injection delivered it.
 */
void test_passthrough_repeated_injection(void)
{
	struct synth_merged o;
	struct passthrough *pt;

	synth_merged_defaults(&o);
	o.injections = true;
	o.repeat_injection = true;
	pt = merged_trace(&o, NULL);
	if (!pt)
		return;
	CHECK_EQ_U64(pt->inject.n, 101);
	CHECK_EQ_U64(pt->injections_repeated, 1);
	CHECK_EQ_U64(pt->irq_paired, 100);
	CHECK_EQ_U64(pt->irq_unpaired_host, 0);
	CHECK_EQ_U64(pt->irq_unpaired_guest, 0);
	/* measured from the last injection: the same 4 us after the handler as every other */
	CHECK_EQ_U64(pt->host_to_inject_ns.max, 4000);
	passthrough_free(pt);
}

void test_passthrough_dma_maps(void)
{
	struct synth_merged o;
	struct passthrough *pt;

	synth_merged_defaults(&o);
	o.maps = 10;
	o.drift_ppb = 50000;
	pt = merged_trace(&o, NULL);
	if (!pt)
		return;
	CHECK_EQ_U64(pt->guest_map.n, 10);
	CHECK_EQ_U64(pt->dma_paired, 10);
	CHECK_EQ_U64(pt->dma_unpaired_guest, 0);
	/* host map 10 us into the guest call, 8 us long */
	CHECK(pt->vfio_map_ns.min >= 18000 - 5000 && pt->vfio_map_ns.max <= 18000 + 5000,
	      "vfio map %llu..%llu", (unsigned long long)pt->vfio_map_ns.min,
	      (unsigned long long)pt->vfio_map_ns.max);
	CHECK_EQ_U64(pt->irq_paired, 100);
	passthrough_free(pt);
}

void test_passthrough_guest_cut(void)
{
	struct synth_merged o;
	struct passthrough *pt;
	bool complete = true;

	synth_merged_defaults(&o);
	o.guest_cut = true;
	pt = merged_trace(&o, &complete);
	if (!pt)
		return;
	CHECK(!complete, "a guest cut short leaves the host's file incomplete");
	CHECK(!(pt->guest->flags & MACHINE_COMPLETE) && (pt->guest->flags & MACHINE_LOST),
	      "guest machine flags %x", pt->guest->flags);
	CHECK_EQ_U64(pt->irq_paired, 100);
	passthrough_free(pt);
}

/* A reader that knows none of the new types skips them: a type unknown to this one, the same way. */
void test_unknown_types_skipped(void)
{
	const char *path = test_tmp_path("unknown");
	struct trace_info *info = calloc(1, sizeof(*info));
	const struct gpuprobe_rec_hdr *rec;
	struct trace_reader r;
	struct trace_writer w;
	struct gpuprobe_rec_irq irq;
	unsigned char future[48] = { 0 };
	struct gpuprobe_rec_hdr *f = (void *)future;
	int n, got = 0;

	synth_info(info);
	CHECK(!trace_writer_open(&w, path, info), "open");
	*f = (struct gpuprobe_rec_hdr){ .type = 0x8fff, .size = sizeof(future), .ts_ns = 5 };
	synth_irq(&irq, 10, 0, 0, 100, true);
	trace_writer_put(&w, f);
	trace_writer_put(&w, &irq.hdr);
	trace_writer_put(&w, f);
	CHECK(!trace_writer_finish(&w, 20, -1), "finish");
	CHECK(!trace_reader_open(&r, path, info), "reopen");
	while ((n = trace_reader_next(&r, &rec)) > 0)
		got++;
	CHECK(n == 0 && got == 1, "n %d, records handed out %d", n, got);
	CHECK_EQ_U64(r.unknown_records, 2);
	CHECK(r.seen_end, "complete");
	trace_reader_close(&r);
	free(info);
}

/* A wrapper whose inner record disagrees with it is refused, with its offset. */
void test_guest_wrapper_checked(void)
{
	const char *path = test_tmp_path("wrapper");
	struct trace_info *info = calloc(1, sizeof(*info));
	static unsigned char buf[TRACEFILE_REC_MAX_SIZE];
	const struct gpuprobe_rec_hdr *rec;
	struct gpuprobe_rec_irq irq;
	struct trace_reader r;
	struct trace_writer w;
	int n;

	synth_info(info);
	synth_irq(&irq, 10, 0, 0, 100, true);
	CHECK(!guest_record_wrap(MACHINE_GUEST, &irq.hdr, 11, buf), "wrap");
	((struct gpuprobe_rec_hdr *)(buf + sizeof(struct tracefile_rec_guest)))->size = 16;
	CHECK(!trace_writer_open(&w, path, info), "open");
	trace_writer_put(&w, (void *)buf);
	trace_writer_finish(&w, 20, -1);
	CHECK(!trace_reader_open(&r, path, info), "reopen");
	while ((n = trace_reader_next(&r, &rec)) > 0)
		;
	CHECK(n < 0 && strstr(r.error, "corrupt guest record at offset"), "error: %s", r.error);
	trace_reader_close(&r);
	free(info);
}

/* report --json of a merged trace: machines[] and passthrough; of a single machine's: neither. */
void test_passthrough_json_shape(void)
{
	const char *merged = test_tmp_path("json-merged"), *single = test_tmp_path("json-single");
	struct synth_merged o;
	char *text;

	synth_merged_defaults(&o);
	CHECK(!synth_write_merged(merged, &o), "merged");
	CHECK(!synth_write_known(single), "single");
	text = test_report(merged, true);
	CHECK(text && strstr(text, "\"machines\": [") && strstr(text, "\"role\": \"guest\"") &&
	      strstr(text, "\"irq_paired\": 100") && strstr(text, "\"clock_error_ns\": 5000"),
	      "merged JSON lacks machines/passthrough");
	free(text);
	text = test_report(single, true);
	CHECK(text && !strstr(text, "\"machines\"") && !strstr(text, "\"passthrough\""),
	      "a single machine's JSON keeps today's shape");
	free(text);
}

/*
 * report's passthrough text: a WARNING line with the note where the fitted
 * clock puts guest interrupts before their cause (a burst offset 300 us
 * wrong, bound 5 us), none where every pair is in order.
 */
void test_passthrough_text_note(void)
{
	const char *path = test_tmp_path("pt-note");
	struct synth_merged o;
	char *text;

	synth_merged_defaults(&o);
	CHECK(!synth_write_merged(path, &o), "merged");
	text = test_report(path, false);
	CHECK(text && strstr(text, "100 paired, 0 host unpaired") && !strstr(text, "  note: ") &&
	      !strstr(text, "WARNING"), "a note on a clean merge: %s", text ? text : "");
	free(text);
	o.offset_error_ns = 300000;
	CHECK(!synth_write_merged(path, &o), "merged, offset wrong");
	text = test_report(path, false);
	CHECK(text && strstr(text, "\n  WARNING: ") && strstr(text, "do not trust these pairs"),
	      "no warning of a wrong offset: %s", text ? text : "");
	free(text);
	unlink(path);
}

/*
 * No clock burst in the host's file: the guest's clock was never compared
 * with the host's, so none of the 100 host and 100 guest interrupts is
 * paired: all are unpaired, and the note says why.
 */
void test_passthrough_never_compared(void)
{
	struct synth_merged o;
	struct passthrough *pt;

	synth_merged_defaults(&o);
	o.no_bursts = true;
	pt = merged_trace(&o, NULL);
	if (!pt)
		return;
	CHECK(!pt->have_fit, "a fit without a clock burst");
	CHECK_EQ_U64(pt->host_irq.n, 100);
	CHECK_EQ_U64(pt->guest_irq.n, 100);
	CHECK_EQ_U64(pt->irq_paired, 0);
	CHECK_EQ_U64(pt->irq_unpaired_host, 100);
	CHECK_EQ_U64(pt->irq_unpaired_guest, 100);
	CHECK(strstr(pt->note, "never compared"), "note: %s", pt->note);
	passthrough_free(pt);
}
