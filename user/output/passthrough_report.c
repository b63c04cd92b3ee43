// SPDX-License-Identifier: GPL-2.0
/*
 * The host + guest part of `report` (merged traces only): the machines, the
 * clock alignment and its bound, and the interrupt path stage by stage,
 * as text and as the "machines" and "passthrough" JSON members
 * (Documentation/report-json.md).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "format.h"
#include "json.h"
#include "passthrough.h"
#include "report.h"

static const char *yes_no_lost(const struct machine_desc *m)
{
	if (m->flags & MACHINE_COMPLETE)
		return "complete";
	return m->flags & MACHINE_LOST ? "INCOMPLETE (the link broke)" : "INCOMPLETE";
}

static void print_exact_clock(FILE *out, const struct passthrough *pt)
{
	const struct tsc_clock *c = pt->tsc;
	char err[FORMAT_NS_LEN], a[FORMAT_NS_LEN], b[FORMAT_NS_LEN], d[FORMAT_NS_LEN];

	if (!pt->clock_exact) {
		fprintf(out, "  exact clock: not used (%s): guest times by the exchanges%s\n", pt->clock_note,
			c && c->test_offset ? " [TEST OFFSET]" : "");
		return;
	}
	fprintf(out, "  exact clock: KVM's TSC offset%s of %u vCPU%s, %u write%s traced; error bound +-%s "
		"(host reads +-%s, guest reads +-%s, bends %s)%s%s\n",
		c->kvm[0].ratio ? " and scaling" : "", c->vcpus, c->vcpus == 1 ? "" : "s",
		c->changes, c->changes == 1 ? "" : "s",
		format_ns(err, sizeof(err), (double)pt->clock_error_ns),
		format_ns(a, sizeof(a), (double)c->host.half_max),
		format_ns(b, sizeof(b), (double)c->guest.half_max),
		format_ns(d, sizeof(d), (double)(c->host.bend_ns + c->guest.bend_ns)),
		c->test_offset ? " [TEST OFFSET]" : "",
		c->vcpus_differ ? "; the vCPUs' offsets differ: guest CPUs mapped by APIC id" : "");
	fprintf(out, "  cross-check: the exchanges %s it (largest difference %s at %u bursts%s)\n",
		pt->cross_disagree ? "DISAGREE with" : "agree with",
		format_ns(a, sizeof(a), (double)pt->cross_max_ns), pt->fit.npoints,
		pt->cross_disagree ? ", beyond both bounds at some: one of the clocks is wrong" : ", within their bounds");
	if (c->host_capped || c->guest_capped || c->kvm_capped)
		fprintf(out, "  TSC records not kept: %u host samples, %u guest samples (cap %u a side), %u KVM offsets (cap %u)\n",
			c->host_capped, c->guest_capped, TSC_MAX_SAMPLES, c->kvm_capped, TSC_MAX_KVM);
}

static void print_clock(FILE *out, const struct passthrough *pt)
{
	char off[FORMAT_NS_LEN], err[FORMAT_NS_LEN], res[FORMAT_NS_LEN];

	if (!pt->have_fit) {
		fprintf(out, "  clock: NOT aligned: %s\n", pt->note);
		return;
	}
	fprintf(out, "  clock: guest - host = %s, drift %.3f ppm, error bound +-%s (%u exchange bursts; fit residual %s)\n",
		format_ns(off, sizeof(off), (double)pt->fit.offset_ns), (double)pt->fit.drift_ppb / 1000.0,
		format_ns(err, sizeof(err), (double)pt->fit.error_ns), pt->fit.npoints,
		format_ns(res, sizeof(res), (double)pt->fit.residual_ns));
	print_exact_clock(out, pt);
}

/* One stage's row: count, p50, p99, max, total; share of the chain; the clock's bound where it crosses. */
static void print_stage(FILE *out, const struct crossing *c, const struct crossing_stage *st)
{
	char p50[FORMAT_NS_LEN], p99[FORMAT_NS_LEN], max[FORMAT_NS_LEN], tot[FORMAT_NS_LEN];

	if (!st->count) {
		fprintf(out, "  %-32s %8s %10s\n", st->name, "0", "not measured");
		return;
	}
	fprintf(out, "  %-32s %8" PRIu64 " %10s %10s %10s %10s", st->name, st->count,
		format_ns(p50, sizeof(p50), (double)st->p50),
		format_ns(p99, sizeof(p99), (double)st->p99),
		format_ns(max, sizeof(max), (double)st->max),
		format_ns(tot, sizeof(tot), (double)st->sum));
	if (st->in_chain && c->complete_pairs)
		fprintf(out, " %6.1f%%", st->share_pct);
	else if (st->crosses)
		fprintf(out, " %7s", "");
	if (st->crosses)
		fprintf(out, "  (+-%s: the clock)", format_ns(max, sizeof(max), (double)c->clock_error_ns));
	fputc('\n', out);
}

