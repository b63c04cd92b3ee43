// SPDX-License-Identifier: GPL-2.0
/*
 * The tracefs source's decoder: raw events, as libtraceevent parses them
 * against the kernel's format files, into uapi records.  Fields are found by
 * role (tracefs_events.c names the candidates per kernel); device names must
 * be PCI functions; irq entry/exit and DMA call/return pairs are joined by
 * irqpair.c and tracefs_kprobe.c.  Without instances this is the tests'
 * decoder too (tracefs_decoder.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "tracefile.h"
#include "tracefs_source.h"
#include "util.h"

_Static_assert(TRACEFS_NSPECS <= TRACEFS_EVENT_COUNT, "TRACEFS_EVENT_COUNT too small");

static uint64_t field_u64(const struct tep_record *rec, struct tep_format_field *f)
{
	unsigned long long v = 0;

	if (f && tep_read_number_field(f, rec->data, &v))
		v = 0;
	return v;
}

/* A __data_loc field's bytes, bounds-checked against the record. */
static const void *field_dynamic(const struct tep_record *rec,
				 struct tep_format_field *f, unsigned int *len)
{
	unsigned int loc, off;

	*len = 0;
	if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC) || f->offset + 4 > rec->size)
		return NULL;
	memcpy(&loc, (const char *)rec->data + f->offset, 4);
	off = loc & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += f->offset + f->size;
	*len = loc >> 16;
	if (off + *len > (unsigned int)rec->size) {
		*len = 0;
		return NULL;
	}
	return (const char *)rec->data + off;
}

/* bdf of the device named in the record; false if it is no PCI function. */
static bool record_bdf(const struct tep_record *rec, struct bound_event *be, uint32_t *bdf)
{
	char name[64];
	unsigned int len;
	const char *s = field_dynamic(rec, be->field[F_DEVICE], &len);

	if (!s || !len)
		return false;
	snprintf(name, sizeof(name), "%.*s", (int)len, s);
	return bdf_parse(name, bdf) == 0;
}

/*
 * A kernel tid's process as this pid namespace numbers it; 0 (unknown) for
 * a task of a pid namespace of its own that it cannot map (not /proc's:
 * there that number is another task, or none; tracefs_local_pid gives 0).
 */
static uint32_t tgid_here(struct tracefs_source *ts, uint32_t ktid)
{
	uint32_t tid = tracefs_local_pid(ts, ktid);

	if (ts->own_pidns && !tid)
		return 0;
	return tgid_of(&ts->tgids, tid);
}

void tracefs_put(struct tracefs_source *ts, const struct gpuprobe_rec_hdr *rec)
{
	ts->counters.events++;
	if (sink_put(ts->sink, rec))
		ts->sink_error = -1;
}

static void decode_sched(struct tracefs_source *ts, struct bound_event *be,
			 const struct tep_record *r, uint16_t cpu)
{
	struct gpuprobe_rec_sched rec = {
		.hdr = { .size = sizeof(rec), .cpu = cpu, .ts_ns = r->ts },
		/* tgid: the sched events do not carry it; 0 = unknown */
	};

	if (be->spec->kind == K_WAKEUP) {
		uint32_t ktid = (uint32_t)field_u64(r, be->field[F_PID]);

		rec.hdr.type = GPUPROBE_EV_WAKEUP;
		rec.pid = tracefs_local_pid(ts, ktid);
		rec.target_cpu = (uint32_t)field_u64(r, be->field[F_TARGET_CPU]);
		if (ts->cfg->cgroup_dir ? !tracefs_cgroup_wakee(ts, rec.pid)
					: !tracefs_workload_wakee(ts, ktid))
			return;
	} else {
		rec.hdr.type = GPUPROBE_EV_SWITCH;
		rec.pid = tracefs_local_pid(ts, (uint32_t)field_u64(r, be->field[F_NEXT_PID]));
		rec.prev_pid = tracefs_local_pid(ts, (uint32_t)field_u64(r, be->field[F_PREV_PID]));
		rec.target_cpu = cpu;
	}
	tracefs_put(ts, &rec.hdr);
}

