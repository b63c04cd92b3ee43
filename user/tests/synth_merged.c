// SPDX-License-Identifier: GPL-2.0
/*
 * Synthetic host + guest traces (record --guest's format), built the way
 * record builds them: the host's records and clock bursts, then the
 * guest's own trace file merged in by guest_merge().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest_merge.h"
#include "machine.h"
#include "synth.h"
#include "util.h"

#define HOST_T0		2000000000ull	/* first host interrupt */
#define HANDLER_NS	2000
#define INJECT_NS	4000		/* host handler entry -> KVM injection */
#define WAKE_NS		3000		/* guest handler entry -> wake-up */
#define MAP_CALL_NS	50000		/* a guest map call; its host map 10 us in */

#define TSC_OFFSET	(-987654321000ll)	/* KVM's: guest TSC = host TSC + this */
#define TSC_HALF_NS	50		/* each sample's read window: +-50 ns */

/*
 * Interrupt i's stages: constants, or with vary, a permutation of 100
 * values each (i * k mod 100 for k prime to 100), so every percentile of
 * 100 interrupts is a different value from its neighbours'.
 */
void synth_merged_stages(const struct synth_merged *o, uint32_t i, struct synth_stages *s)
{
	s->handler = HANDLER_NS;
	s->state = i % 3;
	s->npf_exits = i % 4;
	s->pv_eoi = i % 5 == 4;
	s->to_irqfd = o->vary ? 200 + (uint64_t)(i * 31 % 100) * 13 : 1000;
	s->to_entry = o->vary ? 100 + (uint64_t)(i * 13 % 100) * 9 : 500;
	s->to_eoi = o->vary ? 1500 + (uint64_t)(i * 17 % 100) * 11 : 2000;
	if (!o->vary) {
		s->to_inject = INJECT_NS;
		s->to_guest = o->latency_ns;
		s->to_wake = WAKE_NS;
		return;
	}
	s->to_inject = 3000 + (uint64_t)(i * 37 % 100) * 41;
	s->to_guest = s->to_inject + 1000 + (uint64_t)(i * 53 % 100) * 29;
	s->to_wake = 2000 + (uint64_t)(i * 71 % 100) * 23;
}

static int put_writer(void *ctx, const struct gpuprobe_rec_hdr *rec)
{
	return trace_writer_put(ctx, rec);
}

/* The guest's clock at host time h. */
static uint64_t guest_clock(const struct synth_merged *o, uint64_t h)
{
	double drift = (double)o->drift_ppb / 1e9 * (double)(int64_t)(h - HOST_T0);

	return h + (uint64_t)o->offset_ns + (uint64_t)(int64_t)drift;
}

static int put_host_machine(struct trace_writer *w, const struct trace_info *info)
{
	static unsigned char buf[TRACEFILE_REC_MAX_SIZE];
	struct machine_desc *m = calloc(1, sizeof(*m));
	size_t len;

	if (!m)
		return -1;
	m->role = MACHINE_ROLE_HOST;
	m->exit_status = -1;
	m->info = *info;
	m->info.targets.count = 0;
	len = machine_record_build(m, buf, sizeof(buf));
	free(m);
	return len ? trace_writer_put(w, (const void *)buf) : -1;
}

/* Bursts at start, every 100 interrupts and at the end; the recorded offset is off by offset_error_ns. */
static int put_bursts(const struct synth_merged *o, struct trace_writer *w, struct clock_fit *fit)
{
	uint64_t end = HOST_T0 + (uint64_t)o->n * o->spacing_ns;

	clock_fit_init(fit);
	for (uint64_t h = HOST_T0 - 1000000; ; h += 100 * o->spacing_ns) {
		struct tracefile_rec_clock_sync rec = {
			.hdr = { .type = TRACEFILE_REC_CLOCK_SYNC, .size = sizeof(rec) },
			.machine = MACHINE_GUEST, .kind = CLOCK_SYNC_BURST, .samples = 8,
			.error_ns = o->bound_ns,
		};
		struct clock_point p;

		if (h > end + 1000000)
			h = end + 1000000;
		p.host_ns = h;
		p.guest_ns = guest_clock(o, h);
		p.offset_ns = (int64_t)(p.guest_ns - h) + o->offset_error_ns;
		p.error_ns = o->bound_ns;
		rec.hdr.ts_ns = h;
		rec.offset_ns = p.offset_ns;
		rec.guest_ns = p.guest_ns;
		clock_fit_add(fit, &p);
		if (!o->no_bursts && trace_writer_put(w, &rec.hdr))
			return -1;
		if (h == end + 1000000)
			return 0;
	}
}

