// SPDX-License-Identifier: GPL-2.0
/*
 * `serve`'s metrics in the Prometheus text exposition format (0.0.4):
 * base units (seconds, bytes), counters end in _total, one HELP and TYPE
 * per family, histograms with cumulative `le` buckets.  The families and
 * what each means: Documentation/fleet.md.  Plain C, the tests link it.
 */
#include <inttypes.h>
#include <stdio.h>

#include "metrics.h"
#include "prometheus.h"

/* le bounds 2^10 ns (1.024 us) .. 2^34 ns (17.2 s), then +Inf */
#define LE_FIRST	10
#define LE_LAST		34

static const char *const dma_op_names[METRICS_DMA_OPS + 1] = {
	"other", "map_page", "unmap_page", "map_sg", "unmap_sg",
	"alloc", "free", "map_resource", "unmap_resource",
};

static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Label values: backslash, quote and newline escaped. */
static void label_value(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(out, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

/* {bdf="..",driver="..",role=".." plus extra (already formatted) */
static void target_labels(FILE *out, const struct metrics *m, const struct metrics_target *t,
			  const char *extra)
{
	fputs("{bdf=\"", out);
	label_value(out, t->name);
	fputs("\",driver=\"", out);
	label_value(out, t->driver);
	fprintf(out, "\",role=\"%s\"%s%s}", m->role, extra[0] ? "," : "", extra);
}

static void sample(FILE *out, const char *name, const struct metrics *m,
		   const struct metrics_target *t, const char *extra, uint64_t value)
{
	fputs(name, out);
	target_labels(out, m, t, extra);
	fprintf(out, " %" PRIu64 "\n", value);
}

static void histogram(FILE *out, const char *name, const struct metrics *m,
		      const struct metrics_target *t, const char *extra,
		      const struct log2_hist *h)
{
	char labels[4400];	/* extra can be a cgroup's path (metrics_label_wakeups) */
	uint64_t cum = 0;
	unsigned int b;

	for (b = 0; b < LE_FIRST; b++)
		cum += h->bucket[b];
	for (b = LE_FIRST; b <= LE_LAST; b++) {
		cum += h->bucket[b];
		snprintf(labels, sizeof(labels), "%s%sle=\"%.9g\"", extra, extra[0] ? "," : "",
			 (double)(1ull << b) / 1e9);
		fprintf(out, "%s_bucket", name);
		target_labels(out, m, t, labels);
		fprintf(out, " %" PRIu64 "\n", cum);
	}
	snprintf(labels, sizeof(labels), "%s%sle=\"+Inf\"", extra, extra[0] ? "," : "");
	fprintf(out, "%s_bucket", name);
	target_labels(out, m, t, labels);
	fprintf(out, " %" PRIu64 "\n%s_sum", h->count, name);
	target_labels(out, m, t, extra);
	fprintf(out, " %.9f\n%s_count", (double)h->sum_ns / 1e9, name);
	target_labels(out, m, t, extra);
	fprintf(out, " %" PRIu64 "\n", h->count);
}

static void source_families(FILE *out, const struct metrics *m, const char *version)
{
	family(out, "gpuprobe_build_info", "gauge", "gpuprobe-trace serve: version, source, role (always 1)");
	fprintf(out, "gpuprobe_build_info{version=\"%s\",source=\"%s\",role=\"%s\"} 1\n",
		version, m->source, m->role);
	family(out, "gpuprobe_source_up", "gauge",
	       "1 while the source (module session or tracefs instance) is running, 0 while serve reconnects");
	fprintf(out, "gpuprobe_source_up{source=\"%s\"} %d\n", m->source, m->source_up ? 1 : 0);
	family(out, "gpuprobe_source_reconnects_total", "counter",
	       "times the source was lost (module unloaded, tracefs instance gone) and opened again");
	fprintf(out, "gpuprobe_source_reconnects_total{source=\"%s\"} %" PRIu64 "\n",
		m->source, m->source_reconnects);
	family(out, "gpuprobe_records_total", "counter", "records read from the source");
	fprintf(out, "gpuprobe_records_total{source=\"%s\"} %" PRIu64 "\n", m->source, m->records);
	family(out, "gpuprobe_lost_records_total", "counter",
	       "records the kernel dropped (ring buffers full, module drops and undelivered)");
	fprintf(out, "gpuprobe_lost_records_total{source=\"%s\"} %" PRIu64 "\n", m->source, m->lost);
	family(out, "gpuprobe_unattributed_records_total", "counter",
	       "records of no target (IOMMU work on no target's domain)");
	fprintf(out, "gpuprobe_unattributed_records_total{source=\"%s\"} %" PRIu64 "\n",
		m->source, m->unattributed);
	family(out, "gpuprobe_scrapes_total", "counter", "scrapes served");
	fprintf(out, "gpuprobe_scrapes_total %" PRIu64 "\n", m->scrapes);
}

static void target_families(FILE *out, const struct metrics *m)
{
	unsigned int i;

	family(out, "gpuprobe_target_bound", "gauge", "1 while a driver is bound to the target");
	for (i = 0; i < m->ntargets; i++)
		sample(out, "gpuprobe_target_bound", m, &m->t[i], "", m->t[i].bound);
	family(out, "gpuprobe_target_vectors", "gauge", "the target's MSI/MSI-X vectors (irqs) now");
	for (i = 0; i < m->ntargets; i++) {
		uint64_t n = 0;

		for (unsigned int v = 0; v < m->t[i].nvec; v++)
			n += m->t[i].vec[v].irq != 0;
		sample(out, "gpuprobe_target_vectors", m, &m->t[i], "", n);
	}
	family(out, "gpuprobe_untracked_vector_records_total", "counter",
	       "interrupt records of vectors past the per-target table (64)");
	for (i = 0; i < m->ntargets; i++)
		sample(out, "gpuprobe_untracked_vector_records_total", m, &m->t[i], "",
		       m->t[i].vector_overflow);
}

typedef void (*vector_fn)(FILE *out, const struct metrics *m, const struct metrics_target *t,
			  const struct metrics_vector *v, const char *labels);

static void each_vector(FILE *out, const struct metrics *m, vector_fn fn)
{
	char labels[32];

	for (unsigned int i = 0; i < m->ntargets; i++)
		for (unsigned int j = 0; j < m->t[i].nvec; j++) {
			snprintf(labels, sizeof(labels), "vector=\"%u\"", m->t[i].vec[j].index);
			fn(out, m, &m->t[i], &m->t[i].vec[j], labels);
		}
}

static void irq_count(FILE *out, const struct metrics *m, const struct metrics_target *t,
		      const struct metrics_vector *v, const char *labels)
{
	sample(out, "gpuprobe_interrupts_total", m, t, labels, v->interrupts);
}

static void kernel_count(FILE *out, const struct metrics *m, const struct metrics_target *t,
			 const struct metrics_vector *v, const char *labels)
{
	if (v->kernel_valid)
		sample(out, "gpuprobe_kernel_interrupts_total", m, t, labels,
		       v->kernel_carried + v->kernel_now - v->kernel_base);
}

static void irq_hist(FILE *out, const struct metrics *m, const struct metrics_target *t,
		     const struct metrics_vector *v, const char *labels)
{
	histogram(out, "gpuprobe_interrupt_handler_duration_seconds", m, t, labels, &v->handler);
}

static void irq_families(FILE *out, const struct metrics *m)
{
	family(out, "gpuprobe_interrupts_total", "counter",
	       "interrupts of the vector gpuprobe saw handled, up to the kernel count's read in this scrape");
	each_vector(out, m, irq_count);
	family(out, "gpuprobe_kernel_interrupts_total", "counter",
	       "the kernel's own count of the vector (/proc/interrupts) since serve began counting it, read in this scrape");
	each_vector(out, m, kernel_count);
	family(out, "gpuprobe_interrupt_handler_duration_seconds", "histogram",
	       m->detailed ? "interrupt handler time, entry to exit"
			   : "interrupt handler time, entry to exit (module summaries: _sum from bucket midpoints)");
	each_vector(out, m, irq_hist);
}

static void dma_families(FILE *out, const struct metrics *m)
{
	static const struct {
		const char *name, *type, *help;
	} fam[] = {
		{ "gpuprobe_dma_calls_total", "counter", "DMA-API calls on the target, by operation" },
		{ "gpuprobe_dma_bytes_total", "counter", "bytes mapped, unmapped or allocated by DMA-API calls" },
		{ "gpuprobe_dma_untimed_calls_total", "counter", "DMA-API calls seen without a duration" },
		{ "gpuprobe_dma_call_duration_seconds", "histogram", "DMA-API call time, entry to return" },
	};
	char labels[48];

	for (unsigned int f = 0; f < sizeof(fam) / sizeof(fam[0]); f++) {
		family(out, fam[f].name, fam[f].type, fam[f].help);
		for (unsigned int i = 0; i < m->ntargets; i++)
			for (unsigned int op = 0; op <= METRICS_DMA_OPS; op++) {
				const struct metrics_dma *d = &m->t[i].dma[op];

				if (!d->calls)
					continue;
				snprintf(labels, sizeof(labels), "op=\"%s\"", dma_op_names[op]);
				if (f == 0)
					sample(out, fam[f].name, m, &m->t[i], labels, d->calls);
				else if (f == 1)
					sample(out, fam[f].name, m, &m->t[i], labels, d->bytes);
				else if (f == 2)
					sample(out, fam[f].name, m, &m->t[i], labels, d->untimed);
				else
					histogram(out, fam[f].name, m, &m->t[i], labels, &d->latency);
			}
	}
}

static void iommu_families(FILE *out, const struct metrics *m)
{
	unsigned int i;

	family(out, "gpuprobe_iommu_operations_total", "counter", "IOMMU map and unmap calls charged to the target");
	for (i = 0; i < m->ntargets; i++) {
		sample(out, "gpuprobe_iommu_operations_total", m, &m->t[i], "op=\"map\"", m->t[i].iommu_maps);
		sample(out, "gpuprobe_iommu_operations_total", m, &m->t[i], "op=\"unmap\"", m->t[i].iommu_unmaps);
	}
	family(out, "gpuprobe_iommu_bytes_total", "counter", "bytes of IOVA space mapped and unmapped");
	for (i = 0; i < m->ntargets; i++) {
		sample(out, "gpuprobe_iommu_bytes_total", m, &m->t[i], "op=\"map\"", m->t[i].iommu_map_bytes);
		sample(out, "gpuprobe_iommu_bytes_total", m, &m->t[i], "op=\"unmap\"", m->t[i].iommu_unmap_bytes);
	}
	family(out, "gpuprobe_iommu_operation_duration_seconds", "histogram", "IOMMU map/unmap call time");
	for (i = 0; i < m->ntargets; i++)
		histogram(out, "gpuprobe_iommu_operation_duration_seconds", m, &m->t[i], "",
			  &m->t[i].iommu_latency);
	family(out, "gpuprobe_iommu_faults_total", "counter", "IOMMU faults of the target");
	for (i = 0; i < m->ntargets; i++)
		sample(out, "gpuprobe_iommu_faults_total", m, &m->t[i], "", m->t[i].iommu_faults);
	family(out, "gpuprobe_swiotlb_bounces_total", "counter", "swiotlb bounce copies for the target");
	for (i = 0; i < m->ntargets; i++)
		sample(out, "gpuprobe_swiotlb_bounces_total", m, &m->t[i], "", m->t[i].swiotlb_bounces);
	family(out, "gpuprobe_swiotlb_bounced_bytes_total", "counter", "bytes copied through swiotlb bounce buffers");
	for (i = 0; i < m->ntargets; i++)
		sample(out, "gpuprobe_swiotlb_bounced_bytes_total", m, &m->t[i], "", m->t[i].swiotlb_bytes);
	family(out, "gpuprobe_wakeup_latency_seconds", "histogram",
	       "a followed task's wake-up after the target's interrupt handler ended (serve --pid, --cgroup)");
	for (i = 0; i < m->ntargets; i++)
		histogram(out, "gpuprobe_wakeup_latency_seconds", m, &m->t[i], m->wake_labels,
			  &m->t[i].wake);
}

void prometheus_write(FILE *out, const struct metrics *m, const char *version)
{
	source_families(out, m, version);
	target_families(out, m);
	irq_families(out, m);
	if (!m->detailed)
		return;		/* module summaries hold interrupts only */
	dma_families(out, m);
	iommu_families(out, m);
}
