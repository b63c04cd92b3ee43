// SPDX-License-Identifier: GPL-2.0
/*
 * Each interrupt's path through the host (hostpath.h).  The VMM's KVM steps
 * are kept sorted by (thread, time): a pair's vCPU thread (the one that
 * injected it) is a range of them, and each question below is a binary
 * search in that range.  The in-handler steps (irqfd) are thread 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crossing.h"
#include "hostpath.h"
#include "passthrough.h"

/* SVM (arch/x86/include/uapi/asm/svm.h) and VMX (vmx.h) exit reasons */
#define SVM_INTR	0x060
#define SVM_VINTR	0x064
#define SVM_HLT		0x078
#define SVM_IOIO	0x07b
#define SVM_MSR		0x07c
#define SVM_NPF		0x400
#define SVM_AVIC_IPI	0x401
#define SVM_AVIC_ACCESS	0x402
#define VMX_EXT_INTR	1
#define VMX_IRQ_WINDOW	7
#define VMX_HLT		12
#define VMX_IO		30
#define VMX_MSR_WRITE	32
#define VMX_APIC_ACCESS	44
#define VMX_EOI_INDUCED	45
#define VMX_EPT_VIOL	48
#define VMX_EPT_MISCONF	49
#define VMX_APIC_WRITE	56

const char *hostpath_reason_name(uint16_t isa, uint32_t reason)
{
	static const struct { uint16_t isa; uint32_t reason; const char *name; } names[] = {
		{ GPUPROBE_KVM_ISA_SVM, SVM_INTR, "INTR" },
		{ GPUPROBE_KVM_ISA_SVM, SVM_VINTR, "VINTR" },
		{ GPUPROBE_KVM_ISA_SVM, 0x072, "CPUID" },
		{ GPUPROBE_KVM_ISA_SVM, 0x077, "PAUSE" },
		{ GPUPROBE_KVM_ISA_SVM, SVM_HLT, "HLT" },
		{ GPUPROBE_KVM_ISA_SVM, SVM_IOIO, "IOIO" },
		{ GPUPROBE_KVM_ISA_SVM, SVM_MSR, "MSR" },
		{ GPUPROBE_KVM_ISA_SVM, 0x081, "VMMCALL" },
		{ GPUPROBE_KVM_ISA_SVM, SVM_NPF, "NPF" },
		{ GPUPROBE_KVM_ISA_SVM, SVM_AVIC_IPI, "AVIC_INCOMPLETE_IPI" },
		{ GPUPROBE_KVM_ISA_SVM, SVM_AVIC_ACCESS, "AVIC_UNACCELERATED_ACCESS" },
		{ GPUPROBE_KVM_ISA_VMX, 0, "EXCEPTION_NMI" },
		{ GPUPROBE_KVM_ISA_VMX, VMX_EXT_INTR, "EXTERNAL_INTERRUPT" },
		{ GPUPROBE_KVM_ISA_VMX, VMX_IRQ_WINDOW, "INTERRUPT_WINDOW" },
		{ GPUPROBE_KVM_ISA_VMX, 10, "CPUID" },
		{ GPUPROBE_KVM_ISA_VMX, VMX_HLT, "HLT" },
		{ GPUPROBE_KVM_ISA_VMX, 18, "VMCALL" },
		{ GPUPROBE_KVM_ISA_VMX, VMX_IO, "IO_INSTRUCTION" },
		{ GPUPROBE_KVM_ISA_VMX, 31, "MSR_READ" },
		{ GPUPROBE_KVM_ISA_VMX, VMX_MSR_WRITE, "MSR_WRITE" },
		{ GPUPROBE_KVM_ISA_VMX, 40, "PAUSE_INSTRUCTION" },
		{ GPUPROBE_KVM_ISA_VMX, VMX_APIC_ACCESS, "APIC_ACCESS" },
		{ GPUPROBE_KVM_ISA_VMX, VMX_EOI_INDUCED, "EOI_INDUCED" },
		{ GPUPROBE_KVM_ISA_VMX, VMX_EPT_VIOL, "EPT_VIOLATION" },
		{ GPUPROBE_KVM_ISA_VMX, VMX_EPT_MISCONF, "EPT_MISCONFIG" },
		{ GPUPROBE_KVM_ISA_VMX, 52, "PREEMPTION_TIMER" },
		{ GPUPROBE_KVM_ISA_VMX, VMX_APIC_WRITE, "APIC_WRITE" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].isa == isa && names[i].reason == reason)
			return names[i].name;
	return NULL;
}

