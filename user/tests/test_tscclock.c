// SPDX-License-Identifier: GPL-2.0
/*
 * The exact guest clock (lib/tscclock.c) on synthetic host and guest
 * records whose every relation is set here by hand: the host's TSC at
 * 2.6 ticks/ns, KVM scaling it by 1.5 (ratio 3 << 47 in 48 fractional
 * bits) and offsetting it, the guest's CLOCK_MONOTONIC a constant D after
 * the host's (kvm-clock is continuous across an offset write), and one
 * mid-run offset write, traced.  Every guest time must come back to the
 * host time it was taken at, to the nanosecond.
 */
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "kvm_tsc.h"
#include "machine.h"
#include "testlib.h"
#include "tests.h"
#include "tscclock.h"

#define D_NS		123456789ull		/* guest mono - host mono */
#define OFF1		(-10000000000000ll)	/* the first relation's offset, ticks */
#define OFF2		(OFF1 - 7777777)	/* after the write */
#define CHANGE_NS	5500000000ull		/* host time of the write */
#define FRAC		48
#define RATIO		(3ull << 47)		/* 1.5 */

/* h: a multiple of 10 ns, so that every tick below is whole */
static uint64_t host_tsc(uint64_t h)
{
	return 7000000000000ull + h * 13 / 5;	/* the host up for 45 min */
}

static uint64_t guest_tsc(uint64_t h, int64_t off)
{
	return (uint64_t)(off + (int64_t)(host_tsc(h) * 3 / 2));
}

static int64_t off_at(uint64_t h)
{
	return h < CHANGE_NS ? OFF1 : OFF2;
}

static struct tracefile_rec_tsc rec(uint16_t kind, uint32_t machine, uint64_t ts)
{
	struct tracefile_rec_tsc r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = TRACEFILE_REC_TSC;
	r.hdr.size = sizeof(r);
	r.hdr.ts_ns = ts;
	r.kind = kind;
	r.machine = machine;
	r.apic_id = TSC_APIC_UNKNOWN;
	return r;
}

static void add_kvm(struct tsc_clock *c, uint64_t ts, uint16_t flags, int64_t off)
{
	struct tracefile_rec_tsc r = rec(TSC_REC_KVM, MACHINE_GUEST, ts);

	r.flags = flags;
	r.tsc_offset = off;
	r.ratio = RATIO;
	r.frac_bits = FRAC;
	CHECK(tsc_clock_add(c, &r) == 0, "kvm record");
}

/*
 * The guest's CLOCK_MONOTONIC at host time h: D after the host's, and jump
 * more from the write on (a kvm-clock re-based by more than the write, as
 * under an unstable host TSC, where the guest's TSC stands still while its
 * vCPU is not loaded and kvm-clock catches up).
 */
static uint64_t guest_mono(uint64_t h, uint64_t jump)
{
	return h + D_NS + (h >= CHANGE_NS ? jump : 0);
}

/* n samples every second: host windows of 400 ns, guest ones of 600, exchanges of 2 us. */
static void add_samples_n(struct tsc_clock *c, uint64_t jump, uint64_t n)
{
	for (uint64_t s = 0; s < n; s++) {
		uint64_t h = 1000000000ull * (s + 1), g = 500000000ull + 1000000000ull * s;
		struct tracefile_rec_tsc r = rec(TSC_REC_SAMPLE, MACHINE_HOST, h);

		r.mono_lo = h - 200;
		r.mono_hi = h + 200;
		r.tsc = host_tsc(h);
		CHECK(tsc_clock_add(c, &r) == 0, "host sample");
		r = rec(TSC_REC_SAMPLE, MACHINE_GUEST, g);
		r.mono_lo = guest_mono(g, jump) - 300;
		r.mono_hi = guest_mono(g, jump) + 300;
		r.tsc = guest_tsc(g, off_at(g));
		r.host_lo = g - 1000;
		r.host_hi = g + 1000;
		r.apic_id = 0;
		CHECK(tsc_clock_add(c, &r) == 0, "guest sample");
	}
}

static void add_samples_jump(struct tsc_clock *c, uint64_t jump)
{
	add_samples_n(c, jump, 10);
}

static void add_samples(struct tsc_clock *c)
{
	add_samples_jump(c, 0);
}

static struct tsc_clock *clock_with_change(void)
{
	struct tsc_clock *c = malloc(sizeof(*c));

