// SPDX-License-Identifier: GPL-2.0
/*
 * The host -> guest crossing of `report` (analysis/crossing.c) on merged
 * traces whose every interrupt's stages are known: synth_merged's vary
 * gives each of 100 interrupts its own injection delay, injection -> guest
 * entry and wake-up delay (synth_merged_stages).  The expected p50, p99
 * and max are computed here from those inputs (sorted, nearest rank:
 * ceil(p * n / 100)), never from the tool's output.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_read.h"
#include "passthrough.h"
#include "synth.h"
#include "testlib.h"
#include "tests.h"

#define CROSS_N		100

struct expected {
	uint64_t count, min, p50, p99, max, sum;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile of v[0..n), worked here: the ceil(p n / 100)-th smallest. */
static uint64_t rank_of(uint64_t *v, uint64_t n, unsigned int pct)
{
	uint64_t rank = (pct * n + 99) / 100;

	return v[(rank ? rank : 1) - 1];
}

static void expect_of(uint64_t *v, uint64_t n, struct expected *e)
{
	memset(e, 0, sizeof(*e));
	e->count = n;
	for (uint64_t i = 0; i < n; i++)
		e->sum += v[i];
	qsort(v, n, sizeof(*v), cmp_u64);
	e->min = v[0];
	e->p50 = rank_of(v, n, 50);
	e->p99 = rank_of(v, n, 99);
	e->max = v[n - 1];
}

static bool is_host_path_stage(unsigned int s)
{
	return s == CROSS_HOST_TO_IRQFD || s == CROSS_IRQFD_TO_INJECT || s == CROSS_INJECT_TO_ENTRY ||
	       s == CROSS_ENTRY_TO_GUEST || s == CROSS_GUEST_TO_EOI;
}

/* Every stage's figures from the synthetic inputs: CROSS_N interrupts, none dropped. */
static void expected_stages(const struct synth_merged *o, struct expected e[CROSS_STAGES])
{
	static uint64_t v[CROSS_STAGES][CROSS_N];

	for (uint32_t i = 0; i < CROSS_N; i++) {
		struct synth_stages s;

		synth_merged_stages(o, i, &s);
		v[CROSS_HOST_HANDLER][i] = s.handler;
		v[CROSS_HOST_TO_INJECT][i] = s.to_inject;
		v[CROSS_INJECT_TO_GUEST][i] = s.to_guest - s.to_inject;
		v[CROSS_HOST_TO_GUEST][i] = s.to_guest;
		v[CROSS_GUEST_HANDLER][i] = s.handler;
		v[CROSS_GUEST_TO_WAKE][i] = s.to_wake;
		v[CROSS_HOST_TO_WAKE][i] = s.to_guest + s.to_wake;
		v[CROSS_HOST_TO_IRQFD][i] = s.to_irqfd;
		v[CROSS_IRQFD_TO_INJECT][i] = s.to_inject - s.to_irqfd;
		v[CROSS_INJECT_TO_ENTRY][i] = s.to_entry;
		v[CROSS_ENTRY_TO_GUEST][i] = s.to_guest - s.to_inject - s.to_entry;
		v[CROSS_GUEST_TO_EOI][i] = s.to_eoi;
	}
	for (unsigned int st = 0; st < CROSS_STAGES; st++) {
		expect_of(v[st], CROSS_N, &e[st]);
		if (!o->host_path && is_host_path_stage(st))
			memset(&e[st], 0, sizeof(e[st]));	/* no such records: not measured */
	}
}

static void crossing_options(struct synth_merged *o, bool tsc, int64_t offset_error_ns)
{
	synth_merged_defaults(o);
	o->n = CROSS_N;
	o->injections = true;
	o->vary = true;
	o->tsc = tsc;
	o->offset_error_ns = offset_error_ns;
}

static struct passthrough *load(const char *path)
{
	const struct gpuprobe_rec_hdr *rec;
	struct trace_info *info = malloc(sizeof(*info));
	struct passthrough *pt = passthrough_new();
	struct trace_reader r;
	int n = -1;