const char *hostpath_state_name(unsigned int state)
{
	static const char *const names[VCPU_STATES] = {
		[VCPU_UNKNOWN] = "unknown", [VCPU_IN_GUEST] = "in_guest",
		[VCPU_HALTED] = "halted", [VCPU_IN_HOST] = "in_host",
	};

	return state < VCPU_STATES ? names[state] : "unknown";
}

const char *hostpath_eoi_name(unsigned int kind)
{
	static const char *const names[EOI_KINDS] = {
		[EOI_NONE] = "none", [EOI_MSR_EXIT] = "msr_exit", [EOI_APIC_EXIT] = "apic_exit",
		[EOI_PV] = "pv_eoi", [EOI_OTHER_EXIT] = "other_exit",
	};

	return kind < EOI_KINDS ? names[kind] : "none";
}

static bool is_hlt(uint16_t isa, uint32_t reason)
{
	return (isa == GPUPROBE_KVM_ISA_SVM && reason == SVM_HLT) ||
	       (isa == GPUPROBE_KVM_ISA_VMX && reason == VMX_HLT);
}

static bool is_msr_eoi(uint16_t isa, uint32_t reason)
{
	return (isa == GPUPROBE_KVM_ISA_SVM && reason == SVM_MSR) ||
	       (isa == GPUPROBE_KVM_ISA_VMX && reason == VMX_MSR_WRITE);
}

static bool is_apic_eoi(uint16_t isa, uint32_t reason)
{
	if (isa == GPUPROBE_KVM_ISA_SVM)
		return reason == SVM_NPF || reason == SVM_AVIC_ACCESS;
	return isa == GPUPROBE_KVM_ISA_VMX &&
	       (reason == VMX_APIC_ACCESS || reason == VMX_EOI_INDUCED ||
		reason == VMX_APIC_WRITE || reason == VMX_EPT_MISCONF);
}

void hostpath_add(struct hostpath_input *in, const struct gpuprobe_rec_kvm *k)
{
	struct hostpath_event *e;
	bool in_handler = k->stage == GPUPROBE_KVM_MSI || k->stage == GPUPROBE_KVM_SET_IRQ;

	switch (k->stage) {
	case GPUPROBE_KVM_APIC_MODE:
		in->have_mode = true;
		in->avic = k->vector;
		in->apicv = k->level;
		return;
	case GPUPROBE_KVM_PI_IRTE:
		if (k->level)
			in->pi_posted++;
		else
			in->pi_unposted++;
		return;
	case GPUPROBE_KVM_MSI:
	case GPUPROBE_KVM_SET_IRQ:
		if (k->bdf == GPUPROBE_BDF_NONE || !k->host_irq)
			return;		/* not inside a target's handler */
		break;
	case GPUPROBE_KVM_INJECT:
	case GPUPROBE_KVM_ENTRY:
	case GPUPROBE_KVM_EXIT:
	case GPUPROBE_KVM_EOI:
	case GPUPROBE_KVM_PV_EOI:
		break;
	default:
		return;
	}
	if (in->n >= (in->max ? in->max : HOSTPATH_MAX_EVENTS)) {
		in->dropped++;
		return;
	}
	if (in->n == in->cap) {
		size_t cap = in->cap ? 2 * in->cap : 4096;

		if (!(e = realloc(in->e, cap * sizeof(*e)))) {
			in->dropped++;
			return;
		}
		in->e = e;
		in->cap = cap;
	}
	in->entries_exits += k->stage == GPUPROBE_KVM_ENTRY || k->stage == GPUPROBE_KVM_EXIT;
	in->e[in->n++] = (struct hostpath_event){
		.ts = k->hdr.ts_ns, .tid = in_handler ? 0 : k->tid, .cpu = k->hdr.cpu,
		.value = in_handler ? k->host_irq : k->vector, .stage = (uint8_t)k->stage,
		.reinjected = k->stage == GPUPROBE_KVM_INJECT && (k->hdr.flags & GPUPROBE_KVM_REINJECTED),
		.isa = k->stage == GPUPROBE_KVM_EXIT ? (uint16_t)k->level : 0,
	};
	in->sorted = false;
}