static struct tracefile_rec_tsc tsc_rec(uint16_t kind, uint32_t machine, uint64_t ts)
{
	struct tracefile_rec_tsc r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = TRACEFILE_REC_TSC;
	r.hdr.size = sizeof(r);
	r.hdr.ts_ns = ts;
	r.machine = machine;
	r.kind = kind;
	return r;
}

/* A host sample at host time h; a guest one read in the exchange at h (2 GHz TSC, no scaling). */
static int put_tsc_sample(const struct synth_merged *o, struct trace_writer *w, uint32_t machine,
			  uint64_t h)
{
	struct tracefile_rec_tsc r = tsc_rec(TSC_REC_SAMPLE, machine, h);
	uint64_t mono = machine == MACHINE_GUEST ? guest_clock(o, h) : h;

	r.mono_lo = mono - TSC_HALF_NS;
	r.mono_hi = mono + TSC_HALF_NS;
	r.tsc = 2 * h + (machine == MACHINE_GUEST ? (uint64_t)TSC_OFFSET : 0);
	r.host_lo = h - 1000;
	r.host_hi = h + 1000;
	return trace_writer_put(w, &r.hdr);
}

/* KVM's relation (read before the run), host samples, a guest one at every burst's time. */
static int put_tsc(const struct synth_merged *o, struct trace_writer *w)
{
	struct tracefile_rec_tsc k = tsc_rec(TSC_REC_KVM, MACHINE_GUEST, HOST_T0 - 2000000);
	uint64_t from = HOST_T0 - 1000000, to = HOST_T0 + (uint64_t)o->n * o->spacing_ns + 1000000;
	uint32_t nhost = o->tsc_host_samples > 1 ? o->tsc_host_samples : 2 + o->n / 100;
	int err;

	k.tsc_offset = TSC_OFFSET;
	err = trace_writer_put(w, &k.hdr);
	for (uint32_t i = 0; i < nhost; i++)
		err |= put_tsc_sample(o, w, MACHINE_HOST, from + (to - from) / (nhost - 1) * i);
	for (uint64_t h = from; h < to; h += 100 * o->spacing_ns)
		err |= put_tsc_sample(o, w, MACHINE_GUEST, h);
	return err | put_tsc_sample(o, w, MACHINE_GUEST, to);
}

/* A step of the vCPU thread (SYNTH_VCPU_TID, vCPU 0). */
static int put_vcpu(struct trace_writer *w, uint64_t ts, uint16_t stage, uint32_t value)
{
	struct gpuprobe_rec_kvm k = {
		.hdr = { .type = TRACEFILE_REC_KVM, .size = sizeof(k), .cpu = 1, .ts_ns = ts },
		.bdf = GPUPROBE_BDF_NONE, .pid = SYNTH_VMM_PID, .tid = SYNTH_VCPU_TID, .vcpu = 0,
		.vector = value, .stage = stage,
		.level = stage == GPUPROBE_KVM_EXIT ? GPUPROBE_KVM_ISA_SVM : 0,
	};

	return trace_writer_put(w, &k.hdr);
}

#define SVM_EXIT_INTR	0x060
#define SVM_EXIT_HLT	0x078
#define SVM_EXIT_IOIO	0x07b
#define SVM_EXIT_MSR	0x07c
#define SVM_EXIT_NPF	0x400

/*
 * Interrupt i's host path around its injection at t + to_inject (written by
 * put_host): the state before, the irqfd step in the handler (irq), the
 * kick, the delivering entry, NPF exits, the EOI's exit and the EOI.
 */
