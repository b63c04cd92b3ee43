// SPDX-License-Identifier: GPL-2.0
/*
 * `gentrace dump FILE`: every field of a trace as the C reader gives it back,
 * one canonical line per header item and record, from the structs' fields.
 * tests/tracedump.py prints the same lines from the bytes of the file, by
 * Documentation/trace-format.md alone; tests/traces.sh compares the two.
 * The line format is tracedump.py's docstring.
 */
#include <inttypes.h>
#include <string.h>

#include "iommu_mode.h"
#include "tracefile.h"
#include "tracefile_chunk.h"

/* " name=value": a struct member, by its name */
#define F(p, m)	field(out, #m, (uint64_t)(p)->m)

static void hex(FILE *out, const char *name, const void *p, size_t len)
{
	const unsigned char *c = p;

	fprintf(out, " %s=", name);
	for (size_t i = 0; i < len; i++)
		fprintf(out, "%02x", c[i]);
}

/* The bytes from `from` to the record's end, when there are any. */
static void tail(FILE *out, const struct gpuprobe_rec_hdr *h, size_t from)
{
	if (h->size > from)
		hex(out, "tail", (const unsigned char *)h + from, h->size - from);
}

static void field(FILE *out, const char *name, uint64_t v)
{
	fprintf(out, " %s=%" PRIu64, name, v);
}

static void sfield(FILE *out, const char *name, int64_t v)
{
	fprintf(out, " %s=%" PRId64, name, v);
}

static void machine_targets(FILE *out, const struct tracefile_rec_machine *m)
{
	const unsigned char *p = (const unsigned char *)(m + 1), *end = (const unsigned char *)m + m->hdr.size;

	for (uint32_t i = 0; i < m->ntargets; i++) {
		const struct tracefile_target *t = (const void *)p;
		const struct tracefile_vector *v = (const void *)(t + 1);

		if ((size_t)(end - p) < sizeof(*t) ||
		    (size_t)(end - p) - sizeof(*t) < (uint64_t)t->nvec * sizeof(*v))
			break;
		field(out, "target.bdf", t->bdf);
		field(out, "vendor", t->vendor);
		field(out, "device", t->device);
		field(out, "class", t->class);
		field(out, "nvec", t->nvec);
		hex(out, "driver", t->driver, sizeof(t->driver));
		for (uint32_t k = 0; k < t->nvec; k++, v++) {
			field(out, "vec.index", v->index);
			field(out, "irq", v->irq);
			field(out, "flags", v->flags);
			field(out, "reserved", v->reserved);
		}
		p = (const unsigned char *)v;
	}
	tail(out, &m->hdr, (size_t)(p - (const unsigned char *)m));
}

static void dump_app(FILE *out, const struct tracefile_rec_app *a)
{
	const struct gpuprobe_app_event *e = &a->ev;

	F(e, magic);
	F(e, version);
	F(e, api);
	field(out, "esize", e->size);
	field(out, "etype", e->type);
	F(e, kind);
	F(e, flags);
	F(e, pid);
	F(e, tid);
	F(e, device);
	F(e, stream);
	F(e, correlation);
	F(e, start_ns);
	F(e, end_ns);
	F(e, queued_ns);
	F(e, bytes);
	hex(out, "name", e->name, sizeof(e->name));
	tail(out, &a->hdr, sizeof(*a));
}

static void dump_machine(FILE *out, const struct tracefile_rec_machine *m)
{
	F(m, machine);
	F(m, role);
	F(m, source);
	F(m, ntargets);
	F(m, start_ns);
	F(m, start_realtime_ns);
	hex(out, "host", m->host, sizeof(m->host));
	hex(out, "kernel_release", m->kernel_release, sizeof(m->kernel_release));
	hex(out, "tool_version", m->tool_version, sizeof(m->tool_version));
	hex(out, "address", m->address, sizeof(m->address));
	field(out, "flags", m->flags);
	sfield(out, "exit_status", m->exit_status);
	F(m, records);
	F(m, stop_ns);
	machine_targets(out, m);
}

static void dump_record(FILE *out, const struct gpuprobe_rec_hdr *h);

