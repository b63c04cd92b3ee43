// SPDX-License-Identifier: GPL-2.0
/*
 * A trace of every record type the format defines, with adversarial values:
 * timestamps that go backwards within a CPU and across CPUs, repeat (zero
 * gaps), jump by 2^63 and wrap through UINT64_MAX, step across every length
 * code of the compact encoding; CPUs up to the reader's last (8191); every
 * field stepped through 0, all ones and the compact encoding's word-length
 * edges; every op, direction, stage, phase and kind value (defined or not);
 * records that grew, records over the template limit, older modules'
 * 56-byte IOMMU records, types the reader does not know.  tests/test_roundtrip.c
 * reads it back bit for bit; gentrace writes the committed tests/traces/
 * with it.
 */
#include <stdlib.h>
#include <string.h>

#include "iommu_mode.h"
#include "strtab.h"
#include "synth.h"
#include "tscclock.h"
#include "tracefile_chunk.h"
#include "util.h"

/* Absolute timestamps: 2^63 and its neighbours, the top of the range, 0 after it. */
static const uint64_t TS_ABS[] = {
	0, 1, 0x7fffffffffffffffull, 0x8000000000000000ull, 0x8000000000000001ull,
	0xfffffffffffffffeull, 0xffffffffffffffffull, 0, 1000000000ull, 0xffffffffffffffffull,
};

/* Steps from the previous record's: every zigzag length code's edges, both ways. */
static const int64_t TS_STEP[] = {
	0, 1, -1, 127, 128, -128, -129, 32767, 32768, -32768, -32769,
	0x7fffffff, 0x80000000ll, -0x80000000ll, -0x80000001ll, 0x100000000ll, -0x100000000ll,
	0x4000000000000000ll, INT64_MAX, INT64_MIN, 0, 0,
};

/* Word values whose differences cross every compact word-length code. */
static const uint32_t V32[] = {
	0, 1, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000,
	0x7fffffff, 0x80000000u, 0xfffffffeu, 0xffffffffu, 0xdeadbeefu, 3,
};

static const uint64_t V64[] = {
	0, 1, 0xffffffffull, 0x100000000ull, 0x8000000000000000ull, 0xffffffffffffffffull,
	0x7fffffffffffffffull, 0xfffffffffffff000ull, 0x123456789abcdef0ull, 4096,
	0xffffffff00000000ull, 0x80000000ull, 2, 0xfffffffffffffffeull, 0x100000001ull, 7,
};

static const uint16_t CPUS[] = { 0, 1, 8191, 0, 2, 8191, 4095, 1, 8190 };
static const uint16_t FLAGS[] = { 0, 0xffff, 1, 0x8000, 0x7fff, 2, 0 };

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define ROUNDS 16

struct gen {
	struct synth_recs *s;
	uint64_t ts;
	unsigned int k;		/* records made */
};

static uint32_t v32(unsigned int j, unsigned int f)
{
	return V32[(j + 5 * f) % N(V32)];
}

static uint64_t v64(unsigned int j, unsigned int f)
{
	return V64[(j + 3 * f) % N(V64)];
}

static uint64_t next_ts(struct gen *g)
{
	unsigned int k = g->k;

	if (k % 3 == 0)
		g->ts = TS_ABS[(k / 3) % N(TS_ABS)];
	else
		g->ts += (uint64_t)TS_STEP[k % N(TS_STEP)];
	return g->ts;
}

/* A zeroed record of type and size at the end of the list, its header filled. */
static void *add(struct gen *g, uint16_t type, uint16_t size)
{
	struct synth_recs *s = g->s;
	struct gpuprobe_rec_hdr *h;

	if (s->len + size > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1u << 16;
		unsigned char *b;

		while (cap < s->len + size)
			cap *= 2;
		b = realloc(s->buf, cap);
		if (!b)
			abort();
		s->buf = b;
		s->cap = cap;
	}
	h = (void *)(s->buf + s->len);
	memset(h, 0, size);
	h->type = type;
	h->size = size;
	h->cpu = CPUS[g->k % N(CPUS)];
	h->flags = FLAGS[g->k % N(FLAGS)];
	h->ts_ns = next_ts(g);
	s->len += size;
	s->n++;
	if (!tracefile_record_min_size(type))
		s->unknown++;
	g->k++;
	return h;
}

