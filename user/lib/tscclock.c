// SPDX-License-Identifier: GPL-2.0
/* The exact guest clock: KVM's TSC offset and both machines' mono/TSC samples (tscclock.h). */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

#include "machine.h"
#include "tscclock.h"

void tsc_clock_init(struct tsc_clock *c)
{
	memset(c, 0, sizeof(*c));
	for (unsigned int i = 0; i < TSC_MAX_CPUS; i++)
		c->apic_of_cpu[i] = TSC_APIC_UNKNOWN;
}

void tsc_clock_free(struct tsc_clock *c)
{
	free(c->kvm);
	c->kvm = NULL;
	c->nkvm = c->kvm_cap = 0;
}

static int line_add(struct tsc_line *l, const struct tracefile_rec_tsc *r)
{
	struct tsc_point *p = &l->p[l->n];

	if (l->n >= TSC_MAX_SAMPLES || r->mono_hi < r->mono_lo)
		return -1;
	p->mono = r->mono_lo + (r->mono_hi - r->mono_lo) / 2;
	p->tsc = r->tsc;
	/* the midpoint rounds down: its half nanosecond goes into the bound */
	p->half = (r->mono_hi - r->mono_lo + 1) / 2;
	p->host_lo = r->host_lo;
	p->host_hi = r->host_hi;
	p->cpu = r->cpu;
	p->seg = 0;
	l->n++;
	return 0;
}

int tsc_clock_add(struct tsc_clock *c, const struct tracefile_rec_tsc *r)
{
	struct tsc_kvm *k;

	if (r->hdr.size < sizeof(*r))
		return -1;
	if (r->kind == TSC_REC_SAMPLE) {
		if (r->machine == MACHINE_GUEST && r->cpu < TSC_MAX_CPUS &&
		    r->apic_id != TSC_APIC_UNKNOWN)
			c->apic_of_cpu[r->cpu] = r->apic_id;
		if ((r->machine == MACHINE_GUEST ? c->guest.n : c->host.n) >= TSC_MAX_SAMPLES) {
			/* counted: the report says the clock is extrapolated past the last kept */
			if (r->machine == MACHINE_GUEST)
				c->guest_capped++;
			else
				c->host_capped++;
			return -1;
		}
		return line_add(r->machine == MACHINE_GUEST ? &c->guest : &c->host, r);
	}
	if (r->kind == TSC_REC_KVM && c->nkvm >= TSC_MAX_KVM) {
		c->kvm_capped++;
		return -1;
	}
	if (r->kind != TSC_REC_KVM || r->frac_bits > 63)
		return -1;
	if (c->nkvm == c->kvm_cap) {
		unsigned int cap = c->kvm_cap ? 2 * c->kvm_cap : 64;
		struct tsc_kvm *n = realloc(c->kvm, cap * sizeof(*n));

		if (!n)
			return -1;
		c->kvm = n;
		c->kvm_cap = cap;
	}
	k = &c->kvm[c->nkvm++];
	k->from_ns = r->flags & (TSC_KVM_TRACED | TSC_KVM_END) ? r->hdr.ts_ns : 0;
	k->vcpu = r->cpu;
	k->flags = r->flags;
	k->offset = r->tsc_offset;
	k->ratio = r->ratio;
	k->frac_bits = r->frac_bits;
	return 0;
}

/* y at x on the line through (x0, y0) and (x1, y1), rounded to nearest; exact in 128 bits. */
static uint64_t on_line(uint64_t x0, uint64_t y0, uint64_t x1, uint64_t y1, uint64_t x)
{
	__int128 dx = (__int128)x1 - (__int128)x0, num;

	if (!dx)
		return y0;
	num = ((__int128)x - (__int128)x0) * ((__int128)y1 - (__int128)y0);
	num += num >= 0 ? dx / 2 : -dx / 2;
	return (uint64_t)((__int128)y0 + num / dx);
}

