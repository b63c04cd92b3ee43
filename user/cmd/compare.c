// SPDX-License-Identifier: GPL-2.0
/*
 * `gpuprobe-trace compare BASE.json RUN.json`: every probe both runs have,
 * RUN's p50 as a percentage of BASE's (times: above 100 % is slower);
 * and, when both files carry an `explain` section (explain -o), the
 * attributed components side by side.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "json.h"
#include "probe.h"
#include "array.h"
#include "json_read.h"
#include "util.h"

struct compare_row {
	const char *api, *name;
	double base_p50, run_p50, base_p99, run_p99;
	uint64_t bytes;
	uint64_t base_n, run_n;
	double run_p25, run_p75;	/* -1: not in RUN (a probe output before p25/p75) */
};

static const json_t *find_by(const json_t *array, const char *key, const char *value)
{
	const json_t *e;

	jread_each(i, e, array)
		if (!strcmp(jread_string(e, key, ""), value))
			return e;
	return NULL;
}

static double percent(double run, double base)
{
	return base > 0 ? 100.0 * run / base : 0;
}

/* `explain` components ({api, name, unit, value}) both files carry. */
struct component_row {
	const char *api, *name, *unit;
	double base, run;
};

static const json_t *components_of(const json_t *doc)
{
	return jread_array(jread_get(doc, "explain"), "components");
}

static size_t match_components(const json_t *base, const json_t *run,
			       struct component_row **rows)
{
	const json_t *bc = components_of(base), *rc = components_of(run), *r, *b = NULL;
	size_t n = 0, cap = 0;

	*rows = NULL;
	jread_each(i, r, bc ? rc : NULL) {
		const char *api = jread_string(r, "api", "?"), *name = jread_string(r, "name", "?");

		jread_each(k, b, bc)
			if (!strcmp(jread_string(b, "api", ""), api) && !strcmp(jread_string(b, "name", ""), name))
				break;
		if (!b)
			continue;
		array_reserve_or_die((void **)rows, &cap, n + 1, sizeof(**rows));
		(*rows)[n++] = (struct component_row){ api, name, jread_string(r, "unit", ""),
						       jread_number(b, "value", 0), jread_number(r, "value", 0) };
	}
	return n;
}

static void print_components_text(const struct component_row *rows, size_t n)
{
	const char *api = "";

	if (n)
		printf("\nattributed components (both files carry `explain`; RUN as %% of BASE):\n");
	for (size_t i = 0; i < n; i++) {
		if (strcmp(api, rows[i].api)) {
			api = rows[i].api;
			printf("\n%s:\n  %-48s %12s %12s %8s\n", api, "component", "BASE", "RUN", "RUN %");
		}
		printf("  %-48s %12.6g %12.6g %7.1f%%  %s\n", rows[i].name, rows[i].base, rows[i].run,
		       percent(rows[i].run, rows[i].base), rows[i].unit);
	}
}

static void json_components(struct json *j, const struct component_row *rows, size_t n)
{
	json_key(j, "components");
	json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		json_object_begin(j);
		json_kv_string(j, "api", rows[i].api);
		json_kv_string(j, "name", rows[i].name);
		json_kv_string(j, "unit", rows[i].unit);
		json_kv_double(j, "base", rows[i].base);
		json_kv_double(j, "run", rows[i].run);
		json_kv_double(j, "percent", percent(rows[i].run, rows[i].base));
		json_object_end(j);
	}
	json_array_end(j);
}

/* RUN's p25..p75 as % of BASE's p50: the spread beside the ratio. */
static void format_spread(char *buf, size_t size, const struct compare_row *r)
{
	if (r->run_p25 < 0 || r->run_p75 < 0 || !(r->base_p50 > 0))
		copy_string(buf, size, "-");
	else
		snprintf(buf, size, "%.1f-%.1f%%", percent(r->run_p25, r->base_p50),
			 percent(r->run_p75, r->base_p50));
}