/* The vCPU's state at each irqfd injection, the EOIs' exits, the exits on the way, the route. */
static void print_host_path(FILE *out, const struct crossing *c)
{
	const struct hostpath_summary *p = &c->path;

	fprintf(out, "  IRQ posting: %s\n", p->route);
	if (!p->measured) {
		fprintf(out, "  host path: no VM entry or exit of the VMM traced (tracefs source, kvm:kvm_entry/kvm_exit): vCPU states and EOIs not measured\n");
		return;
	}
	fprintf(out, "  vCPU at the irqfd injection: %" PRIu64 " in the guest (kicked), %" PRIu64 " halted (woken), %" PRIu64 " in the host (next entry), %" PRIu64 " unknown\n",
		p->state[VCPU_IN_GUEST], p->state[VCPU_HALTED], p->state[VCPU_IN_HOST],
		p->state[VCPU_UNKNOWN]);
	fprintf(out, "  EOI: %" PRIu64 " by an x2APIC MSR write exit, %" PRIu64 " by an APIC access exit, %" PRIu64 " PV EOI (no exit of its own), %" PRIu64 " at another exit, %" PRIu64 " not seen\n",
		p->eoi[EOI_MSR_EXIT], p->eoi[EOI_APIC_EXIT], p->eoi[EOI_PV], p->eoi[EOI_OTHER_EXIT],
		p->eoi[EOI_NONE]);
	if (c->stage[CROSS_GUEST_TO_EOI].negative)
		fprintf(out, "  EOI before the guest handler's entry: %" PRIu64 " (x86 acks an edge interrupt's APIC before running its handler; 0 in guest handler -> EOI in KVM)\n",
			c->stage[CROSS_GUEST_TO_EOI].negative);
	if (!p->exits_counted)
		return;
	fprintf(out, "  exits from the irqfd injection to the EOI's (included), per interrupt: p50 %" PRIu64 ", max %" PRIu64 ", %" PRIu64 " over %" PRIu64 " interrupts:",
		p->exits_p50, p->exits_max, p->exits_sum, p->exits_counted);
	for (unsigned int i = 0; i < p->nreasons; i++) {
		const char *name = hostpath_reason_name(p->reason[i].isa, p->reason[i].reason);

		fprintf(out, "%s %s 0x%x %" PRIu64, i ? "," : "",
			p->reason[i].isa == GPUPROBE_KVM_ISA_SVM ? "SVM" :
			p->reason[i].isa == GPUPROBE_KVM_ISA_VMX ? "VMX" : "?",
			p->reason[i].reason, p->reason[i].count);
		if (name)
			fprintf(out, " (%s)", name);
	}
	if (p->reasons_other)
		fprintf(out, ", %" PRIu64 " of other reasons", p->reasons_other);
	fputc('\n', out);
}