/* Bytes past a record's struct (it grew): a pattern that is neither 0 nor constant. */
static void fill_tail(void *rec, size_t from, size_t size, unsigned int j)
{
	unsigned char *p = rec;

	for (size_t i = from; i < size; i++)
		p[i] = (unsigned char)(i * 37 + j);
}

static void put_irq(struct gen *g, unsigned int j, uint16_t size)
{
	struct gpuprobe_rec_irq *r = add(g, GPUPROBE_EV_IRQ, size);

	r->bdf = j % 4 ? v32(j, 0) : GPUPROBE_BDF_NONE;
	r->irq = v32(j, 1);
	r->vector = v32(j, 2);
	r->reserved = v32(j, 3);
	r->duration_ns = v64(j, 0);
	fill_tail(r, sizeof(*r), size, j);
}

static void put_small(struct gen *g, unsigned int j)
{
	struct gpuprobe_rec_lost *l = add(g, GPUPROBE_EV_LOST, sizeof(*l));
	struct gpuprobe_rec_target *t;
	struct gpuprobe_rec_sched *s;
	struct gpuprobe_rec_swiotlb *w;

	l->count = v64(j, 1);
	t = add(g, GPUPROBE_EV_TARGET, sizeof(*t));
	t->bdf = v32(j, 4);
	t->event = j % 7;	/* 0 and 6 are not events: carried as they are */
	t->nvec = j % 3 ? v32(j, 5) : 256;
	t->domain = v32(j, 6);
	for (uint16_t type = GPUPROBE_EV_WAKEUP; type <= GPUPROBE_EV_SWITCH; type++) {
		s = add(g, type, sizeof(*s));
		s->pid = v32(j, 7 + type);
		s->tgid = v32(j, 8 + type);
		s->prev_pid = v32(j, 9 + type);
		s->target_cpu = j % 2 ? v32(j, 10) : 8191;
	}
	w = add(g, GPUPROBE_EV_SWIOTLB, sizeof(*w));
	w->bdf = v32(j, 11);
	w->dir = j % 5 == 4 ? v32(j, 12) : j % 5;	/* DMA_BIDIRECTIONAL .. DMA_NONE, and more */
	w->bytes = v64(j, 2);
}

static void put_dma_iommu(struct gen *g, unsigned int j)
{
	struct gpuprobe_rec_dma *d = add(g, GPUPROBE_EV_DMA, sizeof(*d));
	struct gpuprobe_rec_iommu *io;
	uint16_t iosize = j % 4 == 3 ? GPUPROBE_REC_IOMMU_SIZE_V1 : sizeof(*io);

	d->bdf = v32(j, 13);
	d->op = (uint16_t)(j < 10 ? j : j == 10 ? 0xffff : j % 9);	/* every op, 0, 9 and 0xffff */
	d->dir = (uint8_t)(j < 5 ? j : j == 5 ? 0xff : j % 4);
	d->reserved = (uint8_t)(j * 17);
	d->bytes = v64(j, 3);
	d->dma_addr = j % 2 ? v64(j, 4) : (j % 4 ? ~0ull : 0);
	d->nents = v32(j, 14);
	d->iommu_calls = v32(j, 15);
	d->duration_ns = v64(j, 5);
	d->iommu_ns = v64(j, 6);
	io = add(g, GPUPROBE_EV_IOMMU, iosize);
	io->bdf = j % 3 ? v32(j, 16) : GPUPROBE_BDF_NONE;
	io->op = j % 6;		/* MAP, UNMAP, FAULT, and values that are none */
	io->iova = j % 2 ? 0 : ~0ull;
	io->paddr = v64(j, 7);
	io->size = v64(j, 8);
	io->duration_ns = v64(j, 9);
	if (iosize == sizeof(*io)) {
		io->domain = v32(j, 17);
		io->pid = v32(j, 18);
	}
}