	tsc_clock_init(c);
	add_kvm(c, 900000000ull, 0, OFF1);		/* debugfs at the start */
	add_kvm(c, CHANGE_NS, TSC_KVM_TRACED, OFF2);	/* kvm_write_tsc_offset */
	add_kvm(c, 9900000000ull, TSC_KVM_END, OFF2);	/* debugfs at the end: agrees */
	add_samples(c);
	tsc_clock_solve(c);
	return c;
}

void test_tscclock_known_offset_scaling_change(void)
{
	struct tsc_clock *c = clock_with_change();
	/* before, just before and after the write, far after, beyond the last sample */
	const uint64_t at[] = { 700000000ull, 3300000010ull, CHANGE_NS - 10, CHANGE_NS + 1000,
				7700000000ull, 9990000000ull, 11000000000ull };

	CHECK(c->usable, "usable: %s", c->why_not);
	/* the sample read across the write (its exchange spans it) is not used */
	CHECK_EQ_U64(c->guest_dropped, 1);
	CHECK_EQ_U64(c->changes, 1);
	/* host window 400 ns -> 200, guest 600 -> 300 (+1 of the midpoint's rounding each), lines straight, 1 tick */
	CHECK_EQ_U64(c->error_ns, 200 + 300 + 1);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		uint64_t h = 0;

		CHECK(tsc_guest_to_host(c, at[i] + D_NS, 0, &h), "mapping %zu", i);
		CHECK(h == at[i], "guest time of host %llu mapped to %llu (%lld ns off)",
		      (unsigned long long)at[i], (unsigned long long)h, (long long)(h - at[i]));
	}
	CHECK_EQ_U64(c->unsampled, 0);
	tsc_clock_free(c);
	free(c);
}

void test_tscclock_rebased_guest_clock(void)
{
	/* the guest's clock jumps 1 ms at the write: each side of it maps by its own relation */
	struct tsc_clock *c = malloc(sizeof(*c));
	const uint64_t jump = 1000000, at[] = { 3300000010ull, CHANGE_NS - 10, CHANGE_NS + 1000, 7700000000ull };

	tsc_clock_init(c);
	add_kvm(c, 900000000ull, 0, OFF1);
	add_kvm(c, CHANGE_NS, TSC_KVM_TRACED, OFF2);
	add_samples_jump(c, jump);
	tsc_clock_solve(c);
	CHECK(c->usable, "usable: %s", c->why_not);
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		uint64_t h = 0;

		CHECK(tsc_guest_to_host(c, guest_mono(at[i], jump), 0, &h), "mapping %zu", i);
		CHECK(h == at[i], "guest time of host %llu mapped to %llu (%lld ns off)",
		      (unsigned long long)at[i], (unsigned long long)h, (long long)(h - at[i]));
	}
	tsc_clock_free(c);
	free(c);
}

void test_tscclock_refuses_what_it_cannot_know(void)
{
	struct tsc_clock *c = malloc(sizeof(*c));
	uint64_t h;

	/* the end's offset differs and no traced write says when it changed */
	tsc_clock_init(c);
	add_kvm(c, 900000000ull, 0, OFF1);
	add_kvm(c, 9900000000ull, TSC_KVM_END, OFF2);
	add_samples(c);
	tsc_clock_solve(c);
	CHECK(!c->usable && strstr(c->why_not, "did not say when"), "untraced change: %s", c->why_not);
	CHECK(!tsc_guest_to_host(c, 2000000000ull, 0, &h), "no mapping from an unusable clock");
	tsc_clock_free(c);

	/* read while the vCPU ran a nested guest: L2's offset */
	tsc_clock_init(c);
	add_kvm(c, 900000000ull, TSC_KVM_GUEST_MODE, OFF1);
	add_samples(c);
	tsc_clock_solve(c);
	CHECK(!c->usable && strstr(c->why_not, "guest_mode"), "guest_mode: %s", c->why_not);
	tsc_clock_free(c);

	/* no KVM relation at all (a non-KVM hypervisor, no debugfs) */
	tsc_clock_init(c);
	add_samples(c);
	tsc_clock_solve(c);
	CHECK(!c->usable && strstr(c->why_not, "no TSC offset"), "no kvm: %s", c->why_not);
	tsc_clock_free(c);
	free(c);
}

