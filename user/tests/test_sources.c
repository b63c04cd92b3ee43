// SPDX-License-Identifier: GPL-2.0
/*
 * The source-side logic that needs no kernel: irq entry/exit pairing, module
 * record batches, event masks from caps, tracefs filter strings.
 */
#include <stdlib.h>
#include <string.h>

#include "irqpair.h"
#include "batch.h"
#include "synth.h"
#include "testlib.h"
#include "tests.h"
#include "pidns_parse.h"
#include "util.h"
#include "tracefs_events.h"

struct collected {
	int n;
	struct gpuprobe_rec_irq irq[16];
	uint64_t lost;
	int lost_records;
};

static int collect(void *ctx, const struct gpuprobe_rec_hdr *rec)
{
	struct collected *c = ctx;

	if (rec->type == GPUPROBE_EV_IRQ && c->n < 16)
		memcpy(&c->irq[c->n++], rec, sizeof(c->irq[0]));
	if (rec->type == GPUPROBE_EV_LOST) {
		c->lost += ((const struct gpuprobe_rec_lost *)rec)->count;
		c->lost_records++;
	}
	return 0;
}

static void two_vector_targets(struct target_set *set)
{
	static struct trace_info info;

	synth_info(&info);
	*set = info.targets;
}

void test_irq_pairing(void)
{
	static struct target_set set;
	struct collected c = { 0 };
	struct record_sink sink = { collect, &c };
	struct irq_pairer p;

	two_vector_targets(&set);
	CHECK(irq_pairer_init(&p, 4, &set) == 0, "init");
	/* cpu 1: a complete pair on vector 3 (irq 103) */
	irq_pairer_entry(&p, 1, 1000, 103, &sink);
	irq_pairer_exit(&p, 1, 1750, 103, true, &sink);
	/* cpu 2: an exit whose entry came before tracing: ignored */
	irq_pairer_exit(&p, 2, 500, 101, true, &sink);
	/* cpu 0: entry, lost exit, next entry: the first is flagged */
	irq_pairer_entry(&p, 0, 2000, 100, &sink);
	irq_pairer_entry(&p, 0, 3000, 100, &sink);
	irq_pairer_exit(&p, 0, 3100, 100, false, &sink);
	/* an irq of no target (filter race): dropped */
	irq_pairer_entry(&p, 3, 4000, 999, &sink);
	irq_pairer_exit(&p, 3, 4010, 999, true, &sink);
	/* still open at the end: flushed as entry without exit */
	irq_pairer_entry(&p, 2, 5000, 107, &sink);
	irq_pairer_flush(&p, &sink);

	CHECK_EQ_U64(c.n, 4);
	CHECK(c.irq[0].hdr.ts_ns == 1000 && c.irq[0].duration_ns == 750 &&
	      c.irq[0].vector == 3 && c.irq[0].bdf == SYNTH_GPU_BDF &&
	      c.irq[0].hdr.flags == GPUPROBE_IRQ_HANDLED && c.irq[0].hdr.cpu == 1,
	      "complete pair wrong");
	CHECK(c.irq[1].hdr.ts_ns == 2000 && c.irq[1].hdr.flags == TRACEFILE_IRQ_NO_EXIT,
	      "lost exit not flagged");
	CHECK(c.irq[2].hdr.ts_ns == 3000 && c.irq[2].duration_ns == 100 && c.irq[2].hdr.flags == 0,
	      "unhandled pair wrong");
	CHECK(c.irq[3].vector == 7 && c.irq[3].hdr.flags == TRACEFILE_IRQ_NO_EXIT, "flush wrong");
	CHECK_EQ_U64(p.orphan_exits, 1);	/* cpu 2's */
	CHECK_EQ_U64(p.unknown_irqs, 1);
	irq_pairer_free(&p);
}

void test_record_batches(void)
{
	uint64_t buf[64];
	unsigned char *bytes = (unsigned char *)buf, *odd;
	struct collected c = { 0 };
	struct record_sink sink = { collect, &c };
	struct record_batch_stats st = { 0 };
	struct gpuprobe_rec_lost lost = {
		.hdr = { .type = GPUPROBE_EV_LOST, .size = sizeof(lost) }, .count = 9,
	};
	struct gpuprobe_rec_irq irq;
	size_t len;

	synth_irq(&irq, 42, 0, 2, 1234, true);
	memcpy(bytes, &irq, sizeof(irq));
	memcpy(bytes + sizeof(irq), &lost, sizeof(lost));
	memcpy(bytes + sizeof(irq) + sizeof(lost), &irq, sizeof(irq));
	len = 2 * sizeof(irq) + sizeof(lost);
	/* netlink attribute data is 4-byte aligned: feed it misaligned */
	odd = malloc(len + 4);
	memcpy(odd + 4, bytes, len);
	CHECK(record_batch_split(odd + 4, len, &sink, &st) == 0, "good batch refused");
	CHECK_EQ_U64(st.records, 3);
	CHECK_EQ_U64(st.lost, 9);
	CHECK_EQ_U64(c.n, 2);
	CHECK(c.irq[1].duration_ns == 1234, "record changed in transit");
	/* second record's size corrupted: stops there */
	memset(&st, 0, sizeof(st));
	((struct gpuprobe_rec_hdr *)(bytes + sizeof(irq)))->size = 12;
	CHECK(record_batch_split(bytes, len, &sink, &st) < 0 && st.bad_offset == sizeof(irq),
	      "bad size not caught at %zu", st.bad_offset);
	/* trailing bytes that cannot be a record */
	memset(&st, 0, sizeof(st));
	CHECK(record_batch_split(&irq, sizeof(irq) - 8, &sink, &st) < 0 && st.records == 0,
	      "short record accepted");
	free(odd);
}

