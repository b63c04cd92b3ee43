// SPDX-License-Identifier: GPL-2.0
/*
 * KVM's deliveries of the targets' interrupts, paired with their injections
 * into the guest; see kvm.h.
 *
 * Both sources write a KVM step taken inside a host handler before that
 * handler's interrupt record (which is written at the handler's exit), on
 * the same CPU, and a CPU's records are in time order: so each CPU keeps
 * its deliveries pending until the interrupt record of their irq comes,
 * which gives them the handler's entry time.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kvm.h"

#define PENDING_PER_CPU		4
#define GUEST_VECTORS		256

struct kvm_delivery {
	uint64_t ts;			/* the KVM step */
	uint64_t handler_ts;		/* entry of the host handler it ran in */
	uint32_t bdf;
	uint16_t stage;
	uint8_t vector;
	uint8_t reserved;
};

struct kvm_injection {
	uint64_t ts;
	uint32_t pid;
	uint8_t vector;
	bool reinjected;
};

struct cpu_pending {
	unsigned int n;
	uint32_t irq[PENDING_PER_CPU];
	struct kvm_delivery d[PENDING_PER_CPU];
};

struct kvm_work {
	struct cpu_pending *cpu[TRACEFILE_MAX_CPUS];
	struct kvm_delivery *del;
	size_t ndel, del_cap;
	struct kvm_injection *inj;
	size_t ninj, inj_cap;
};

const char *kvm_stage_name(unsigned int stage)
{
	switch (stage) {
	case GPUPROBE_KVM_MSI:		return "msi";
	case GPUPROBE_KVM_SET_IRQ:	return "set_irq";
	case GPUPROBE_KVM_ACCEPT:	return "accept";
	case GPUPROBE_KVM_INJECT:	return "inject";
	case GPUPROBE_KVM_ENTRY:	return "entry";
	case GPUPROBE_KVM_EXIT:		return "exit";
	case GPUPROBE_KVM_EOI:		return "eoi";
	case GPUPROBE_KVM_PV_EOI:	return "pv_eoi";
	case GPUPROBE_KVM_PI_IRTE:	return "pi_irte_update";
	case GPUPROBE_KVM_APIC_MODE:	return "apic_mode";
	default:			return "unknown";
	}
}

struct kvm_host *kvm_host_new(void)
{
	struct kvm_host *k = calloc(1, sizeof(*k));

	if (k && !(k->work = calloc(1, sizeof(*k->work)))) {
		free(k);
		return NULL;
	}
	return k;
}

/* Grows an array by doubling, up to KVM_MAX_EVENTS elements. */
static void *slot_in(void **arr, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 1024;
		void *p;

		if (ncap > KVM_MAX_EVENTS || !(p = realloc(*arr, ncap * size)))
			return NULL;
		*arr = p;
		*cap = ncap;
	}
	return (char *)*arr + (*n)++ * size;
}

static struct kvm_target *target_of(struct kvm_host *k, uint32_t bdf)
{
	for (unsigned int i = 0; i < k->ntargets; i++)
		if (k->targets[i].bdf == bdf)
			return &k->targets[i];
	if (k->ntargets == KVM_MAX_TARGETS)
		return NULL;
	k->targets[k->ntargets].bdf = bdf;
	hist_init(&k->targets[k->ntargets].to_inject_ns);
	hist_init(&k->targets[k->ntargets].to_deliver_ns);
	return &k->targets[k->ntargets++];
}

static void count_pid(struct kvm_pid_count *pids, unsigned int *n, uint32_t pid,
		      uint64_t *overflow)
{
	for (unsigned int i = 0; i < *n; i++)
		if (pids[i].pid == pid) {
			pids[i].count++;
			return;
		}
	if (*n == KVM_MAX_PIDS) {
		(*overflow)++;
		return;
	}
	pids[*n].pid = pid;
	pids[(*n)++].count = 1;
}

static void no_handler(struct kvm_host *k, uint32_t bdf)
{
	struct kvm_target *t = target_of(k, bdf);

	if (t)
		t->no_handler++;
	else
		k->overflow++;
}