void test_tscclock_write_untraced_is_wrong(void)
{
	/* the same run without the traced write: times after it come out 7777777 / 3.9 ns late */
	struct tsc_clock *c = malloc(sizeof(*c));
	uint64_t h = 0, truth = 7700000000ull;

	tsc_clock_init(c);
	add_kvm(c, 900000000ull, 0, OFF1);
	add_samples(c);
	tsc_clock_solve(c);
	CHECK(c->usable, "%s", c->why_not);
	/* the samples around the write bend by half its jump: the bound says so */
	CHECK(c->error_ns > 900000, "bound %llu ns", (unsigned long long)c->error_ns);
	CHECK(tsc_guest_to_host(c, truth + D_NS, 0, &h), "mapping");
	/* guest mono -> guest tsc by the samples (OFF2 after the write) -> host by OFF1: 7777777 ticks / 3.9 early */
	CHECK(llabs((long long)(truth - h) - 7777777ll * 10 / 39) <= 1, "mapped %llu, truth %llu",
	      (unsigned long long)h, (unsigned long long)truth);
	tsc_clock_free(c);
	free(c);
}

void test_kvm_tsc_trace_line(void)
{
	uint32_t tid = 0, vcpu = 9;
	uint64_t ts = 0, next = 0;
	const char *line = " qemu-system-x86-150     [001] d..1.   123.456789: kvm_write_tsc_offset: "
			   "vcpu=2 prev=18446744069414584320 next=18446744000000000000\n";

	CHECK(kvm_tsc_parse_line(line, &tid, &ts, &vcpu, &next) == 1, "parsed");
	CHECK_EQ_U64(tid, 150);
	CHECK_EQ_U64(ts, 123456789000ull);
	CHECK_EQ_U64(vcpu, 2);
	CHECK_EQ_U64(next, 18446744000000000000ull);
	CHECK(kvm_tsc_parse_line(" qemu-150 [001] d..1. 1.000001: kvm_entry: vcpu 0, rip 0x0\n",
				 &tid, &ts, &vcpu, &next) == 0, "another event");
}

/*
 * A guest CPU of unknown APIC id takes the first vcpu that has a relation:
 * an END-only record first in the file (another vcpu's, read at the end
 * only) is no relation; taking its vcpu left the host time unwritten while
 * saying it was mapped.
 */
void test_tscclock_unknown_cpu_skips_end_only(void)
{
	struct tsc_clock *c = malloc(sizeof(*c));
	/* stamped 0 (a VMM read before the clock was up): sorted first */
	struct tracefile_rec_tsc r = rec(TSC_REC_KVM, MACHINE_GUEST, 0);
	uint64_t h = 0, truth = 2000000000ull;

	tsc_clock_init(c);
	r.cpu = 1;
	r.flags = TSC_KVM_END;
	r.tsc_offset = OFF1;
	r.ratio = RATIO;
	r.frac_bits = FRAC;
	CHECK(tsc_clock_add(c, &r) == 0, "END-only record of vcpu 1");
	add_kvm(c, 900000000ull, 0, OFF1);
	add_kvm(c, CHANGE_NS, TSC_KVM_TRACED, OFF2);
	add_kvm(c, 9900000000ull, TSC_KVM_END, OFF2);
	add_samples(c);
	tsc_clock_solve(c);
	CHECK(c->usable, "usable: %s", c->why_not);
	CHECK(tsc_guest_to_host(c, truth + D_NS, 77, &h), "guest CPU 77 mapped");
	CHECK_EQ_U64(h, truth);
	tsc_clock_free(c);
	free(c);
}

/*
 * The fewest samples a line is drawn through: 2 host and 2 guest samples
 * (s = 0, 1: host 1 s and 2 s, guest 0.5 s and 1.5 s) under one relation
 * make a usable clock that maps exactly; with 1 of each it is refused.
 */