	if (info && pt && !trace_reader_open(&r, path, info)) {
		while ((n = trace_reader_next(&r, &rec)) > 0)
			passthrough_add(pt, rec);
		trace_reader_close(&r);
	}
	free(info);
	CHECK(n == 0, "reading %s", path);
	if (n) {
		passthrough_free(pt);
		return NULL;
	}
	passthrough_finish(pt);
	return pt;
}

static struct passthrough *crossing_trace(const struct synth_merged *o, const char *stem)
{
	const char *path = test_tmp_path(stem);
	struct passthrough *pt;

	CHECK(synth_write_merged(path, o) == 0, "synth_write_merged");
	pt = load(path);
	unlink(path);
	return pt;
}

/* The chain's shares (host -> injection, injection -> guest, guest -> wake) and its largest. */
static unsigned int expected_largest(const struct synth_merged *o, const struct expected e[CROSS_STAGES],
				     double share[CROSS_STAGES])
{
	static const unsigned int injection[] = { CROSS_HOST_TO_INJECT, CROSS_INJECT_TO_GUEST, CROSS_GUEST_TO_WAKE };
	/* with the host path: the injection's half in its steps */
	static const unsigned int steps[] = { CROSS_HOST_TO_IRQFD, CROSS_IRQFD_TO_INJECT, CROSS_INJECT_TO_ENTRY,
					      CROSS_ENTRY_TO_GUEST, CROSS_GUEST_TO_WAKE };
	const unsigned int *chain = o->host_path ? steps : injection;
	size_t n = o->host_path ? 5 : 3;
	uint64_t total = 0;
	unsigned int best = chain[0];

	for (size_t i = 0; i < n; i++)
		total += e[chain[i]].sum;
	for (size_t i = 0; i < n; i++) {
		share[chain[i]] = 100.0 * (double)e[chain[i]].sum / (double)total;
		if (e[chain[i]].sum > e[best].sum)
			best = chain[i];
	}
	return best;
}

static void check_stages(const struct passthrough *pt, const struct synth_merged *o, uint64_t bound)
{
	const struct crossing *c = &pt->crossing;
	struct expected e[CROSS_STAGES];
	double share[CROSS_STAGES] = { 0 };
	unsigned int largest;

	expected_stages(o, e);
	largest = expected_largest(o, e, share);
	CHECK_EQ_U64(pt->irq_paired, CROSS_N);
	CHECK_EQ_U64(c->pairs, CROSS_N);
	CHECK_EQ_U64(c->complete_pairs, CROSS_N);
	CHECK(c->through_injection, "the chain goes through the injections");
	CHECK_EQ_U64(c->clock_error_ns, bound);
	for (unsigned int s = 0; s < CROSS_STAGES; s++) {
		const struct crossing_stage *st = &c->stage[s];

		CHECK(st->count == e[s].count && st->min == e[s].min && st->p50 == e[s].p50 &&
		      st->p99 == e[s].p99 && st->max == e[s].max && st->sum == e[s].sum,
		      "%s: count %llu min %llu p50 %llu p99 %llu max %llu sum %llu; want %llu %llu %llu %llu %llu %llu",
		      st->name, (unsigned long long)st->count, (unsigned long long)st->min,
		      (unsigned long long)st->p50, (unsigned long long)st->p99, (unsigned long long)st->max,
		      (unsigned long long)st->sum, (unsigned long long)e[s].count, (unsigned long long)e[s].min,
		      (unsigned long long)e[s].p50, (unsigned long long)e[s].p99, (unsigned long long)e[s].max,
		      (unsigned long long)e[s].sum);
		CHECK(!st->in_chain || fabs(st->share_pct - share[s]) < 1e-9, "%s: share %.6f, want %.6f",
		      st->name, st->share_pct, share[s]);
	}
	CHECK(c->largest == (int)largest, "largest stage %d, want %u", c->largest, largest);
	CHECK(strstr(c->verdict, c->stage[largest].name) != NULL, "verdict: %s", c->verdict);
}

/*
 * 100 interrupts, each with its own stages, on the exact clock (bound
 * 101 ns) and on the exchanges' (bound 5 us): the same exact figures,
 * with the bound of the clock in use.
 */
