/* SPDX-License-Identifier: GPL-2.0 */
/* Synthetic traces for tests and the benchmark. */
#ifndef GPUPROBE_SYNTH_H
#define GPUPROBE_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracefile.h"

#define SYNTH_GPU_BDF	GPUPROBE_BDF(0, 0x01, 0x00)	/* 0000:01:00.0 */
#define SYNTH_NVEC	8
#define SYNTH_IRQ_BASE	100

/* Header: one NVIDIA H200-like target with SYNTH_NVEC MSI-X vectors. */
void synth_info(struct trace_info *info);

void synth_irq(struct gpuprobe_rec_irq *r, uint64_t ts, uint16_t cpu, uint32_t vector,
	       uint64_t duration, bool handled);
void synth_dma(struct gpuprobe_rec_dma *r, uint64_t ts, uint16_t op, uint64_t bytes,
	       uint32_t nents, uint64_t duration);
void synth_iommu(struct gpuprobe_rec_iommu *r, uint64_t ts, uint32_t bdf, uint32_t op,
		 uint64_t size, uint64_t duration);
void synth_irq_count(struct tracefile_rec_irq_count *r, uint64_t ts, uint32_t irq,
		     uint32_t phase, uint64_t count);

/*
 * The writers below write format version 3 at zstd level `level` (0:
 * version 1), ending a chunk every flush_every records (0: when full).
 */
void synth_set_compression(int level, uint64_t flush_every);
/* Chunks of format version 3 (checksummed, the default) or 2 (as files before it). */
void synth_set_chunk_version(uint32_t version);

/*
 * The report test's trace, whose exact totals are listed in
 * tests/test_unit.c (test_report_maths).  Returns 0 on success.
 */
int synth_write_known(const char *path);

/* The Perfetto export's trace: flows, lanes, a mangled kernel (synth.c says which). */
#define SYNTH_FLOW_TID		4242
#define SYNTH_FLOW_KERNEL	"_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii"
int synth_write_flows(const char *path);
int synth_write_flows_n(const char *path, unsigned int n);
/* Both Perfetto exports' trace: sub-microsecond times, two wake-ups after one interrupt (synth_export.c). */
int synth_write_export(const char *path);

/* DMA calls of two targets with IOMMU part records, in the module's order (synth_parts.c). */
int synth_write_parts(const char *path);

/* n records in a realistic mix (irq-heavy), for fuzzing and benchmarks. */
int synth_write_mix(const char *path, uint64_t n, uint32_t seed);

/* A host + guest trace (synth_merged.c): n host interrupts spacing_ns apart. */
struct synth_merged {
	uint32_t n;
	uint64_t spacing_ns;
	uint64_t latency_ns;		/* host handler entry -> guest handler entry */
	int64_t offset_ns;		/* the guest's clock - the host's */
	int64_t drift_ppb;		/* ... and how it moves */
	int64_t offset_error_ns;	/* what the clock bursts get wrong */
	uint64_t bound_ns;		/* their error bound */
	uint32_t drop_guest;		/* this guest interrupt is missing; UINT32_MAX: none */
	uint32_t maps;			/* guest DMA maps, each with one host IOMMU map */
	bool injections;		/* KVM injection records on the host */
	/* ... with the target's MSI routing records (vector 0x41), and an
	 * injection of another vector (the guest's timer) just before each */
	bool other_injections;
	/* interrupt 7 injected twice (the first entry cancelled), 1 us apart */
	bool repeat_injection;
	bool guest_cut;			/* the guest's trace ends without its end record */
	/* the guest's workload (pid SYNTH_GUEST_PID, thread SYNTH_GUEST_TID): a
	 * call, a CUPTI-style sync (tid 0) inside it, a kernel on stream 3 */
	bool guest_app;
	bool no_bursts;			/* no clock burst in the host's file: nothing can be paired */
	/* each interrupt's stages differ (synth_merged_stages), else INJECT/latency/WAKE for all */
	bool vary;
	/* KVM's TSC relation and both sides' samples (drift 0 only): the exact clock, bound 101 ns */
	bool tsc;
	uint32_t tsc_host_samples;	/* host samples, spread over the run; 0: one a burst */
	/*
	 * With injections: each interrupt's path through the host, as the
	 * tracefs source records it (synth_stages' host path fields): the
	 * irqfd step in the handler, the vCPU thread's entries and exits (SVM
	 * reasons), the guest's EOI, and the host's APIC mode (avic off)
	 */
	bool host_path;
};