void test_tscclock_two_samples_each(void)
{
	struct tsc_clock *c = malloc(sizeof(*c));
	uint64_t h = 0;

	tsc_clock_init(c);
	add_kvm(c, 100000000ull, 0, OFF1);
	add_samples_n(c, 0, 2);
	tsc_clock_solve(c);
	CHECK(c->usable && c->host.used == 2 && c->guest.used == 2, "2 each: usable %d (%s), %u and %u",
	      c->usable, c->why_not, c->host.used, c->guest.used);
	CHECK(tsc_guest_to_host(c, 1200000000ull + D_NS, 0, &h) && h == 1200000000ull,
	      "2 each: 1.2 s mapped to %llu", (unsigned long long)h);
	tsc_clock_free(c);
	tsc_clock_init(c);
	add_kvm(c, 100000000ull, 0, OFF1);
	add_samples_n(c, 0, 1);
	tsc_clock_solve(c);
	CHECK(!c->usable && strstr(c->why_not, "too few TSC samples (host 1, guest 1;"),
	      "1 each: %s", c->why_not);
	tsc_clock_free(c);
	/*
	 * A relation with one guest sample: 7 samples, the write at 5.5 s, the
	 * guest's at 0.5 .. 4.5 s under the first relation, 5.5 s across the
	 * write (dropped), 6.5 s alone under the second: a guest time there
	 * maps through that point at the slope of the longest stretch (3.9
	 * ticks/ns, exact), to the nanosecond.
	 */
	tsc_clock_init(c);
	add_kvm(c, 100000000ull, 0, OFF1);
	add_kvm(c, CHANGE_NS, TSC_KVM_TRACED, OFF2);
	add_samples_n(c, 0, 7);
	tsc_clock_solve(c);
	CHECK(c->usable && c->guest_dropped == 1 && c->guest.used == 6, "lone point: usable %d (%s), %u dropped, %u used",
	      c->usable, c->why_not, c->guest_dropped, c->guest.used);
	/* straight lines: the bound is the two widest half windows (200, 300) and the tick */
	CHECK_EQ_U64(c->error_ns, 200 + 300 + 1);
	for (uint64_t at = 6000000000ull; at <= 7200000000ull; at += 600000000ull) {
		h = 0;
		CHECK(tsc_guest_to_host(c, at + D_NS, 0, &h) && h == at,
		      "lone point: host %llu mapped to %llu", (unsigned long long)at, (unsigned long long)h);
	}
	tsc_clock_free(c);
	/*
	 * Bent lines: 3 samples each, the middle host read 30 ns late, the
	 * middle guest read 50 ns late (their neighbours' line is straight):
	 * the bound grows by both bends, 200 + 300 + 30 + 50 + 1.
	 */
	tsc_clock_init(c);
	add_kvm(c, 100000000ull, 0, OFF1);
	add_samples_n(c, 0, 3);
	c->host.p[1].mono += 30;
	c->guest.p[1].mono += 50;
	tsc_clock_solve(c);
	CHECK(c->usable && c->host.bend_ns == 30 && c->guest.bend_ns == 50,
	      "bent: usable %d, bends %llu and %llu", c->usable, (unsigned long long)c->host.bend_ns,
	      (unsigned long long)c->guest.bend_ns);
	CHECK_EQ_U64(c->error_ns, 200 + 300 + 30 + 50 + 1);
	tsc_clock_free(c);
	free(c);
}

/* A made-up CLOCK_MONOTONIC: the values of fake_mono[], one a call. */
static const uint64_t fake_mono[] = { 100, 150, 200, 210, 300, 330 };
static unsigned int fake_next;

static uint64_t fake_clock(void *arg)
{
	(void)arg;
	return fake_mono[fake_next++ % (sizeof(fake_mono) / sizeof(fake_mono[0]))];
}

/*
 * tsc_sample_now: of 3 reads (windows 50, 10 and 30 ns of the clock above)
 * the narrowest, [200, 210], with a TSC read between two of ours and the
 * CPU it ran on; 1 try is a read too.  A try on which the thread moved is
 * left out, so each case is tried until a run had no move (20 at most).
 * tsc_clock_add refuses what it cannot use: -1, nothing kept.
 */
