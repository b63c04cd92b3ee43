// SPDX-License-Identifier: GPL-2.0
/*
 * The explain model built: a probe output (its waits, windows and phases)
 * read and lined up with the trace recorded around it (explain_timeline.c),
 * each wait attributed (explain_wake.c), each pin and copy window counted
 * (explain_dma.c).  `gpuprobe-trace explain` (cmd/explain.c) runs it and
 * prints the result (output/explain_*.c); nothing here knows the command.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "json_read.h"
#include "target.h"
#include "util.h"

static const json_t *probe_named(const json_t *api, const char *name)
{
	const json_t *probes = jread_array(api, "probes");

	const json_t *p;

	jread_each(i, p, probes)
		if (!strcmp(jread_string(p, "name", ""), name))
			return p;
	return NULL;
}

/* "sync_wake" for an empty kernel, "sync_wake_100us" for one that spins 100 us. */
static void waterfall_name(uint64_t spin_ns, char *buf, size_t size)
{
	if (spin_ns)
		snprintf(buf, size, "sync_wake_%lluus", (unsigned long long)(spin_ns / 1000));
	else
		snprintf(buf, size, "sync_wake");
}

/* One waterfall per kernel length among the API's blocking-wait samples. */
static int explain_waits(const json_t *api, const struct explain_timeline *t, double error_ns,
			 struct explain_api *out)
{
	const json_t *samples = jread_array(api, "sync_wake_samples");
	size_t n = json_array_size(samples);
	const json_t *s, *e;
	struct explain_wait *w;

	w = calloc(n ? n : 1, sizeof(*w));
	out->falls = calloc(n ? n : 1, sizeof(*out->falls));
	if (!w || !out->falls) {
		free(w);
		return -1;
	}
	/* Kernel lengths in order of appearance; each one's samples in one waterfall. */
	jread_each(i, s, samples) {
		uint64_t spin = jread_u64(s, "kernel_spin_ns", 0);
		struct explain_waterfall *f = &out->falls[out->nfalls];
		bool seen = false;
		size_t k = 0;

		for (size_t i = 0; i < out->nfalls; i++)
			seen |= out->falls[i].kernel_spin_ns == spin;
		if (seen)
			continue;
		jread_each_from(j, i, e, samples)
			if (jread_u64(e, "kernel_spin_ns", 0) == spin)
				w[k++] = (struct explain_wait){
					jread_u64(e, "launched_ns", 0),
					jread_u64(e, "gpu_end_ns", 0),
					jread_u64(e, "return_ns", 0),
				};
		memset(f, 0, sizeof(*f));
		f->kernel_spin_ns = spin;
		waterfall_name(spin, f->probe, sizeof(f->probe));
		explain_waterfall(t, w, k, error_ns, f);
		out->nfalls++;
	}
	free(w);
	return 0;
}

static int explain_windows(const json_t *api, const struct explain_timeline *t,
			   struct explain_api *out)
{
	const json_t *windows = jread_array(api, "windows");
	size_t n = json_array_size(windows);
	struct explain_window *w;
	const json_t *e;

	out->have_windows = n > 0;
	w = calloc(n ? n : 1, sizeof(*w));
	if (!w)
		return -1;
	jread_each(i, e, windows) {
		copy_string(w[i].probe, sizeof(w[i].probe), jread_string(e, "probe", "?"));
		w[i].start_ns = jread_u64(e, "start_ns", 0);
		w[i].end_ns = jread_u64(e, "end_ns", 0);
		w[i].ops = (uint32_t)jread_u64(e, "ops", 1);
	}
	out->nloads = explain_loads(t, w, n, &out->loads);
	free(w);
	if (!out->loads)
		return -1;
	for (size_t i = 0; i < out->nloads; i++) {
		const json_t *p = probe_named(api, out->loads[i].probe);
		uint64_t bytes = jread_u64(p, "bytes", 0);

		out->loads[i].bytes_per_op = bytes ? bytes : explain_size_of(out->loads[i].probe);
		out->loads[i].p50_ns = jread_number(p, "p50", 0);
	}
	return 0;
}

/* Without windows (older probe outputs): the pin and copy phases as wholes. */
static void explain_phases(const json_t *api, const struct explain_timeline *t,
			   struct explain_api *out)
{
	const json_t *phases = jread_array(api, "phases");

	const json_t *p;

	jread_each(i, p, phases) {
		const char *name = jread_string(p, "name", "");
		struct explain_load *l = !strcmp(name, "pin") ? &out->pin_phase :
					 !strcmp(name, "copy_sweep") ? &out->copy_phase : NULL;

		if (!l)
			continue;
		copy_string(l->probe, sizeof(l->probe), name);
		l->windows = 1;
		l->window_ns = jread_u64(p, "end_ns", 0) - jread_u64(p, "start_ns", 0);
		explain_count(t, jread_u64(p, "start_ns", 0), jread_u64(p, "end_ns", 0), l);
		*(l == &out->pin_phase ? &out->have_pin_phase : &out->have_copy_phase) = true;
	}
}

/* The GPU the CUDA probes name ("..., PCI 0000:00:06.0"), else none. */
static uint32_t probed_device(const json_t *doc)
{
	const json_t *apis = jread_array(doc, "apis");
	const json_t *a;
	uint32_t bdf;

	jread_each(i, a, apis) {
		const char *pci = strstr(jread_string(a, "device", ""), "PCI ");

		if (pci && !bdf_parse(pci + 4, &bdf))
			return bdf;
	}
	return GPUPROBE_BDF_NONE;
}

