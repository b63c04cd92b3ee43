// SPDX-License-Identifier: GPL-2.0
/*
 * `explain --json`: the attribution as one object, with a flat
 * "components" list ({ api, name, unit, value }) that `compare` matches by
 * name between two runs; `-o` splices the object into a copy of the probe
 * output as its last member, "explain".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "file.h"
#include "json.h"
#include "outfile.h"
#include "util.h"

#define MiB	1048576.0

static const char *const step_key[STEPS] = {
	"gpu_end_to_irq_entry", "irq_entry_to_wake", "irq_exit_to_wake", "wake_to_return",
};

static void json_stat(struct json *j, const char *key, const struct sample_stats *s)
{
	json_key(j, key);
	json_object_begin(j);
	json_kv_u64(j, "n", s->n);
	json_kv_double(j, "p50", s->p50);
	json_kv_double(j, "p99", s->p99);
	json_kv_double(j, "mean", s->mean);
	json_object_end(j);
}

static void json_fall(struct json *j, const struct explain_waterfall *f)
{
	static const char *const class_key[WAIT_CLASSES] = {
		"interrupt", "coalesced", "not_asleep", "other_waker",
	};

	json_object_begin(j);
	json_kv_string(j, "probe", f->probe);
	json_kv_u64(j, "kernel_spin_ns", f->kernel_spin_ns);
	json_kv_u64(j, "samples", f->samples);
	json_kv_u64(j, "matched", f->count[WAIT_INTERRUPT]);
	json_key(j, "classes");
	json_object_begin(j);
	for (int c = 0; c < WAIT_CLASSES; c++)
		json_kv_u64(j, class_key[c], f->count[c]);
	json_object_end(j);
	json_key(j, "steps");
	json_object_begin(j);
	for (int k = 0; k < STEPS; k++)
		json_stat(j, step_key[k], &f->step[k]);
	json_object_end(j);
	json_stat(j, "end_to_return", &f->end_to_return);
	json_stat(j, "all_end_to_return", &f->all_end_to_return);
	json_key(j, "clock_error_bound_ns");
	if (f->clock_error_known)
		json_double(j, f->clock_error_ns);
	else
		json_put_null(j);
	json_key(j, "causality");
	json_object_begin(j);
	json_kv_u64(j, "violations", f->causality_violations);
	json_kv_u64(j, "return_before_gpu_end", f->violation_return);
	json_kv_u64(j, "wake_before_gpu_end", f->violation_wake);
	json_kv_u64(j, "irq_entry_before_gpu_end", f->violation_entry);
	json_kv_i64(j, "worst_ns", f->worst_violation_ns);
	json_kv_u64(j, "irq_entry_within_bound", f->entry_within_bound);
	json_object_end(j);
	json_stat(j, "handler", &f->handler);
	json_kv_u64(j, "woken_inside_handler", f->woken_inside);
	json_stat(j, "handler_after_wake", &f->after_wake);
	json_stat(j, "wake_to_switch_in", &f->wake_to_switch);
	json_stat(j, "switch_in_to_return", &f->switch_to_return);
	json_stat(j, "coalesced_end_to_wake", &f->coalesced_end_to_wake);
	json_object_end(j);
}

static void json_load(struct json *j, const struct explain_load *l)
{
	json_object_begin(j);
	json_kv_string(j, "probe", l->probe);
	json_kv_u64(j, "bytes_per_op", l->bytes_per_op);
	json_kv_double(j, "p50_ns", l->p50_ns);
	json_kv_u64(j, "windows", l->windows);
	json_kv_u64(j, "ops", l->ops);
	json_kv_u64(j, "window_ns", l->window_ns);
	json_kv_u64(j, "dma_map_calls", l->map_calls);
	json_kv_u64(j, "dma_map_bytes", l->map_bytes);
	json_kv_u64(j, "dma_map_segments", l->map_segments);
	json_kv_u64(j, "dma_unmap_calls", l->unmap_calls);
	json_kv_u64(j, "irqs", l->irqs);
	json_kv_u64(j, "swiotlb_bounces", l->bounces);
	json_kv_u64(j, "swiotlb_bytes", l->bounce_bytes);
	json_object_end(j);
}

static void component(struct json *j, const char *api, const char *name, const char *unit, double v)
{
	json_object_begin(j);
	json_kv_string(j, "api", api);
	json_kv_string(j, "name", name);
	json_kv_string(j, "unit", unit);
	json_kv_double(j, "value", v);
	json_object_end(j);
}

/* What `compare` shows side by side: step p50s, events per operation. */
static void json_components(struct json *j, const struct explain_api *x)
{
	char name[128];

	for (size_t i = 0; i < x->nfalls; i++) {
		const struct explain_waterfall *f = &x->falls[i];

		if (!f->count[WAIT_INTERRUPT])
			continue;
		for (int k = 0; k < STEPS; k++) {
			snprintf(name, sizeof(name), "%s.%s.p50", f->probe, step_key[k]);
			component(j, x->api, name, "ns", f->step[k].p50);
		}
		snprintf(name, sizeof(name), "%s.handler.p50", f->probe);
		component(j, x->api, name, "ns", f->handler.p50);
		snprintf(name, sizeof(name), "%s.interrupt_share", f->probe);
		component(j, x->api, name, "%", 100.0 * (double)f->count[WAIT_INTERRUPT] /
			  (double)(f->samples ? f->samples : 1));
	}
	for (size_t i = 0; i < x->nloads; i++) {
		const struct explain_load *l = &x->loads[i];
		double ops = l->ops ? (double)l->ops : 1, mib = ops * (double)l->bytes_per_op / MiB;

		if (strncmp(l->probe, "pin.first.", 10) && strncmp(l->probe, "pin.repeat.", 11) &&
		    strncmp(l->probe, "h2d.", 4) && strncmp(l->probe, "d2h.", 4))
			continue;

		snprintf(name, sizeof(name), "%s.dma_maps_per_op", l->probe);
		component(j, x->api, name, "calls", (double)l->map_calls / ops);
		snprintf(name, sizeof(name), "%s.dma_map_bytes_per_op", l->probe);
		component(j, x->api, name, "bytes", (double)l->map_bytes / ops);
		if (mib > 0 && (!strncmp(l->probe, "h2d.", 4) || !strncmp(l->probe, "d2h.", 4))) {
			snprintf(name, sizeof(name), "%s.irqs_per_mib", l->probe);
			component(j, x->api, name, "irqs", (double)l->irqs / mib);
		}
	}
}