static void decode_iommu(struct tracefs_source *ts, struct bound_event *be,
			 const struct tep_record *r, uint16_t cpu)
{
	struct gpuprobe_rec_iommu rec = {
		.hdr = { .type = GPUPROBE_EV_IOMMU, .size = sizeof(rec), .cpu = cpu, .ts_ns = r->ts },
		.bdf = GPUPROBE_BDF_NONE,
		.op = be->spec->op,
		.iova = field_u64(r, be->field[F_IOVA]),
		.paddr = field_u64(r, be->field[F_PADDR]),
		.size = field_u64(r, be->field[F_SIZE]),
	};

	if (be->field[F_DEVICE] && !record_bdf(r, be, &rec.bdf))
		return;
	/* whose work, as the module says: a VMM's for VFIO's maps */
	if (!(tep_data_flags(ts->tep, (struct tep_record *)r) &
	      (TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ)))
		rec.pid = tgid_here(ts, (uint32_t)tep_data_pid(ts->tep, (struct tep_record *)r));
	tracefs_put(ts, &rec.hdr);
}

static void decode_swiotlb(struct tracefs_source *ts, struct bound_event *be,
			   const struct tep_record *r, uint16_t cpu)
{
	struct gpuprobe_rec_swiotlb rec = {
		.hdr = { .type = GPUPROBE_EV_SWIOTLB, .size = sizeof(rec), .cpu = cpu, .ts_ns = r->ts },
		.dir = 3,	/* the tracepoint carries no direction: DMA_NONE */
		.bytes = field_u64(r, be->field[F_SIZE]),
	};

	if (record_bdf(r, be, &rec.bdf))
		tracefs_put(ts, &rec.hdr);
}

/* Scatterlist events carry arrays: sum the lengths, count the entries. */
static void decode_dma_arrays(const struct tep_record *r, struct bound_event *be,
			      struct gpuprobe_rec_dma *rec)
{
	unsigned int len;
	const unsigned char *p = field_dynamic(r, be->field[F_LENGTHS], &len);

	for (unsigned int i = 0; p && i + 4 <= len; i += 4) {
		uint32_t seg;

		memcpy(&seg, p + i, 4);
		rec->bytes += seg;
	}
	if (p)
		rec->nents = len / 4;
	p = field_dynamic(r, be->field[F_DMA_ADDRS], &len);
	if (p && len >= 8) {
		memcpy(&rec->dma_addr, p, 8);
		if (!rec->nents)
			rec->nents = len / 8;
	}
	if (be->field[F_NENTS])
		rec->nents = (uint32_t)field_u64(r, be->field[F_NENTS]);
}

static void decode_dma(struct tracefs_source *ts, struct bound_event *be,
		       const struct tep_record *r, uint16_t cpu)
{
	/* the dma: tracepoints fire at the end and carry no duration */
	struct gpuprobe_rec_dma rec = {
		.hdr = { .type = GPUPROBE_EV_DMA, .size = sizeof(rec), .cpu = cpu,
			 .flags = GPUPROBE_DMA_UNTIMED, .ts_ns = r->ts },
		.op = be->spec->op,
		.dir = (uint8_t)field_u64(r, be->field[F_DIR]),
		.bytes = field_u64(r, be->field[F_SIZE]),
		.dma_addr = field_u64(r, be->field[F_DMA_ADDR]),
		.nents = 1,
	};

	if (!record_bdf(r, be, &rec.bdf))
		return;
	if (be->field[F_LENGTHS] || be->field[F_DMA_ADDRS]) {
		rec.nents = 0;
		decode_dma_arrays(r, be, &rec);
	}
	tracefs_put(ts, &rec.hdr);
}

