// SPDX-License-Identifier: GPL-2.0
/*
 * The verdict (analysis/verdict.h) as the block `report` opens with and as
 * the "verdict" member of report --json (Documentation/report-json.md).
 * Its lines begin with two spaces or more and never with a word the body's
 * readers look for first ("  interrupts:", "passthrough", "kernel counted").
 */
#include <inttypes.h>
#include <string.h>

#include "format.h"
#include "json.h"
#include "report.h"
#include "verdict.h"

static void text_command(FILE *out, const struct verdict *v)
{
	if (!v->command->present) {
		fprintf(out, "; its command line is not in the trace (recorded without -- CMD, or by an older gpuprobe-trace)\n");
		return;
	}
	if (v->command->malformed) {
		fprintf(out, "; its command record is malformed, not shown\n");
		return;
	}
	fprintf(out, "; %s: ", !strcmp(v->command_of, "guest") ? "the guest's command" : "command");
	command_print_shell(out, v->command);
	command_print_cut(out, v->command);
	fputc('\n', out);
}

static void text_workload(FILE *out, const struct verdict *v)
{
	fprintf(out, "  workload: ");
	if (v->exit_status >= 0)
		fprintf(out, "exit status %d", v->exit_status);
	else
		fprintf(out, "no exit status (no workload run, or the recording was cut)");
	if (v->npids) {
		fprintf(out, ", CUDA/OpenCL in pid");
		for (unsigned int i = 0; i < v->npids; i++)
			fprintf(out, "%s %" PRIu32, i ? "," : "", v->pids[i]);
		fprintf(out, " (%" PRIu64 " kernels/copies/memsets)", v->app_ops);
	}
	text_command(out, v);
}

static void text_item(FILE *out, const struct verdict *v, const struct verdict_item *it)
{
	char t[FORMAT_NS_LEN];

	fprintf(out, "    %6.2f%%  %10s  %-34s %s\n", verdict_percent(v, it->ns),
		format_ns(t, sizeof(t), (double)it->ns), it->what, it->detail);
	if (!strcmp(it->key, "host_to_guest") && v->crossing_stage[0])
		fprintf(out, "    %6s   %10s  %-34s %.1f%% of the crossing: %s\n", "", "", "  largest stage",
			it->ns ? 100.0 * (double)v->crossing_stage_ns / (double)it->ns : 0.0,
			v->crossing_stage);
}

/* Measured and 0: one line for all of them (JSON lists each). */
static void text_nothing(FILE *out, const struct verdict *v)
{
	bool any = false;

	for (unsigned int i = 0; i < v->nmeasured; i++) {
		if (v->items[i].ns)
			continue;
		fprintf(out, "%s%s (%" PRIu64 ")", any ? ", " : "      0.00%  none recorded: ",
			v->items[i].what, v->items[i].events);
		any = true;
	}
	if (any)
		fputc('\n', out);
}

void verdict_print_text(FILE *out, const struct verdict *v)
{
	bool holds = false;
	char t[FORMAT_NS_LEN];

	fprintf(out, "verdict\n");
	text_workload(out, v);
	fprintf(out, "  wall time: %.3f s (%s); every share below is of it\n",
		(double)v->wall_ns / 1e9, v->wall_of);
	if (v->largest >= 0) {
		const struct verdict_item *it = &v->items[v->largest];

		fprintf(out, "  largest: %s, %.2f%% of wall (%s)\n", it->what,
			verdict_percent(v, it->ns), format_ns(t, sizeof(t), (double)it->ns));
	} else {
		fprintf(out, "  largest: none (no passthrough-sensitive time was measured)\n");
	}
	for (unsigned int i = 0; i < v->nmeasured; i++) {
		if (!v->items[i].ns)
			continue;
		text_item(out, v, &v->items[i]);
		holds |= v->items[i].holds_others;
	}
	text_nothing(out, v);
	if (holds)
		fprintf(out, "    (waits and calls are spans that hold handler and mapping time: those shares overlap, they do not add up)\n");
	if (v->nmeasured < v->nitems)
		fprintf(out, "  not measured:\n");
	for (unsigned int i = v->nmeasured; i < v->nitems; i++)
		fprintf(out, "    %s: %s\n", v->items[i].what, v->items[i].detail);
	if (v->damaged)
		fprintf(out, "  the file is DAMAGED: %u chunk%s skipped, %s%" PRIu64 " records (below)\n",
			v->damaged, v->damaged == 1 ? "" : "s", v->skipped_exact ? "" : "at least ",
			v->skipped);
	if (v->lower_bound)
		fprintf(out, "  counts and shares are lower bounds: %" PRIu64 " records lost, or the file cut or damaged (below)\n",
			v->lost);
	fputc('\n', out);
}

/* Keys chosen apart from the body's ("lost", "calls", "bdf", ...): scripts take the first they find. */
void verdict_print_json(struct json *j, const struct verdict *v)
{
	json_key(j, "verdict");
	json_object_begin(j);
	json_kv_u64(j, "wall_ns", v->wall_ns);
	json_kv_string(j, "wall_of", v->wall_of);
	json_kv_bool(j, "merged", v->merged);
	json_key(j, "exit_status");
	if (v->exit_status >= 0)
		json_i64(j, v->exit_status);
	else
		json_put_null(j);
	json_key(j, "command_line");
	report_json_command(j, v->command);
	json_kv_bool(j, "command_line_cut", v->command->cut);
	json_key(j, "command_line_of");
	if (v->command_of && !v->command->malformed)
		json_put_string(j, v->command_of);
	else
		json_put_null(j);
	json_key(j, "pids");
	json_array_begin(j);
	for (unsigned int i = 0; i < v->npids; i++)
		json_u64(j, v->pids[i]);
	json_array_end(j);
	json_kv_u64(j, "app_ops", v->app_ops);
	json_kv_bool(j, "lower_bounds", v->lower_bound);
	json_kv_bool(j, "damaged", v->damaged > 0);
	json_key(j, "largest");
	if (v->largest >= 0)
		json_put_string(j, v->items[v->largest].key);
	else
		json_put_null(j);
	json_key(j, "shares");
	json_array_begin(j);
	for (unsigned int i = 0; i < v->nmeasured; i++) {
		const struct verdict_item *it = &v->items[i];

		json_object_begin(j);
		json_kv_string(j, "key", it->key);
		json_kv_string(j, "what", it->what);
		json_kv_u64(j, "total_ns", it->ns);
		json_key(j, "share_of_wall");
		if (v->wall_ns)
			json_double(j, (double)it->ns / (double)v->wall_ns);
		else
			json_put_null(j);
		json_kv_u64(j, "summed", it->events);
		json_kv_bool(j, "holds_others", it->holds_others);
		json_kv_string(j, "detail", it->detail);
		if (!strcmp(it->key, "host_to_guest") && v->crossing_stage[0]) {
			json_kv_string(j, "largest_stage", v->crossing_stage);
			json_kv_u64(j, "largest_stage_ns", v->crossing_stage_ns);
		}
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "not_measured");
	json_array_begin(j);
	for (unsigned int i = v->nmeasured; i < v->nitems; i++) {
		json_object_begin(j);
		json_kv_string(j, "key", v->items[i].key);
		json_kv_string(j, "what", v->items[i].what);
		json_kv_string(j, "why", v->items[i].detail);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}
