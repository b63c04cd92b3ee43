// SPDX-License-Identifier: GPL-2.0
/* serve's running totals (analysis/metrics.c) and their exposition (output/prometheus.c). */
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "prometheus.h"
#include "testlib.h"
#include "tests.h"

static void one_target(struct target_set *set)
{
	memset(set, 0, sizeof(*set));
	set->count = 1;
	set->t[0].bdf = GPUPROBE_BDF(0, 6, 0);
	strcpy(set->t[0].name, "0000:00:06.0");
	strcpy(set->t[0].driver, "nvidia");
	set->t[0].nvec = 1;
	set->t[0].vec[0] = (struct target_vector){ .index = 0, .irq = 40 };
}

/* A kernel count of vector 0 of 00:06.0: irq, its identity, count, time. */
static void kcount(struct metrics *m, uint32_t irq, uint64_t id, uint64_t count, uint64_t at)
{
	const struct kernel_count kc = { .irq = irq, .irq_id = id, .count = count, .cut_ns = at };

	metrics_kernel_count(m, GPUPROBE_BDF(0, 6, 0), 0, &kc);
}

/* gpuprobe_kernel_interrupts_total of a vector */
static uint64_t kernel_total(const struct metrics_vector *v)
{
	return v->kernel_carried + v->kernel_now - v->kernel_base;
}

static void put_irq(struct metrics *m, uint64_t ts)
{
	struct gpuprobe_rec_irq r = {
		.hdr = { .type = GPUPROBE_EV_IRQ, .size = sizeof(r), .ts_ns = ts },
		.bdf = GPUPROBE_BDF(0, 6, 0), .irq = 40, .vector = 0, .duration_ns = 3000,
	};

	metrics_add_record(m, &r.hdr);
}

/*
 * Records up to a cut count in it, later ones at the next cut; records
 * before the first cut (the baseline) never count.
 */
void test_metrics_cut_consistent(void)
{
	static struct target_set set;
	struct metrics m;

	one_target(&set);
	CHECK(!metrics_init(&m, &set, "guest", "tracefs"), "metrics_init");
	put_irq(&m, 50);			/* before any cut: not counted */
	kcount(&m, 40, 0, 1000, 100);		/* baseline */
	put_irq(&m, 90);			/* before the baseline */
	put_irq(&m, 150);
	put_irq(&m, 160);
	kcount(&m, 40, 0, 1002, 200);
	put_irq(&m, 210);			/* read in the drain, after the cut */
	CHECK_EQ_U64(m.t[0].vec[0].interrupts, 2);
	CHECK_EQ_U64(m.t[0].vec[0].kernel_now - m.t[0].vec[0].kernel_base, 2);
	CHECK_EQ_U64(m.t[0].vec[0].ahead, 1);
	kcount(&m, 40, 0, 1003, 300);
	CHECK_EQ_U64(m.t[0].vec[0].interrupts, 3);
	CHECK_EQ_U64(m.t[0].vec[0].handler.count, 5);	/* the histogram has them all */
	/*
	 * rebound: a new irq number is an irq allocated since the last cut,
	 * all of its count is new; the old number's count carries over
	 */
	kcount(&m, 41, 0, 7, 400);
	CHECK_EQ_U64(kernel_total(&m.t[0].vec[0]), 3 + 7);
	kcount(&m, 41, 0, 9, 500);
	CHECK_EQ_U64(kernel_total(&m.t[0].vec[0]), 3 + 9);
	metrics_free(&m);
}

/*
 * Unbound and bound again, the vector gets the same irq number back with a
 * new irq behind it, counting from 0.  Its identity (a new sysfs inode), an
 * unbind a rescan saw, or a count that went down says so; without them a
 * count above the old one looked like more of the old irq's.
 */
void test_metrics_rebind_same_irq(void)
{
	static struct target_set set, unbound;
	const struct metrics_vector *v;
	struct metrics m;

	one_target(&set);
	unbound = set;
	unbound.t[0].driver[0] = 0;
	unbound.t[0].nvec = 0;
	CHECK(!metrics_init(&m, &set, "guest", "module"), "metrics_init");
	v = &m.t[0].vec[0];
	kcount(&m, 40, 7, 1000, 100);		/* baseline */
	kcount(&m, 40, 7, 1010, 200);
	CHECK_EQ_U64(kernel_total(v), 10);
	/* unbound and bound between two cuts: only the identity changed */
	kcount(&m, 40, 8, 1500, 300);
	CHECK_EQ_U64(kernel_total(v), 10 + 1500);
	/* a rescan saw it unbound, then bound again: identity unknown */
	metrics_update_targets(&m, &unbound);
	CHECK_EQ_U64(kernel_total(v), 1510);	/* kept while unbound */
	metrics_update_targets(&m, &set);
	kcount(&m, 40, 0, 2000, 400);
	CHECK_EQ_U64(kernel_total(v), 1510 + 2000);
	kcount(&m, 40, 0, 2001, 450);
	CHECK_EQ_U64(kernel_total(v), 3511);
	/* identity unknown, rebound unseen: a count that went down */
	kcount(&m, 40, 0, 5, 500);
	CHECK_EQ_U64(kernel_total(v), 3511 + 5);
	metrics_free(&m);
}

/*
 * A vector serve did not see at its start (the device bound later, a vector
 * enabled later) is an irq allocated while serve ran: its whole count is
 * new, and so is every record of it, also those before its first cut.
 */