/* The stages, the verdict, and what makes them doubtful. */
static void print_crossing(FILE *out, const struct crossing *c)
{
	static const unsigned int order[] = {
		CROSS_HOST_HANDLER, CROSS_HOST_TO_IRQFD, CROSS_IRQFD_TO_INJECT, CROSS_HOST_TO_INJECT,
		CROSS_INJECT_TO_ENTRY, CROSS_ENTRY_TO_GUEST, CROSS_INJECT_TO_GUEST, CROSS_HOST_TO_GUEST,
		CROSS_GUEST_HANDLER, CROSS_GUEST_TO_EOI, CROSS_GUEST_TO_WAKE, CROSS_HOST_TO_WAKE,
	};

	fprintf(out, "  %-32s %8s %10s %10s %10s %10s %7s\n", "stage", "count", "p50", "p99", "max",
		"total", "share");
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const struct crossing_stage *st = &c->stage[order[i]];

		/* without injection records the two halves of host -> guest are not there */
		if (!c->through_injection && (order[i] == CROSS_HOST_TO_INJECT || order[i] == CROSS_INJECT_TO_GUEST))
			continue;
		/* nor, without the VMM's entries and exits, the steps of the host path */
		if (!c->path.measured && !st->count &&
		    (order[i] == CROSS_INJECT_TO_ENTRY || order[i] == CROSS_ENTRY_TO_GUEST ||
		     order[i] == CROSS_GUEST_TO_EOI || order[i] == CROSS_HOST_TO_IRQFD ||
		     order[i] == CROSS_IRQFD_TO_INJECT))
			continue;
		print_stage(out, c, st);
	}
	fprintf(out, "  (per interrupt, exact; total: summed over the pairs; share: of host handler entry -> guest thread wake, over the %" PRIu64 " pairs with every stage)\n",
		c->complete_pairs);
	print_host_path(out, c);
	fprintf(out, "  verdict: %s\n", c->verdict);
	for (unsigned int i = 0; i < c->nwarnings; i++)
		fprintf(out, "  WARNING: %s\n", c->warning[i].text);
}

void passthrough_print_text(FILE *out, const struct passthrough *pt)
{
	const struct machine_desc *g = pt->guest;

	fprintf(out, "\npassthrough: guest %s at %s, kernel %s, source %s, %s\n", g->info.host,
		g->address[0] ? g->address : "?", g->info.kernel_release,
		tracefile_source_name(g->info.source), yes_no_lost(g));
	print_clock(out, pt);
	fprintf(out, "  interrupts: %u host, %u guest: %" PRIu64 " paired, %" PRIu64 " host unpaired, %" PRIu64 " guest unpaired%s\n",
		pt->host_irq.n, pt->guest_irq.n, pt->irq_paired, pt->irq_unpaired_host,
		pt->irq_unpaired_guest, pt->inject.n ? ", through KVM injection records" : "");
	if (pt->irq_paired)
		fprintf(out, "  pairing: %s\n", pt->paired_in_order ?
			"by rank (fallback: the clock's bound is not below the interrupts' spacing)" :
			pt->paired_by_time ? "by time (the bound is below every interrupt's spacing)" :
			"by time and order (some interrupts closer together than the bound)");
	if (pt->irq_paired && pt->inject.n)
		fprintf(out, "  route: %" PRIu64 " of %" PRIu64 " pairs injected by KVM at a VM entry%s\n",
			pt->pairs_injected, pt->irq_paired, pt->pairs_injected == pt->irq_paired ?
			": not posted (no IRQ bypass), these are the figures of a non-posted path" :
			"; the others came without an injection record (posted, or the record lost)");
	if (pt->note[0] && pt->have_fit)
		fprintf(out, "  %s: %s\n", pt->order_violations ? "WARNING" : "note", pt->note);
	print_crossing(out, &pt->crossing);
	if (pt->guest_map.n || pt->vfio_map_ns.count) {
		char p50[FORMAT_NS_LEN], p99[FORMAT_NS_LEN];

		fprintf(out, "  guest DMA maps: %u, %" PRIu64 " with the host IOMMU map they caused", pt->guest_map.n,
			pt->dma_paired);
		if (pt->vfio_map_ns.count)
			fprintf(out, ": guest call -> host map done p50 %s p99 %s",
				format_ns(p50, sizeof(p50), (double)hist_percentile(&pt->vfio_map_ns, 50)),
				format_ns(p99, sizeof(p99), (double)hist_percentile(&pt->vfio_map_ns, 99)));
		fputc('\n', out);
	}
}