/* A KVM step inside a target's handler: pending until its irq record. */
static void add_delivery(struct kvm_host *k, const struct gpuprobe_rec_kvm *r)
{
	struct cpu_pending **slot = &k->work->cpu[r->hdr.cpu % TRACEFILE_MAX_CPUS];
	struct cpu_pending *p = *slot;

	if (!p && !(p = *slot = calloc(1, sizeof(*p)))) {
		k->overflow++;
		return;
	}
	if (p->n == PENDING_PER_CPU) {	/* its handler's record never came */
		no_handler(k, p->d[0].bdf);
		memmove(&p->d[0], &p->d[1], (PENDING_PER_CPU - 1) * sizeof(p->d[0]));
		memmove(&p->irq[0], &p->irq[1], (PENDING_PER_CPU - 1) * sizeof(p->irq[0]));
		p->n--;
	}
	p->irq[p->n] = r->host_irq;
	p->d[p->n++] = (struct kvm_delivery){
		.ts = r->hdr.ts_ns, .bdf = r->bdf, .stage = r->stage, .vector = (uint8_t)r->vector,
	};
}

/* A target's interrupt record: the handler its pending deliveries ran in. */
static void add_handler(struct kvm_host *k, const struct gpuprobe_rec_irq *irq)
{
	struct cpu_pending *p = k->work->cpu[irq->hdr.cpu % TRACEFILE_MAX_CPUS];
	unsigned int keep = 0;

	for (unsigned int i = 0; p && i < p->n; i++) {
		struct kvm_delivery *d;

		if (p->irq[i] != irq->irq) {
			p->irq[keep] = p->irq[i];
			p->d[keep++] = p->d[i];
			continue;
		}
		d = slot_in((void **)&k->work->del, &k->work->ndel, &k->work->del_cap,
			    sizeof(*d));
		if (!d) {
			k->overflow++;
			continue;
		}
		*d = p->d[i];
		d->handler_ts = irq->hdr.ts_ns;
	}
	if (p)
		p->n = keep;
}

static void add_injection(struct kvm_host *k, const struct gpuprobe_rec_kvm *r)
{
	struct kvm_injection *in;
	bool reinjected = r->hdr.flags & GPUPROBE_KVM_REINJECTED;

	count_pid(k->pids, &k->npids, r->pid, &k->overflow);
	if (reinjected)
		k->reinjected++;
	in = slot_in((void **)&k->work->inj, &k->work->ninj, &k->work->inj_cap, sizeof(*in));
	if (!in) {
		k->overflow++;
		return;
	}
	*in = (struct kvm_injection){ .ts = r->hdr.ts_ns, .pid = r->pid,
				      .vector = (uint8_t)r->vector, .reinjected = reinjected };
}

void kvm_host_add(struct kvm_host *k, const struct gpuprobe_rec_hdr *rec)
{
	const struct gpuprobe_rec_kvm *r = (const void *)rec;

	if (rec->type == GPUPROBE_EV_IRQ) {
		add_handler(k, (const void *)rec);
		return;
	}
	/* the vCPU's own steps are the crossing's (hostpath.c), not the injection's */
	if (rec->type != TRACEFILE_REC_KVM || r->stage >= KVM_STAGES)
		return;
	k->records++;
	if (r->stage < KVM_STAGES)
		k->by_stage[r->stage]++;
	if (r->stage == GPUPROBE_KVM_INJECT)
		add_injection(k, r);
	else if (r->bdf != GPUPROBE_BDF_NONE && r->host_irq)
		add_delivery(k, r);
}

