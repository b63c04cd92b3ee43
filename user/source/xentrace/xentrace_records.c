// SPDX-License-Identifier: GPL-2.0
/*
 * xentrace events to struct tracefile_rec_xen (xentrace_records.h).  Only
 * Xen's physical-irq records carry a TSC of their own here; the HVM ones
 * (INJ_VIRQ) are written without one (Xen's HVMTRACE_2D), so an injection
 * takes its CPU's last TSC, flagged XEN_REC_UNTIMED: it happened after
 * that and before the CPU's next stamped record.
 */
#include <stdio.h>
#include <string.h>

#include "xentrace_records.h"

bool xentrace_clock_fit(struct xentrace_clock *c, uint64_t tsc_a, uint64_t ns_a,
			uint64_t tsc_b, uint64_t ns_b)
{
	memset(c, 0, sizeof(*c));
	if (tsc_b <= tsc_a || ns_b <= ns_a)
		return false;
	c->tsc0 = tsc_a;
	c->ns0 = ns_a;
	c->ns_per_tick = (double)(ns_b - ns_a) / (double)(tsc_b - tsc_a);
	c->known = true;
	return true;
}

uint64_t xentrace_clock_ns(const struct xentrace_clock *c, uint64_t tsc, uint64_t fallback_ns)
{
	double d;

	if (!c->known)
		return fallback_ns;
	d = ((double)tsc - (double)c->tsc0) * c->ns_per_tick;
	if (d < 0 && -d > (double)c->ns0)
		return 0;
	return (uint64_t)((double)c->ns0 + d);
}

bool xentrace_event_record(const struct xentrace_event *ev, const struct xentrace_clock *clock,
			   uint64_t start_ns, struct tracefile_rec_xen *out)
{
	memset(out, 0, sizeof(*out));
	out->hdr.type = TRACEFILE_REC_XEN;
	out->hdr.size = sizeof(*out);
	out->hdr.cpu = ev->cpu < TRACEFILE_MAX_CPUS ? ev->cpu : TRACEFILE_MAX_CPUS - 1;
	out->tsc = ev->tsc;
	switch (ev->kind) {
	case XENTRACE_PHYS_IRQ:
		out->kind = XEN_REC_PHYS_IRQ;
		out->irq = ev->irq;
		out->cycles = ev->irq_cycles;
		if (ev->irq_entry_tsc)
			out->tsc = ev->irq_entry_tsc;
		else
			out->flags |= XEN_REC_ENTRY_UNKNOWN;
		break;
	case XENTRACE_INJECT:
		out->kind = XEN_REC_INJECT;
		out->vector = ev->vector;
		if ((ev->event & ~XT_HVM_NESTED) == XT_HVM_REINJ_VIRQ)
			out->flags |= XEN_REC_REINJECT;
		break;
	case XENTRACE_LOST:
		out->kind = XEN_REC_LOST;
		out->count = ev->lost;
		break;
	default:
		return false;
	}
	if (ev->nested)
		out->flags |= XEN_REC_NESTED;
	if (!ev->has_tsc)
		out->flags |= XEN_REC_UNTIMED;
	if (!out->tsc) {
		out->flags |= XEN_REC_NO_TSC;
		out->hdr.ts_ns = start_ns;
	} else {
		out->hdr.ts_ns = xentrace_clock_ns(clock, out->tsc, start_ns);
	}
	return true;
}

struct convert_ctx {
	const struct xentrace_clock *clock;
	uint64_t start_ns;
	const struct record_sink *sink;
	uint64_t written;
};

static int convert_one(void *arg, const struct xentrace_event *ev)
{
	struct convert_ctx *c = arg;
	struct tracefile_rec_xen rec;

	if (!xentrace_event_record(ev, c->clock, c->start_ns, &rec))
		return 0;
	if (sink_put(c->sink, &rec.hdr))
		return -2;
	c->written++;
	return 0;
}

int xentrace_convert(const void *buf, size_t len, const struct xentrace_clock *clock,
		     uint64_t start_ns, const struct record_sink *sink,
		     struct xentrace_stats *stats, uint64_t *written, char *err, size_t errlen)
{
	struct convert_ctx c = { .clock = clock, .start_ns = start_ns, .sink = sink };
	int ret = xentrace_parse(buf, len, convert_one, &c, stats, err, errlen);

	*written = c.written;
	if (ret == -2)
		snprintf(err, errlen, "cannot write the trace's records");
	return ret ? -1 : 0;
}