static void put_file_types(struct gen *g, unsigned int j)
{
	struct tracefile_rec_irq_count *c = add(g, TRACEFILE_REC_IRQ_COUNT, sizeof(*c));
	struct tracefile_rec_vector *v;
	struct gpuprobe_rec_kvm *k;
	struct tracefile_rec_clock_sync *cs;

	c->bdf = v32(j, 19);
	c->irq = v32(j, 20);
	c->phase = j % 4;
	c->reserved = v32(j, 21);
	c->count = v64(j, 10);
	v = add(g, TRACEFILE_REC_VECTOR, sizeof(*v));
	v->bdf = v32(j, 22);
	v->irq = v32(j, 23);
	v->index = v32(j, 24);
	v->flags = (uint16_t)v32(j, 25);
	v->change = (uint16_t)(j % 4 == 3 ? 0xffff : j % 4);
	k = add(g, TRACEFILE_REC_KVM, sizeof(*k));
	k->bdf = j % 2 ? GPUPROBE_BDF_NONE : v32(j, 26);
	k->host_irq = v32(j, 27);
	k->pid = v32(j, 28);
	k->tid = v32(j, 29);
	k->vcpu = j % 3 ? v32(j, 30) : GPUPROBE_KVM_VCPU_NONE;
	k->vector = v32(j, 31);
	k->stage = (uint16_t)(j % 6);
	k->reserved = (uint16_t)v32(j, 32);
	k->level = v32(j, 33);
	k->msi_address = j % 2 ? ~0ull : v64(j, 11);
	cs = add(g, TRACEFILE_REC_CLOCK_SYNC, sizeof(*cs));
	cs->machine = v32(j, 34);
	cs->kind = (uint16_t)(j % 4);
	cs->samples = (uint16_t)v32(j, 35);
	cs->offset_ns = j % 3 ? (int64_t)v64(j, 12) : INT64_MIN;
	cs->error_ns = v64(j, 13);
	cs->drift_ppb = j % 2 ? INT64_MAX : -(int64_t)j;
	cs->guest_ns = v64(j, 14);
}

static void put_app(struct gen *g, unsigned int j)
{
	struct tracefile_rec_app *a = add(g, TRACEFILE_REC_APP, sizeof(*a));
	struct gpuprobe_app_event *e = &a->ev;

	e->magic = j % 5 ? GPUPROBE_APP_MAGIC : (uint16_t)v32(j, 36);
	e->version = (uint8_t)(j % 3);
	e->api = (uint8_t)(j % 4);
	e->size = j % 5 ? sizeof(*e) : (uint16_t)v32(j, 37);
	e->type = (uint16_t)(j % 10);		/* every type 1..8, and 0 and 9 */
	e->kind = v32(j, 38);
	e->flags = j % 2 ? 0x7f : v32(j, 39);
	e->pid = v32(j, 40);
	e->tid = v32(j, 41);
	e->device = v32(j, 42);
	e->stream = j % 3 ? v32(j, 43) : GPUPROBE_APP_ALL_STREAMS;
	e->correlation = v64(j, 15);
	e->start_ns = v64(j, 16);
	e->end_ns = v64(j, 17);
	e->queued_ns = v64(j, 18);
	e->bytes = v64(j, 19);
	if (j % 4 == 0)		/* 64 bytes, no NUL: the format carries them */
		memset(e->name, 'a' + (int)(j % 26), sizeof(e->name));
	else
		snprintf(e->name, sizeof(e->name), "k%u_%.*s", j, (int)(j * 3),
			 "_Z13MatrixMulCUDAILi32EEvPfS0_S0_iiXYZ");
}