/* A step on a VMM thread: the vCPU's own (or an ioctl's, for the IRTE). */
static void decode_kvm_vcpu(struct tracefs_source *ts, struct tep_format_field **f,
			    const struct tep_record *r, struct gpuprobe_rec_kvm *rec)
{
	switch (rec->stage) {
	case GPUPROBE_KVM_INJECT:
		rec->vector = (uint32_t)field_u64(r, f[F_VECTOR]);
		if (f[F_REINJECTED] && field_u64(r, f[F_REINJECTED]))
			rec->hdr.flags |= GPUPROBE_KVM_REINJECTED;
		break;
	case GPUPROBE_KVM_ENTRY:
		rec->vcpu = (uint32_t)field_u64(r, f[F_VCPU_ID]);
		break;
	case GPUPROBE_KVM_EXIT:
		rec->vcpu = (uint32_t)field_u64(r, f[F_VCPU_ID]);
		rec->vector = (uint32_t)field_u64(r, f[F_EXIT_REASON]);
		rec->level = (uint32_t)field_u64(r, f[F_ISA]);
		break;
	case GPUPROBE_KVM_EOI:
	case GPUPROBE_KVM_PV_EOI:
		rec->vcpu = (uint32_t)field_u64(r, f[F_APICID]);
		rec->vector = (uint32_t)field_u64(r, f[F_VECTOR]);
		break;
	case GPUPROBE_KVM_PI_IRTE:
		rec->host_irq = (uint32_t)field_u64(r, f[F_HOST_IRQ]);
		rec->vcpu = (uint32_t)field_u64(r, f[F_VCPU_ID]);
		rec->vector = (uint32_t)field_u64(r, f[F_GVEC]);
		rec->level = (uint32_t)field_u64(r, f[F_PI_SET]) != 0;
		break;
	}
	rec->pid = tgid_here(ts, rec->tid);
	if (ts->cfg->cgroup_dir ? !tracefs_cgroup_knows(ts, (pid_t)rec->pid)
				: ts->cfg->workload_pid > 0 &&
				  rec->pid != (uint32_t)ts->cfg->workload_pid) {
		/* maybe the workload's other threads: counted, said at close */
		if (ts->own_pidns && !rec->pid)
			ts->unmapped_dropped++;
		return;
	}
	tracefs_put(ts, &rec->hdr);
}

/*
 * KVM's steps from a host interrupt to a guest one.  MSI routing, GSI and
 * APIC acceptance run inside the host handler that caused them (vfio's,
 * through the irqfd's wake-up): kept when that handler is a target's, and
 * attributed to it.  Injection, VM entries and exits, EOIs and IRTE updates
 * run on the VMM's threads: kept for the workload's process when there is
 * one (the VMM), else all.
 */
static void decode_kvm(struct tracefs_source *ts, struct bound_event *be,
		       const struct tep_record *r, uint16_t cpu)
{
	struct tep_format_field **f = be->field;
	struct gpuprobe_rec_kvm rec = {
		.hdr = { .type = TRACEFILE_REC_KVM, .size = sizeof(rec), .cpu = cpu, .ts_ns = r->ts },
		.bdf = GPUPROBE_BDF_NONE,
		.tid = (uint32_t)tep_data_pid(ts->tep, (struct tep_record *)r),
		.vcpu = GPUPROBE_KVM_VCPU_NONE,
		.stage = be->spec->op,
	};

	switch (rec.stage) {
	case GPUPROBE_KVM_MSI:
		rec.msi_address = field_u64(r, f[F_MSI_ADDR]);
		rec.vector = (uint32_t)field_u64(r, f[F_MSI_DATA]) & 0xff;
		break;
	case GPUPROBE_KVM_SET_IRQ:
		rec.vector = (uint32_t)field_u64(r, f[F_GSI]);
		rec.level = (uint32_t)field_u64(r, f[F_LEVEL]);
		break;
	case GPUPROBE_KVM_ACCEPT:
		rec.vcpu = (uint32_t)field_u64(r, f[F_APICID]);
		rec.vector = (uint32_t)field_u64(r, f[F_VECTOR]);
		break;
	default:
		decode_kvm_vcpu(ts, f, r, &rec);
		return;
	}
	rec.host_irq = irq_pairer_current(&ts->pairer, cpu, &rec.bdf, ts->sink);
	if (!rec.host_irq) {
		ts->kvm_outside_handler++;
		return;
	}
	tracefs_put(ts, &rec.hdr);
}