static int put_host_path(struct trace_writer *w, uint64_t t, uint32_t irq,
			 const struct synth_stages *st, bool after_inject)
{
	static const uint32_t before[] = {
		[SYNTH_VCPU_IN_GUEST] = 0, [SYNTH_VCPU_HALTED] = SVM_EXIT_HLT,
		[SYNTH_VCPU_IN_HOST] = SVM_EXIT_IOIO,
	};
	uint64_t g = t + st->to_guest, eoi = g + st->to_eoi;
	struct gpuprobe_rec_kvm msi = {
		.hdr = { .type = TRACEFILE_REC_KVM, .size = sizeof(msi), .ts_ns = t + st->to_irqfd },
		.bdf = SYNTH_GPU_BDF, .host_irq = irq, .vcpu = GPUPROBE_KVM_VCPU_NONE, .vector = 0x41,
		.stage = GPUPROBE_KVM_MSI, .msi_address = 0xfee00000,
	};
	int err = 0;

	if (!after_inject) {
		err |= st->state == SYNTH_VCPU_IN_GUEST ?
		       put_vcpu(w, t - 5000, GPUPROBE_KVM_ENTRY, 0) :
		       put_vcpu(w, t - 5000, GPUPROBE_KVM_EXIT, before[st->state]);
		err |= trace_writer_put(w, &msi.hdr);
		if (st->state == SYNTH_VCPU_IN_GUEST)
			err |= put_vcpu(w, t + st->to_irqfd + 500, GPUPROBE_KVM_EXIT, SVM_EXIT_INTR);
		return err;
	}
	err |= put_vcpu(w, t + st->to_inject + st->to_entry, GPUPROBE_KVM_ENTRY, 0);
	for (unsigned int j = 0; j < st->npf_exits; j++) {
		err |= put_vcpu(w, g + 100 * (j + 1), GPUPROBE_KVM_EXIT, SVM_EXIT_NPF);
		err |= put_vcpu(w, g + 100 * (j + 1) + 50, GPUPROBE_KVM_ENTRY, 0);
	}
	if (st->pv_eoi) {	/* synced on the way out, before SVM traces the exit (a HLT) */
		err |= put_vcpu(w, eoi - 30, GPUPROBE_KVM_EOI, 0x41);
		err |= put_vcpu(w, eoi - 20, GPUPROBE_KVM_PV_EOI, 0x41);
		err |= put_vcpu(w, eoi, GPUPROBE_KVM_EXIT, SVM_EXIT_HLT);
	} else {		/* the x2APIC EOI MSR's exit, then KVM's handling of it */
		err |= put_vcpu(w, eoi, GPUPROBE_KVM_EXIT, SVM_EXIT_MSR);
		err |= put_vcpu(w, eoi + 20, GPUPROBE_KVM_EOI, 0x41);
	}
	return err | put_vcpu(w, eoi + 300, GPUPROBE_KVM_ENTRY, 0);
}

static int put_apic_mode(struct trace_writer *w)
{
	struct gpuprobe_rec_kvm k = {
		.hdr = { .type = TRACEFILE_REC_KVM, .size = sizeof(k), .ts_ns = HOST_T0 - 3000000 },
		.bdf = GPUPROBE_BDF_NONE, .vcpu = GPUPROBE_KVM_VCPU_NONE,
		.stage = GPUPROBE_KVM_APIC_MODE, .vector = GPUPROBE_KVM_PARAM_OFF,
		.level = GPUPROBE_KVM_PARAM_ABSENT,
	};

	return trace_writer_put(w, &k.hdr);
}

