// SPDX-License-Identifier: GPL-2.0
/*
 * explain's verdict block on a result built by hand: the mean GPU end ->
 * return of the matched waits, its largest step and that step's share of
 * it (2 + 6 + 0 + 1 us: the second, 6 of 9 us = 66.7 %), a probe no
 * interrupt woke, a causality violation, and what was not measured; the
 * waterfall's clock bound, unmeasured and 3 us; a pin phase's sums, and
 * no phase printed that the result does not have; the first pin's ratio
 * to the repeat's and what it means.
 */
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "testlib.h"

void test_explain_verdict_first(void);

static struct explain_waterfall falls[2];
static struct explain_load pins[2];

static void hand_result(struct explain_result *r)
{
	memset(r, 0, sizeof(*r));
	memset(falls, 0, sizeof(falls));
	strcpy(r->probe_path, "p.json");
	strcpy(r->trace_path, "t.trace");
	strcpy(r->timeline.target, "0000:01:00.0");
	r->timeline.tid = 77;
	r->timeline.sched_records = 1;
	r->timeline.ndma = 1;
	r->clock_error_known = true;
	r->napis = 1;
	strcpy(r->apis[0].api, "cuda");
	r->apis[0].falls = falls;
	r->apis[0].nfalls = 2;
	strcpy(falls[0].probe, "sync_wake");
	falls[0].samples = 4;
	falls[0].count[WAIT_INTERRUPT] = 3;
	falls[0].count[WAIT_NOT_ASLEEP] = 1;
	falls[0].step[STEP_END_TO_ENTRY].mean = 2000;
	falls[0].step[STEP_ENTRY_TO_WAKE].mean = 6000;
	falls[0].step[STEP_WAKE_TO_RETURN].mean = 1000;
	falls[0].end_to_return.mean = 9000;
	strcpy(falls[1].probe, "sync_wake_100us");
	falls[1].samples = 2;
	falls[1].count[WAIT_OTHER_WAKER] = 2;
}

static char *text_of(const struct explain_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	explain_print_text(out, r);
	fclose(out);
	return buf;
}

void test_explain_verdict_first(void)
{
	struct explain_result r;
	const char *body;
	char *t;

	hand_result(&r);
	t = text_of(&r);
	CHECK(t, "no output");
	if (!t)
		return;
	CHECK(!strncmp(t, "verdict\n  workload: the probe run in p.json (cuda), traced in t.trace: target 0000:01:00.0, thread 77\n", 100),
	      "the verdict first:\n%s", t);
	CHECK(strstr(t, "\n    cuda sync_wake: 9.00us in 3 of 4 waits; largest step handler entry -> wake-up (or its exit) 6.00us (66.7%)\n"),
	      "the largest step and its share of the mean:\n%s", t);
	CHECK(strstr(t, "\n    cuda sync_wake_100us: no wait of 2 woken by the target's interrupt"), "no path:\n%s", t);
	CHECK(strstr(t, "\n  causality: holds in every wait\n") && strstr(t, "\n  not measured:\n    tracing's own cost: ") &&
	      !strstr(t, "error bound: the probe output has none"), "causality, not measured:\n%s", t);
	body = strstr(t, "\n\nexplain p.json with t.trace\n");
	CHECK(body && body < strstr(t, "interrupt waterfall"), "then the body:\n%s", t);
	/* the waterfall's own bound: this fall's is unmeasured */
	CHECK(strstr(t, "\n  GPU end: clock error bound not measured by the probe; checks below use 0\n") &&
	      !strstr(t, "GPU end is known to"), "a waterfall's unmeasured bound:\n%s", t);
	CHECK(!strstr(t, "phase as a whole"), "no phase without one:\n%s", t);
	free(t);

	/* a pin phase (no windows): its sums, 512 KiB = 0.500 MiB; no copy phase */
	r.apis[0].have_pin_phase = true;
	strcpy(r.apis[0].pin_phase.probe, "pin");
	r.apis[0].pin_phase.map_calls = 3;
	r.apis[0].pin_phase.map_bytes = 512 * 1024;
	r.apis[0].pin_phase.map_segments = 4;
	r.apis[0].pin_phase.unmap_calls = 2;
	r.apis[0].pin_phase.irqs = 5;
	r.apis[0].pin_phase.bounces = 1;
	t = text_of(&r);
	CHECK(t && strstr(t, "\ncuda: pin phase as a whole (this probe output has no per-call windows: rerun\n"
			    "  `probe` for pin.first vs pin.repeat and per-copy figures): 3 DMA map calls,\n"
			    "  0.500 MiB, 4 segments, 2 unmaps, 5 interrupts, 1 swiotlb bounces\n") &&
	      !strstr(strstr(t, "pin phase as a whole") + strlen("pin phase"), "phase as a whole"), "the pin phase alone:\n%s", t ? t : "");
	free(t);
	r.apis[0].have_pin_phase = false;

	/*
	 * pin.first and pin.repeat of 1 MiB, 10 calls each with one DMA map
	 * per call, p50 30 us against 10 us: 3.00x, at least the 1.5x of lazy
	 * pinning with the same maps: the hypervisor's, said so
	 */
	memset(pins, 0, sizeof(pins));
	strcpy(pins[0].probe, "pin.first.1MiB");
	strcpy(pins[1].probe, "pin.repeat.1MiB");
	for (int i = 0; i < 2; i++) {
		pins[i].bytes_per_op = 1 << 20;
		pins[i].ops = pins[i].map_calls = 10;
		pins[i].p50_ns = i ? 10000 : 30000;
	}
	r.apis[0].loads = pins;
	r.apis[0].nloads = 2;
	t = text_of(&r);
	CHECK(t && strstr(t, "\n  what it means (largest size, 1MiB): first 30.00us vs repeat 10.00us, 3.00x.\n"
			    "  The guest maps the same pages both times (1.00 vs 1.00 DMA maps per call):\n"),
	      "the pins' ratio and what it means:\n%s", t ? t : "");
	free(t);
	r.apis[0].loads = NULL;
	r.apis[0].nloads = 0;

	falls[0].clock_error_known = true;
	falls[0].clock_error_ns = 3000;
	t = text_of(&r);
	CHECK(t && strstr(t, "\n  GPU end is known to +/-3.00us (device clock calibration): the first step carries it\n") &&
	      !strstr(t, "checks below use 0"), "a waterfall's bound of 3 us:\n%s", t ? t : "");
	free(t);

	falls[1].causality_violations = 1;
	r.clock_error_known = false;
	r.timeline.sched_records = 0;
	t = text_of(&r);
	CHECK(t, "no output");
	if (!t)
		return;
	CHECK(strstr(t, "\n  causality: FAIL, 1 waits break it (below)"), "a violation:\n%s", t);
	CHECK(strstr(t, "\n    the device clock's error bound: the probe output has none") &&
	      strstr(t, "\n    wake-ups: the trace has no scheduler events"), "not measured:\n%s", t);
	free(t);
}