/* The body of a known type whose struct fits in the record; false otherwise. */
static bool dump_body(FILE *out, const struct gpuprobe_rec_hdr *h)
{
	const void *b = h;

	if (!tracefile_record_min_size(h->type) || h->size < tracefile_record_min_size(h->type))
		return false;
	switch (h->type) {
	case GPUPROBE_EV_IRQ: {
		const struct gpuprobe_rec_irq *r = b;

		F(r, bdf);
		F(r, irq);
		F(r, vector);
		F(r, reserved);
		F(r, duration_ns);
		tail(out, h, sizeof(*r));
		break;
	}
	case GPUPROBE_EV_LOST:
		F((const struct gpuprobe_rec_lost *)b, count);
		tail(out, h, sizeof(struct gpuprobe_rec_lost));
		break;
	case GPUPROBE_EV_TARGET: {
		const struct gpuprobe_rec_target *r = b;

		F(r, bdf);
		F(r, event);
		F(r, nvec);
		F(r, domain);
		tail(out, h, sizeof(*r));
		break;
	}
	case GPUPROBE_EV_WAKEUP:
	case GPUPROBE_EV_SWITCH: {
		const struct gpuprobe_rec_sched *r = b;

		F(r, pid);
		F(r, tgid);
		F(r, prev_pid);
		F(r, target_cpu);
		tail(out, h, sizeof(*r));
		break;
	}
	case GPUPROBE_EV_DMA: {
		const struct gpuprobe_rec_dma *r = b;

		F(r, bdf);
		F(r, op);
		F(r, dir);
		F(r, reserved);
		F(r, bytes);
		F(r, dma_addr);
		F(r, nents);
		F(r, iommu_calls);
		F(r, duration_ns);
		F(r, iommu_ns);
		tail(out, h, sizeof(*r));
		break;
	}
	case GPUPROBE_EV_IOMMU: {
		const struct gpuprobe_rec_iommu *r = b;

		F(r, bdf);
		F(r, op);
		F(r, iova);
		F(r, paddr);
		F(r, size);
		F(r, duration_ns);
		if (h->size >= sizeof(*r)) {	/* older modules' records end before domain */
			F(r, domain);
			F(r, pid);
		}
		tail(out, h, h->size >= sizeof(*r) ? sizeof(*r) : GPUPROBE_REC_IOMMU_SIZE_V1);
		break;
	}
	case GPUPROBE_EV_IOMMU_PART: {
		const struct gpuprobe_rec_iommu_part *r = b;

		F(r, bdf);
		F(r, part);
		F(r, depth);
		F(r, duration_ns);
		F(r, self_ns);
		F(r, call_ts);
		F(r, domain);
		F(r, arg);
		tail(out, h, sizeof(*r));
		break;
	}
	case GPUPROBE_EV_SWIOTLB: {
		const struct gpuprobe_rec_swiotlb *r = b;

		F(r, bdf);
		F(r, dir);
		F(r, bytes);
		tail(out, h, sizeof(*r));
		break;
	}
	case TRACEFILE_REC_IRQ_COUNT: {
		const struct tracefile_rec_irq_count *r = b;

		F(r, bdf);
		F(r, irq);
		F(r, phase);
		F(r, reserved);
		F(r, count);
		tail(out, h, sizeof(*r));
		break;
	}
	case TRACEFILE_REC_VECTOR: {
		const struct tracefile_rec_vector *r = b;

		F(r, bdf);
		F(r, irq);
		F(r, index);
		F(r, flags);
		F(r, change);
		tail(out, h, sizeof(*r));
		break;
	}
	case TRACEFILE_REC_KVM: {
		const struct gpuprobe_rec_kvm *r = b;

		F(r, bdf);
		F(r, host_irq);
		F(r, pid);
		F(r, tid);
		F(r, vcpu);
		F(r, vector);
		F(r, stage);
		F(r, reserved);
		F(r, level);
		F(r, msi_address);
		tail(out, h, sizeof(*r));
		break;
	}
	case TRACEFILE_REC_CLOCK_SYNC: {
		const struct tracefile_rec_clock_sync *r = b;

		F(r, machine);
		F(r, kind);
		F(r, samples);
		sfield(out, "offset_ns", r->offset_ns);
		field(out, "error_ns", r->error_ns);
		sfield(out, "drift_ppb", r->drift_ppb);
		field(out, "guest_ns", r->guest_ns);
		tail(out, h, sizeof(*r));
		break;
	}
	case TRACEFILE_REC_DELIVERY: {
		const struct tracefile_rec_delivery *r = b;

		F(r, slots);
		F(r, high_water_cpu);
		F(r, high_water);
		F(r, wait_max_ns);
		F(r, ring_dropped);
		F(r, undelivered);
		F(r, overrun);
		F(r, socket_overflows);
		sfield(out, "rcvbuf", r->rcvbuf);
		F(r, reserved);
		tail(out, h, sizeof(*r));
		break;
	}
	case TRACEFILE_REC_TSC: {
		const struct tracefile_rec_tsc *r = b;

		F(r, machine);
		F(r, kind);
		F(r, flags);
		F(r, cpu);
		F(r, apic_id);
		F(r, mono_lo);
		F(r, tsc);
		F(r, mono_hi);
		sfield(out, "tsc_offset", r->tsc_offset);
		F(r, ratio);
		F(r, frac_bits);
		F(r, reserved);
		F(r, host_lo);
		F(r, host_hi);
		tail(out, h, sizeof(*r));
		break;
	}
	case TRACEFILE_REC_IOMMU_MODE: {
		const struct tracefile_rec_iommu_mode *r = b;

		F(r, bdf);
		F(r, flags);
		F(r, pgsizes);
		hex(out, "vendor", r->vendor, sizeof(r->vendor));
		hex(out, "domain_type", r->domain_type, sizeof(r->domain_type));
		tail(out, h, sizeof(*r));
		break;
	}
	case TRACEFILE_REC_XEN: {
		const struct tracefile_rec_xen *r = b;

		F(r, kind);
		F(r, flags);
		F(r, irq);
		F(r, vector);
		F(r, cycles);
		F(r, tsc);
		F(r, count);
		tail(out, h, sizeof(*r));
		break;
	}
	case TRACEFILE_REC_COMMAND: {
		const struct tracefile_rec_command *r = b;
		const char *text = (const char *)(r + 1);
		size_t len = r->len <= h->size - sizeof(*r) ? r->len : 0;

		F(r, argc);
		F(r, nargs);
		F(r, len);
		F(r, flags);
		for (size_t i = 0; i < len; i += strnlen(text + i, len - i) + 1)
			hex(out, "arg", text + i, strnlen(text + i, len - i));
		tail(out, h, sizeof(*r) + len);
		break;
	}
	case TRACEFILE_REC_STRING: {
		const struct tracefile_rec_string *r = b;
		size_t len = r->len <= h->size - sizeof(*r) ? r->len : 0;

		F(r, hash);
		F(r, len);
		F(r, flags);
		hex(out, "text", (const char *)(r + 1), len);
		tail(out, h, sizeof(*r) + len);
		break;
	}
	case TRACEFILE_REC_APP:
		dump_app(out, b);
		break;
	case TRACEFILE_REC_MACHINE:
		dump_machine(out, b);
		break;
	case TRACEFILE_REC_GUEST: {
		const struct tracefile_rec_guest *r = b;

		F(r, machine);
		F(r, reserved);
		fputs(" |", out);
		dump_record(out, (const struct gpuprobe_rec_hdr *)(r + 1));
		break;
	}
	default:
		return false;
	}
	return true;
}