void test_crossing_stages_exact(void)
{
	struct synth_merged o;
	struct passthrough *pt;

	crossing_options(&o, true, 0);
	pt = crossing_trace(&o, "cross-tsc");
	if (pt) {
		CHECK(pt->clock_exact, "the exact clock in use: %s", pt->clock_note);
		check_stages(pt, &o, SYNTH_TSC_BOUND_NS);
		CHECK_EQ_U64(pt->crossing.nwarnings, 0);
	}
	passthrough_free(pt);
	crossing_options(&o, false, 0);
	pt = crossing_trace(&o, "cross-fit");
	if (pt) {
		CHECK(!pt->clock_exact, "no TSC records: the exchanges' clock");
		check_stages(pt, &o, o.bound_ns);
		/* no APIC mode record, no IRTE update: the route is not claimed either way */
		CHECK(!pt->crossing.path.route_known && !pt->crossing.path.measured &&
		      strstr(pt->crossing.path.route, "not known") != NULL, "route: %s", pt->crossing.path.route);
	}
	passthrough_free(pt);
}

static const json_t *stage_of(const json_t *stages, const char *key)
{
	const json_t *s;

	jread_each(i, s, stages)
		if (!strcmp(jread_string(s, "key", ""), key))
			return s;
	return NULL;
}

static const json_t *crossing_json(json_t **doc, const char *text)
{
	char err[256];

	*doc = text ? jread_parse(text, err, sizeof(err)) : NULL;
	CHECK(*doc != NULL, "report --json: %s", text ? err : "no output");
	return *doc ? jread_get(jread_get(*doc, "passthrough"), "crossing") : NULL;
}

/* report --json: passthrough.crossing's stages equal to the inputs' figures, the bound on crossing stages only. */
void test_crossing_json(void)
{
	static const char *const keys[CROSS_STAGES] = {
		[CROSS_HOST_HANDLER] = "host_handler", [CROSS_HOST_TO_IRQFD] = "host_to_irqfd",
		[CROSS_IRQFD_TO_INJECT] = "irqfd_to_inject", [CROSS_HOST_TO_INJECT] = "host_to_inject",
		[CROSS_INJECT_TO_ENTRY] = "inject_to_entry", [CROSS_ENTRY_TO_GUEST] = "entry_to_guest",
		[CROSS_INJECT_TO_GUEST] = "inject_to_guest", [CROSS_HOST_TO_GUEST] = "host_to_guest",
		[CROSS_GUEST_HANDLER] = "guest_handler", [CROSS_GUEST_TO_EOI] = "guest_to_eoi",
		[CROSS_GUEST_TO_WAKE] = "guest_handler_to_wake", [CROSS_HOST_TO_WAKE] = "host_to_wake",
	};
	static const bool crosses[CROSS_STAGES] = {
		[CROSS_ENTRY_TO_GUEST] = true, [CROSS_INJECT_TO_GUEST] = true, [CROSS_HOST_TO_GUEST] = true,
		[CROSS_GUEST_TO_EOI] = true, [CROSS_HOST_TO_WAKE] = true,
	};
	const char *path = test_tmp_path("cross-json");
	struct expected e[CROSS_STAGES];
	double share[CROSS_STAGES] = { 0 };
	struct synth_merged o;
	const json_t *c, *v;
	json_t *doc;
	char *text;
	unsigned int largest;

	crossing_options(&o, true, 0);
	o.host_path = true;
	expected_stages(&o, e);
	largest = expected_largest(&o, e, share);
	CHECK(synth_write_merged(path, &o) == 0, "synth_write_merged");
	text = test_report(path, true);
	c = crossing_json(&doc, text);
	CHECK(c != NULL, "no passthrough.crossing");
	if (c) {
		CHECK_EQ_U64(jread_u64(c, "pairs", 0), CROSS_N);
		CHECK_EQ_U64(jread_u64(c, "complete_pairs", 0), CROSS_N);
		CHECK_EQ_U64(jread_u64(c, "clock_error_ns", 0), SYNTH_TSC_BOUND_NS);
		for (unsigned int s = 0; s < CROSS_STAGES; s++) {
			const json_t *st = stage_of(jread_array(c, "stages"), keys[s]);
			const json_t *bound = jread_get(st, "error_bound_ns");

			CHECK(st != NULL, "stage %s missing", keys[s]);
			if (!st)
				continue;
			CHECK(jread_u64(st, "count", 0) == e[s].count && jread_u64(st, "p50_ns", 0) == e[s].p50 &&
			      jread_u64(st, "p99_ns", 0) == e[s].p99 && jread_u64(st, "max_ns", 0) == e[s].max &&
			      jread_u64(st, "min_ns", 0) == e[s].min && jread_u64(st, "sum_ns", 0) == e[s].sum,
			      "%s: p50 %llu p99 %llu max %llu, want %llu %llu %llu", keys[s],
			      (unsigned long long)jread_u64(st, "p50_ns", 0), (unsigned long long)jread_u64(st, "p99_ns", 0),
			      (unsigned long long)jread_u64(st, "max_ns", 0), (unsigned long long)e[s].p50,
			      (unsigned long long)e[s].p99, (unsigned long long)e[s].max);
			CHECK(crosses[s] ? json_integer_value(bound) == SYNTH_TSC_BOUND_NS : json_is_null(bound),
			      "%s: error_bound_ns", keys[s]);
			CHECK(json_is_boolean(jread_get(st, "crosses_clock")) &&
			      json_boolean_value(jread_get(st, "crosses_clock")) == crosses[s], "%s: crosses_clock", keys[s]);
			if (share[s] > 0)
				CHECK(fabs(jread_number(st, "share_pct", -1) - share[s]) < 1e-9, "%s: share_pct", keys[s]);
			else
				CHECK(json_is_null(jread_get(st, "share_pct")), "%s: share_pct not null", keys[s]);
		}
		v = jread_get(c, "verdict");
		CHECK(!strcmp(jread_string(v, "stage", ""), keys[largest]), "verdict.stage %s, want %s",
		      jread_string(v, "stage", "?"), keys[largest]);
		CHECK(fabs(jread_number(v, "share_pct", -1) - share[largest]) < 1e-9, "verdict.share_pct");
		CHECK(strstr(jread_string(v, "text", ""), "the host -> guest time goes to") != NULL, "verdict.text");
		CHECK(json_array_size(jread_array(c, "warnings")) == 0, "warnings on a clean trace");
	}
	jread_free(doc);
	free(text);
	unlink(path);
}