/* Of p[0..n) (n >= 2), the first point of the stretch around v (by tsc, or by mono). */
static unsigned int stretch(const struct tsc_point *p, unsigned int n, uint64_t v, bool by_tsc)
{
	unsigned int lo = 0, hi = n - 1;

	/* the last point at or before v, kept inside [0, n - 2] */
	while (lo + 1 < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if ((by_tsc ? p[mid].tsc : p[mid].mono) <= v)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* v (mono, or tsc when to_mono) to the other, on the points p[0..n), n >= 1. */
static uint64_t line_map(const struct tsc_line *l, const struct tsc_point *p, unsigned int n,
			 uint64_t v, bool to_mono)
{
	const struct tsc_point *a, *b;

	if (n == 1)	/* a lone point: the line's slope */
		return to_mono ? on_line(p->tsc, p->mono, p->tsc + l->rate_tsc, p->mono + l->rate_ns, v) :
				 on_line(p->mono, p->tsc, p->mono + l->rate_ns, p->tsc + l->rate_tsc, v);
	a = &p[stretch(p, n, v, to_mono)];
	b = a + 1;
	return to_mono ? on_line(a->tsc, a->mono, b->tsc, b->mono, v) :
			 on_line(a->mono, a->tsc, b->mono, b->tsc, v);
}

static bool point_before(const struct tsc_point *a, const struct tsc_point *b)
{
	return a->seg != b->seg ? a->seg < b->seg : a->tsc < b->tsc;
}

static void line_solve(struct tsc_line *l)
{
	unsigned int first = 0;

	/* insertion sort: samples come in time order, nearly sorted */
	for (unsigned int i = 1; i < l->n; i++) {
		struct tsc_point p = l->p[i];
		unsigned int j = i;

		for (; j > 0 && point_before(&p, &l->p[j - 1]); j--)
			l->p[j] = l->p[j - 1];
		l->p[j] = p;
	}
	for (l->used = 0; l->used < l->n && l->p[l->used].seg != TSC_SEG_NONE; l->used++)
		;
	l->half_max = l->bend_ns = l->rate_tsc = l->rate_ns = 0;
	for (unsigned int i = 0; i < l->used; i++) {
		const struct tsc_point *p = l->p;
		uint64_t pred, d;

		if (p[i].half > l->half_max)
			l->half_max = p[i].half;
		/* the longest stretch inside one segment gives a lone point's slope */
		if (i && p[i - 1].seg != p[i].seg)
			first = i;
		if (p[i].mono - p[first].mono > l->rate_ns) {
			l->rate_ns = p[i].mono - p[first].mono;
			l->rate_tsc = p[i].tsc - p[first].tsc;
		}
		if (i == 0 || i + 1 == l->used || p[i - 1].seg != p[i].seg || p[i + 1].seg != p[i].seg)
			continue;
		pred = on_line(p[i - 1].tsc, p[i - 1].mono, p[i + 1].tsc, p[i + 1].mono, p[i].tsc);
		d = pred > p[i].mono ? pred - p[i].mono : p[i].mono - pred;
		if (d > l->bend_ns)
			l->bend_ns = d;
	}
}

static bool same_relation(const struct tsc_kvm *a, const struct tsc_kvm *b)
{
	return a->offset == b->offset && a->ratio == b->ratio && a->frac_bits == b->frac_bits;
}

/* The vCPU's relation in effect at host time t (not an END read); NULL none. */
static const struct tsc_kvm *in_effect(const struct tsc_clock *c, uint32_t vcpu, uint64_t t)
{
	const struct tsc_kvm *last = NULL;

	for (unsigned int i = 0; i < c->nkvm && c->kvm[i].from_ns <= t; i++)
		if (c->kvm[i].vcpu == vcpu && !(c->kvm[i].flags & TSC_KVM_END))
			last = &c->kvm[i];
	return last;
}

/* The vcpu whose offsets a guest CPU's records take. */
static uint32_t vcpu_of(const struct tsc_clock *c, uint32_t guest_cpu)
{
	if (guest_cpu < TSC_MAX_CPUS && c->apic_of_cpu[guest_cpu] != TSC_APIC_UNKNOWN &&
	    in_effect(c, c->apic_of_cpu[guest_cpu], UINT64_MAX))
		return c->apic_of_cpu[guest_cpu];
	for (unsigned int i = 0; i < c->nkvm; i++)	/* the first vcpu with a relation */
		if (!(c->kvm[i].flags & TSC_KVM_END))
			return c->kvm[i].vcpu;
	return 0;
}

static void kvm_solve(struct tsc_clock *c)
{
	const struct tsc_kvm *first = NULL;

	for (unsigned int i = 1; i < c->nkvm; i++) {
		struct tsc_kvm k = c->kvm[i];
		unsigned int j = i;

		for (; j > 0 && c->kvm[j - 1].from_ns > k.from_ns; j--)
			c->kvm[j] = c->kvm[j - 1];
		c->kvm[j] = k;
	}
	for (unsigned int i = 0; i < c->nkvm; i++) {
		const struct tsc_kvm *k = &c->kvm[i];
		const struct tsc_kvm *last = in_effect(c, k->vcpu, k->flags & TSC_KVM_END ? k->from_ns : 0);

		c->guest_mode |= k->flags & TSC_KVM_GUEST_MODE;
		c->test_offset |= k->flags & TSC_KVM_TEST;
		c->changes += !!(k->flags & TSC_KVM_TRACED);
		if (k->flags & (TSC_KVM_END | TSC_KVM_TRACED)) {
			if ((k->flags & TSC_KVM_END) && last && !same_relation(k, last) && c->usable) {
				c->usable = false;
				snprintf(c->why_not, sizeof(c->why_not),
					 "vcpu%u's TSC offset changed during the recording and kvm:kvm_write_tsc_offset did not say when",
					 k->vcpu);
			}
			continue;
		}
		if (last == k)	/* the first of its vCPU before the recording */
			c->vcpus++;
		if (!first)
			first = k;
		else if (!same_relation(first, k))
			c->vcpus_differ = true;
	}
}

/* Each guest sample's relation: the one in effect across its exchange. */
static void guest_segments(struct tsc_clock *c)
{
	for (unsigned int i = 0; i < c->guest.n; i++) {
		struct tsc_point *p = &c->guest.p[i];
		uint32_t v = vcpu_of(c, p->cpu);
		const struct tsc_kvm *a = in_effect(c, v, p->host_lo), *b = in_effect(c, v, p->host_hi);

		p->seg = a && a == b ? (uint32_t)(a - c->kvm) : TSC_SEG_NONE;
		c->guest_dropped += p->seg == TSC_SEG_NONE;
	}
}

void tsc_clock_solve(struct tsc_clock *c)
{
	c->usable = true;
	c->why_not[0] = 0;
	c->guest_dropped = c->changes = c->vcpus = 0;
	kvm_solve(c);
	guest_segments(c);
	line_solve(&c->host);
	line_solve(&c->guest);
	if (!c->usable)
		;
	else if (!c->nkvm)
		snprintf(c->why_not, sizeof(c->why_not), "no TSC offset of KVM's in the file");
	else if (c->host.used < 2 || c->guest.used < 2)
		snprintf(c->why_not, sizeof(c->why_not),
			 "too few TSC samples (host %u, guest %u; 2 each at least)", c->host.used, c->guest.used);
	else if (c->guest_mode)
		snprintf(c->why_not, sizeof(c->why_not),
			 "a vCPU ran a nested guest when its offset was read (guest_mode): the offset was L2's, not this guest's");
	c->usable = !c->why_not[0];
	/* both sides' read windows and bends, and the last tick of the scaling's rounding */
	c->error_ns = c->host.half_max + c->guest.half_max + c->host.bend_ns + c->guest.bend_ns + 1;
}

static uint64_t host_tsc_of(const struct tsc_kvm *k, uint64_t guest_tsc)
{
	/* the TSC is 64 bits and KVM's sum wraps: so does its inverse */
	uint64_t t = guest_tsc - (uint64_t)k->offset;

	if (!k->ratio)
		return t;
	return (uint64_t)(((unsigned __int128)t << k->frac_bits) / k->ratio);
}

/* The guest points read under relation seg: *n of them from the returned one. */
static const struct tsc_point *seg_points(const struct tsc_line *l, uint32_t seg, unsigned int *n)
{
	unsigned int lo = 0, hi = l->used, b;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (l->p[mid].seg < seg)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (b = lo; b < l->used && l->p[b].seg == seg; b++)
		;
	*n = b - lo;
	return &l->p[lo];
}

/* Guest ns to host ns under relation k; false when no guest sample was read under it. */
static bool map_under(const struct tsc_clock *c, const struct tsc_kvm *k, uint64_t guest_ns,
		      uint64_t *host_ns)
{
	unsigned int n;
	const struct tsc_point *p = seg_points(&c->guest, (uint32_t)(k - c->kvm), &n);
	bool sampled = n > 0;

	if (!n) {	/* the nearest relation that was: not exact, counted */
		p = &c->guest.p[0];
		n = c->guest.used;
	}
	*host_ns = line_map(&c->host, c->host.p, c->host.used,
			    host_tsc_of(k, line_map(&c->guest, p, n, guest_ns, false)), true);
	return sampled;
}

bool tsc_guest_to_host(struct tsc_clock *c, uint64_t guest_ns, uint32_t guest_cpu,
		       uint64_t *host_ns)
{
	uint32_t vcpu;
	bool sampled = false, found = false, any = false;

	if (!c->usable)
		return false;
	vcpu = vcpu_of(c, guest_cpu);
	/* the latest relation in effect at the host time it gives */
	for (unsigned int i = c->nkvm; i > 0 && !found; i--) {
		const struct tsc_kvm *k = &c->kvm[i - 1];

		if (k->vcpu != vcpu || (k->flags & TSC_KVM_END))
			continue;
		sampled = map_under(c, k, guest_ns, host_ns);
		found = k->from_ns <= *host_ns;
		any = true;
	}
	if (!any)	/* no relation of that vcpu: *host_ns untouched, the caller falls back */
		return false;
	c->unsampled += !sampled;
	return true;
}

#if defined(__x86_64__) || defined(__i386__)
int tsc_sample_now(uint64_t (*clock)(void *), void *arg, unsigned int tries,
		   struct tsc_sample *out)
{
	bool have = false;
	int apic_cpu = -1;	/* the CPU apic_id was read on */
	uint32_t apic_id = 0;

	for (unsigned int i = 0; i < tries; i++) {
		unsigned int a, b, cc, d, aux;
		int cpu = sched_getcpu();
		struct tsc_sample s;

		/* cpuid exits in a guest: outside the window, and once per CPU, so tries stay cheap */
		if (cpu != apic_cpu) {
			__cpuid(1, a, b, cc, d);
			apic_id = b >> 24;
			apic_cpu = cpu;
		}
		s.mono_lo = clock(arg);
		s.tsc = __rdtscp(&aux);
		s.mono_hi = clock(arg);
		s.cpu = aux & 0xfff;
		s.apic_id = apic_id;
		if (cpu < 0 || (unsigned int)cpu != s.cpu || sched_getcpu() != cpu) {
			apic_cpu = -1;	/* moved: the APIC id may be another CPU's */
			continue;
		}
		if (!have || s.mono_hi - s.mono_lo < out->mono_hi - out->mono_lo)
			*out = s;
		have = true;
	}
	return have ? 0 : -1;
}
#else
int tsc_sample_now(uint64_t (*clock)(void *), void *arg, unsigned int tries,
		   struct tsc_sample *out)
{
	(void)clock;
	(void)arg;
	(void)tries;
	(void)out;
	return -1;
}
#endif

void tsc_sample_record(const struct tsc_sample *s, uint32_t machine, uint64_t ts_ns,
		       struct tracefile_rec_tsc *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->hdr.type = TRACEFILE_REC_TSC;
	rec->hdr.size = sizeof(*rec);
	rec->hdr.ts_ns = ts_ns;
	rec->machine = machine;
	rec->kind = TSC_REC_SAMPLE;
	rec->cpu = s->cpu;
	rec->apic_id = s->apic_id;
	rec->mono_lo = s->mono_lo;
	rec->tsc = s->tsc;
	rec->mono_hi = s->mono_hi;
}
