/* SPDX-License-Identifier: GPL-2.0 */
/* Synthetic traces for tests and the benchmark. */
#ifndef GPUPROBE_SYNTH_H
#define GPUPROBE_SYNTH_H

#include <stdbool.h>
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
	bool guest_cut;			/* the guest's trace ends without its end record */
};

void synth_merged_defaults(struct synth_merged *o);
int synth_write_merged(const char *path, const struct synth_merged *o);
/* nkernel mixed records, then napp CUDA events (launches and kernels) over the same time. */
int synth_write_app(const char *path, uint64_t nkernel, uint64_t napp, uint32_t seed);

/* report (text, or JSON) of the trace at path into a malloc'ed string; NULL (said on stderr) on error. */
char *test_report(const char *path, bool json);

#endif /* GPUPROBE_SYNTH_H */