static void print_text(const char *base_path, const char *run_path, const struct compare_row *rows,
		       size_t n, size_t unmatched, char notes[][256], size_t nnotes)
{
	const char *api = "";

	printf("BASE %s\nRUN  %s\n", base_path, run_path);
	for (size_t i = 0; i < nnotes; i++)
		printf("note: %s\n", notes[i]);
	printf("(RUN p50 as %% of BASE p50, above 100 %% means RUN takes longer; spread: RUN's "
	       "p25-p75 as %% of BASE p50; n: samples BASE/RUN)\n");
	for (size_t i = 0; i < n; i++) {
		const struct compare_row *r = &rows[i];
		char b[32], u[32], spread[48], nn[48];

		if (strcmp(api, r->api)) {
			api = r->api;
			printf("\n%s:\n  %-30s %10s %10s %8s %16s %8s %13s\n", api, "probe", "BASE p50",
			       "RUN p50", "RUN %", "spread", "p99 %", "n");
		}
		format_spread(spread, sizeof(spread), r);
		snprintf(nn, sizeof(nn), "%llu/%llu", (unsigned long long)r->base_n,
			 (unsigned long long)r->run_n);
		printf("  %-30s %10s %10s %7.1f%% %16s %7.1f%% %13s\n", r->name,
		       format_ns(b, sizeof(b), r->base_p50),
		       format_ns(u, sizeof(u), r->run_p50), percent(r->run_p50, r->base_p50), spread,
		       percent(r->run_p99, r->base_p99), nn);
	}
	if (unmatched)
		printf("\n%zu probe(s) of RUN have no counterpart in BASE (not shown)\n", unmatched);
}

static void print_json(const char *base_path, const char *run_path, const struct compare_row *rows,
		       size_t n, size_t unmatched, const struct component_row *crows, size_t ncrows,
		       char notes[][256], size_t nnotes)
{
	struct json j;

	json_init(&j, stdout, true);
	json_object_begin(&j);
	json_kv_string(&j, "base", base_path);
	json_kv_string(&j, "run", run_path);
	json_kv_u64(&j, "unmatched", unmatched);
	json_key(&j, "notes");
	json_array_begin(&j);
	for (size_t i = 0; i < nnotes; i++)
		json_put_string(&j, notes[i]);
	json_array_end(&j);
	json_key(&j, "probes");
	json_array_begin(&j);
	for (size_t i = 0; i < n; i++) {
		json_object_begin(&j);
		json_kv_string(&j, "api", rows[i].api);
		json_kv_string(&j, "name", rows[i].name);
		json_kv_u64(&j, "bytes", rows[i].bytes);
		json_kv_double(&j, "base_p50", rows[i].base_p50);
		json_kv_double(&j, "run_p50", rows[i].run_p50);
		json_kv_double(&j, "percent_p50", percent(rows[i].run_p50, rows[i].base_p50));
		json_kv_double(&j, "base_p99", rows[i].base_p99);
		json_kv_double(&j, "run_p99", rows[i].run_p99);
		json_kv_double(&j, "percent_p99", percent(rows[i].run_p99, rows[i].base_p99));
		json_kv_u64(&j, "base_n", rows[i].base_n);
		json_kv_u64(&j, "run_n", rows[i].run_n);
		if (rows[i].run_p25 >= 0 && rows[i].run_p75 >= 0 && rows[i].base_p50 > 0) {
			json_kv_double(&j, "percent_run_p25", percent(rows[i].run_p25, rows[i].base_p50));
			json_kv_double(&j, "percent_run_p75", percent(rows[i].run_p75, rows[i].base_p50));
		}
		json_object_end(&j);
	}
	json_array_end(&j);
	json_components(&j, crows, ncrows);
	json_object_end(&j);
	fputc('\n', stdout);
}

#define COMPARE_NOTES	8

/*
 * What makes the two runs differ besides what is compared: another device
 * under one API, one traced and the other not, another kernel.
 */