/* A machine record with one target and two vectors, and guest wrappers around three records. */
static void put_merged(struct gen *g, unsigned int j)
{
	const uint16_t msize = sizeof(struct tracefile_rec_machine) + sizeof(struct tracefile_target) +
			       2 * sizeof(struct tracefile_vector);
	struct tracefile_rec_machine *m = add(g, TRACEFILE_REC_MACHINE, msize);
	struct tracefile_target *t = (void *)(m + 1);
	struct tracefile_vector *v = (void *)(t + 1);
	static const uint16_t inner[] = { sizeof(struct gpuprobe_rec_irq), GPUPROBE_REC_IOMMU_SIZE_V1, 24 };

	m->machine = j % 2;
	m->role = 1 + j % 3;
	m->source = v32(j, 44);
	m->ntargets = 1;
	m->start_ns = v64(j, 20);
	m->start_realtime_ns = v64(j, 21);
	snprintf(m->host, sizeof(m->host), "guest-%u", j);
	memset(m->kernel_release, 'r', sizeof(m->kernel_release) - 1);
	snprintf(m->tool_version, sizeof(m->tool_version), "v%u", j);
	snprintf(m->address, sizeof(m->address), "vsock:%u:5999", v32(j, 45));
	m->flags = v32(j, 46);
	m->exit_status = j % 2 ? -1 : INT32_MIN + (int32_t)j;
	m->records = v64(j, 22);
	m->stop_ns = v64(j, 23);
	*t = (struct tracefile_target){ .bdf = v32(j, 47), .vendor = 0x10de, .device = 0xffff,
					.class = v32(j, 48), .nvec = 2 };
	snprintf(t->driver, sizeof(t->driver), "vfio-pci");
	v[0] = (struct tracefile_vector){ v32(j, 49), v32(j, 50), 1, v32(j, 51) };
	v[1] = (struct tracefile_vector){ 0xffffffffu, 0, 0, 0 };
	for (unsigned int i = 0; i < N(inner); i++) {
		uint16_t size = (uint16_t)(sizeof(struct tracefile_rec_guest) + inner[i]);
		struct tracefile_rec_guest *w = add(g, TRACEFILE_REC_GUEST, size);
		struct gpuprobe_rec_hdr *h = (void *)(w + 1);

		w->machine = j % 3 ? 1 : v32(j, 52);
		w->reserved = v32(j, 53);
		h->type = i == 0 ? GPUPROBE_EV_IRQ : i == 1 ? GPUPROBE_EV_IOMMU : 0x4242;
		h->size = inner[i];
		h->cpu = (uint16_t)v32(j, 54);	/* the guest's own: not checked against 8192 */
		h->flags = (uint16_t)v32(j, 55);
		h->ts_ns = v64(j, 24 + i);
		fill_tail(h, sizeof(*h), inner[i], j + i);
	}
}

/*
 * The record types added after the committed traces were written (IOMMU
 * parts, command, delivery, string, TSC, IOMMU mode; issue 28), with
 * adversarial values too: parts and kinds that are none, string records
 * whose length, NUL or hash is wrong, a command whose counts disagree with
 * its text, mode strings without a NUL, a record that grew.  Only with
 * synth_fields_set_newer(true): the committed traces hold none of them.
 */
static bool with_newer;

void synth_fields_set_newer(bool on)
{
	with_newer = on;
}

static void put_part_delivery(struct gen *g, unsigned int j)
{
	struct gpuprobe_rec_iommu_part *p = add(g, GPUPROBE_EV_IOMMU_PART, sizeof(*p));
	struct tracefile_rec_delivery *d;

	p->bdf = j % 3 ? v32(j, 56) : GPUPROBE_BDF_NONE;
	p->part = (uint16_t)(j < 10 ? j : j == 10 ? 0xffff : j % 9);	/* every part, 0, 9 and more */
	p->depth = (uint16_t)v32(j, 57);
	p->duration_ns = v64(j, 27);
	p->self_ns = v64(j, 28);
	p->call_ts = j % 4 ? v64(j, 29) : 0;	/* 0: the flush queue's timer */
	p->domain = v32(j, 58);
	p->arg = v32(j, 59);
	d = add(g, TRACEFILE_REC_DELIVERY, sizeof(*d));
	d->slots = v32(j, 60);
	d->high_water_cpu = j % 2 ? 8191 : v32(j, 61);
	d->high_water = v64(j, 30);
	d->wait_max_ns = v64(j, 31);
	d->ring_dropped = v64(j, 32);
	d->undelivered = v64(j, 33);
	d->overrun = v64(j, 34);
	d->socket_overflows = v64(j, 35);
	d->rcvbuf = j % 3 ? (int32_t)v32(j, 62) : INT32_MIN;
	d->reserved = v32(j, 63);
}