/* Whether report's text and JSON warn of kind; both must agree. */
static bool warns(const struct synth_merged *o, const char *kind, const char *text_part)
{
	const char *path = test_tmp_path("cross-warn");
	char *text = NULL, *json = NULL;
	const json_t *c, *w;
	bool in_text, in_json = false;
	json_t *doc;

	CHECK(synth_write_merged(path, o) == 0, "synth_write_merged");
	text = test_report(path, false);
	json = test_report(path, true);
	unlink(path);
	in_text = text && strstr(text, text_part);
	c = crossing_json(&doc, json);
	jread_each(i, w, jread_array(c, "warnings"))
		in_json |= !strcmp(jread_string(w, "kind", ""), kind);
	CHECK(in_text == in_json, "%s: text %d, JSON %d", kind, in_text, in_json);
	jread_free(doc);
	free(text);
	free(json);
	return in_text && in_json;
}

/*
 * The exact clock against exchanges that say otherwise: bursts 50 us off
 * (beyond 5 us + 101 ns) refuse it (mapped by the exchanges, saying why, the
 * disagreement kept in exact_clock); right, or 3 us off (within both
 * bounds): it is used.
 */
static void disagreeing(int64_t off_ns, bool want_refused)
{
	struct synth_merged o;
	struct passthrough *pt;

	crossing_options(&o, true, off_ns);
	pt = crossing_trace(&o, "cross-disagree");
	if (!pt)
		return;
	CHECK(pt->tsc != NULL, "exchanges %lld ns off: no exact clock read", (long long)off_ns);
	CHECK(pt->clock_exact == !want_refused, "exchanges %lld ns off: exact clock %s (%s)",
	      (long long)off_ns, pt->clock_exact ? "used" : "refused", pt->clock_note);
	CHECK((pt->cross_disagree > 0) == want_refused, "exchanges %lld ns off: %llu bursts disagree",
	      (long long)off_ns, (unsigned long long)pt->cross_disagree);
	if (want_refused) {
		CHECK(strstr(pt->clock_note, "disagree with it at") && strstr(pt->clock_note, "causal"),
		      "why not: %s", pt->clock_note);
		CHECK_EQ_U64(pt->clock_error_ns, pt->fit.error_ns);
	} else {
		CHECK_EQ_U64(pt->clock_error_ns, SYNTH_TSC_BOUND_NS);
	}
	passthrough_free(pt);
}