void test_metrics_late_vector(void)
{
	static struct target_set set, unbound;
	struct metrics m;

	one_target(&set);
	set.t[0].vec[0].irq = 50;
	unbound = set;
	unbound.t[0].driver[0] = 0;
	unbound.t[0].nvec = 0;
	CHECK(!metrics_init(&m, &unbound, "guest", "tracefs"), "metrics_init");
	CHECK_EQ_U64(m.t[0].nvec, 0);
	metrics_update_targets(&m, &set);	/* bound */
	put_irq(&m, 150);
	put_irq(&m, 160);
	kcount(&m, 50, 3, 2, 200);
	CHECK_EQ_U64(m.t[0].vec[0].interrupts, 2);
	CHECK_EQ_U64(kernel_total(&m.t[0].vec[0]), 2);
	put_irq(&m, 250);
	kcount(&m, 50, 3, 3, 300);
	CHECK_EQ_U64(m.t[0].vec[0].interrupts, 3);
	CHECK_EQ_U64(kernel_total(&m.t[0].vec[0]), 3);
	metrics_free(&m);
}

/* A reloaded module's summaries start at 0: the totals carry over. */
void test_metrics_summary_reload(void)
{
	static struct target_set set;
	uint64_t b[METRICS_LOG2_BUCKETS] = { 0 };
	struct metrics m;

	one_target(&set);
	CHECK(!metrics_init(&m, &set, "guest", "module"), "metrics_init");
	b[12] = 10;
	metrics_add_summary(&m, set.t[0].bdf, 0, b);
	b[12] = 25;
	metrics_add_summary(&m, set.t[0].bdf, 0, b);
	CHECK_EQ_U64(m.t[0].vec[0].interrupts, 25);
	b[12] = 4;			/* a new session */
	metrics_add_summary(&m, set.t[0].bdf, 0, b);
	CHECK_EQ_U64(m.t[0].vec[0].interrupts, 29);
	CHECK_EQ_U64(m.t[0].vec[0].handler.bucket[12], 29);
	metrics_free(&m);
	/* bucket 0 (0 -> 1 ns) counts in the total like any other: 3 + 10 */
	CHECK(!metrics_init(&m, &set, "guest", "module"), "metrics_init");
	memset(b, 0, sizeof(b));
	b[0] = 3;
	b[12] = 10;
	metrics_add_summary(&m, set.t[0].bdf, 0, b);
	CHECK_EQ_U64(m.t[0].vec[0].interrupts, 13);
	CHECK_EQ_U64(m.t[0].vec[0].handler.count, 13);
	metrics_free(&m);
}

/* The text exposition: families, cumulative buckets, escaped labels. */
void test_metrics_exposition(void)
{
	static struct target_set set;
	struct metrics m;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	one_target(&set);
	strcpy(set.t[0].driver, "we\"ird");
	CHECK(!metrics_init(&m, &set, "host", "tracefs"), "metrics_init");
	m.detailed = true;
	kcount(&m, 40, 0, 0, 100);
	put_irq(&m, 150);
	kcount(&m, 40, 0, 1, 200);
	out = open_memstream(&text, &len);
	prometheus_write(out, &m, "0.1");
	fclose(out);
	CHECK(strstr(text, "gpuprobe_interrupts_total{bdf=\"0000:00:06.0\",driver=\"we\\\"ird\",role=\"host\",vector=\"0\"} 1\n"),
	      "interrupts_total sample:\n%s", text);
	/* 3000 ns: not in le=2.048us, in le=4.096us and everything above */
	CHECK(strstr(text, "le=\"2.048e-06\"} 0\n") && strstr(text, "le=\"4.096e-06\"} 1\n"),
	      "cumulative buckets");
	CHECK(strstr(text, "gpuprobe_interrupt_handler_duration_seconds_sum{bdf=\"0000:00:06.0\",driver=\"we\\\"ird\",role=\"host\",vector=\"0\"} 0.000003000\n"),
	      "exact _sum in seconds");
	CHECK(strstr(text, "# TYPE gpuprobe_dma_call_duration_seconds histogram\n"), "DMA family");
	free(text);
	metrics_free(&m);
}

/*
 * Label values per the text exposition format: a backslash as \\, a double
 * quote as \", a newline as \n, nothing else changed.  The driver name
 * `a\b"c` newline `d` is written, worked by hand, as a\\b\"c\nd.
 */
void test_metrics_label_escaping(void)
{
	static const char want[] =
		"gpuprobe_target_bound{bdf=\"0000:00:06.0\",driver=\"a\\\\b\\\"c\\nd\",role=\"host\"} 1\n";
	static struct target_set set;
	struct metrics m;
	char *text = NULL, *line;
	const char *bad = NULL;
	size_t len = 0;
	unsigned int samples = 0;
	FILE *out;

	one_target(&set);
	strcpy(set.t[0].driver, "a\\b\"c\nd");
	CHECK(!metrics_init(&m, &set, "host", "tracefs"), "metrics_init");
	out = open_memstream(&text, &len);
	prometheus_write(out, &m, "0.1");
	fclose(out);
	CHECK(strlen(want) == 76, "the expected line is %zu bytes", strlen(want));
	CHECK(strstr(text, want), "target_bound sample, want %s in:\n%s", want, text);
	/* a raw newline would cut a sample in two: every line is a comment or a sample */
	for (line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		samples += !strncmp(line, "gpuprobe_", 9);
		if (strncmp(line, "gpuprobe_", 9) && strncmp(line, "# HELP ", 7) &&
		    strncmp(line, "# TYPE ", 7) && !bad)
			bad = line;
	}
	CHECK(!bad, "a line neither a sample nor a comment: %.40s", bad);
	CHECK(samples > 0, "no samples");
	free(text);
	metrics_free(&m);
}