static void dump_record(FILE *out, const struct gpuprobe_rec_hdr *h)
{
	fprintf(out, " %s", tracefile_record_type_name(h->type));
	F(h, type);
	F(h, size);
	F(h, cpu);
	F(h, flags);
	field(out, "ts", h->ts_ns);
	if (!dump_body(out, h))
		tail(out, h, sizeof(*h));
}

static void dump_header(FILE *out, const struct trace_info *info)
{
	fputs("header", out);
	F(info, format_version);
	F(info, record_version);
	F(info, clock_id);
	F(info, source);
	F(info, start_ns);
	F(info, start_realtime_ns);
	F(info, app_events);
	hex(out, "host", info->host, strlen(info->host));
	hex(out, "kernel_release", info->kernel_release, strlen(info->kernel_release));
	hex(out, "tool_version", info->tool_version, strlen(info->tool_version));
	field(out, "ntargets", info->targets.count);
	fputc('\n', out);
	for (unsigned int i = 0; i < info->targets.count; i++) {
		const struct target *t = &info->targets.t[i];

		fputs("target", out);
		F(t, bdf);
		F(t, vendor);
		F(t, device);
		F(t, class);
		F(t, nvec);
		hex(out, "driver", t->driver, strlen(t->driver));
		fputc('\n', out);
		for (uint32_t v = 0; v < t->nvec; v++) {
			fputs("vector", out);
			F(&t->vec[v], index);
			F(&t->vec[v], irq);
			F(&t->vec[v], flags);
			fputc('\n', out);
		}
	}
}

int tracedump_file(const char *path, FILE *out)
{
	static struct trace_info info;
	const struct gpuprobe_rec_hdr *rec;
	struct trace_reader r;
	int n;

	if (trace_reader_open(&r, path, &info)) {
		fprintf(stderr, "%s\n", r.error);
		trace_reader_close(&r);
		return 1;
	}
	dump_header(out, &info);
	while ((n = trace_reader_next(&r, &rec)) > 0) {
		fputs("record", out);
		dump_record(out, rec);
		fputc('\n', out);
	}
	if (n < 0)
		fprintf(stderr, "%s\n", r.error);
	if (r.seen_end) {
		fputs("end", out);
		field(out, "ts", r.end.hdr.ts_ns);
		F(&r.end.hdr, cpu);
		F(&r.end.hdr, flags);
		F(&r.end, records);
		sfield(out, "exit_status", r.end.exit_status);
		F(&r.end, reserved);
		fputc('\n', out);
	}
	fputs("summary", out);
	F(&r, records);
	F(&r, unknown_records);
	F(&r, seen_end);
	F(&r, truncated);
	fputc('\n', out);
	if (r.truncated)
		fprintf(stderr, "%s\n", r.warning);
	trace_reader_close(&r);
	return n < 0 ? 1 : 0;
}