static int by_delivery_ts(const void *a, const void *b)
{
	const struct kvm_delivery *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

static int by_injection_ts(const void *a, const void *b)
{
	const struct kvm_injection *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* The last step KVM took inside the handler that this trace has. */
static uint16_t stage_to_pair(const struct kvm_host *k)
{
	static const uint16_t order[] = { GPUPROBE_KVM_ACCEPT, GPUPROBE_KVM_MSI,
					  GPUPROBE_KVM_SET_IRQ };

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		for (size_t j = 0; j < k->work->ndel; j++)
			if (k->work->del[j].stage == order[i])
				return order[i];
	return 0;
}

static void count_delivery(struct kvm_host *k, const struct kvm_delivery *d,
			   const struct kvm_injection *in)
{
	struct kvm_target *t = target_of(k, d->bdf);

	if (!t) {
		k->overflow++;
		return;
	}
	if (!t->deliveries++)
		t->vector_first = t->vector_last = d->vector;
	if (d->vector < t->vector_first)
		t->vector_first = d->vector;
	if (d->vector > t->vector_last)
		t->vector_last = d->vector;
	hist_add(&t->to_deliver_ns, d->ts - d->handler_ts);
	if (!in) {
		t->not_injected++;
		return;
	}
	t->injected++;
	count_pid(t->pids, &t->npids, in->pid, &k->overflow);
	hist_add(&t->to_inject_ns, in->ts - d->handler_ts);
}

/*
 * One walk in time order: a delivery waits in its vector's queue; an
 * injection of the vector serves every delivery waiting (the guest APIC's
 * request bit is one bit: deliveries before an injection merge into it).
 */
static void pair(struct kvm_host *k)
{
	struct kvm_work *w = k->work;
	size_t *next = malloc((w->ndel + 1) * sizeof(*next));
	size_t head[GUEST_VECTORS], tail[GUEST_VECTORS];
	size_t i = 0, j = 0;

	if (!next) {
		k->overflow += w->ndel;
		return;
	}
	for (unsigned int v = 0; v < GUEST_VECTORS; v++)
		head[v] = tail[v] = SIZE_MAX;
	while (i < w->ndel || j < w->ninj) {
		if (i < w->ndel && (j == w->ninj || w->del[i].ts <= w->inj[j].ts)) {
			struct kvm_delivery *d = &w->del[i];

			next[i] = SIZE_MAX;
			if (d->stage == k->paired_stage && head[d->vector] == SIZE_MAX)
				head[d->vector] = tail[d->vector] = i;
			else if (d->stage == k->paired_stage)
				tail[d->vector] = next[tail[d->vector]] = i;
			i++;
			continue;
		}
		if (!w->inj[j].reinjected) {
			uint8_t v = w->inj[j].vector;

			for (size_t d = head[v]; d != SIZE_MAX; d = next[d])
				count_delivery(k, &w->del[d], &w->inj[j]);
			head[v] = SIZE_MAX;
		}
		j++;
	}
	for (unsigned int v = 0; v < GUEST_VECTORS; v++)
		for (size_t d = head[v]; d != SIZE_MAX; d = next[d])
			count_delivery(k, &w->del[d], NULL);
	free(next);
}

void kvm_host_finish(struct kvm_host *k)
{
	struct kvm_work *w = k->work;

	if (!w)
		return;
	for (unsigned int c = 0; c < TRACEFILE_MAX_CPUS; c++)
		for (unsigned int i = 0; w->cpu[c] && i < w->cpu[c]->n; i++)
			no_handler(k, w->cpu[c]->d[i].bdf);
	qsort(w->del, w->ndel, sizeof(*w->del), by_delivery_ts);
	qsort(w->inj, w->ninj, sizeof(*w->inj), by_injection_ts);
	k->paired_stage = stage_to_pair(k);
	pair(k);
	for (unsigned int c = 0; c < TRACEFILE_MAX_CPUS; c++)
		free(w->cpu[c]);
	free(w->del);
	free(w->inj);
	free(w);
	k->work = NULL;
}

void kvm_host_free(struct kvm_host *k)
{
	if (!k)
		return;
	if (k->work) {
		for (unsigned int c = 0; c < TRACEFILE_MAX_CPUS; c++)
			free(k->work->cpu[c]);
		free(k->work->del);
		free(k->work->inj);
		free(k->work);
	}
	free(k);
}
