// SPDX-License-Identifier: GPL-2.0
/*
 * Attribution of kernel events to CUDA/OpenCL work (attribute.h).
 *
 * Two passes over the file: the first keeps the application events (they
 * come last, merged after the run), the second the kernel events inside
 * their time span.  Kernel events are sorted and summed into prefix totals,
 * so every window costs two binary searches, however the windows overlap
 * (concurrent kernels, deep queues): an event inside several windows counts
 * in each of them.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "attribute.h"
#include "util.h"

struct kev {
	uint64_t ts;
	struct attr_counts one;		/* this event alone */
};

struct pass_state {
	struct attribution *at;
	struct gpuprobe_app_event *hosts;	/* API calls and waits */
	size_t nhosts, hosts_cap, ops_cap;
	uint64_t lo, hi;			/* span of the windows */
	struct kev *kev;
	size_t nkev, kev_cap;
	uint64_t *kts;				/* sorted kernel event times */
	struct attr_counts *prefix;		/* prefix[i]: sum of the first i */
};

static void keep_app_event(struct pass_state *ps, const struct gpuprobe_app_event *ev)
{
	struct attribution *at = ps->at;

	at->app_events++;
	if (ev->type == GPUPROBE_APP_NOTE) {
		if (at->nnotes < ARRAY_SIZE(at->notes))
			copy_string(at->notes[at->nnotes++], sizeof(at->notes[0]), ev->name);
		return;
	}
	if (ev->type == GPUPROBE_APP_API || ev->type == GPUPROBE_APP_SYNC) {
		at->api_events += ev->type == GPUPROBE_APP_API;
		at->sync_events += ev->type == GPUPROBE_APP_SYNC;
		if (!(ps->nhosts >= ATTR_MAX_APP_EVENTS || array_reserve((void **)&ps->hosts, &ps->hosts_cap, ps->nhosts + 1, sizeof(*ev))))
			ps->hosts[ps->nhosts++] = *ev;
		return;
	}
	if ((at->nops >= ATTR_MAX_APP_EVENTS || array_reserve((void **)&at->ops, &ps->ops_cap, at->nops + 1, sizeof(*at->ops))))
		return;
	memset(&at->ops[at->nops], 0, sizeof(at->ops[0]));
	at->ops[at->nops].ev = *ev;
	at->ops[at->nops].issue_ns = ev->queued_ns;
	at->nops++;
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

/* CUDA: the issuing call is the API record with the op's correlation id. */
static void find_issue_times(struct pass_state *ps)
{
	qsort(ps->hosts, ps->nhosts, sizeof(*ps->hosts), by_api_pid_corr);
	for (size_t i = 0; i < ps->at->nops; i++) {
		struct attr_op *op = &ps->at->ops[i];
		struct gpuprobe_app_event key = op->ev;
		const struct gpuprobe_app_event *hit;

		if (op->issue_ns || !op->ev.correlation)
			continue;
		key.type = GPUPROBE_APP_API;
		hit = bsearch(&key, ps->hosts, ps->nhosts, sizeof(key), by_api_pid_corr);
		if (hit && hit->type == GPUPROBE_APP_API && hit->start_ns <= op->ev.start_ns)
			op->issue_ns = hit->start_ns;
	}
}

static int by_pid_end(const void *a, const void *b)
{
	const struct attr_op *x = *(const struct attr_op *const *)a;
	const struct attr_op *y = *(const struct attr_op *const *)b;

	if (x->ev.pid != y->ev.pid)
		return x->ev.pid < y->ev.pid ? -1 : 1;
	return x->ev.end_ns < y->ev.end_ns ? -1 : x->ev.end_ns > y->ev.end_ns;
}

/*
 * A blocking call returns after the last device op that ends inside it:
 * that op's `return` phase runs from its end to the call's return.
 */
static void find_return_times(struct pass_state *ps)
{
	struct attribution *at = ps->at;
	struct attr_op **by_end = malloc(at->nops * sizeof(*by_end) + 1);

	if (!by_end)
		return;
	for (size_t i = 0; i < at->nops; i++)
		by_end[i] = &at->ops[i];
	qsort(by_end, at->nops, sizeof(*by_end), by_pid_end);
	for (size_t h = 0; h < ps->nhosts; h++) {
		const struct gpuprobe_app_event *w = &ps->hosts[h];
		size_t lo = 0, hi = at->nops;
		struct attr_op *last = NULL;

		if (!(w->flags & GPUPROBE_APPF_BLOCKING))
			continue;
		while (lo < hi) {	/* first op of w's pid ending at or after w's entry */
			size_t mid = (lo + hi) / 2;
			const struct attr_op *m = by_end[mid];

			if (m->ev.pid < w->pid || (m->ev.pid == w->pid && m->ev.end_ns < w->start_ns))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < at->nops && by_end[lo]->ev.pid == w->pid &&
		       by_end[lo]->ev.end_ns <= w->end_ns; lo++)
			last = by_end[lo];
		if (last && (!last->return_ns || w->end_ns < last->return_ns))
			last->return_ns = w->end_ns;
	}
	free(by_end);
}

static void find_span(struct pass_state *ps)
{
	ps->lo = UINT64_MAX;
	ps->hi = 0;
	for (size_t i = 0; i < ps->at->nops; i++) {
		const struct attr_op *op = &ps->at->ops[i];
		uint64_t a = op->issue_ns ? op->issue_ns : op->ev.start_ns;
		uint64_t b = op->return_ns ? op->return_ns : op->ev.end_ns;

		ps->lo = a < ps->lo ? a : ps->lo;
		ps->hi = b > ps->hi ? b : ps->hi;
	}
	for (size_t i = 0; i < ps->nhosts; i++) {
		ps->lo = ps->hosts[i].start_ns < ps->lo ? ps->hosts[i].start_ns : ps->lo;
		ps->hi = ps->hosts[i].end_ns > ps->hi ? ps->hosts[i].end_ns : ps->hi;
	}
}

/* The kernel event as counts; false for records attribution ignores. */
static bool kernel_counts(const struct gpuprobe_rec_hdr *h, struct attr_counts *c)
{
	const struct gpuprobe_rec_dma *d = (const void *)h;
	const struct gpuprobe_rec_iommu *io = (const void *)h;
	const struct gpuprobe_rec_swiotlb *sw = (const void *)h;

	memset(c, 0, sizeof(*c));
	switch (h->type) {
	case GPUPROBE_EV_IRQ:
		c->irqs = 1;
		c->irq_ns = ((const struct gpuprobe_rec_irq *)h)->duration_ns;
		return true;
	case GPUPROBE_EV_DMA:
		c->dma_ns = d->duration_ns;
		if (d->op == GPUPROBE_DMA_UNMAP_PAGE || d->op == GPUPROBE_DMA_UNMAP_SG ||
		    d->op == GPUPROBE_DMA_UNMAP_RESOURCE || d->op == GPUPROBE_DMA_FREE) {
			c->dma_unmaps = 1;
		} else {
			c->dma_maps = 1;
			c->dma_map_bytes = d->bytes;
		}
		return true;
	case GPUPROBE_EV_IOMMU:
		if (io->op == GPUPROBE_IOMMU_MAP) {
			c->iommu_maps = 1;
			c->iommu_map_bytes = io->size;
		} else if (io->op == GPUPROBE_IOMMU_UNMAP) {
			c->iommu_unmaps = 1;
		}
		return true;
	case GPUPROBE_EV_SWIOTLB:
		c->swiotlb = 1;
		c->swiotlb_bytes = sw->bytes;
		return true;
	case GPUPROBE_EV_WAKEUP:
		c->wakeups = 1;
		return true;
	default:
		return false;
	}
}

static void keep_kernel_event(struct pass_state *ps, const struct gpuprobe_rec_hdr *h)
{
	struct attr_counts c;

	if (h->ts_ns < ps->lo || h->ts_ns > ps->hi || !kernel_counts(h, &c))
		return;
	if ((ps->nkev >= ATTR_MAX_KERNEL_EVENTS || array_reserve((void **)&ps->kev, &ps->kev_cap, ps->nkev + 1, sizeof(*ps->kev)))) {
		ps->at->kernel_events_dropped++;
		return;
	}
	ps->kev[ps->nkev].ts = h->ts_ns;
	ps->kev[ps->nkev++].one = c;
}

static int by_ts(const void *a, const void *b)
{
	const struct kev *x = a, *y = b;

	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void counts_add(struct attr_counts *d, const struct attr_counts *a, int sign)
{
	uint64_t *dp = (uint64_t *)d;
	const uint64_t *ap = (const uint64_t *)a;

	for (size_t i = 0; i < sizeof(*d) / sizeof(uint64_t); i++)
		dp[i] += sign > 0 ? ap[i] : -ap[i];
}

static int build_prefix(struct pass_state *ps)
{
	qsort(ps->kev, ps->nkev, sizeof(*ps->kev), by_ts);
	ps->kts = malloc((ps->nkev + 1) * sizeof(*ps->kts));
	ps->prefix = calloc(ps->nkev + 1, sizeof(*ps->prefix));
	if (!ps->kts || !ps->prefix)
		return -1;
	for (size_t i = 0; i < ps->nkev; i++) {
		ps->kts[i] = ps->kev[i].ts;
		ps->prefix[i + 1] = ps->prefix[i];
		counts_add(&ps->prefix[i + 1], &ps->kev[i].one, 1);
	}
	ps->at->kernel_events = ps->nkev;
	return 0;
}

/* Index of the first kernel event at or after t. */
static size_t first_at(const struct pass_state *ps, uint64_t t)
{
	size_t lo = 0, hi = ps->nkev;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ps->kts[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Kernel events with from <= ts < to. */
static void window(const struct pass_state *ps, uint64_t from, uint64_t to,
		   struct attr_counts *out)
{
	memset(out, 0, sizeof(*out));
	if (!from || to <= from)
		return;
	*out = ps->prefix[first_at(ps, to)];
	counts_add(out, &ps->prefix[first_at(ps, from)], -1);
}

static void attribute_ops(struct pass_state *ps)
{
	struct attribution *at = ps->at;
	struct attr_summary *s = &at->sum;

	for (size_t i = 0; i < at->nops; i++) {
		struct attr_op *op = &at->ops[i];
		uint64_t start = op->ev.start_ns, end = op->ev.end_ns + 1;

		window(ps, op->issue_ns, start, &op->phase[ATTR_ISSUE]);
		window(ps, start, end, &op->phase[ATTR_RUN]);
		s->device_ns += op->ev.end_ns - op->ev.start_ns;
		if (!op->return_ns)
			continue;
		window(ps, end, op->return_ns + 1, &op->phase[ATTR_RETURN]);
		s->waits++;
		s->return_wait_ns += op->return_ns - op->ev.end_ns;
		if (op->phase[ATTR_RETURN].irqs) {
			s->irq_waits++;
			s->irq_wait_ns += op->return_ns - op->ev.end_ns;
		}
	}
	s->map_call_ns = ps->prefix[ps->nkev].dma_ns;
	for (size_t h = 0; h < ps->nhosts; h++) {
		const struct gpuprobe_app_event *e = &ps->hosts[h];
		struct attr_counts c;

		window(ps, e->start_ns, e->end_ns + 1, &c);
		if (c.dma_maps + c.iommu_maps) {
			s->api_calls_with_maps++;
			s->api_ns_with_maps += e->end_ns - e->start_ns;
		}
	}
}

static int by_start(const void *a, const void *b)
{
	const struct attr_op *x = a, *y = b;

	return x->ev.start_ns < y->ev.start_ns ? -1 : x->ev.start_ns > y->ev.start_ns;
}

static struct attr_name *name_slot(struct attribution *at, const struct attr_op *op,
				   size_t *cap)
{
	for (size_t i = 0; i < at->nnames; i++) {
		struct attr_name *n = &at->names[i];

		if (n->api == op->ev.api && n->type == op->ev.type && !strcmp(n->name, op->ev.name))
			return n;
	}
	if ((at->nnames >= ATTR_MAX_APP_EVENTS || array_reserve((void **)&at->names, cap, at->nnames + 1, sizeof(*at->names))))
		return NULL;
	memset(&at->names[at->nnames], 0, sizeof(at->names[0]));
	at->names[at->nnames].api = op->ev.api;
	at->names[at->nnames].type = op->ev.type;
	copy_string(at->names[at->nnames].name, sizeof(at->names[0].name), op->ev.name);
	return &at->names[at->nnames++];
}

static int by_device_time(const void *a, const void *b)
{
	const struct attr_name *x = a, *y = b;

	return x->device_ns > y->device_ns ? -1 : x->device_ns < y->device_ns;
}

/* Per-name totals; names are few, so a linear lookup with a last-hit cache. */
static void total_by_name(struct attribution *at)
{
	struct attr_name *last = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < at->nops; i++) {
		const struct attr_op *op = &at->ops[i];
		struct attr_name *n = last && last->api == op->ev.api && last->type == op->ev.type &&
				      !strcmp(last->name, op->ev.name) ? last : name_slot(at, op, &cap);

		if (!n)
			continue;
		last = n;
		n->count++;
		n->device_ns += op->ev.end_ns - op->ev.start_ns;
		n->bytes += op->ev.bytes;
		n->return_ns += op->return_ns ? op->return_ns - op->ev.end_ns : 0;
		for (int p = 0; p < ATTR_PHASES; p++)
			counts_add(&n->phase[p], &op->phase[p], 1);
	}
	qsort(at->names, at->nnames, sizeof(*at->names), by_device_time);
}

/* One pass over the file; app_pass picks which records are kept. */
static int read_pass(const char *path, struct pass_state *ps, bool app_pass,
		     char *err, size_t errlen)
{
	const struct gpuprobe_rec_hdr *rec;
	struct trace_info *info = malloc(sizeof(*info));
	struct trace_reader r;
	int n = -1;

	if (!info) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (trace_reader_open(&r, path, info)) {
		snprintf(err, errlen, "%s", r.error);
		goto out;
	}
	while ((n = trace_reader_next(&r, &rec)) > 0) {
		if (app_pass && rec->type == TRACEFILE_REC_APP)
			keep_app_event(ps, &((const struct tracefile_rec_app *)rec)->ev);
		else if (!app_pass)
			keep_kernel_event(ps, rec);
	}
	if (n < 0)
		snprintf(err, errlen, "%s", r.error);
	if (app_pass && r.seen_end && r.end.hdr.ts_ns > info->start_ns)
		ps->at->sum.wall_ns = r.end.hdr.ts_ns - info->start_ns;
out:
	trace_reader_close(&r);
	free(info);
	return n < 0 ? -1 : 0;
}

struct attribution *attribute_file(const char *path, char *err, size_t errlen)
{
	struct pass_state ps = { 0 };
	int ret = -1;

	err[0] = '\0';
	ps.at = calloc(1, sizeof(*ps.at));
	if (!ps.at) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (read_pass(path, &ps, true, err, errlen) || !ps.at->app_events)
		goto out;
	find_issue_times(&ps);
	find_return_times(&ps);
	find_span(&ps);
	if (read_pass(path, &ps, false, err, errlen))
		goto out;
	if (build_prefix(&ps)) {
		snprintf(err, errlen, "out of memory attributing %zu kernel events", ps.nkev);
		goto out;
	}
	attribute_ops(&ps);
	qsort(ps.at->ops, ps.at->nops, sizeof(*ps.at->ops), by_start);
	total_by_name(ps.at);
	ret = 0;
out:
	free(ps.hosts);
	free(ps.kev);
	free(ps.kts);
	free(ps.prefix);
	if (ret) {
		attribution_free(ps.at);
		return NULL;
	}
	return ps.at;
}

void attribution_free(struct attribution *at)
{
	if (!at)
		return;
	free(at->ops);
	free(at->names);
	free(at);
}