void hostpath_free(struct hostpath_input *in)
{
	if (in)
		free(in->e);
	free(in);
}

static int by_thread_time(const void *a, const void *b)
{
	const struct hostpath_event *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->ts > y->ts) - (x->ts < y->ts);
}

/* The first event of thread tid at or after ts (in->n: none). */
static size_t first_at(const struct hostpath_input *in, uint32_t tid, uint64_t ts)
{
	size_t lo = 0, hi = in->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct hostpath_event *e = &in->e[mid];

		if (e->tid < tid || (e->tid == tid && e->ts < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The VM entry that delivers the pair's injection: the first after it, or,
 * where KVM reinjects the vector (the entry was cancelled, or the guest did
 * not take it and the exit gave it back), the first after the last
 * reinjection before the guest's EOI.  The search ends at that EOI or at the
 * vector's next injection (in->n: no entry).
 */
static size_t delivering_entry(struct hostpath_input *in, const struct pt_pair *p)
{
	size_t entry = in->n;

	if (!in->entries_exits)
		return in->n;
	for (size_t i = first_at(in, p->vcpu_tid, p->inject_ts);
	     i < in->n && in->e[i].tid == p->vcpu_tid; i++) {
		const struct hostpath_event *e = &in->e[i];

		in->visited++;
		if (e->stage == GPUPROBE_KVM_ENTRY && entry == in->n)
			entry = i;
		if (e->stage == GPUPROBE_KVM_EOI && e->value == p->vector && entry != in->n)
			break;
		if (e->stage != GPUPROBE_KVM_INJECT || e->value != p->vector || e->ts <= p->inject_ts)
			continue;
		if (!e->reinjected)
			break;		/* the vector's next interrupt */
		entry = in->n;		/* delivered at the entry after this one */
	}
	return entry;
}

/* The irqfd step inside the pair's handler: its MSI routing, else its GSI. */
static uint64_t irqfd_of(const struct hostpath_input *in, const struct pt_pair *p)
{
	uint64_t set_irq = 0;

	for (size_t i = first_at(in, 0, p->host_ts);
	     i < in->n && !in->e[i].tid && in->e[i].ts <= p->host_ts + p->host_duration; i++) {
		if (in->e[i].cpu != p->host_cpu)
			continue;
		if (in->e[i].stage == GPUPROBE_KVM_MSI)
			return in->e[i].ts;
		if (!set_irq)
			set_irq = in->e[i].ts;
	}
	return set_irq;
}

/*
 * The vCPU thread at time ts: the last entry or exit before it.  An
 * injection (kvm_inj_virq runs in the host, just before an entry) with no
 * entry after it: still in the host.  So the search stops there, and it is
 * not made where no entry or exit was traced: it would walk the thread's
 * every injection for each pair.
 */
static uint8_t state_at(struct hostpath_input *in, uint32_t tid, uint64_t ts)
{
	size_t i = first_at(in, tid, ts);

	if (!in->entries_exits)
		return VCPU_UNKNOWN;
	while (i-- > 0 && in->e[i].tid == tid) {
		const struct hostpath_event *e = &in->e[i];

		in->visited++;
		if (e->stage == GPUPROBE_KVM_ENTRY)
			return VCPU_IN_GUEST;
		if (e->stage == GPUPROBE_KVM_EXIT)
			return is_hlt(e->isa, e->value) ? VCPU_HALTED : VCPU_IN_HOST;
		if (e->stage == GPUPROBE_KVM_INJECT)
			return VCPU_IN_HOST;
	}
	return VCPU_UNKNOWN;
}

/*
 * The guest's EOI of the pair's vector after its delivering entry, and the
 * exit KVM took it in: the one of the same stay in the host (between two
 * entries).  An EOI written to the x2APIC MSR or the APIC page is handled
 * after its exit is traced; a PV EOI is synced from the guest's page on the
 * way out of the guest, before SVM traces the exit (kvm_exit fires in
 * handle_exit): so the exit before the EOI in that stay, else the one after.
 */
static void eoi_of(struct hostpath_input *in, struct pt_pair *p, size_t entry)
{
	const struct hostpath_event *exit = NULL;
	size_t i;

	for (i = entry; i < in->n && in->e[i].tid == p->vcpu_tid; i++) {
		const struct hostpath_event *e = &in->e[i];

		in->visited++;
		if (e->stage == GPUPROBE_KVM_ENTRY)
			exit = NULL;
		if (e->stage == GPUPROBE_KVM_EXIT)
			exit = e;
		if (e->stage == GPUPROBE_KVM_EOI && e->value == p->vector)
			break;
		if (e->stage == GPUPROBE_KVM_INJECT && e->value == p->vector && e->ts > p->entry_ts &&
		    !e->reinjected)
			return;		/* the vector's next interrupt: this one's EOI was not traced */
	}
	if (i == in->n || in->e[i].tid != p->vcpu_tid)
		return;
	p->eoi_ts = in->e[i].ts;
	for (size_t j = i + 1; j < in->n && in->e[j].tid == p->vcpu_tid &&
	     in->e[j].stage != GPUPROBE_KVM_ENTRY; j++) {
		if (in->e[j].stage == GPUPROBE_KVM_PV_EOI && in->e[j].value == p->vector)
			p->eoi_kind = EOI_PV;
		if (in->e[j].stage == GPUPROBE_KVM_EXIT && !exit)
			exit = &in->e[j];
	}
	if (!exit) {
		p->eoi_kind = EOI_NONE;		/* no exit traced around it: not counted */
		return;
	}
	p->eoi_exit_ts = exit->ts;
	p->eoi_isa = exit->isa;
	p->eoi_reason = exit->value;
	if (p->eoi_kind != EOI_PV)
		p->eoi_kind = is_msr_eoi(exit->isa, exit->value) ? EOI_MSR_EXIT :
			      is_apic_eoi(exit->isa, exit->value) ? EOI_APIC_EXIT : EOI_OTHER_EXIT;
}

static void fill_pair(struct hostpath_input *in, struct pt_pair *p)
{
	size_t entry;

	p->irqfd_ts = irqfd_of(in, p);
	if (!p->inject_ts || !p->vcpu_tid)
		return;
	p->vcpu_state = state_at(in, p->vcpu_tid, p->irqfd_ts ? p->irqfd_ts : p->host_ts);
	entry = delivering_entry(in, p);
	if (entry == in->n)
		return;
	p->entry_ts = in->e[entry].ts;
	eoi_of(in, p, entry);
}

void hostpath_fill_pairs(struct passthrough *pt)
{
	struct hostpath_input *in = pt->hostpath;

	if (!in || !in->n || !pt->pairs)
		return;
	if (!in->sorted) {
		qsort(in->e, in->n, sizeof(*in->e), by_thread_time);
		in->sorted = true;
	}
	for (uint64_t i = 0; i < pt->irq_paired; i++)
		fill_pair(in, &pt->pairs[i]);
}

static void count_reason(struct hostpath_summary *s, uint16_t isa, uint32_t reason)
{
	for (unsigned int i = 0; i < s->nreasons; i++)
		if (s->reason[i].isa == isa && s->reason[i].reason == reason) {
			s->reason[i].count++;
			return;
		}
	if (s->nreasons == HOSTPATH_MAX_REASONS) {
		s->reasons_other++;
		return;
	}
	s->reason[s->nreasons++] = (struct hostpath_reason){ .isa = isa, .reason = reason, .count = 1 };
}

/* The vCPU's exits after the irqfd step (or the handler) up to the EOI's exit, that one included. */
static uint64_t exits_on_path(struct hostpath_summary *s, const struct hostpath_input *in,
			      const struct pt_pair *p)
{
	uint64_t n = 0;
	uint64_t from = p->irqfd_ts ? p->irqfd_ts : p->host_ts;

	for (size_t i = first_at(in, p->vcpu_tid, from + 1);
	     i < in->n && in->e[i].tid == p->vcpu_tid && in->e[i].ts <= p->eoi_exit_ts; i++)
		if (in->e[i].stage == GPUPROBE_KVM_EXIT) {
			count_reason(s, in->e[i].isa, in->e[i].value);
			n++;
		}
	return n;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void write_route(struct hostpath_summary *s, const struct passthrough *pt)
{
	char mode[120] = "the host's kvm_amd avic / kvm_intel enable_apicv not recorded";
	static const char *const param[] = { "off", "on", "absent" };

	if (!s->have_mode && !s->pi_posted && !s->pi_unposted) {
		snprintf(s->route, sizeof(s->route),
			 "not known: the trace has no record of the host's APIC virtualization or IRTE updates (a file from before them, or not from record --guest on a KVM host)");
		return;
	}
	s->route_known = true;
	if (s->have_mode)
		snprintf(mode, sizeof(mode), "kvm_amd avic %s, kvm_intel enable_apicv %s",
			 param[s->avic < 3 ? s->avic : 2], param[s->apicv < 3 ? s->apicv : 2]);
	s->posted = s->pi_posted > 0 ||
		    (s->have_mode && (s->avic == GPUPROBE_KVM_PARAM_ON || s->apicv == GPUPROBE_KVM_PARAM_ON));
	if (s->posted)
		snprintf(s->route, sizeof(s->route),
			 "posted or APIC-virtualized (%s; %llu IRTE updates posting to a vCPU): interrupts may reach the guest without an exit or an injection",
			 mode, (unsigned long long)s->pi_posted);
	else
		snprintf(s->route, sizeof(s->route),
			 "not posted (%s; no kvm_pi_irte_update posting an IRTE, %llu unposting): every interrupt goes through KVM's injection at a VM entry; these are the figures of a non-posted path",
			 mode, (unsigned long long)s->pi_unposted);
	(void)pt;
}

void hostpath_summarize(struct hostpath_summary *s, const struct passthrough *pt)
{
	const struct hostpath_input *in = pt->hostpath;
	uint64_t *counts;

	memset(s, 0, sizeof(*s));
	if (in) {
		s->have_mode = in->have_mode;
		s->avic = in->avic;
		s->apicv = in->apicv;
		s->pi_posted = in->pi_posted;
		s->pi_unposted = in->pi_unposted;
		s->dropped = in->dropped;
		for (size_t i = 0; i < in->n && !s->measured; i++)
			s->measured = in->e[i].stage == GPUPROBE_KVM_ENTRY;
	}
	write_route(s, pt);
	if (!in || !pt->pairs || !pt->irq_paired)
		return;
	counts = malloc(pt->irq_paired * sizeof(*counts));
	for (uint64_t i = 0; i < pt->irq_paired; i++) {
		const struct pt_pair *p = &pt->pairs[i];

		s->with_irqfd += p->irqfd_ts != 0;
		s->with_entry += p->entry_ts != 0;
		if (!p->inject_ts || !p->vcpu_tid || !s->measured)
			continue;
		s->state[p->vcpu_state]++;
		s->eoi[p->eoi_kind]++;
		if (p->eoi_kind == EOI_NONE || !counts)
			continue;
		counts[s->exits_counted] = exits_on_path(s, in, p);
		s->exits_sum += counts[s->exits_counted++];
	}
	if (counts && s->exits_counted) {
		qsort(counts, s->exits_counted, sizeof(*counts), by_u64);
		s->exits_p50 = crossing_percentile(counts, s->exits_counted, 50);
		s->exits_max = counts[s->exits_counted - 1];
	}
	free(counts);
}