void test_crossing_disagreement_refused(void)
{
	const char *path = test_tmp_path("cross-disagree-text");
	struct synth_merged o;
	char *text;

	disagreeing(50000, true);
	disagreeing(0, false);
	disagreeing(3000, false);
	crossing_options(&o, true, 50000);
	CHECK(synth_write_merged(path, &o) == 0, "synth_write_merged");
	text = test_report(path, false);
	CHECK(text && strstr(text, "exact clock: not used (the exchanges disagree with it at"),
	      "text: the refusal not said");
	free(text);
	unlink(path);
}

/* More host TSC samples than the cap: the ones beyond it counted and reported, none below it. */
void test_crossing_samples_capped(void)
{
	const char *path = test_tmp_path("cross-cap");
	struct synth_merged o;
	struct passthrough *pt;

	crossing_options(&o, true, 0);
	o.tsc_host_samples = TSC_MAX_SAMPLES + 904;
	pt = crossing_trace(&o, "cross-cap");
	if (pt && pt->tsc) {
		CHECK_EQ_U64(pt->tsc->host_capped, o.tsc_host_samples - TSC_MAX_SAMPLES);
		CHECK_EQ_U64(pt->tsc->guest_capped, 0);
	}
	passthrough_free(pt);
	CHECK(warns(&o, "tsc_samples_capped", "WARNING: 904 host and 0 guest TSC samples beyond the 4096"),
	      "no warning of 904 samples beyond the cap");
	CHECK(synth_write_merged(path, &o) == 0, "synth_write_merged");
	{
		char *json = test_report(path, true);
		char err[256];
		json_t *doc = json ? jread_parse(json, err, sizeof(err)) : NULL;
		const json_t *x = jread_get(jread_get(doc, "passthrough"), "exact_clock");

		CHECK_EQ_U64(jread_u64(x, "host_samples_capped", 0), 904);
		CHECK_EQ_U64(jread_u64(x, "sample_cap", 0), TSC_MAX_SAMPLES);
		jread_free(doc);
		free(json);
	}
	unlink(path);
	o.tsc_host_samples = TSC_MAX_SAMPLES;
	CHECK(!warns(&o, "tsc_samples_capped", "TSC samples beyond the"), "a warning at the cap exactly");
}

/* Every key of passthrough.crossing (its stages, verdict, warnings) named in report-json.md. */
void test_crossing_documented(void)
{
	static const char doc_path[] = "../../Documentation/report-json.md";
	const char *path = test_tmp_path("cross-doc");
	struct synth_merged o;
	const json_t *c, *objs[9];
	char *json, *md = NULL;
	size_t len = 0;
	FILE *f = fopen(doc_path, "r");
	json_t *doc;

	CHECK(f != NULL, "cannot read %s", doc_path);
	if (!f)
		return;
	md = calloc(1, 1 << 20);
	len = md ? fread(md, 1, (1 << 20) - 1, f) : 0;
	fclose(f);
	crossing_options(&o, true, 0);
	o.tsc_host_samples = TSC_MAX_SAMPLES + 10;	/* with a warning: its keys too */
	o.host_path = true;			/* and the host path's */
	CHECK(synth_write_merged(path, &o) == 0, "synth_write_merged");
	json = test_report(path, true);
	unlink(path);
	c = crossing_json(&doc, json);
	objs[0] = c;
	objs[1] = json_array_get(jread_array(c, "stages"), 0);
	objs[2] = jread_get(c, "verdict");
	objs[3] = json_array_get(jread_array(c, "warnings"), 0);
	objs[4] = jread_get(c, "host_path");
	objs[5] = jread_get(objs[4], "vcpu_state");
	objs[6] = jread_get(objs[4], "eoi");
	objs[7] = jread_get(objs[4], "route");
	objs[8] = json_array_get(jread_array(objs[4], "exit_reasons"), 0);
	CHECK(len && c && objs[1] && objs[2] && objs[3], "report --json: crossing, a stage, verdict, a warning");
	CHECK(objs[5] && objs[6] && objs[7] && objs[8], "report --json: host_path and its objects");
	CHECK(md && strstr(md, "| `crossing` |"), "report-json.md has no `crossing` row");
	for (size_t i = 0; md && i < 9; i++) {
		const char *key;
		json_t *val;

		json_object_foreach((json_t *)objs[i], key, val) {
			char quoted[80], member[80];

			(void)val;
			snprintf(quoted, sizeof(quoted), "`%s`", key);
			snprintf(member, sizeof(member), "[].%s`", key);	/* `stages[].p50_ns` */
			CHECK(strstr(md, quoted) || strstr(md, member), "report-json.md does not name %s", quoted);
		}
	}
	jread_free(doc);
	free(json);
	free(md);
}