void test_tscclock_sample_now_and_refusals(void)
{
	struct tsc_clock *c = malloc(sizeof(*c));
	struct tracefile_rec_tsc r;
	bool got3 = false, got1 = false;

#if defined(__x86_64__) || defined(__i386__)
	for (int k = 0; k < 20 && !(got3 && got1); k++) {
		struct tsc_sample s;
		uint64_t before, after;
		unsigned int aux;

		fake_next = 0;
		before = __rdtscp(&aux);
		if (!got3 && tsc_sample_now(fake_clock, NULL, 3, &s) == 0 && s.mono_lo == 200) {
			after = __rdtscp(&aux);
			got3 = true;
			CHECK(s.mono_hi == 210 && s.tsc >= before && s.tsc <= after && fake_next == 6,
			      "3 tries: [%llu, %llu] tsc %llu (ours %llu..%llu), %u clock reads",
			      (unsigned long long)s.mono_lo, (unsigned long long)s.mono_hi,
			      (unsigned long long)s.tsc, (unsigned long long)before,
			      (unsigned long long)after, fake_next);
		}
		fake_next = 0;
		if (!got1 && tsc_sample_now(fake_clock, NULL, 1, &s) == 0) {
			got1 = true;
			CHECK(s.mono_lo == 100 && s.mono_hi == 150 && fake_next == 2,
			      "1 try: [%llu, %llu], %u clock reads", (unsigned long long)s.mono_lo,
			      (unsigned long long)s.mono_hi, fake_next);
		}
	}
	CHECK(got3 && got1, "no run without a move: 3 tries %d, 1 try %d", got3, got1);
#else
	(void)got3;
	(void)got1;
#endif
	tsc_clock_init(c);
	r = rec(3, MACHINE_HOST, 1);	/* neither SAMPLE nor KVM */
	CHECK(tsc_clock_add(c, &r) == -1, "kind 3 taken");
	r = rec(TSC_REC_KVM, MACHINE_GUEST, 1);
	r.frac_bits = 64;
	CHECK(tsc_clock_add(c, &r) == -1, "64 fractional bits taken");
	r.frac_bits = 63;
	r.hdr.size = sizeof(r) - 8;
	CHECK(tsc_clock_add(c, &r) == -1, "a record short of its struct taken");
	r = rec(TSC_REC_SAMPLE, MACHINE_HOST, 1);
	r.mono_lo = 20;
	r.mono_hi = 10;
	CHECK(tsc_clock_add(c, &r) == -1, "a read window ending before it starts taken");
	CHECK(c->nkvm == 0 && c->host.n == 0 && c->guest.n == 0, "kept: %u relations, %u and %u samples",
	      c->nkvm, c->host.n, c->guest.n);
	r = rec(TSC_REC_KVM, MACHINE_GUEST, 1);
	r.frac_bits = 63;
	CHECK(tsc_clock_add(c, &r) == 0 && c->nkvm == 1, "63 fractional bits refused");
	/* full: the sample past the cap is refused (-1, "full" in the contract) and counted */
	for (uint64_t i = 0; i < TSC_MAX_SAMPLES; i++) {
		r = rec(TSC_REC_SAMPLE, MACHINE_HOST, 1000 * (i + 1));
		r.mono_lo = 1000 * (i + 1) - 10;
		r.mono_hi = 1000 * (i + 1) + 10;
		r.tsc = host_tsc(1000 * (i + 1));
		if (tsc_clock_add(c, &r) != 0)
			break;
	}
	CHECK(c->host.n == TSC_MAX_SAMPLES, "%u host samples kept, want %u", c->host.n,
	      (unsigned int)TSC_MAX_SAMPLES);
	r = rec(TSC_REC_SAMPLE, MACHINE_HOST, 1000 * (TSC_MAX_SAMPLES + 1));
	r.mono_lo = r.mono_hi = 1000 * (TSC_MAX_SAMPLES + 1);
	r.tsc = host_tsc(1000 * (TSC_MAX_SAMPLES + 1));
	CHECK(tsc_clock_add(c, &r) == -1 && c->host_capped == 1,
	      "the sample past the cap taken (capped %llu)", (unsigned long long)c->host_capped);
	tsc_clock_free(c);
	free(c);
}

/*
 * The bound against a known truth, by hand.  Ten samples a side, one a
 * second at host time t_i = i s, of known windows (multiples of 4 ns, so
 * every midpoint and every neighbours' average is whole); the host's read
 * has the truth at its window's low edge, the guest's at its high edge (the
 * two errors add); one offset, no scaling.  The host's CLOCK_MONOTONIC
 * bends: from 5.5 s on it runs 4 ppm fast (NTP slewing), so between the
 * samples at 5 and 6 s the interpolation is 1 us wrong, which only the bend
 * term covers.
 * What the math says: each side's read term is its widest half window
 * (host 400/2, guest 1100/2, both at sample 2); each side's bend is the
 * largest |(dev[i-1] + dev[i+1]) / 2 - dev[i]| over inner samples, dev the
 * midpoint's distance from the straight line (even spacing: the neighbours'
 * line at i is their average); + 1 ns.  Every guest time, every ms of the
 * run, must map within the bound; at sample 2 the error is the two halves.
 */
#define BOUND_N		10
#define BOUND_KINK_NS	5500000000ll
static const int64_t bound_host_w[BOUND_N] = { 100, 60, 400, 80, 120, 92, 72, 300, 52, 112 };
static const int64_t bound_guest_w[BOUND_N] = { 900, 500, 1100, 460, 520, 480, 600, 1100, 440, 500 };

/* the host's mono at host instant t (ns): 4 ppm fast from the kink */
static int64_t bound_host_true(int64_t t)
{
	return t + (t > BOUND_KINK_NS ? (t - BOUND_KINK_NS) / 250000 : 0);
}

