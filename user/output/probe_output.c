// SPDX-License-Identifier: GPL-2.0
/*
 * Output of `probe`: a text table per API, or one JSON document
 * (keys in Documentation/probes.md) that keeps every wake-up sample's
 * timestamps for lining up with a trace of the same run.
 */
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "json.h"
#include "probe.h"
#include "util.h"

#define PROBE_JSON_VERSION	1

static void print_calibration_text(FILE *out, const struct probe_clock_cal *cal)
{
	char err[32], rtt[32];

	if (!cal->valid)
		return;
	fprintf(out, "  device clock (%s) -> CLOCK_MONOTONIC: offset %lld ns, error bound +/-%s "
		"(%zu of %zu pairs, best round trip %s), drift %.2f ppm\n",
		cal->source, (long long)cal->offset_ns,
		format_ns(err, sizeof(err), cal->error_ns), cal->used, cal->pairs,
		format_ns(rtt, sizeof(rtt), cal->best_rtt_ns), cal->drift_ppm);
}

static void print_dist_text(FILE *out, const struct probe_dist *d)
{
	struct sample_stats s;
	char mn[32], p50[32], p99[32];

	if (!probe_summarize(d, &s)) {
		fprintf(out, "  %-28s %6s  (no samples)\n", d->name, "0");
		return;
	}
	fprintf(out, "  %-28s %6zu %10s %10s %10s", d->name, s.n,
		format_ns(mn, sizeof(mn), s.min), format_ns(p50, sizeof(p50), s.p50),
		format_ns(p99, sizeof(p99), s.p99));
	if (d->bytes && s.p50 > 0)
		fprintf(out, " %9.2f", (double)d->bytes / s.p50);
	fputc('\n', out);
}

void probe_print_text(FILE *out, struct probe_api *apis, size_t napis)
{
	for (size_t i = 0; i < napis; i++) {
		const struct probe_api *a = &apis[i];

		if (!a->ran) {
			fprintf(out, "%s: skipped: %s\n", a->api, a->reason);
			continue;
		}
		fprintf(out, "%s: %s (%s)\n", a->api, a->device, a->driver);
		if (a->reason[0])
			fprintf(out, "  note: %s\n", a->reason);
		print_calibration_text(out, &a->cal);
		fprintf(out, "  %-28s %6s %10s %10s %10s %9s\n", "probe", "n", "min", "p50", "p99",
			"GB/s@p50");
		for (size_t k = 0; k < a->ndists; k++)
			print_dist_text(out, a->dists[k]);
		for (size_t k = 0; k < a->ncounters; k++)
			fprintf(out, "%s%s +%llu%s", k ? ", " : "  device counters over the run: ",
				a->counters[k].name, (unsigned long long)a->counters[k].value,
				k + 1 == a->ncounters ? "\n" : "");
	}
}

static void json_dist(struct json *j, const struct probe_dist *d)
{
	struct sample_stats s;

	probe_summarize(d, &s);
	json_object_begin(j);
	json_kv_string(j, "name", d->name);
	json_kv_string(j, "what", d->what);
	json_kv_string(j, "unit", "ns");
	json_kv_u64(j, "bytes", d->bytes);
	json_kv_u64(j, "n", s.n);
	json_kv_double(j, "min", s.min);
	json_kv_double(j, "p25", s.p25);
	json_kv_double(j, "p50", s.p50);
	json_kv_double(j, "p75", s.p75);
	json_kv_double(j, "p99", s.p99);
	json_kv_double(j, "max", s.max);
	json_kv_double(j, "mean", s.mean);
	if (d->bytes && s.p50 > 0) {
		json_kv_double(j, "gbps_p50", (double)d->bytes / s.p50);
		json_kv_double(j, "gbps_best", (double)d->bytes / s.min);
	}
	json_object_end(j);
}

