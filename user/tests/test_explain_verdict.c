// SPDX-License-Identifier: GPL-2.0
/*
 * explain's verdict block on a result built by hand: the mean GPU end ->
 * return of the matched waits, its largest step and that step's share of
 * it (2 + 6 + 0 + 1 us: the second, 6 of 9 us = 66.7 %), a probe no
 * interrupt woke, a causality violation, and what was not measured.
 */
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "testlib.h"

void test_explain_verdict_first(void);

static struct explain_waterfall falls[2];

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