static int put_host(const struct synth_merged *o, struct trace_writer *w)
{
	bool path = o->injections && o->host_path;
	int err = path ? put_apic_mode(w) : 0;

	for (uint32_t i = 0; i < o->n; i++) {
		uint64_t t = HOST_T0 + (uint64_t)i * o->spacing_ns;
		struct gpuprobe_rec_irq irq;
		struct synth_stages st;

		synth_merged_stages(o, i, &st);

		synth_irq(&irq, t, 0, 0, HANDLER_NS, true);
		irq.hdr.flags |= GPUPROBE_IRQ_VFIO;
		if (path)
			err |= put_host_path(w, t, irq.irq, &st, false);
		err |= trace_writer_put(w, &irq.hdr);
		if (o->injections) {
			struct gpuprobe_rec_kvm k = {
				.hdr = { .type = TRACEFILE_REC_KVM, .size = sizeof(k),
					 .cpu = 1, .ts_ns = t + st.to_inject },
				.bdf = GPUPROBE_BDF_NONE, .host_irq = irq.irq, .pid = SYNTH_VMM_PID,
				.tid = SYNTH_VCPU_TID, .vcpu = 0, .vector = 0x41, .stage = GPUPROBE_KVM_INJECT,
			};

			if (o->other_injections) {
				struct gpuprobe_rec_kvm msi = k, timer = k;

				msi.hdr.ts_ns = t + HANDLER_NS / 2;
				msi.hdr.cpu = 0;
				msi.bdf = SYNTH_GPU_BDF;
				msi.pid = msi.tid = 0;
				msi.stage = GPUPROBE_KVM_MSI;
				err |= trace_writer_put(w, &msi.hdr);
				timer.hdr.ts_ns = t + INJECT_NS / 2;
				timer.vector = 0xec;
				err |= trace_writer_put(w, &timer.hdr);
			}
			if (o->repeat_injection && i == 7) {
				struct gpuprobe_rec_kvm first = k;

				first.hdr.ts_ns -= 1000;
				err |= trace_writer_put(w, &first.hdr);
			}
			err |= trace_writer_put(w, &k.hdr);
			if (path)
				err |= put_host_path(w, t, irq.irq, &st, true);
		}
	}
	for (uint32_t i = 0; i < o->maps; i++) {
		struct gpuprobe_rec_iommu io;

		synth_iommu(&io, HOST_T0 + (uint64_t)i * o->spacing_ns + o->spacing_ns / 2 + 10000,
			    SYNTH_GPU_BDF, GPUPROBE_IOMMU_MAP, 4096, 8000);
		err |= trace_writer_put(w, &io.hdr);
	}
	return err;
}

static int put_guest_app(struct trace_writer *w, uint16_t type, uint32_t tid, uint32_t stream,
			 uint64_t start, uint64_t len, const char *name)
{
	struct tracefile_rec_app r = {
		.hdr = { .type = TRACEFILE_REC_APP, .size = sizeof(r), .ts_ns = start },
		.ev = { .magic = GPUPROBE_APP_MAGIC, .version = GPUPROBE_APP_VERSION,
			.api = GPUPROBE_APP_CUDA, .size = sizeof(r.ev), .type = type,
			.pid = SYNTH_GUEST_PID, .tid = tid, .stream = stream, .correlation = 5,
			.start_ns = start, .end_ns = start + len },
	};

	copy_string(r.ev.name, sizeof(r.ev.name), name);
	return trace_writer_put(w, &r.hdr);
}

/* The guest workload's events, last as record puts them. */
static int put_guest_apps(const struct synth_merged *o, struct trace_writer *w)
{
	uint64_t g = guest_clock(o, HOST_T0 + o->spacing_ns / 4);
	int err = 0;

	err |= put_guest_app(w, GPUPROBE_APP_API, SYNTH_GUEST_TID, 0, g, 100000, "cuCtxSynchronize");
	err |= put_guest_app(w, GPUPROBE_APP_SYNC, 0, 0, g + 1000, 98000, "context_synchronize");
	err |= put_guest_app(w, GPUPROBE_APP_KERNEL, 0, 3, g + 2000, 90000, "add");
	return err;
}