void test_module_event_mask(void)
{
	struct module_info info = { .record_version = GPUPROBE_RECORD_VERSION };
	struct source_config cfg = { .event_mask = GPUPROBE_EVMASK_ALL };
	uint32_t mask = 0;
	char err[256];

	info.caps = GPUPROBE_CAP_IRQ | GPUPROBE_CAP_SCHED | GPUPROBE_CAP_MCAST_PRIV;
	CHECK(module_event_mask(&info, &cfg, &mask, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ_U64(mask, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));	/* no workload: no sched */
	cfg.workload_pid = 123;
	module_event_mask(&info, &cfg, &mask, err, sizeof(err));
	CHECK_EQ_U64(mask, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ) | GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP) |
			   GPUPROBE_EVMASK(GPUPROBE_EV_SWITCH));
	info.caps = GPUPROBE_CAP_DMA | GPUPROBE_CAP_IOMMU_FAULT | GPUPROBE_CAP_SWIOTLB;
	module_event_mask(&info, &cfg, &mask, err, sizeof(err));
	/* the IOMMU events bring their parts (the module attaches their probes when asked) */
	CHECK_EQ_U64(mask, GPUPROBE_EVMASK(GPUPROBE_EV_DMA) | GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU) |
			   GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU_PART) | GPUPROBE_EVMASK(GPUPROBE_EV_SWIOTLB));
	/* record --no-iommu-parts: the IOMMU events without their parts */
	cfg.event_mask = GPUPROBE_EVMASK_ALL & ~GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU_PART);
	module_event_mask(&info, &cfg, &mask, err, sizeof(err));
	CHECK_EQ_U64(mask, GPUPROBE_EVMASK(GPUPROBE_EV_DMA) | GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU) |
			   GPUPROBE_EVMASK(GPUPROBE_EV_SWIOTLB));
	cfg.event_mask = GPUPROBE_EVMASK_ALL;
	info.caps = 0;
	CHECK(module_event_mask(&info, &cfg, &mask, err, sizeof(err)) < 0 &&
	      strstr(err, "--source tracefs"), "empty mask accepted");
	info.caps = GPUPROBE_CAP_IRQ;
	info.record_version = GPUPROBE_RECORD_VERSION + 1;
	CHECK(module_event_mask(&info, &cfg, &mask, err, sizeof(err)) < 0 &&
	      strstr(err, "records version"), "record version mismatch accepted");
}

void test_tracefs_filters(void)
{
	static struct target_set set;
	const struct event_spec *entry = &event_specs[0], *fault = NULL, *map = NULL;
	char buf[512];

	for (int i = 0; i < TRACEFS_NSPECS; i++) {
		if (!strcmp(event_specs[i].name, "io_page_fault"))
			fault = &event_specs[i];
		if (!strcmp(event_specs[i].name, "map"))
			map = &event_specs[i];
	}
	two_vector_targets(&set);
	set.t[0].nvec = 2;
	CHECK(build_event_filter(entry, &set, NULL, buf, sizeof(buf)) == 0 &&
	      !strcmp(buf, "irq==100||irq==101"), "irq filter '%s'", buf);
	CHECK(build_event_filter(fault, &set, "device", buf, sizeof(buf)) == 0 &&
	      !strcmp(buf, "device==\"0000:01:00.0\""), "device filter '%s'", buf);
	CHECK(build_event_filter(fault, &set, NULL, buf, sizeof(buf)) < 0,
	      "device filter without a device field");
	CHECK(build_event_filter(map, &set, NULL, buf, sizeof(buf)) == 0 && !buf[0],
	      "iommu map should be unfiltered");
	set.t[0].nvec = 0;
	CHECK(build_event_filter(entry, &set, NULL, buf, sizeof(buf)) < 0,
	      "irq filter without vectors must refuse");
	set.t[0].nvec = 200;
	for (int i = 0; i < 200; i++)
		set.t[0].vec[i].irq = 1000 + i;
	CHECK(build_event_filter(entry, &set, NULL, buf, 64) < 0, "overflow not reported");
}