/* A command record: nargs strings of j characters or so; counts off the text when j % 4 == 3. */
static void put_command(struct gen *g, unsigned int j)
{
	char text[128];
	size_t len = 0;
	uint32_t nargs = 1 + j % 4;
	struct tracefile_rec_command *c;

	for (uint32_t i = 0; i < nargs; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "arg%u-%.*s", i, (int)j,
					"xxxxxxxxxxxxxxxx") + 1;
	c = add(g, TRACEFILE_REC_COMMAND, (uint16_t)((sizeof(*c) + len + 7) & ~(size_t)7));
	c->argc = j % 4 == 3 ? v32(j, 64) : nargs;
	c->nargs = j % 4 == 3 ? nargs + 7 : nargs;
	c->len = j % 4 == 3 ? (uint32_t)len + 9 : (uint32_t)len;
	c->flags = j % 2 ? COMMAND_CUT : v32(j, 65);
	memcpy(c + 1, text, len);
}

/*
 * A string record of j * 37 + 1 bytes of text: whole (its hash the text's),
 * cut (STRING_CUT, any hash), or malformed: a wrong hash, a NUL inside, a
 * length past the record.  Once the longest text the format keeps.
 */
static void put_string(struct gen *g, unsigned int j)
{
	size_t len = j == 7 ? TRACEFILE_STRING_MAX : j * 37 + 1;
	uint16_t size = (uint16_t)((sizeof(struct tracefile_rec_string) + len + 1 + 7) & ~(size_t)7);
	struct tracefile_rec_string *r = add(g, TRACEFILE_REC_STRING, size);
	char *text = (char *)(r + 1);

	for (size_t i = 0; i < len; i++)
		text[i] = (char)(' ' + (i * 7 + j) % 95);
	r->len = (uint32_t)len;
	r->flags = j % 5 == 1 ? STRING_CUT : 0;
	r->hash = strtab_hash(text, len);
	switch (j % 5) {
	case 2: r->hash ^= 1ull << 63; break;			/* not the text's */
	case 3: text[len / 2] = '\0'; break;			/* a NUL inside */
	case 4: r->len = (uint32_t)(size - sizeof(*r)); break;	/* no NUL after it */
	}
}

static void put_tsc_mode(struct gen *g, unsigned int j)
{
	struct tracefile_rec_tsc *t = add(g, TRACEFILE_REC_TSC, sizeof(*t));
	struct tracefile_rec_iommu_mode *m;
	uint16_t msize = j % 5 == 3 ? sizeof(*m) + 8 : sizeof(*m);	/* grown */

	t->machine = j % 3 ? (uint32_t)(j % 2) : v32(j, 66);
	t->kind = (uint16_t)(j % 4);		/* SAMPLE, KVM, and 0 and 3: none */
	t->flags = (uint16_t)v32(j, 67);
	t->cpu = v32(j, 68);
	t->apic_id = j % 2 ? TSC_APIC_UNKNOWN : v32(j, 69);
	t->mono_lo = v64(j, 36);
	t->tsc = v64(j, 37);
	t->mono_hi = v64(j, 38);
	t->tsc_offset = j % 3 ? (int64_t)v64(j, 39) : INT64_MIN;
	t->ratio = v64(j, 40);
	t->frac_bits = j % 2 ? 48 : v32(j, 70);
	t->reserved = v32(j, 71);
	t->host_lo = v64(j, 41);
	t->host_hi = v64(j, 42);
	m = add(g, TRACEFILE_REC_IOMMU_MODE, msize);
	m->bdf = v32(j, 72);
	m->flags = v32(j, 73);
	m->pgsizes = v64(j, 43);
	if (j % 4 == 0) {	/* 16 bytes, no NUL: the format carries them */
		memset(m->vendor, 'i', sizeof(m->vendor));
		memset(m->domain_type, 'D', sizeof(m->domain_type));
	} else {
		snprintf(m->vendor, sizeof(m->vendor), "%s", j % 4 == 1 ? "intel" : j % 4 == 2 ? "amd" : "");
		snprintf(m->domain_type, sizeof(m->domain_type), "%s", j % 3 ? "DMA-FQ" : "identity");
	}
	fill_tail(m, sizeof(*m), msize, j);
}

static void put_xen(struct gen *g, unsigned int j)
{
	struct tracefile_rec_xen *x = add(g, TRACEFILE_REC_XEN, sizeof(*x));

	x->kind = (uint16_t)(j % 5);		/* 1-3, and 0 and 4: none */
	x->flags = (uint16_t)v32(j, 74);
	x->irq = v32(j, 75);
	x->vector = v32(j, 76);
	x->cycles = v32(j, 77);
	x->tsc = v64(j, 44);
	x->count = v64(j, 45);
}