static void json_calibration(struct json *j, const struct probe_clock_cal *cal)
{
	json_key(j, "clock_calibration");
	if (!cal->valid) {
		json_put_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_string(j, "device_clock", cal->source);
	json_kv_string(j, "formula", "mono_ns = dev_ns + offset_ns + (dev_ns - dev_ref_ns) * drift_ppm / 1e6");
	json_kv_i64(j, "offset_ns", cal->offset_ns);
	json_kv_u64(j, "dev_ref_ns", cal->dev_ref_ns);
	json_kv_double(j, "drift_ppm", cal->drift_ppm);
	json_kv_double(j, "error_bound_ns", cal->error_ns);
	json_kv_u64(j, "pairs", cal->pairs);
	json_kv_u64(j, "pairs_used", cal->used);
	json_kv_double(j, "best_rtt_ns", cal->best_rtt_ns);
	json_object_end(j);
}

static void json_wake_samples(struct json *j, const struct probe_api *a)
{
	json_key(j, "sync_wake_samples");
	json_array_begin(j);
	for (size_t i = 0; i < a->nwake; i++) {
		const struct probe_wake_sample *w = &a->wake[i];

		json_object_begin(j);
		json_kv_u64(j, "submit_ns", w->submit_ns);
		json_kv_u64(j, "launched_ns", w->launched_ns);
		json_kv_u64(j, "gpu_start_ns", w->gpu_start_ns);
		json_kv_u64(j, "gpu_end_ns", w->gpu_end_ns);
		json_kv_u64(j, "return_ns", w->return_ns);
		json_kv_u64(j, "gpu_start_dev", w->gpu_start_dev);
		json_kv_u64(j, "gpu_end_dev", w->gpu_end_dev);
		json_kv_u64(j, "kernel_spin_ns", w->kernel_spin_ns);
		json_kv_bool(j, "blocking", w->blocking);
		json_object_end(j);
	}
	json_array_end(j);
}

static void json_windows(struct json *j, const struct probe_api *a)
{
	json_key(j, "windows");
	json_array_begin(j);
	for (size_t i = 0; i < a->nwindows; i++) {
		const struct probe_window *w = &a->windows[i];

		json_object_begin(j);
		json_kv_string(j, "probe", w->d->name);
		json_kv_u64(j, "start_ns", w->start_ns);
		json_kv_u64(j, "end_ns", w->end_ns);
		json_kv_u64(j, "ops", w->ops);
		json_object_end(j);
	}
	json_array_end(j);
}

static void json_api(struct json *j, const struct probe_api *a)
{
	json_object_begin(j);
	json_kv_string(j, "api", a->api);
	json_kv_string(j, "status", a->ran ? "ok" : "skipped");
	if (a->reason[0])
		json_kv_string(j, "reason", a->reason);
	if (a->ran) {
		json_kv_string(j, "device", a->device);
		json_kv_string(j, "driver", a->driver);
		json_kv_u64(j, "tid", a->tid);
		json_calibration(j, &a->cal);
		json_key(j, "phases");
		json_array_begin(j);
		for (size_t i = 0; i < a->nphases; i++) {
			json_object_begin(j);
			json_kv_string(j, "name", a->phases[i].name);
			json_kv_u64(j, "start_ns", a->phases[i].start_ns);
			json_kv_u64(j, "end_ns", a->phases[i].end_ns);
			json_object_end(j);
		}
		json_array_end(j);
		json_key(j, "probes");
		json_array_begin(j);
		for (size_t i = 0; i < a->ndists; i++)
			json_dist(j, a->dists[i]);
		json_array_end(j);
		json_wake_samples(j, a);
		json_windows(j, a);
		if (a->ncounters) {
			json_key(j, "counters");
			json_object_begin(j);
			for (size_t i = 0; i < a->ncounters; i++)
				json_kv_u64(j, a->counters[i].name, a->counters[i].value);
			json_object_end(j);
		}
	}
	json_object_end(j);
}

void probe_print_json(FILE *out, struct probe_api *apis, size_t napis,
		      const struct probe_opts *o, uint64_t start_ns, uint64_t end_ns)
{
	struct utsname u;
	struct json j;

	uname(&u);
	json_init(&j, out, true);
	json_object_begin(&j);
	json_kv_string(&j, "tool", "gpuprobe-trace probe");
	json_kv_u64(&j, "format_version", PROBE_JSON_VERSION);
	json_kv_string(&j, "host", u.nodename);
	json_kv_string(&j, "kernel", u.release);
	json_kv_string(&j, "clock", "CLOCK_MONOTONIC");
	json_kv_u64(&j, "pid", (uint64_t)getpid());
	json_kv_bool(&j, "quick", o->quick);
	/* run under `gpuprobe-trace record` (its workload environment): compare says when one was */
	json_kv_bool(&j, "traced", getenv(GPUPROBE_RECORDING_ENV) != NULL);
	json_kv_u64(&j, "start_ns", start_ns);
	json_kv_u64(&j, "end_ns", end_ns);
	json_key(&j, "apis");
	json_array_begin(&j);
	for (size_t i = 0; i < napis; i++)
		json_api(&j, &apis[i]);
	json_array_end(&j);
	json_object_end(&j);
	fputc('\n', out);
}