/*
 * The probe signal's lines of a pid namespace's scratch instance, among
 * foreign ones: another task's SIGWINCH (a terminal resize, errno=0),
 * another container's recorder's probe (its own nonce), other signals, and
 * comms with '-' and ' ' in them.  Only the two lines of this nonce count,
 * in order.
 */
void test_pidns_signal_lines(void)
{
	static const char trace[] =
		"# tracer: nop\n"
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"            bash-999     [000] d..1.   10.000001: signal_generate: sig=28 errno=0 code=128 comm=vim pid=998 grp=1 res=1\n"
		"   gpuprobe-trac-4242    [001] d..1.   10.000002: signal_generate: sig=28 errno=77 code=-1 comm=gpuprobe-trace pid=4242 grp=1 res=1\n"
		"   gpuprobe-trac-5000    [001] d..1.   10.000003: signal_generate: sig=15 errno=1234 code=-1 comm=x pid=5001 grp=1 res=0\n"
		" Web Content-x-5000     [001] d..1.   10.000004: signal_generate: sig=28 errno=1234 code=-1 comm=gpuprobe-trace pid=5000 grp=1 res=1\n"
		"   gpuprobe-trac-4242    [001] d..1.   10.000005: signal_generate: sig=28 errno=77 code=-1 comm=gpuprobe-trace pid=4243 grp=1 res=1\n"
		"   gpuprobe-trac-5000    [002] d..1.   10.000006: signal_generate: sig=28 errno=1234 code=-1 comm=bash pid=5002 grp=1 res=1\n"
		"   gpuprobe-trac-5000    [002] d..1.   10.000007: signal_generate: sig=28 errno=12345 code=-1 comm=bash pid=6000 grp=1 res=1";
	const char *pos = trace;
	long s = 0, t = 0;

	CHECK(pidns_next_signal(&pos, 28, 1234, &s, &t) && s == 5000 && t == 5000,
	      "first line of nonce 1234: sender %ld target %ld, want 5000 5000", s, t);
	CHECK(pidns_next_signal(&pos, 28, 1234, &s, &t) && s == 5000 && t == 5002,
	      "second line of nonce 1234: sender %ld target %ld, want 5000 5002", s, t);
	CHECK(!pidns_next_signal(&pos, 28, 1234, &s, &t), "a third line of nonce 1234 (errno=12345 is not it)");
	pos = trace;
	CHECK(pidns_next_signal(&pos, 28, 77, &s, &t) && s == 4242 && t == 4242 &&
	      pidns_next_signal(&pos, 28, 77, &s, &t) && s == 4242 && t == 4243,
	      "nonce 77's lines: last sender %ld target %ld, want 4242 4243", s, t);
	pos = "";
	CHECK(!pidns_next_signal(&pos, 28, 77, &s, &t), "a line in an empty trace");
}

/* In a pid namespace only the recorder and its workload have numbers here. */
void test_pidns_local_pid(void)
{
	/* kernel pids 5000 (recorder) and 5002 (workload); 2 and 3 here */
	CHECK_EQ_U64(pidns_local_pid(5000, 5000, 2, 5002, 3), 2);
	CHECK_EQ_U64(pidns_local_pid(5002, 5000, 2, 5002, 3), 3);
	/* a host task whose kernel pid is a pid of this namespace's: unknown */
	CHECK_EQ_U64(pidns_local_pid(3, 5000, 2, 5002, 3), 0);
	CHECK_EQ_U64(pidns_local_pid(2, 5000, 2, 5002, 3), 0);
	CHECK_EQ_U64(pidns_local_pid(7777, 5000, 2, 5002, 3), 0);
	CHECK_EQ_U64(pidns_local_pid(0, 5000, 2, 5002, 3), 0);
	/* no workload: kworkload 0 maps nothing */
	CHECK_EQ_U64(pidns_local_pid(5000, 5000, 2, 0, 0), 2);
	CHECK_EQ_U64(pidns_local_pid(5002, 5000, 2, 0, 0), 0);
}

/* info's "whose root is another uid of the host": only when uid_map says so */
void test_uid_map_root(void)
{
	CHECK(uid_map_root_is_host_root("         0          0 4294967295\n"), "the initial namespace's map");
	CHECK(uid_map_root_is_host_root("         0          0          1\n"), "0 0 1: root is the host's root");
	CHECK(uid_map_root_is_host_root("      1000       1000          1\n         0          0          1\n"),
	      "a 0 0 1 line after another");
	CHECK(!uid_map_root_is_host_root("         0      65534          1\n"), "root mapped to 65534");
	CHECK(!uid_map_root_is_host_root("         0     100000      65536\n"), "a rootless range");
	CHECK(!uid_map_root_is_host_root("      1000          0          1\n"), "host root as uid 1000: not this root");
	CHECK(!uid_map_root_is_host_root(""), "an empty map (none written yet)");
}