static struct kprobe_event *kprobe_for(struct tracefs_source *ts, struct tep_event *event)
{
	for (unsigned int i = 0; ts->kp && i < ts->kp->nev; i++)
		if (ts->kp->ev[i].event == event)
			return &ts->kp->ev[i];
	return NULL;
}

static void decode_kprobe(struct tracefs_source *ts, struct kprobe_event *ke,
			  const struct tep_record *r, uint16_t cpu)
{
	struct tep_format_field **f = ke->field;
	uint32_t pid = (uint32_t)tep_data_pid(ts->tep, (struct tep_record *)r);
	struct gpuprobe_rec_dma rec = {
		.hdr = { .type = GPUPROBE_EV_DMA, .size = sizeof(rec), .cpu = cpu, .ts_ns = r->ts },
		.op = ke->def->op,
		.nents = 1,
	};
	unsigned int len;
	const char *name;
	char bdf[64];
	int err;

	if (ke->is_return) {
		err = dma_pairer_return(&ts->kp->pairer, pid, field_u64(r, f[KP_SP]), r->ts,
					field_u64(r, f[KP_RET]), ts->sink);
	} else {
		name = field_dynamic(r, f[KP_DEVNAME], &len);
		snprintf(bdf, sizeof(bdf), "%.*s", name ? (int)len : 0, name ? name : "");
		if (bdf_parse(bdf, &rec.bdf))
			return;		/* no PCI function: the filter let it by */
		rec.dir = (uint8_t)field_u64(r, f[KP_DIR]);
		rec.bytes = field_u64(r, f[KP_SIZE]);
		rec.dma_addr = field_u64(r, f[KP_ADDR]);
		if (f[KP_NENTS])
			rec.nents = (uint32_t)field_u64(r, f[KP_NENTS]);
		ts->counters.events++;
		err = dma_pairer_entry(&ts->kp->pairer, &rec, pid, field_u64(r, f[KP_SP]), ts->sink);
	}
	if (err)
		ts->sink_error = -1;
}

static struct bound_event *bound_for(struct tracefs_source *ts, struct tep_event *event)
{
	for (size_t i = 0; i < NSPECS; i++)
		if (ts->events[i].event == event)
			return &ts->events[i];
	return NULL;
}

static void decode_event(struct tracefs_source *ts, struct bound_event *be,
			 struct kprobe_event *ke, struct tep_record *r, uint16_t c)
{
	if (r->missed_events)
		tracefs_note_missed(ts, r, c);
	if (ke)
		decode_kprobe(ts, ke, r, c);
	if (!be)
		return;
	switch (be->spec->kind) {
	case K_IRQ_ENTRY:
		if (irq_pairer_entry(&ts->pairer, c, r->ts,
				     (uint32_t)field_u64(r, be->field[F_IRQ]), ts->sink))
			ts->sink_error = -1;
		ts->counters.events++;
		break;
	case K_IRQ_EXIT:
		if (irq_pairer_exit(&ts->pairer, c, r->ts, (uint32_t)field_u64(r, be->field[F_IRQ]),
				    field_u64(r, be->field[F_RET]) != 0, ts->sink))
			ts->sink_error = -1;
		break;
	case K_WAKEUP:
	case K_SWITCH:
		decode_sched(ts, be, r, c);
		break;
	case K_IOMMU:
		decode_iommu(ts, be, r, c);
		break;
	case K_SWIOTLB:
		decode_swiotlb(ts, be, r, c);
		break;
	case K_DMA:
		decode_dma(ts, be, r, c);
		break;
	case K_KVM:
		decode_kvm(ts, be, r, c);
		break;
	}
}

