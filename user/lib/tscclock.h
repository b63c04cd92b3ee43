/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exact guest clock of a KVM guest: what KVM does to the TSC, and
 * each machine's CLOCK_MONOTONIC against its own TSC.
 *
 *   guest mono --(guest samples)--> guest tsc --(KVM: offset, scaling)-->
 *   host tsc --(host samples)--> host mono
 *
 * The middle step is exact (KVM computes the guest's TSC so); the outer
 * two interpolate between sampled (mono, tsc, mono) triples, each wrong by
 * at most half its read window, and between samples by how far the clock
 * bends (measured on the samples in between).  No exchange delay enters.
 * Documentation/passthrough.md, "The exact clock".
 */
#ifndef GPUPROBE_TSCCLOCK_H
#define GPUPROBE_TSCCLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "tracefile.h"

#define TSC_MAX_SAMPLES		4096
#define TSC_MAX_KVM		(1u << 20)	/* under an unstable host TSC, KVM writes at every vCPU load */
#define TSC_MAX_CPUS		256
#define TSC_APIC_UNKNOWN	0xffffffffu

/* One read: mono_lo, rdtscp, mono_hi on one CPU. */
struct tsc_sample {
	uint64_t mono_lo, tsc, mono_hi;
	uint32_t cpu, apic_id;
};

/*
 * mono = the read's midpoint, half = half its window: the truth is within.
 * A guest point belongs to the KVM relation (seg: its index in kvm[]) it
 * was read under: a write of the offset re-bases the guest's kvm-clock, so
 * the guest's line is drawn per relation.
 */
struct tsc_point {
	uint64_t mono, tsc, half;
	uint64_t host_lo, host_hi;	/* guest: the exchange's host window */
	uint32_t seg, cpu;
};

#define TSC_SEG_NONE	0xffffffffu	/* read across a write, or before any relation: unused */

struct tsc_line {
	unsigned int n;
	struct tsc_point p[TSC_MAX_SAMPLES];	/* by seg, then tsc, after tsc_clock_solve */
	unsigned int used;	/* points with a seg (the first used of p[]) */
	uint64_t half_max;	/* the widest sample's half window */
	uint64_t bend_ns;	/* largest distance of a sample from its neighbours' line */
	uint64_t rate_tsc, rate_ns;	/* ticks per ns of its longest stretch: a lone point's slope */
};

struct tsc_kvm {
	uint64_t from_ns;	/* host time it is in effect from (0: before the recording); END: read at */
	uint32_t vcpu;
	uint16_t flags;		/* TSC_KVM_* */
	int64_t offset;
	uint64_t ratio;		/* 0: no scaling */
	uint32_t frac_bits;
};

struct tsc_clock {
	struct tsc_line host, guest;
	unsigned int nkvm, kvm_cap;
	struct tsc_kvm *kvm;			/* by from_ns */
	uint32_t apic_of_cpu[TSC_MAX_CPUS];	/* the guest's CPU -> its APIC id (vcpuN) */
	/* tsc_clock_solve */
	bool usable;
	char why_not[200];	/* when not usable */
	uint64_t error_ns;	/* every mapping is within it */
	bool guest_mode;	/* a vCPU ran a nested guest when read: its offset is L2's */
	bool test_offset;	/* the offset was the test flag's, not KVM's */
	bool vcpus_differ;	/* the vCPUs' offsets differ: the CPU mapping matters */
	unsigned int changes;	/* traced offset writes during the recording */
	unsigned int vcpus;
	unsigned int guest_dropped;	/* guest samples read across a write: not used */
	/* tsc_clock_add: records beyond TSC_MAX_SAMPLES a side, TSC_MAX_KVM: not kept */
	unsigned int host_capped, guest_capped, kvm_capped;
	/* tsc_guest_to_host */
	uint64_t unsampled;	/* guest times under a relation no guest sample was read under */
};

void tsc_clock_init(struct tsc_clock *c);
void tsc_clock_free(struct tsc_clock *c);
/* A TSC record of the file; -1 when full or malformed (ignored). */
int tsc_clock_add(struct tsc_clock *c, const struct tracefile_rec_tsc *r);
/* Sort, measure the error, decide whether the clock can be used (why_not). */
void tsc_clock_solve(struct tsc_clock *c);
/* A guest time (its CPU's) on the host clock; false when unusable. */
bool tsc_guest_to_host(struct tsc_clock *c, uint64_t guest_ns, uint32_t guest_cpu,
		       uint64_t *host_ns);

/*
 * The narrowest of tries reads of clock() around rdtscp on one CPU; -1
 * where there is no TSC to read (not x86) or the CPU moved every time.
 */
int tsc_sample_now(uint64_t (*clock)(void *), void *arg, unsigned int tries,
		   struct tsc_sample *out);
/* A SAMPLE record of s for machine, at host time ts_ns. */
void tsc_sample_record(const struct tsc_sample *s, uint32_t machine, uint64_t ts_ns,
		       struct tracefile_rec_tsc *rec);

#endif /* GPUPROBE_TSCCLOCK_H */