static int64_t bound_bend(const int64_t *dev)
{
	int64_t worst = 0;

	for (int i = 1; i + 1 < BOUND_N; i++) {
		int64_t d = (dev[i - 1] + dev[i + 1]) / 2 - dev[i];

		if (llabs(d) > worst)
			worst = llabs(d);
	}
	return worst;
}

void test_tscclock_bound_holds_at_window_edges(void)
{
	struct tsc_clock *c = malloc(sizeof(*c));
	struct tracefile_rec_tsc r = rec(TSC_REC_KVM, MACHINE_GUEST, 0);
	int64_t host_dev[BOUND_N], guest_dev[BOUND_N], want, worst = 0, at_wide = -1;

	tsc_clock_init(c);
	r.tsc_offset = OFF1;
	CHECK(tsc_clock_add(c, &r) == 0, "kvm record");
	for (int i = 0; i < BOUND_N; i++) {
		int64_t t = 1000000000ll * (i + 1), h = bound_host_true(t);

		r = rec(TSC_REC_SAMPLE, MACHINE_HOST, (uint64_t)h);
		r.mono_lo = (uint64_t)h;
		r.mono_hi = (uint64_t)(h + bound_host_w[i]);
		r.tsc = host_tsc((uint64_t)t);
		CHECK(tsc_clock_add(c, &r) == 0, "host sample %d", i);
		host_dev[i] = h - t + bound_host_w[i] / 2;
		r = rec(TSC_REC_SAMPLE, MACHINE_GUEST, (uint64_t)h);
		r.mono_lo = (uint64_t)t + D_NS - (uint64_t)bound_guest_w[i];
		r.mono_hi = (uint64_t)t + D_NS;
		r.tsc = host_tsc((uint64_t)t) + (uint64_t)OFF1;
		r.host_lo = (uint64_t)h - 1000;
		r.host_hi = (uint64_t)h + 1000;
		r.apic_id = 0;
		CHECK(tsc_clock_add(c, &r) == 0, "guest sample %d", i);
		guest_dev[i] = -bound_guest_w[i] / 2;
	}
	tsc_clock_solve(c);
	CHECK(c->usable, "usable: %s", c->why_not);
	/* the kink shows at the 6 s sample: (0 + 60 + 6000 + 36) / 2 - (2000 + 46) = 1002 */
	CHECK_EQ_U64(c->host.bend_ns, (uint64_t)bound_bend(host_dev));
	CHECK_EQ_U64(c->host.bend_ns, 1002);
	CHECK_EQ_U64(c->guest.bend_ns, (uint64_t)bound_bend(guest_dev));
	CHECK_EQ_U64(c->host.half_max, 200);
	CHECK_EQ_U64(c->guest.half_max, 550);
	want = 200 + 550 + 1002 + bound_bend(guest_dev) + 1;
	CHECK_EQ_U64(c->error_ns, (uint64_t)want);
	/* every ms from the first sample to the last */
	for (int64_t t = 1000000000ll; t <= 1000000000ll * BOUND_N; t += 1000000) {
		uint64_t h = 0;
		int64_t err;

		if (!tsc_guest_to_host(c, (uint64_t)t + D_NS, 0, &h)) {
			CHECK(0, "guest time at %lld not mapped", (long long)t);
			break;
		}
		err = llabs((int64_t)h - bound_host_true(t));
		if (err > worst)
			worst = err;
		if (err > (int64_t)c->error_ns) {
			CHECK(0, "at %lld ns: %lld ns off, bound %llu", (long long)t, (long long)err,
			      (unsigned long long)c->error_ns);
			break;
		}
	}
	/* sample 2's guest midpoint: its guest read's half, then the host's half, the same way */
	{
		uint64_t h = 0;
		int64_t t = 3000000000ll;

		CHECK(tsc_guest_to_host(c, (uint64_t)t + D_NS - 550, 0, &h), "sample 2 mapped");
		at_wide = (int64_t)h - (bound_host_true(t) - 550);
	}
	CHECK(at_wide == 200 + 550, "at the widest samples %lld ns off, want 750", (long long)at_wide);
	/* between 5 and 6 s the reads' halves alone (751) would not cover it: the bend term must */
	CHECK(worst > 200 + 550 + 1 && worst <= want, "worst %lld ns, bound %lld", (long long)worst,
	      (long long)want);
	tsc_clock_free(c);
	free(c);
}