/* One event of a page: its decoder from the dispatch slots. */
void tracefs_decode_record(struct tracefs_source *ts, struct tep_record *r, int cpu)
{
	int id = tep_data_type(ts->tep, r);
	struct dispatch_slot *d;

	if (id < 0) {		/* unreadable type: no decoder, its page's losses still */
		decode_event(ts, NULL, NULL, r, (uint16_t)cpu);
		return;
	}
	d = &ts->dispatch[(unsigned int)id % DISPATCH_SLOTS];
	if (d->id != id) {
		struct tep_event *event = tep_find_event(ts->tep, id);

		d->id = id;
		d->be = event ? bound_for(ts, event) : NULL;
		d->ke = event && !d->be ? kprobe_for(ts, event) : NULL;
	}
	decode_event(ts, d->be, d->ke, r, (uint16_t)cpu);
}

static void bind_fields(struct bound_event *be)
{
	for (int role = 0; role < F_COUNT; role++)
		for (int i = 0; i < FIELD_NAME_CHOICES && field_names[role][i] && !be->field[role]; i++)
			be->field[role] = tep_find_field(be->event, field_names[role][i]);
}

/* Every event of the table this kernel has, found in tep with its fields. */
void tracefs_bind_events(struct tracefs_source *ts)
{
	for (size_t i = 0; i < NSPECS; i++) {
		struct bound_event *be = &ts->events[i];

		be->spec = &event_specs[i];
		be->event = tep_find_event_by_name(ts->tep, event_specs[i].system, event_specs[i].name);
		if (be->event)
			bind_fields(be);
	}
}

static const struct target_vector *resolve_irq(void *ctx, uint32_t irq, uint32_t *bdf,
					       const struct record_sink *sink)
{
	return vectors_resolve(ctx, irq, bdf, sink);
}

/* Decoding state without instances: the source's core, and the tests'. */
struct tracefs_source *tracefs_decoder_new(struct tep_handle *tep,
					   const struct source_config *cfg)
{
	struct tracefs_source *ts = calloc(1, sizeof(*ts));

	if (!ts)
		return NULL;
	ts->cfg = cfg;
	ts->tep = tep;
	for (unsigned int i = 0; i < DISPATCH_SLOTS; i++)
		ts->dispatch[i].id = -1;
	ts->ncpus = (unsigned int)sysconf(_SC_NPROCESSORS_CONF);
	if (vectors_init(&ts->vectors, cfg->sysfs_root, cfg->targets) ||
	    irq_pairer_init(&ts->pairer, ts->ncpus, ts->vectors.set)) {
		vectors_free(&ts->vectors);
		free(ts);
		return NULL;
	}
	irq_pairer_set_resolver(&ts->pairer, resolve_irq, &ts->vectors);
	if (tep)
		tracefs_bind_events(ts);
	return ts;
}

int tracefs_decoder_feed(struct tracefs_source *ts, struct tep_record *r, int cpu,
			 const struct record_sink *sink)
{
	ts->sink = sink;
	tracefs_decode_record(ts, r, cpu);
	return ts->sink_error;
}

struct vector_tracker *tracefs_decoder_vectors(struct tracefs_source *ts)
{
	return &ts->vectors;
}

int tracefs_decoder_flush(struct tracefs_source *ts, const struct record_sink *sink)
{
	return irq_pairer_flush(&ts->pairer, sink);
}

/* The tep stays with the caller. */
void tracefs_decoder_free(struct tracefs_source *ts)
{
	irq_pairer_free(&ts->pairer);
	vectors_free(&ts->vectors);
	free(ts->follow.pid);
	free(ts);
}
