// SPDX-License-Identifier: GPL-2.0
/*
 * What each op of the attribution belongs to (attribute.h): the call that
 * issued it and that call's thread, its GPU's PCI function, the error bound
 * of its device times, and the blocking wait that returned after it.
 *
 * A wait is matched by thread, not by process: a stream or queue wait
 * (cudaStreamSynchronize, clFinish) takes the ops of its stream; a blocking
 * copy call the op it issued (same correlation); any other wait (device or
 * event synchronize) the ops its own thread issued.  Two threads of one
 * process waiting at the same time each get their own ops.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "attribute_internal.h"
#include "util.h"

void attr_keep_device(struct attr_builder *ps, const struct gpuprobe_app_event *ev)
{
	struct attribution *at = ps->at;
	struct attr_device *d;

	if (array_reserve((void **)&at->devices, &ps->devices_cap, at->ndevices + 1,
			  sizeof(*at->devices))) {
		at->app_events_dropped++;
		return;
	}
	d = &at->devices[at->ndevices++];
	*d = (struct attr_device){ .api = ev->api, .pid = ev->pid, .device = ev->device,
				   .pci_known = ev->flags & GPUPROBE_APPF_PCI_KNOWN,
				   .bdf = ev->flags & GPUPROBE_APPF_PCI_KNOWN ? ev->kind :
					  GPUPROBE_BDF_NONE };
	copy_string(d->name, sizeof(d->name), ev->name);
}

void attr_keep_clock(struct attr_builder *ps, const struct gpuprobe_app_event *ev)
{
	ps->at->clock_points++;
	if (array_reserve((void **)&ps->clocks, &ps->clocks_cap, ps->nclocks + 1, sizeof(*ev)))
		ps->at->app_events_dropped++;
	else
		ps->clocks[ps->nclocks++] = *ev;
}

static int by_api_pid_corr(const void *a, const void *b)
{
	const struct gpuprobe_app_event *x = a, *y = b;

	if (x->api != y->api)
		return x->api < y->api ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->correlation != y->correlation)
		return x->correlation < y->correlation ? -1 : 1;
	return x->type < y->type ? -1 : x->type > y->type;
}

/* The API call with ev's correlation id, NULL if none. */
static const struct gpuprobe_app_event *issuing_call(const struct attr_builder *ps,
						     const struct gpuprobe_app_event *ev)
{
	struct gpuprobe_app_event key = *ev;
	const struct gpuprobe_app_event *hit;

	if (!ev->correlation)
		return NULL;
	key.type = GPUPROBE_APP_API;
	hit = bsearch(&key, ps->hosts, ps->nhosts, sizeof(key), by_api_pid_corr);
	return hit && hit->type == GPUPROBE_APP_API ? hit : NULL;
}

/*
 * CUDA: the issuing call is the API record with the op's correlation id;
 * OpenCL gives the enqueue's entry as queued_ns and its correlation too.
 */
static void find_issue_calls(struct attr_builder *ps)
{
	qsort(ps->hosts, ps->nhosts, sizeof(*ps->hosts), by_api_pid_corr);
	for (size_t i = 0; i < ps->at->nops; i++) {
		struct attr_op *op = &ps->at->ops[i];
		const struct gpuprobe_app_event *hit = issuing_call(ps, &op->ev);

		if (!hit)
			continue;
		op->issue_tid = hit->tid;
		if (!op->issue_ns && hit->start_ns <= op->ev.start_ns)
			op->issue_ns = hit->start_ns;
	}
	/*
	 * CUPTI's synchronization records name no thread: their API call does.
	 * A record outside the span of the call whose correlation id it carries
	 * waited for no call of the application (on the H200, with the GPU
	 * time-sliced between two processes, CUPTI gave thousands of sub-us
	 * stream syncs after the call had returned): it is counted, never taken
	 * as a wait.
	 */
	for (size_t h = 0; h < ps->nhosts; h++) {
		struct gpuprobe_app_event *w = &ps->hosts[h];
		const struct gpuprobe_app_event *call;

		if (w->type != GPUPROBE_APP_SYNC)
			continue;
		call = issuing_call(ps, w);
		if (!call)
			continue;
		if (w->start_ns < call->start_ns || w->end_ns > call->end_ns) {
			w->flags &= ~GPUPROBE_APPF_BLOCKING;
			ps->at->syncs_outside_call++;
			continue;
		}
		if (!w->tid)
			w->tid = call->tid;
	}
}

/* The GPU of each op: its DEVICE record, else the only GPU the kernel events name. */
static void find_gpus(struct attr_builder *ps, uint32_t only_bdf)
{
	struct attribution *at = ps->at;

	for (size_t i = 0; i < at->nops; i++) {
		struct attr_op *op = &at->ops[i];

		op->bdf = GPUPROBE_BDF_NONE;
		for (size_t d = 0; d < at->ndevices; d++) {
			const struct attr_device *dev = &at->devices[d];

			if (dev->pci_known && dev->api == op->ev.api && dev->pid == op->ev.pid &&
			    dev->device == op->ev.device)
				op->bdf = dev->bdf;
		}
		if (op->bdf == GPUPROBE_BDF_NONE && at->kernel_bdfs <= 1)
			op->bdf = only_bdf;
		if (op->bdf == GPUPROBE_BDF_NONE && at->kernel_bdfs > 1)
			at->ops_unmapped++;
	}
}

