// SPDX-License-Identifier: GPL-2.0
/*
 * `report`'s host side of a passed-through target: KVM's deliveries of its
 * interrupts and their injections into the guest (analysis/kvm.c), as text
 * and as the "kvm" key of the JSON document.
 */
#include <inttypes.h>

#include "format.h"
#include "json.h"
#include "kvm.h"
#include "report.h"
#include "util.h"

static const char *paired_stage_text(uint16_t stage)
{
	switch (stage) {
	case GPUPROBE_KVM_ACCEPT:	return "accepted by a vCPU's APIC in the host handler";
	case GPUPROBE_KVM_MSI:		return "MSI routed to the VM in the host handler";
	case GPUPROBE_KVM_SET_IRQ:	return "GSI raised in the host handler";
	default:			return "none";
	}
}

static void print_pids(FILE *out, const struct kvm_pid_count *pids, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		fprintf(out, "%s%s %" PRIu32 ": %" PRIu64, i ? ", " : "",
			pids[i].pid ? "pid" : "unknown pid", pids[i].pid, pids[i].count);
}

static void print_kvm_target(FILE *out, const struct kvm_target *t, uint16_t stage)
{
	char name[BDF_STRLEN], p50[32], p99[32], max[32];

	bdf_format(t->bdf, name);
	fprintf(out, "  target %s: %" PRIu64 " interrupts delivered (%s), guest vector",
		name, t->deliveries, paired_stage_text(stage));
	if (t->vector_first == t->vector_last)
		fprintf(out, " %" PRIu32 "\n", t->vector_first);
	else
		fprintf(out, "s %" PRIu32 "-%" PRIu32 "\n", t->vector_first, t->vector_last);
	fprintf(out, "    injected: %" PRIu64 " (", t->injected);
	print_pids(out, t->pids, t->npids);
	fprintf(out, "), never injected: %" PRIu64 "\n", t->not_injected);
	if (t->no_handler)
		fprintf(out, "    %" PRIu64 " KVM steps whose host handler record is missing (lost or cut): not counted\n",
			t->no_handler);
	if (!t->to_inject_ns.count)
		return;
	fprintf(out, "    host handler entry -> injection p50 %s  p99 %s  max %s\n",
		format_ns(p50, FORMAT_NS_LEN, hist_percentile(&t->to_inject_ns, 50)),
		format_ns(p99, FORMAT_NS_LEN, hist_percentile(&t->to_inject_ns, 99)),
		format_ns(max, FORMAT_NS_LEN, t->to_inject_ns.max));
	hist_print_log2(out, &t->to_inject_ns, "nsecs");
}

void kvm_print_text(FILE *out, const struct kvm_host *k)
{
	if (!k)
		return;
	fprintf(out, "\nKVM (host side): %" PRIu64 " records: %" PRIu64 " MSIs routed, %" PRIu64
		" GSIs set, %" PRIu64 " accepted in target handlers; %" PRIu64 " injections (%" PRIu64
		" reinjected)\n", k->records, k->by_stage[GPUPROBE_KVM_MSI],
		k->by_stage[GPUPROBE_KVM_SET_IRQ], k->by_stage[GPUPROBE_KVM_ACCEPT],
		k->by_stage[GPUPROBE_KVM_INJECT], k->reinjected);
	if (k->npids) {
		fprintf(out, "  injections by VMM: ");
		print_pids(out, k->pids, k->npids);
		fputc('\n', out);
	}
	for (unsigned int i = 0; i < k->ntargets; i++)
		print_kvm_target(out, &k->targets[i], k->paired_stage);
	if (k->overflow)
		fprintf(out, "  %" PRIu64 " KVM records beyond this tool's table limits were not counted\n",
			k->overflow);
}

static void json_pids(struct json *j, const char *key, const struct kvm_pid_count *pids,
		      unsigned int n)
{
	json_key(j, key);
	json_array_begin(j);
	for (unsigned int i = 0; i < n; i++) {
		json_object_begin(j);
		json_kv_u64(j, "pid", pids[i].pid);
		json_kv_u64(j, "count", pids[i].count);
		json_object_end(j);
	}
	json_array_end(j);
}

static void json_kvm_target(struct json *j, const struct kvm_target *t)
{
	char name[BDF_STRLEN];

	bdf_format(t->bdf, name);
	json_object_begin(j);
	json_kv_string(j, "bdf", name);
	json_kv_u64(j, "deliveries", t->deliveries);
	json_kv_u64(j, "injected", t->injected);
	json_kv_u64(j, "not_injected", t->not_injected);
	json_kv_u64(j, "no_handler", t->no_handler);
	json_kv_u64(j, "vector_first", t->vector_first);
	json_kv_u64(j, "vector_last", t->vector_last);
	json_pids(j, "injected_by", t->pids, t->npids);
	report_json_hist(j, "handler_to_delivery_ns", &t->to_deliver_ns);
	report_json_hist(j, "handler_to_injection_ns", &t->to_inject_ns);
	json_object_end(j);
}

void kvm_print_json(struct json *j, const struct kvm_host *k)
{
	json_key(j, "kvm");
	if (!k) {
		json_put_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_u64(j, "records", k->records);
	for (unsigned int s = GPUPROBE_KVM_MSI; s < KVM_STAGES; s++)
		json_kv_u64(j, kvm_stage_name(s), k->by_stage[s]);
	json_kv_u64(j, "reinjected", k->reinjected);
	json_kv_string(j, "paired_stage", k->paired_stage ? kvm_stage_name(k->paired_stage) : "");
	json_kv_u64(j, "uncounted", k->overflow);
	json_pids(j, "injections_by_pid", k->pids, k->npids);
	json_key(j, "targets");
	json_array_begin(j);
	for (unsigned int i = 0; i < k->ntargets; i++)
		json_kvm_target(j, &k->targets[i]);
	json_array_end(j);
	json_object_end(j);
}
