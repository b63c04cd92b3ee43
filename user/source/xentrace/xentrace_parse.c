// SPDX-License-Identifier: GPL-2.0
/*
 * The file xentrace writes: each per-CPU window starts with a CPU-change
 * record (cpu, window bytes), then that many bytes of the CPU's records,
 * in its order.  A record crossing its window's end, or one outside any
 * window, means the bytes are not what xentrace wrote; a file that stops
 * inside a record or a window was cut (xentrace killed, disk full): what
 * came before is read and the counts are marked lower bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xentrace_parse.h"

/* Xen's NR_CPUS is at most 4096 on x86 (Kconfig) */
#define XENTRACE_MAX_CPUS	4096

static uint32_t word_at(const unsigned char *p)
{
	uint32_t w;

	memcpy(&w, p, sizeof(w));	/* host-endian, as Xen wrote it */
	return w;
}

const char *xentrace_kind_name(enum xentrace_kind kind)
{
	switch (kind) {
	case XENTRACE_PHYS_IRQ:		return "phys_irq";
	case XENTRACE_INJECT:		return "inject";
	case XENTRACE_INJECT_FAKE:	return "inject_fake";
	case XENTRACE_INTR:		return "intr";
	case XENTRACE_VMEXIT:		return "vmexit";
	case XENTRACE_VMENTRY:		return "vmentry";
	case XENTRACE_LOST:		return "lost";
	case XENTRACE_WRAP:		return "wrap";
	case XENTRACE_OTHER:		break;
	}
	return "other";
}

static void decode_phys_irq(struct xentrace_event *ev)
{
	uint32_t in_lo = ev->extra[1], out_lo = ev->extra[2];

	ev->irq = ev->extra[0];
	/* Xen keeps only the low words: the handler ran for less than 2^32 cycles */
	ev->irq_cycles = out_lo - in_lo;
	if (ev->has_tsc && in_lo)
		ev->irq_entry_tsc = ev->tsc - (uint32_t)((uint32_t)ev->tsc - in_lo);
}

/* What the record says, by its id; HVM ids compared without the nested flag. */
static void decode(struct xentrace_event *ev, struct xentrace_stats *st)
{
	uint32_t id = ev->event;

	if ((id & 0x0fff0000u) == 0x00080000u && (id & XT_HVM_NESTED)) {
		ev->nested = true;
		id &= ~XT_HVM_NESTED;
	}
	ev->kind = XENTRACE_OTHER;
	switch (id) {
	case XT_HW_IRQ_HANDLED:
		if (ev->nextra < 3)
			break;
		ev->kind = XENTRACE_PHYS_IRQ;
		decode_phys_irq(ev);
		st->phys_irqs++;
		return;
	case XT_HVM_INJ_VIRQ:
	case XT_HVM_REINJ_VIRQ:
		if (ev->nextra < 1)
			break;
		ev->vector = ev->extra[0];
		if (id == XT_HVM_INJ_VIRQ && ev->nextra >= 2 && ev->extra[1]) {
			ev->kind = XENTRACE_INJECT_FAKE;
			st->fake_injects++;
		} else {
			ev->kind = XENTRACE_INJECT;
			st->injects++;
		}
		return;
	case XT_HVM_INTR:
		ev->kind = XENTRACE_INTR;
		if (ev->nextra >= 1)
			ev->vector = ev->extra[0];
		st->intrs++;
		return;
	case XT_HVM_VMEXIT:
	case XT_HVM_VMEXIT64:
		if (ev->nextra < 1)
			break;
		ev->kind = XENTRACE_VMEXIT;
		ev->exit_reason = ev->extra[0];
		st->vmexits++;
		return;
	case XT_HVM_VMENTRY:
		ev->kind = XENTRACE_VMENTRY;
		st->vmentries++;
		return;
	case XT_LOST_RECORDS:
		if (ev->nextra < 4)
			break;
		ev->kind = XENTRACE_LOST;
		ev->lost = ev->extra[0];
		ev->lost_first_tsc = ev->extra[2] | (uint64_t)ev->extra[3] << 32;
		st->lost_markers++;
		st->lost += ev->lost;
		st->lower_bound = true;
		return;
	case XT_WRAP_BUFFER:
		ev->kind = XENTRACE_WRAP;
		st->wraps++;
		return;
	}
	/* an id we do not know, or a known one too short to read: passed on, counted */
	st->other++;
}