/* The guest's own trace file, as its agent's `record -o -` would have sent it. */
static FILE *guest_trace(const struct synth_merged *o)
{
	struct trace_info *info = malloc(sizeof(*info));
	struct trace_writer w;
	FILE *f = tmpfile();
	int err = 0;

	if (!info || !f)
		goto fail;
	synth_info(info);
	copy_string(info->host, sizeof(info->host), "synthetic-guest");
	info->start_ns = guest_clock(o, HOST_T0 - 2000000);
	info->targets.t[0].bdf = SYNTH_GPU_BDF;
	memset(&w, 0, sizeof(w));
	w.file = f;
	err |= trace_writer_header(&w, info);
	for (uint32_t i = 0; i < o->n; i++) {
		struct synth_stages st;
		uint64_t g;
		struct gpuprobe_rec_irq irq;
		struct gpuprobe_rec_sched wake = {
			.hdr = { .type = GPUPROBE_EV_WAKEUP, .size = sizeof(wake) },
			.pid = SYNTH_WAKE_PID, .tgid = SYNTH_WAKE_PID,
		};

		synth_merged_stages(o, i, &st);
		g = guest_clock(o, HOST_T0 + (uint64_t)i * o->spacing_ns + st.to_guest);
		wake.hdr.ts_ns = g + st.to_wake;

		if (i == o->drop_guest)
			continue;
		synth_irq(&irq, g, 0, 0, HANDLER_NS, true);
		err |= trace_writer_put(&w, &irq.hdr);
		err |= trace_writer_put(&w, &wake.hdr);
	}
	for (uint32_t i = 0; i < o->maps; i++) {
		struct gpuprobe_rec_dma d;

		synth_dma(&d, guest_clock(o, HOST_T0 + (uint64_t)i * o->spacing_ns + o->spacing_ns / 2),
			  GPUPROBE_DMA_MAP_PAGE, 4096, 1, MAP_CALL_NS);
		err |= trace_writer_put(&w, &d.hdr);
	}
	if (o->guest_app)
		err |= put_guest_apps(o, &w);
	if (!o->guest_cut)
		err |= trace_writer_put(&w, &(struct tracefile_rec_end){
			.hdr = { .type = TRACEFILE_REC_END, .size = sizeof(struct tracefile_rec_end),
				 .ts_ns = guest_clock(o, HOST_T0 + (uint64_t)o->n * o->spacing_ns) },
			.records = w.records, .exit_status = 0 }.hdr);
	if (err || fflush(f))
		goto fail;
	rewind(f);
	free(info);
	return f;
fail:
	if (f)
		fclose(f);
	free(info);
	return NULL;
}

void synth_merged_defaults(struct synth_merged *o)
{
	*o = (struct synth_merged){
		.n = 100, .spacing_ns = 1000000, .latency_ns = 20000,
		.offset_ns = 123456789, .bound_ns = 5000, .drop_guest = UINT32_MAX,
	};
}

int synth_write_merged(const char *path, const struct synth_merged *o)
{
	struct trace_info *info = malloc(sizeof(*info));
	struct clock_fit *fit = malloc(sizeof(*fit));
	const struct record_sink sink = { put_writer, NULL };
	struct guest_merge_input in = { .address = "tcp:192.0.2.1:5999", .exit_status = 0 };
	struct trace_writer w;
	int ret = -1, merged;

	if (!info || !fit)
		goto out;
	synth_info(info);
	if (trace_writer_open(&w, path, info))
		goto out;
	((struct record_sink *)&sink)->ctx = &w;
	if (put_host_machine(&w, info) || put_bursts(o, &w, fit) || (o->tsc && put_tsc(o, &w)) ||
	    put_host(o, &w))
		goto out_abort;
	in.spool = guest_trace(o);
	in.fit = fit;
	in.link_lost = o->guest_cut;
	if (!in.spool)
		goto out_abort;
	merged = guest_merge(&in, &sink);
	if (merged < 0)
		goto out_abort;
	if (merged == 0)
		ret = trace_writer_finish(&w, HOST_T0 + (uint64_t)o->n * o->spacing_ns + 2000000, -1);
	else
		ret = trace_writer_close_incomplete(&w);
	goto out;
out_abort:
	trace_writer_abort(&w);
out:
	free(info);
	free(fit);
	return ret;
}