/* The largest error bound measured for the op's (api, pid, device, stream or all streams). */
static void find_clock_bounds(struct attr_builder *ps)
{
	struct attribution *at = ps->at;

	for (size_t i = 0; i < at->nops; i++) {
		struct attr_op *op = &at->ops[i];

		for (size_t c = 0; c < ps->nclocks; c++) {
			const struct gpuprobe_app_event *k = &ps->clocks[c];

			if (k->api != op->ev.api || k->pid != op->ev.pid || k->device != op->ev.device ||
			    (k->stream != op->ev.stream && k->stream != GPUPROBE_APP_ALL_STREAMS))
				continue;
			op->clock_bound_known = true;
			if (k->bytes > op->clock_error_ns)
				op->clock_error_ns = k->bytes;
		}
		if (!op->clock_bound_known && (op->ev.flags & GPUPROBE_APPF_DEVICE_CLOCK ||
					       op->ev.api == GPUPROBE_APP_CUDA))
			at->ops_without_clock_bound++;
		if (op->clock_error_ns > at->clock_error_max_ns)
			at->clock_error_max_ns = op->clock_error_ns;
	}
}

static int by_api_pid_end(const void *a, const void *b)
{
	const struct attr_op *x = *(const struct attr_op *const *)a;
	const struct attr_op *y = *(const struct attr_op *const *)b;

	if (x->ev.api != y->ev.api)
		return x->ev.api < y->ev.api ? -1 : 1;
	if (x->ev.pid != y->ev.pid)
		return x->ev.pid < y->ev.pid ? -1 : 1;
	return x->ev.end_ns < y->ev.end_ns ? -1 : x->ev.end_ns > y->ev.end_ns;
}

/* Whether the blocking wait w waited for op (same api and process already). */
static bool waited_for(const struct gpuprobe_app_event *w, const struct attr_op *op)
{
	if (w->type == GPUPROBE_APP_SYNC && w->kind == GPUPROBE_SYNC_STREAM)
		return op->ev.stream == w->stream;
	if (w->type == GPUPROBE_APP_API && w->correlation && w->correlation == op->ev.correlation)
		return true;
	/*
	 * A thread unknown on either side (an op whose issuing call was not
	 * recorded, a sync record without its call): the process's ops, as
	 * before threads were matched.
	 */
	if (!w->tid || !op->issue_tid)
		return true;
	return op->issue_tid == w->tid;
}

/* Index of the first op (in by_end) of w's api and pid that ends at or after w's entry. */
static size_t first_ending_in(struct attr_op *const *by_end, size_t n,
			      const struct gpuprobe_app_event *w)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct attr_op *m = by_end[mid];

		if (m->ev.api < w->api || (m->ev.api == w->api && (m->ev.pid < w->pid ||
		    (m->ev.pid == w->pid && m->ev.end_ns < w->start_ns))))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * A blocking call returns after the last op it waited for that ends inside
 * it: that op's `return` phase runs from its end to the call's return.
 */
static void find_return_times(struct attr_builder *ps)
{
	struct attribution *at = ps->at;
	struct attr_op **by_end = malloc(at->nops * sizeof(*by_end) + 1);

	if (!by_end)
		return;
	for (size_t i = 0; i < at->nops; i++)
		by_end[i] = &at->ops[i];
	qsort(by_end, at->nops, sizeof(*by_end), by_api_pid_end);
	for (size_t h = 0; h < ps->nhosts; h++) {
		const struct gpuprobe_app_event *w = &ps->hosts[h];
		struct attr_op *last = NULL;

		if (!(w->flags & GPUPROBE_APPF_BLOCKING))
			continue;
		for (size_t k = first_ending_in(by_end, at->nops, w);
		     k < at->nops && by_end[k]->ev.api == w->api && by_end[k]->ev.pid == w->pid &&
		     by_end[k]->ev.end_ns <= w->end_ns; k++)
			if (waited_for(w, by_end[k]))
				last = by_end[k];
		if (last && (!last->return_ns || w->end_ns < last->return_ns)) {
			last->return_ns = w->end_ns;
			last->wait_tid = w->tid;
		}
	}
	free(by_end);
}

/* How many GPUs the kernel events name (capped at 2: "several"), and the one if one. */
static uint32_t count_kernel_gpus(struct attr_builder *ps)
{
	uint32_t only = GPUPROBE_BDF_NONE;

	ps->at->kernel_bdfs = 0;
	for (size_t i = 0; i < ps->nkev && ps->at->kernel_bdfs < 2; i++) {
		uint32_t key = ps->kev[i].key;

		if (ps->kev[i].kind == KEV_WAKEUP || key == GPUPROBE_BDF_NONE || key == only)
			continue;
		only = key;
		ps->at->kernel_bdfs++;
	}
	return ps->at->kernel_bdfs == 1 ? only : GPUPROBE_BDF_NONE;
}

void attr_match_ops(struct attr_builder *ps)
{
	uint32_t only_bdf = count_kernel_gpus(ps);
	find_issue_calls(ps);
	find_gpus(ps, only_bdf);
	find_clock_bounds(ps);
	find_return_times(ps);
}