/* Bursts 300 us off (bound 5 us): guest interrupts before their causes; the verdict says not to trust it, a clean one does not. */
void test_crossing_untrusted_verdict(void)
{
	struct synth_merged o;
	struct passthrough *pt;

	synth_merged_defaults(&o);
	o.offset_error_ns = 300000;
	pt = crossing_trace(&o, "cross-untrusted");
	if (pt) {
		CHECK(pt->order_violations > 0, "no order violation with the offset 300 us wrong");
		CHECK(!strncmp(pt->crossing.verdict, "NOT TO BE TRUSTED (", 19), "verdict: %s", pt->crossing.verdict);
	}
	passthrough_free(pt);
	o.offset_error_ns = 0;
	pt = crossing_trace(&o, "cross-trusted");
	if (pt)
		CHECK(!strstr(pt->crossing.verdict, "NOT TO BE TRUSTED"), "verdict: %s", pt->crossing.verdict);
	passthrough_free(pt);
}

/* What the host path must say of synth_merged's host_path inputs, worked here from them. */
struct expected_path {
	uint64_t state[VCPU_STATES], eoi[EOI_KINDS];
	uint64_t exits_sum, exits_p50, exits_max;
	uint64_t intr, npf, msr, hlt;		/* exits on the paths by SVM reason */
};

static void expected_path_of(const struct synth_merged *o, struct expected_path *x)
{
	static const unsigned int state_of[] = {
		[SYNTH_VCPU_IN_GUEST] = VCPU_IN_GUEST, [SYNTH_VCPU_HALTED] = VCPU_HALTED,
		[SYNTH_VCPU_IN_HOST] = VCPU_IN_HOST,
	};
	uint64_t exits[CROSS_N];

	memset(x, 0, sizeof(*x));
	for (uint32_t i = 0; i < CROSS_N; i++) {
		struct synth_stages s;
		bool kicked;

		synth_merged_stages(o, i, &s);
		kicked = s.state == SYNTH_VCPU_IN_GUEST;
		x->state[state_of[s.state]]++;
		x->eoi[s.pv_eoi ? EOI_PV : EOI_MSR_EXIT]++;
		/* the kick (in the guest only), the NPFs, the EOI's exit */
		exits[i] = kicked + s.npf_exits + 1;
		x->exits_sum += exits[i];
		x->intr += kicked;
		x->npf += s.npf_exits;
		x->msr += !s.pv_eoi;
		x->hlt += s.pv_eoi;
	}
	qsort(exits, CROSS_N, sizeof(exits[0]), cmp_u64);
	x->exits_p50 = rank_of(exits, CROSS_N, 50);
	x->exits_max = exits[CROSS_N - 1];
}

static uint64_t reason_count(const struct hostpath_summary *p, uint32_t reason)
{
	for (unsigned int i = 0; i < p->nreasons; i++)
		if (p->reason[i].isa == GPUPROBE_KVM_ISA_SVM && p->reason[i].reason == reason)
			return p->reason[i].count;
	return 0;
}

/*
 * 100 interrupts with their host path (synth_merged host_path): every new
 * stage's exact figures and the chain through them, the vCPU's state at
 * each irqfd step, the EOIs by kind, the exits on the way by reason, the
 * route (avic off, no IRTE posted: not posted); the same in report --json.
 */