static void put_newer(struct gen *g, unsigned int j)
{
	put_part_delivery(g, j);
	put_command(g, j);
	put_string(g, j);
	put_tsc_mode(g, j);
	put_xen(g, j);
}

/* Types the reader does not know: skipped and counted, never handed out. */
static void put_unknown(struct gen *g, unsigned int j)
{
	static const uint16_t types[] = { 0x7777, GPUPROBE_EV_KVM, 0x8009, 0xffff };
	uint16_t size = (uint16_t)(16 + 8 * (j % 4));
	void *r = add(g, types[j % N(types)], size);

	fill_tail(r, 16, size, j);
}

void synth_fields_info(struct trace_info *info, unsigned int ntargets)
{
	memset(info, 0, sizeof(*info));
	info->format_version = TRACEFILE_VERSION;
	info->record_version = GPUPROBE_RECORD_VERSION;
	info->clock_id = 1;	/* CLOCK_MONOTONIC */
	info->source = 0xffffffffu;	/* none of the sources: carried as it is */
	info->start_ns = 0xffffffffffffffffull;
	info->start_realtime_ns = 0x8000000000000000ull;
	info->app_events = TRACEFILE_APP_EXPECTED;
	memset(info->host, 'h', sizeof(info->host) - 1);
	snprintf(info->kernel_release, sizeof(info->kernel_release), "6.1.0-adversarial");
	memset(info->tool_version, 't', sizeof(info->tool_version) - 1);
	info->targets.count = ntargets;
	for (unsigned int i = 0; i < ntargets; i++) {
		struct target *t = &info->targets.t[i];

		t->bdf = i ? GPUPROBE_BDF(0xffff - i, 0xff, 0xff - i) : 0;
		t->vendor = (uint16_t)(i ? 0xffff : 0);
		t->device = (uint16_t)(0x2335 + i);
		t->class = i ? 0xffffffffu : 0x030200;
		bdf_format(t->bdf, t->name);
		if (i % 2)
			memset(t->driver, 'd', sizeof(t->driver) - 1);
		t->nvec = i == ntargets - 1 ? TARGET_MAX_VECTORS : i;
		for (uint32_t v = 0; v < t->nvec; v++)
			t->vec[v] = (struct target_vector){ v32(v, i), v32(v, i + 1), v % 3 ? VECTOR_MSIX : v };
	}
}

int synth_fields_build(struct synth_recs *s, bool big)
{
	struct gen g = { .s = s };

	memset(s, 0, sizeof(*s));
	for (unsigned int j = 0; j < ROUNDS; j++) {
		put_irq(&g, j, sizeof(struct gpuprobe_rec_irq));
		put_irq(&g, j + 1, sizeof(struct gpuprobe_rec_irq));
		put_small(&g, j);
		put_dma_iommu(&g, j);
		put_file_types(&g, j);
		put_app(&g, j);
		put_unknown(&g, j);
		if (with_newer)
			put_newer(&g, j);
		if (j % 4 == 1)
			put_merged(&g, j);
		/* grown: 8 bytes more (its own template), then over the template limit */
		if (j % 5 == 2) {
			put_irq(&g, j, sizeof(struct gpuprobe_rec_irq) + 8);
			put_irq(&g, j + 2, sizeof(struct gpuprobe_rec_irq) + 8);
			put_irq(&g, j, CHUNK_TEMPLATE_MAX + 8);
		}
	}
	if (big)	/* the largest record hdr.size can say */
		put_irq(&g, 3, TRACEFILE_REC_MAX_SIZE);
	put_irq(&g, 4, sizeof(struct gpuprobe_rec_irq));
	return 0;
}

void synth_recs_append(struct synth_recs *s, const struct gpuprobe_rec_hdr *h)
{
	if (s->len + h->size > s->cap) {
		s->cap = (s->cap + h->size) * 2;
		s->buf = realloc(s->buf, s->cap);
		if (!s->buf)
			abort();
	}
	memcpy(s->buf + s->len, h, h->size);
	s->len += h->size;
	s->n++;
}

void synth_recs_free(struct synth_recs *s)
{
	free(s->buf);
	memset(s, 0, sizeof(*s));
}
