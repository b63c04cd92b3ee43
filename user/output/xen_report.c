// SPDX-License-Identifier: GPL-2.0
/*
 * `report`'s Xen side (analysis/xen.c): the physical irqs Xen handled and
 * the vectors it injected, as text and as the "xen" key of the JSON.
 */
#include <inttypes.h>

#include "json.h"
#include "report.h"
#include "xen.h"

void xen_print_text(FILE *out, const struct xen_host *x)
{
	if (!x)
		return;
	fprintf(out, "\nXen (dom0's xentrace): %" PRIu64 " physical irqs handled, %" PRIu64
		" injections into vCPUs", x->phys_irqs, x->injections);
	if (x->reinjections)
		fprintf(out, " (+%" PRIu64 " reinjections)", x->reinjections);
	fprintf(out, "\n");
	if (x->lost)
		fprintf(out, "  Xen lost %" PRIu64 " trace records: the counts are lower bounds\n",
			x->lost);
	for (unsigned int i = 0; i < x->nirqs; i++) {
		const struct xen_irq_stats *s = &x->irqs[i];

		fprintf(out, "  Xen irq %-5" PRIu32 " %8" PRIu64 " handled", s->irq, s->count);
		if (s->timed)
			fprintf(out, ", in Xen's handler mean %" PRIu64 " max %" PRIu32 " TSC cycles",
				s->cycles_sum / s->timed, s->cycles_max);
		fprintf(out, "\n");
	}
	for (unsigned int v = 0; v < XEN_VECTORS; v++)
		if (x->by_vector[v])
			fprintf(out, "  vector 0x%02x %8" PRIu64 " injected%s\n", v, x->by_vector[v],
				v == 0xf3 ? " (Linux's Xen upcall vector: event channels)" : "");
	if (x->overflow)
		fprintf(out, "  %" PRIu64 " records past the tables, not counted by irq or vector\n",
			x->overflow);
}

void xen_print_json(struct json *j, const struct xen_host *x)
{
	json_key(j, "xen");
	if (!x) {
		json_put_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_u64(j, "records", x->records);
	json_kv_u64(j, "phys_irqs", x->phys_irqs);
	json_kv_u64(j, "injections", x->injections);
	json_kv_u64(j, "reinjections", x->reinjections);
	json_kv_u64(j, "lost", x->lost);
	json_kv_u64(j, "untimed", x->untimed);
	json_kv_u64(j, "nested", x->nested);
	json_kv_u64(j, "uncounted", x->overflow);
	json_key(j, "irqs");
	json_array_begin(j);
	for (unsigned int i = 0; i < x->nirqs; i++) {
		const struct xen_irq_stats *s = &x->irqs[i];

		json_object_begin(j);
		json_kv_u64(j, "irq", s->irq);
		json_kv_u64(j, "count", s->count);
		json_kv_u64(j, "timed", s->timed);
		if (s->timed) {
			json_kv_u64(j, "handler_cycles_mean", s->cycles_sum / s->timed);
		} else {
			json_key(j, "handler_cycles_mean");
			json_put_null(j);
		}
		json_kv_u64(j, "handler_cycles_max", s->cycles_max);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "vectors");
	json_array_begin(j);
	for (unsigned int v = 0; v < XEN_VECTORS; v++) {
		if (!x->by_vector[v])
			continue;
		json_object_begin(j);
		json_kv_u64(j, "vector", v);
		json_kv_u64(j, "injections", x->by_vector[v]);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}