/* Interrupt i's stages as synth_write_merged writes them, in ns. */
struct synth_stages {
	uint64_t handler;		/* either side's handler */
	uint64_t to_inject;		/* host handler entry -> KVM injection (with injections) */
	uint64_t to_guest;		/* host handler entry -> guest handler entry */
	uint64_t to_wake;		/* guest handler entry -> the guest thread's wake-up */
	/* host_path: */
	uint64_t to_irqfd;		/* host handler entry -> kvm_msi_set_irq */
	uint64_t to_entry;		/* KVM injection -> the VM entry after it */
	uint64_t to_eoi;		/* guest handler entry -> the EOI's exit */
	unsigned int state;		/* the vCPU then: SYNTH_VCPU_IN_GUEST, _HALTED, _IN_HOST */
	unsigned int npf_exits;		/* NPF exits between the guest handler and the EOI */
	bool pv_eoi;			/* the EOI is a PV EOI, taken at a HLT exit; else an MSR exit */
};
#define SYNTH_VCPU_IN_GUEST	0	/* a VM entry 5 us before the handler; kicked (INTR exit) */
#define SYNTH_VCPU_HALTED	1	/* a HLT exit 5 us before */
#define SYNTH_VCPU_IN_HOST	2	/* an IOIO exit 5 us before */
void synth_merged_stages(const struct synth_merged *o, uint32_t i, struct synth_stages *s);
#define SYNTH_TSC_BOUND_NS	101	/* 50 + 50 ns half read windows, + 1 for the scaling's last tick */
#define SYNTH_VMM_PID		4242	/* the injections' VMM and vCPU thread */
#define SYNTH_VCPU_TID		4243
#define SYNTH_WAKE_PID		100	/* the guest task each interrupt wakes */
#define SYNTH_GUEST_PID		300
#define SYNTH_GUEST_TID		301

void synth_merged_defaults(struct synth_merged *o);
int synth_write_merged(const char *path, const struct synth_merged *o);
/* nkernel mixed records, then napp CUDA events (launches and kernels) over the same time. */
int synth_write_app(const char *path, uint64_t nkernel, uint64_t napp, uint32_t seed);
/* synth_names.c: kernels named with thousands of characters, through record's merge */
int synth_write_names(const char *path);
/* A writer with the compression synth_set_compression chose (GENTRACE_ZSTD). */
int synth_open(struct trace_writer *w, const char *path, const struct trace_info *info);

/*
 * Every record type with adversarial values (synth_fields.c): records back
 * to back in buf, n of them, unknown of types the reader skips.
 */
struct synth_recs {
	unsigned char *buf;
	size_t len, cap, n, unknown;
};

#define SYNTH_FIELDS_STOP_NS	0xffffffffffffffffull	/* the end record's time */
#define SYNTH_FIELDS_EXIT	INT32_MIN		/* ... and exit status */

/* Header with ntargets targets (1..TARGET_MAX), the last with TARGET_MAX_VECTORS vectors. */
void synth_fields_info(struct trace_info *info, unsigned int ntargets);
/* With the record types the committed traces lack (IOMMU parts to IOMMU mode): off by default. */
void synth_fields_set_newer(bool on);
/* big: and one record of TRACEFILE_REC_MAX_SIZE bytes. */
int synth_fields_build(struct synth_recs *s, bool big);
void synth_recs_append(struct synth_recs *s, const struct gpuprobe_rec_hdr *h);
void synth_recs_free(struct synth_recs *s);
/* Those records and the end record into path (synth_set_compression applies). */
int synth_write_fields(const char *path, unsigned int ntargets, bool big);

/*
 * The verdict's trace (synth_verdict.c), 100 ms of wall time:
 *   interrupt handlers  vector 0: 200 x 10 us, vector 3: 50 x 4 us = 2.2 ms
 *   DMA API calls       100 map_page x 30 us (each with one 12 us IOMMU map
 *                       inside) + 100 unmap_page x 5 us = 3.5 ms
 *   IOMMU               100 x 12 us inside those + 20 x 40 us outside = 2 ms
 *   mapping             3.5 ms + (2 ms - 1.2 ms inside) = 4.3 ms
 *   a wait              kernel ends at +81 ms, its blocking call returns at
 *                       +81.4 ms with an interrupt between: 400 us
 *   3 swiotlb bounces of 512 bytes; vectors 1, 2, 4-6 idle; vector 7: none
 *   recorded, 2 counted by the kernel.
 * tracefs: the same as the tracefs source records it: DMA calls untimed, no
 * IOMMU records.
 */
#define SYNTH_VERDICT_PID	5150
#define SYNTH_VERDICT_TID	5151
int synth_write_verdict(const char *path, bool tracefs);

/* report (text, or JSON) of the trace at path into a malloc'ed string; NULL (said on stderr) on error. */
char *test_report(const char *path, bool json);

#endif /* GPUPROBE_SYNTH_H */