/* tid of the waiting thread: the API's "tid", else the process (probes run on its main thread). */
static uint32_t waiting_tid(const json_t *doc, char *source, size_t size)
{
	const json_t *apis = jread_array(doc, "apis"), *a;

	jread_each(i, a, apis)
		if (jread_u64(a, "tid", 0) > 0) {
			copy_string(source, size, "tid");
			return (uint32_t)jread_u64(a, "tid", 0);
		}
	copy_string(source, size, "pid (no tid in the probe output; the probes wait on the main thread)");
	return (uint32_t)jread_u64(doc, "pid", 0);
}

/*
 * The trace must have been recorded around the probe: both on this machine's
 * CLOCK_MONOTONIC, the probe's [start_ns, end_ns] inside or across the
 * trace's span (a trace cut short has no end: only its start is checked).
 */
static bool overlaps_probe(const json_t *doc, const struct explain_timeline *t,
			   const char *trace_path)
{
	uint64_t start = jread_u64(doc, "start_ns", 0), end = jread_u64(doc, "end_ns", 0);

	if (!start || !end) {
		warnf("the probe output has no start_ns/end_ns: cannot check that %s was recorded around it",
		      trace_path);
		return true;
	}
	if (end < t->start_ns || (t->end_ns && start > t->end_ns)) {
		errorf("%s was not recorded while the probe ran: the probe ran %.3f s %s the trace "
		       "(record the probe with: gpuprobe-trace record -- gpuprobe-trace probe -o PROBE.json)",
		       trace_path,
		       (double)(end < t->start_ns ? t->start_ns - end : start - t->end_ns) / 1e9,
		       end < t->start_ns ? "before" : "after");
		return false;
	}
	return true;
}

int explain_run(const char *probe_path, const char *trace_path, uint32_t bdf,
		       struct explain_result *r)
{
	const json_t *apis, *a;
	json_t *doc;
	char err[512];
	uint32_t tid;

	copy_string(r->probe_path, sizeof(r->probe_path), probe_path);
	copy_string(r->trace_path, sizeof(r->trace_path), trace_path);
	doc = jread_file(probe_path, err, sizeof(err));
	if (!doc || !(apis = jread_array(doc, "apis"))) {
		errorf("%s", doc ? "not the output of 'gpuprobe-trace probe' (no \"apis\")" : err);
		jread_free(doc);
		return 1;
	}
	tid = waiting_tid(doc, r->tid_source, sizeof(r->tid_source));
	/*
	 * -d must be in the trace; the probe's own device need not be (a guest's
	 * BDF in a host's trace): then the trace's first target, said.
	 */
	if (bdf != GPUPROBE_BDF_NONE) {
		if (explain_timeline_load(&r->timeline, trace_path, bdf, tid, err, sizeof(err))) {
			errorf("-d: %s", err);
			jread_free(doc);
			return 2;
		}
	} else if ((bdf = probed_device(doc)) == GPUPROBE_BDF_NONE ||
		   explain_timeline_load(&r->timeline, trace_path, bdf, tid, err, sizeof(err))) {
		if (explain_timeline_load(&r->timeline, trace_path, GPUPROBE_BDF_NONE, tid, err,
					  sizeof(err))) {
			errorf("%s", err);
			jread_free(doc);
			return 1;
		}
		if (bdf != GPUPROBE_BDF_NONE) {
			char probed[BDF_STRLEN];

			bdf_format(bdf, probed);
			warnf("%s was probed but is not in %s: explaining its first target, %s (-d picks another)",
			      probed, trace_path, r->timeline.target);
		}
	}
	if (!overlaps_probe(doc, &r->timeline, trace_path)) {
		jread_free(doc);
		return 1;
	}
	jread_each(i, a, apis) {
		struct explain_api *x = &r->apis[r->napis];
		const json_t *cal = jread_get(a, "clock_calibration");
		/* -1: the probe did not measure it (the waterfall says so) */
		double error_ns = jread_get(cal, "error_bound_ns") ?
				  jread_number(cal, "error_bound_ns", 0) : -1;

		if (r->napis >= ARRAY_SIZE(r->apis))
			break;
		if (strcmp(jread_string(a, "status", ""), "ok"))
			continue;
		r->napis++;
		copy_string(x->api, sizeof(x->api), jread_string(a, "api", "?"));
		if (error_ns >= 0 && error_ns > r->clock_error_ns)
			r->clock_error_ns = error_ns;
		r->clock_error_known |= error_ns >= 0;
		if (explain_waits(a, &r->timeline, error_ns, x) || explain_windows(a, &r->timeline, x)) {
			errorf("out of memory");
			jread_free(doc);
			return 1;
		}
		if (!x->have_windows)
			explain_phases(a, &r->timeline, x);
	}
	jread_free(doc);
	return 0;
}

void explain_free(struct explain_result *r)
{
	for (size_t i = 0; i < r->napis; i++) {
		free(r->apis[i].falls);
		free(r->apis[i].loads);
	}
	explain_timeline_free(&r->timeline);
}

size_t explain_violations(const struct explain_result *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->napis; i++)
		for (size_t k = 0; k < r->apis[i].nfalls; k++)
			n += r->apis[i].falls[k].causality_violations;
	return n;
}

size_t explain_matched(const struct explain_result *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->napis; i++)
		for (size_t k = 0; k < r->apis[i].nfalls; k++)
			n += r->apis[i].falls[k].count[WAIT_INTERRUPT];
	return n;
}