void test_crossing_host_path(void)
{
	const char *path = test_tmp_path("cross-path");
	struct expected_path x;
	struct synth_merged o;
	struct passthrough *pt;
	const json_t *c, *hp;
	json_t *doc;
	char *text;

	crossing_options(&o, true, 0);
	o.host_path = true;
	expected_path_of(&o, &x);
	pt = crossing_trace(&o, "cross-path-pt");
	if (pt) {
		const struct hostpath_summary *p = &pt->crossing.path;

		CHECK(pt->crossing.through_host_path, "the chain goes through the host path");
		check_stages(pt, &o, SYNTH_TSC_BOUND_NS);
		CHECK(p->measured, "host path measured");
		CHECK_EQ_U64(p->with_irqfd, CROSS_N);
		CHECK_EQ_U64(p->with_entry, CROSS_N);
		for (unsigned int s = 0; s < VCPU_STATES; s++)
			CHECK(p->state[s] == x.state[s], "vCPU %s: %llu, want %llu", hostpath_state_name(s),
			      (unsigned long long)p->state[s], (unsigned long long)x.state[s]);
		for (unsigned int k = 0; k < EOI_KINDS; k++)
			CHECK(p->eoi[k] == x.eoi[k], "EOI %s: %llu, want %llu", hostpath_eoi_name(k),
			      (unsigned long long)p->eoi[k], (unsigned long long)x.eoi[k]);
		CHECK_EQ_U64(p->exits_counted, CROSS_N);
		CHECK_EQ_U64(p->exits_sum, x.exits_sum);
		CHECK_EQ_U64(p->exits_p50, x.exits_p50);
		CHECK_EQ_U64(p->exits_max, x.exits_max);
		CHECK_EQ_U64(reason_count(p, 0x060), x.intr);
		CHECK_EQ_U64(reason_count(p, 0x400), x.npf);
		CHECK_EQ_U64(reason_count(p, 0x07c), x.msr);
		CHECK_EQ_U64(reason_count(p, 0x078), x.hlt);
		CHECK_EQ_U64(p->nreasons, 4);
		CHECK(p->have_mode && p->avic == GPUPROBE_KVM_PARAM_OFF && !p->posted && p->route_known,
		      "route: avic off, not posted");
		CHECK(strstr(p->route, "figures of a non-posted path") != NULL, "route: %s", p->route);
	}
	passthrough_free(pt);
	CHECK(synth_write_merged(path, &o) == 0, "synth_write_merged");
	text = test_report(path, true);
	c = crossing_json(&doc, text);
	hp = jread_get(c, "host_path");
	CHECK(hp != NULL, "no crossing.host_path");
	if (hp) {
		CHECK_EQ_U64(jread_u64(jread_get(hp, "vcpu_state"), "in_guest", 0), x.state[VCPU_IN_GUEST]);
		CHECK_EQ_U64(jread_u64(jread_get(hp, "vcpu_state"), "halted", 0), x.state[VCPU_HALTED]);
		CHECK_EQ_U64(jread_u64(jread_get(hp, "vcpu_state"), "in_host", 0), x.state[VCPU_IN_HOST]);
		CHECK_EQ_U64(jread_u64(jread_get(hp, "eoi"), "pv_eoi", 0), x.eoi[EOI_PV]);
		CHECK_EQ_U64(jread_u64(jread_get(hp, "eoi"), "msr_exit", 0), x.eoi[EOI_MSR_EXIT]);
		CHECK_EQ_U64(jread_u64(hp, "exits_sum", 0), x.exits_sum);
		CHECK(json_is_false(jread_get(jread_get(hp, "route"), "posted")), "route.posted false");
		CHECK(!strcmp(jread_string(jread_get(hp, "route"), "avic", ""), "off"), "route.avic off");
	}
	jread_free(doc);
	free(text);
	text = test_report(path, false);
	CHECK(text && strstr(text, "IRQ posting: not posted"), "text: no 'IRQ posting: not posted'");
	CHECK(text && strstr(text, "VM entry -> guest handler"), "text: no VM entry stage");
	free(text);
	unlink(path);
}