static void json_explain(struct json *j, const struct explain_result *r)
{
	json_object_begin(j);
	json_kv_string(j, "tool", "gpuprobe-trace explain");
	json_kv_string(j, "probe_file", r->probe_path);
	json_kv_string(j, "trace_file", r->trace_path);
	json_kv_string(j, "target", r->timeline.target);
	json_kv_u64(j, "tid", r->timeline.tid);
	json_kv_string(j, "tid_source", r->tid_source);
	json_key(j, "clock_error_bound_ns");
	if (r->clock_error_known)
		json_double(j, r->clock_error_ns);
	else
		json_put_null(j);
	json_key(j, "cupti_clock_checks");	/* the trace's CUDA CLOCK records */
	json_object_begin(j);
	json_kv_u64(j, "count", r->timeline.cupti_checks);
	json_key(j, "error_bound_max_ns");
	if (r->timeline.cupti_checks)
		json_u64(j, r->timeline.cupti_bound_max_ns);
	else
		json_put_null(j);
	json_kv_u64(j, "inconsistent", r->timeline.cupti_inconsistent);
	json_object_end(j);
	json_kv_u64(j, "causality_violations", explain_violations(r));
	json_key(j, "apis");
	json_array_begin(j);
	for (size_t i = 0; i < r->napis; i++) {
		const struct explain_api *x = &r->apis[i];

		json_object_begin(j);
		json_kv_string(j, "api", x->api);
		json_key(j, "waterfalls");
		json_array_begin(j);
		for (size_t k = 0; k < x->nfalls; k++)
			json_fall(j, &x->falls[k]);
		json_array_end(j);
		json_key(j, "windows");
		json_array_begin(j);
		for (size_t k = 0; k < x->nloads; k++)
			json_load(j, &x->loads[k]);
		json_array_end(j);
		if (x->have_pin_phase) {
			json_key(j, "pin_phase");
			json_load(j, &x->pin_phase);
		}
		if (x->have_copy_phase) {
			json_key(j, "copy_phase");
			json_load(j, &x->copy_phase);
		}
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "components");
	json_array_begin(j);
	for (size_t i = 0; i < r->napis; i++)
		json_components(j, &r->apis[i]);
	json_array_end(j);
	json_object_end(j);
}

void explain_print_json(FILE *out, const struct explain_result *r)
{
	struct json j;

	json_init(&j, out, true);
	json_explain(&j, r);
	fputc('\n', out);
}

int explain_write_merged(const char *probe_path, struct outfile *o, const char *out_name,
			 const struct explain_result *r)
{
	size_t len = 0, end;
	char *text = read_whole_file(probe_path, &len);
	struct json j;
	FILE *out = o->f;

	if (!text) {
		errorf("cannot read %s: %m", probe_path);
		outfile_abort(o);
		return -1;
	}
	/* The document is one object: insert before its closing brace. */
	for (end = len; end > 0 && text[end - 1] != '}'; end--)
		;
	if (!end || strstr(text, "\"explain\":")) {
		errorf("%s: %s", probe_path, end ? "already holds an \"explain\" member: give the "
		       "plain probe output" : "not a JSON object");
		free(text);
		outfile_abort(o);
		return -1;
	}
	while (end > 1 && (text[end - 2] == '\n' || text[end - 2] == ' '))
		end--;
	fwrite(text, 1, end - 1, out);
	fputs(",\n  \"explain\": ", out);
	json_init(&j, out, true);
	json_explain(&j, r);
	fputs("\n}\n", out);
	free(text);
	if (outfile_commit(o)) {
		errorf("writing %s failed: %m", out_name);
		return -1;
	}
	return 0;
}