struct parse_state {
	const unsigned char *p;
	size_t len, pos;
	size_t window_left;
	bool in_window;
	uint32_t cpu;
	uint64_t *last_tsc;		/* per CPU */
};

static int start_window(struct parse_state *ps, uint32_t hdr, struct xentrace_stats *st,
			char *err, size_t errlen)
{
	if ((hdr & XT_EVENT_MASK) != XT_CPU_CHANGE || (hdr & XT_CYCLES_FLAG) ||
	    ((hdr >> XT_EXTRA_SHIFT) & XT_EXTRA_MAX) != 2) {
		snprintf(err, errlen,
			 "not a xentrace file: offset %zu holds 0x%08x where a CPU-change record (0x%08x) must start a window",
			 ps->pos, hdr, XT_CPU_CHANGE | 2u << XT_EXTRA_SHIFT);
		return -1;
	}
	if (ps->len - ps->pos < 12) {
		st->truncated = true;
		return 1;
	}
	ps->cpu = word_at(ps->p + ps->pos + 4);
	ps->window_left = word_at(ps->p + ps->pos + 8);
	if (ps->cpu >= XENTRACE_MAX_CPUS) {
		snprintf(err, errlen, "not a xentrace file: CPU %u at offset %zu (Xen has at most %u)",
			 ps->cpu, ps->pos, XENTRACE_MAX_CPUS);
		return -1;
	}
	if (ps->cpu > st->max_cpu)
		st->max_cpu = ps->cpu;
	ps->in_window = ps->window_left > 0;
	ps->pos += 12;
	st->records++;
	st->windows++;
	return 0;
}

/* One record of the current window; 1 at a cut end, -1 malformed, else fn's value. */
static int window_record(struct parse_state *ps, uint32_t hdr, xentrace_event_fn fn, void *ctx,
			 struct xentrace_stats *st, char *err, size_t errlen)
{
	struct xentrace_event ev = { .event = hdr & XT_EVENT_MASK, .cpu = ps->cpu };
	const unsigned char *q = ps->p + ps->pos + 4;
	size_t size;

	ev.nextra = (hdr >> XT_EXTRA_SHIFT) & XT_EXTRA_MAX;
	ev.has_tsc = hdr & XT_CYCLES_FLAG;
	size = 4 + (ev.has_tsc ? 8 : 0) + 4 * ev.nextra;
	if (size > ps->window_left) {
		snprintf(err, errlen,
			 "not a xentrace file: the record at offset %zu (%zu bytes) crosses its CPU %u window's end (%zu bytes left)",
			 ps->pos, size, ps->cpu, ps->window_left);
		return -1;
	}
	if (size > ps->len - ps->pos) {
		st->truncated = true;
		return 1;
	}
	if (ev.has_tsc) {
		ev.tsc = word_at(q) | (uint64_t)word_at(q + 4) << 32;
		ps->last_tsc[ps->cpu] = ev.tsc;
		q += 8;
	} else {
		ev.tsc = ps->last_tsc[ps->cpu];
		st->untimed++;
	}
	for (unsigned int i = 0; i < ev.nextra; i++)
		ev.extra[i] = word_at(q + 4 * i);
	ps->pos += size;
	ps->window_left -= size;
	ps->in_window = ps->window_left > 0;
	st->records++;
	decode(&ev, st);
	return fn ? fn(ctx, &ev) : 0;
}

int xentrace_parse(const void *buf, size_t len, xentrace_event_fn fn, void *ctx,
		   struct xentrace_stats *stats, char *err, size_t errlen)
{
	struct parse_state ps = { .p = buf, .len = len };
	int ret = 0;

	memset(stats, 0, sizeof(*stats));
	ps.last_tsc = calloc(XENTRACE_MAX_CPUS, sizeof(*ps.last_tsc));
	if (!ps.last_tsc) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while (ps.pos < len) {
		uint32_t hdr;

		if (len - ps.pos < 4) {
			stats->truncated = true;
			break;
		}
		hdr = word_at(ps.p + ps.pos);
		if (ps.in_window)
			ret = window_record(&ps, hdr, fn, ctx, stats, err, errlen);
		else
			ret = start_window(&ps, hdr, stats, err, errlen);
		if (ret)
			break;
	}
	if (ret == 1)
		ret = 0;
	if (ps.in_window)
		stats->truncated = true;	/* the window promised more bytes */
	if (stats->truncated)
		stats->lower_bound = true;
	stats->used = ps.pos;
	free(ps.last_tsc);
	return ret;
}