static void json_machine(struct json *j, const struct machine_desc *m, const struct agg *a,
			 const char *role)
{
	json_object_begin(j);
	json_kv_string(j, "role", role);
	json_kv_string(j, "host", m->info.host);
	json_kv_string(j, "kernel_release", m->info.kernel_release);
	json_kv_string(j, "source", tracefile_source_name(m->info.source));
	json_kv_string(j, "address", m->address);
	json_kv_u64(j, "start_ns", m->info.start_ns);
	if (m->role == MACHINE_ROLE_GUEST) {
		json_kv_bool(j, "complete", m->flags & MACHINE_COMPLETE);
		json_kv_bool(j, "link_lost", m->flags & MACHINE_LOST);
		json_kv_u64(j, "records", m->records);
		json_key(j, "exit_status");
		if (m->exit_status >= 0)
			json_i64(j, m->exit_status);
		else
			json_put_null(j);
	}
	json_key(j, "command");
	if (a)
		report_json_command(j, &a->command);
	else
		json_put_null(j);
	report_json_targets(j, a);
	json_object_end(j);
}

static void json_clock(struct json *j, const struct passthrough *pt)
{
	json_key(j, "clock");
	if (!pt->have_fit) {
		json_put_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_i64(j, "offset_ns", pt->fit.offset_ns);
	json_kv_u64(j, "at_ns", pt->fit.ref_host_ns);
	json_kv_i64(j, "drift_ppb", pt->fit.drift_ppb);
	json_kv_u64(j, "error_ns", pt->fit.error_ns);
	json_kv_u64(j, "residual_ns", pt->fit.residual_ns);
	json_kv_u64(j, "bursts", pt->fit.npoints);
	json_object_end(j);
}

static void json_exact_clock(struct json *j, const struct passthrough *pt)
{
	const struct tsc_clock *c = pt->tsc;

	json_key(j, "exact_clock");
	if (!c) {
		json_put_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_bool(j, "used", pt->clock_exact);
	json_kv_string(j, "why_not", pt->clock_exact ? "" : pt->clock_note);
	json_kv_u64(j, "error_ns", c->error_ns);
	json_kv_u64(j, "host_read_ns", c->host.half_max);
	json_kv_u64(j, "guest_read_ns", c->guest.half_max);
	json_kv_u64(j, "host_bend_ns", c->host.bend_ns);
	json_kv_u64(j, "guest_bend_ns", c->guest.bend_ns);
	json_kv_u64(j, "host_samples", c->host.used);
	json_kv_u64(j, "guest_samples", c->guest.used);
	json_kv_u64(j, "guest_samples_dropped", c->guest_dropped);
	json_kv_u64(j, "vcpus", c->vcpus);
	json_kv_u64(j, "offset_writes", c->changes);
	json_kv_bool(j, "vcpus_differ", c->vcpus_differ);
	json_kv_bool(j, "guest_mode", c->guest_mode);
	json_kv_bool(j, "test_offset", c->test_offset);
	json_kv_u64(j, "unsampled", c->unsampled);
	json_kv_u64(j, "sample_cap", TSC_MAX_SAMPLES);
	json_kv_u64(j, "host_samples_capped", c->host_capped);
	json_kv_u64(j, "guest_samples_capped", c->guest_capped);
	json_kv_u64(j, "kvm_records_capped", c->kvm_capped);
	json_kv_i64(j, "offset_ns", pt->exact_offset_ns);
	json_kv_u64(j, "at_ns", pt->exact_at_ns);
	json_kv_u64(j, "cross_check_max_ns", pt->cross_max_ns);
	json_kv_u64(j, "cross_check_disagree", pt->cross_disagree);
	json_object_end(j);
}

/* v, or null where there is none (0 is a value here) */
static void kv_u64_if(struct json *j, const char *key, bool have, uint64_t v)
{
	json_key(j, key);
	if (have)
		json_u64(j, v);
	else
		json_put_null(j);
}

static void json_stage(struct json *j, const struct crossing *c, const struct crossing_stage *st)
{
	json_object_begin(j);
	json_kv_string(j, "key", st->key);
	json_kv_string(j, "name", st->name);
	json_kv_u64(j, "count", st->count);
	kv_u64_if(j, "min_ns", st->count > 0, st->min);
	kv_u64_if(j, "p50_ns", st->count > 0, st->p50);
	kv_u64_if(j, "p99_ns", st->count > 0, st->p99);
	kv_u64_if(j, "max_ns", st->count > 0, st->max);
	json_kv_u64(j, "sum_ns", st->sum);
	json_kv_u64(j, "negative", st->negative);
	json_kv_bool(j, "in_chain", st->in_chain);
	json_key(j, "share_pct");
	if (st->in_chain && c->complete_pairs)
		json_double(j, st->share_pct);
	else
		json_put_null(j);
	json_kv_bool(j, "crosses_clock", st->crosses);
	kv_u64_if(j, "error_bound_ns", st->crosses, c->clock_error_ns);
	json_object_end(j);
}

static void json_host_path(struct json *j, const struct hostpath_summary *p)
{
	static const char *const param[] = { "off", "on", "absent" };

	json_key(j, "host_path");
	json_object_begin(j);
	json_kv_bool(j, "measured", p->measured);
	json_kv_u64(j, "events_dropped", p->dropped);
	json_kv_u64(j, "with_irqfd", p->with_irqfd);
	json_kv_u64(j, "with_entry", p->with_entry);
	json_key(j, "vcpu_state");
	json_object_begin(j);
	for (unsigned int s = 0; s < VCPU_STATES; s++)
		json_kv_u64(j, hostpath_state_name(s), p->state[s]);
	json_object_end(j);
	json_key(j, "eoi");
	json_object_begin(j);
	for (unsigned int k = 0; k < EOI_KINDS; k++)
		json_kv_u64(j, hostpath_eoi_name(k), p->eoi[k]);
	json_object_end(j);
	json_kv_u64(j, "exits_counted", p->exits_counted);
	json_kv_u64(j, "exits_sum", p->exits_sum);
	json_kv_u64(j, "exits_p50", p->exits_p50);
	json_kv_u64(j, "exits_max", p->exits_max);
	json_key(j, "exit_reasons");
	json_array_begin(j);
	for (unsigned int i = 0; i < p->nreasons; i++) {
		const char *name = hostpath_reason_name(p->reason[i].isa, p->reason[i].reason);

		json_object_begin(j);
		json_kv_string(j, "isa", p->reason[i].isa == GPUPROBE_KVM_ISA_SVM ? "svm" :
			       p->reason[i].isa == GPUPROBE_KVM_ISA_VMX ? "vmx" : "unknown");
		json_kv_u64(j, "reason", p->reason[i].reason);
		json_key(j, "name");
		if (name)
			json_put_string(j, name);
		else
			json_put_null(j);
		json_kv_u64(j, "count", p->reason[i].count);
		json_object_end(j);
	}
	json_array_end(j);
	json_kv_u64(j, "exit_reasons_other", p->reasons_other);
	json_key(j, "route");
	json_object_begin(j);
	json_kv_bool(j, "known", p->route_known);
	json_kv_bool(j, "posted", p->posted);
	json_key(j, "avic");
	if (p->have_mode)
		json_put_string(j, param[p->avic < 3 ? p->avic : 2]);
	else
		json_put_null(j);
	json_key(j, "enable_apicv");
	if (p->have_mode)
		json_put_string(j, param[p->apicv < 3 ? p->apicv : 2]);
	else
		json_put_null(j);
	json_kv_u64(j, "pi_irte_posted", p->pi_posted);
	json_kv_u64(j, "pi_irte_unposted", p->pi_unposted);
	json_kv_string(j, "text", p->route);
	json_object_end(j);
	json_object_end(j);
}

static void json_crossing(struct json *j, const struct crossing *c)
{
	json_key(j, "crossing");
	json_object_begin(j);
	json_kv_u64(j, "pairs", c->pairs);
	json_kv_u64(j, "complete_pairs", c->complete_pairs);
	json_kv_bool(j, "through_injection", c->through_injection);
	json_kv_bool(j, "through_host_path", c->through_host_path);
	json_kv_u64(j, "clock_error_ns", c->clock_error_ns);
	json_key(j, "stages");
	json_array_begin(j);
	for (unsigned int s = 0; s < CROSS_STAGES; s++)
		json_stage(j, c, &c->stage[s]);
	json_array_end(j);
	json_key(j, "verdict");
	json_object_begin(j);
	json_key(j, "stage");
	if (c->largest >= 0)
		json_put_string(j, c->stage[c->largest].key);
	else
		json_put_null(j);
	json_key(j, "share_pct");
	if (c->largest >= 0)
		json_double(j, c->stage[c->largest].share_pct);
	else
		json_put_null(j);
	json_kv_string(j, "text", c->verdict);
	json_object_end(j);
	json_host_path(j, &c->path);
	json_key(j, "warnings");
	json_array_begin(j);
	for (unsigned int i = 0; i < c->nwarnings; i++) {
		json_object_begin(j);
		json_kv_string(j, "kind", c->warning[i].kind);
		json_kv_string(j, "text", c->warning[i].text);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

void passthrough_print_json(struct json *j, const struct passthrough *pt, const struct agg *host)
{
	json_key(j, "machines");
	json_array_begin(j);
	if (pt->host)
		json_machine(j, pt->host, host, "host");
	json_machine(j, pt->guest, pt->guest_agg, "guest");
	json_array_end(j);

	json_key(j, "passthrough");
	json_object_begin(j);
	json_kv_u64(j, "irq_paired", pt->irq_paired);
	json_kv_u64(j, "irq_unpaired_host", pt->irq_unpaired_host);
	json_kv_u64(j, "irq_unpaired_guest", pt->irq_unpaired_guest);
	json_kv_u64(j, "order_violations", pt->order_violations);
	json_kv_u64(j, "early_within_bound", pt->early_within_bound);
	json_kv_u64(j, "ambiguous", pt->ambiguous);
	json_kv_bool(j, "paired_in_order", pt->paired_in_order);
	json_kv_u64(j, "host_irqs", pt->host_irq.n);
	json_kv_u64(j, "guest_irqs", pt->guest_irq.n);
	json_kv_u64(j, "kvm_injections", pt->inject.n);
	json_kv_u64(j, "kvm_injections_other", pt->injections_other);
	json_kv_u64(j, "pairs_injected", pt->pairs_injected);
	json_kv_u64(j, "kvm_injections_repeated", pt->injections_repeated);
	json_key(j, "clock_error_ns");
	if (pt->have_fit)
		json_u64(j, pt->clock_error_ns);
	else
		json_put_null(j);
	json_kv_string(j, "clock_method", !pt->have_fit ? "none" : pt->clock_exact ? "kvm_tsc" : "exchanges");
	json_kv_bool(j, "paired_by_time", pt->paired_by_time);
	json_clock(j, pt);
	json_exact_clock(j, pt);
	report_json_hist(j, "host_to_guest_ns", &pt->host_to_guest_ns);
	report_json_hist(j, "guest_handler_to_wake_ns", &pt->guest_handler_to_wake_ns);
	report_json_hist(j, "host_handler_ns", &pt->host_handler_ns);
	report_json_hist(j, "host_to_inject_ns", &pt->host_to_inject_ns);
	report_json_hist(j, "inject_to_guest_ns", &pt->inject_to_guest_ns);
	report_json_hist(j, "guest_handler_ns", &pt->guest_handler_ns);
	json_kv_u64(j, "guest_dma_maps", pt->guest_map.n);
	json_kv_u64(j, "dma_paired", pt->dma_paired);
	json_kv_u64(j, "dma_unpaired_guest", pt->dma_unpaired_guest);
	json_kv_u64(j, "host_maps_unattributed", pt->host_maps_unattributed);
	report_json_hist(j, "vfio_map_ns", &pt->vfio_map_ns);
	json_crossing(j, &pt->crossing);
	json_kv_u64(j, "events_dropped", pt->dropped);
	json_kv_string(j, "note", pt->note);
	json_object_end(j);
}