static size_t differences(const json_t *base, const json_t *run, char notes[][256])
{
	const json_t *ra, *bt = jread_get(base, "traced"), *rt = jread_get(run, "traced");
	size_t n = 0;

	jread_each(i, ra, jread_array(run, "apis")) {
		const char *api = jread_string(ra, "api", "?");
		const json_t *ba = find_by(jread_array(base, "apis"), "api", api);
		const char *bd = jread_string(ba, "device", ""), *rd = jread_string(ra, "device", "");

		if (ba && n < COMPARE_NOTES && strcmp(bd, rd))
			snprintf(notes[n++], 256, "%s: the devices differ: BASE %s, RUN %s", api,
				 *bd ? bd : "(unnamed)", *rd ? rd : "(unnamed)");
	}
	if (bt && rt && json_is_true(bt) != json_is_true(rt) && n < COMPARE_NOTES)
		snprintf(notes[n++], 256, "%s was traced (gpuprobe-trace record) and %s was not: the difference includes tracing's own cost",
			 json_is_true(bt) ? "BASE" : "RUN", json_is_true(bt) ? "RUN" : "BASE");
	if (strcmp(jread_string(base, "kernel", ""), jread_string(run, "kernel", "")) &&
	    n < COMPARE_NOTES)
		snprintf(notes[n++], 256, "the kernels differ: BASE %s, RUN %s",
			 jread_string(base, "kernel", "?"), jread_string(run, "kernel", "?"));
	return n;
}

/* Rows for every (api, probe) of run that base also has; the rest counted. */
static size_t match_probes(const json_t *base, const json_t *run,
			   struct compare_row **rows, size_t *unmatched)
{
	size_t n = 0, cap = 0;

	*rows = NULL;
	*unmatched = 0;
	const json_t *ra, *rp;

	jread_each(i, ra, jread_array(run, "apis")) {
		const char *api = jread_string(ra, "api", "?");
		const json_t *ba = find_by(jread_array(base, "apis"), "api", api);

		jread_each(k, rp, jread_array(ra, "probes")) {
			const char *name = jread_string(rp, "name", "?");
			const json_t *bp = ba ? find_by(jread_array(ba, "probes"), "name", name) : NULL;

			if (!bp) {
				(*unmatched)++;
				continue;
			}
			array_reserve_or_die((void **)rows, &cap, n + 1, sizeof(**rows));
			(*rows)[n++] = (struct compare_row){
				api, name, jread_number(bp, "p50", 0), jread_number(rp, "p50", 0),
				jread_number(bp, "p99", 0), jread_number(rp, "p99", 0),
				jread_u64(rp, "bytes", 0), jread_u64(bp, "n", 0), jread_u64(rp, "n", 0),
				jread_get(rp, "p25") ? jread_number(rp, "p25", 0) : -1,
				jread_get(rp, "p75") ? jread_number(rp, "p75", 0) : -1,
			};
		}
	}
	return n;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	json_t *base = NULL, *run = NULL;
	struct compare_row *rows = NULL;
	struct component_row *crows = NULL;
	size_t n, unmatched, ncrows, nnotes;
	char notes[COMPARE_NOTES][256];
	bool json = false;
	char err[512];
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			usage_of("compare", stdout);
			return 0;
		default:
			usage_of("compare", stderr);
			return 2;
		}
	}
	if (argc - optind != 2) {
		errorf("compare needs two files: BASE.json RUN.json (outputs of 'gpuprobe-trace probe -o') or BASE.trace RUN.trace");
		usage_of("compare", stderr);
		return 2;
	}
	if (compare_is_trace(argv[optind]) && compare_is_trace(argv[optind + 1]))
		return compare_traces(argv[optind], argv[optind + 1], json);
	base = jread_file(argv[optind], err, sizeof(err));
	if (base)
		run = jread_file(argv[optind + 1], err, sizeof(err));
	if (!base || !run) {
		errorf("%s", err);
		goto out;
	}
	if (!jread_array(base, "apis") || !jread_array(run, "apis")) {
		errorf("%s is not the output of 'gpuprobe-trace probe' (no \"apis\" array)",
		       jread_array(base, "apis") ? argv[optind + 1] : argv[optind]);
		goto out;
	}
	n = match_probes(base, run, &rows, &unmatched);
	if (!n) {
		errorf("%s and %s have no probe in common (same API and probe name): nothing to compare",
		       argv[optind], argv[optind + 1]);
		goto out;
	}
	ncrows = match_components(base, run, &crows);
	nnotes = differences(base, run, notes);
	if (json) {
		print_json(argv[optind], argv[optind + 1], rows, n, unmatched, crows, ncrows, notes,
			   nnotes);
	} else {
		print_text(argv[optind], argv[optind + 1], rows, n, unmatched, notes, nnotes);
		print_components_text(crows, ncrows);
	}
	ret = 0;
out:
	free(rows);
	free(crows);
	jread_free(base);
	jread_free(run);
	return ret;
}
