// SPDX-License-Identifier: GPL-2.0
/*
 * Attribution rules on synthetic timelines with known answers (times in ns
 * after T0):
 *
 *   two GPUs       A 0000:01:00.0 (CUDA device 0), B 0000:02:00.0 (device 1),
 *                  one kernel each over [1000, 2000]: B's interrupt and maps
 *                  are never charged to A's kernel; a kernel on a device with
 *                  no PCI function known is charged nothing (unmapped);
 *   late vector    an interrupt of A on a vector the header does not list
 *                  still counts for A (the record names the BDF); one after
 *                  the wait returned counts for no phase;
 *   two threads    threads 100 and 200 of one process each launch a kernel
 *                  and wait; each wait takes its own thread's kernel and
 *                  wake-ups; a stream wait takes its stream's kernel;
 *   clock margin   a CLOCK bound of 100 ns: interrupts within 100 ns of the
 *                  kernel's start or end are ambiguous, in no phase;
 *   stray sync     a synchronization record outside its API call is no wait.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attribute.h"
#include "synth.h"
#include "testlib.h"
#include "tests.h"
#include "util.h"

#define T0	2000000000ull
#define GPU_A	SYNTH_GPU_BDF
#define GPU_B	GPUPROBE_BDF(0, 0x02, 0x00)
#define PID	42

struct app {
	uint16_t type;
	const char *name;
	uint32_t tid, device, stream, kind, flags;
	uint64_t corr, start, end, extra;	/* extra: DEVICE bdf, CLOCK bound */
	uint32_t pid;				/* 0: PID */
};

static void put_app(struct trace_writer *w, const struct app *a)
{
	struct tracefile_rec_app r = {
		.hdr = { .type = TRACEFILE_REC_APP, .size = sizeof(r), .ts_ns = T0 + a->start },
		.ev = { .magic = GPUPROBE_APP_MAGIC, .version = GPUPROBE_APP_VERSION,
			.api = GPUPROBE_APP_CUDA, .size = sizeof(r.ev), .type = a->type,
			.kind = a->kind, .flags = a->flags, .pid = a->pid ? a->pid : PID, .tid = a->tid,
			.device = a->device, .stream = a->stream, .correlation = a->corr,
			.start_ns = T0 + a->start, .end_ns = T0 + a->end },
	};

	if (a->type == GPUPROBE_APP_DEVICE) {
		r.ev.kind = (uint32_t)a->extra;
		r.ev.start_ns = r.ev.end_ns = 0;
	}
	if (a->type == GPUPROBE_APP_CLOCK)
		r.ev.bytes = a->extra;
	copy_string(r.ev.name, sizeof(r.ev.name), a->name);
	trace_writer_put(w, &r.hdr);
}

static void put_irq(struct trace_writer *w, uint32_t bdf, uint64_t t, uint32_t vector)
{
	struct gpuprobe_rec_irq irq;

	synth_irq(&irq, T0 + t, 0, vector, 100, true);
	irq.bdf = bdf;
	trace_writer_put(w, &irq.hdr);
}

static void put_map(struct trace_writer *w, uint32_t bdf, uint64_t t)
{
	struct gpuprobe_rec_dma d;

	synth_dma(&d, T0 + t, GPUPROBE_DMA_MAP_PAGE, 4096, 1, 0);
	d.bdf = bdf;
	trace_writer_put(w, &d.hdr);
}

static void put_wakeup(struct trace_writer *w, uint32_t tid, uint64_t t)
{
	struct gpuprobe_rec_sched s = {
		.hdr = { .type = GPUPROBE_EV_WAKEUP, .size = sizeof(s), .ts_ns = T0 + t },
		.pid = tid, .tgid = PID,
	};

	trace_writer_put(w, &s.hdr);
}

static struct attribution *attribute_apps(const char *stem, void (*kernel)(struct trace_writer *),
					  const struct app *apps, size_t n)
{
	const char *path = test_tmp_path(stem);
	struct attribution *at = NULL;
	struct trace_writer w;
	struct trace_info info;
	char err[512];

	synth_info(&info);
	if (trace_writer_open(&w, path, &info)) {
		CHECK(0, "cannot write %s", path);
		return NULL;
	}
	kernel(&w);
	for (size_t i = 0; i < n; i++)
		put_app(&w, &apps[i]);
	if (trace_writer_finish(&w, T0 + 100000, 0) == 0)
		at = attribute_file(path, err, sizeof(err));
	CHECK(at, "attribute_file: %s", err);
	unlink(path);
	return at;
}

static const struct attr_op *op_named(const struct attribution *at, const char *name)
{
	for (size_t i = 0; at && i < at->nops; i++)
		if (!strcmp(at->ops[i].ev.name, name))
			return &at->ops[i];
	CHECK(0, "no op %s", name);
	return NULL;
}

static void two_gpus_kernel_events(struct trace_writer *w)
{
	put_irq(w, GPU_A, 1500, 0);
	put_irq(w, GPU_B, 1600, 0);
	put_map(w, GPU_B, 1200);
	put_map(w, GPU_B, 1300);
	put_irq(w, GPU_A, 1700, 7);	/* a vector the header does not list */
	put_irq(w, GPU_A, 3500, 0);	/* after kA's wait returned */
}

void test_attribution_two_gpus(void)
{
	static const struct app apps[] = {
		{ GPUPROBE_APP_DEVICE, "GPU A", .device = 0, .flags = GPUPROBE_APPF_PCI_KNOWN, .extra = GPU_A },
		{ GPUPROBE_APP_DEVICE, "GPU B", .device = 1, .flags = GPUPROBE_APPF_PCI_KNOWN, .extra = GPU_B },
		{ GPUPROBE_APP_API, "cuLaunchKernel", .tid = PID, .corr = 1, .start = 500, .end = 600 },
		{ GPUPROBE_APP_KERNEL, "kA", .device = 0, .stream = 7, .corr = 1, .start = 1000, .end = 2000 },
		{ GPUPROBE_APP_KERNEL, "kB", .device = 1, .stream = 9, .corr = 2, .start = 1000, .end = 2000 },
		{ GPUPROBE_APP_KERNEL, "kC", .device = 2, .stream = 11, .corr = 3, .start = 1000, .end = 2000 },
		{ GPUPROBE_APP_SYNC, "stream_synchronize", .tid = PID, .stream = 7, .kind = GPUPROBE_SYNC_STREAM,
		  .flags = GPUPROBE_APPF_BLOCKING, .corr = 4, .start = 1900, .end = 3000 },
	};
	struct attribution *at = attribute_apps("gpus", two_gpus_kernel_events, apps, 7);
	const struct attr_op *a = op_named(at, "kA"), *b = op_named(at, "kB"), *c = op_named(at, "kC");

	if (!a || !b || !c)
		goto out;
	CHECK_EQ_U64(at->kernel_bdfs, 2);
	CHECK_EQ_U64(a->bdf, GPU_A);
	CHECK_EQ_U64(b->bdf, GPU_B);
	CHECK_EQ_U64(a->detail->phase[ATTR_RUN].irqs, 2);	/* 1500 and the late vector's 1700 */
	CHECK_EQ_U64(a->detail->phase[ATTR_RUN].dma_maps, 0);	/* B's maps */
	CHECK_EQ_U64(b->detail->phase[ATTR_RUN].irqs, 1);
	CHECK_EQ_U64(b->detail->phase[ATTR_RUN].dma_maps, 2);
	CHECK_EQ_U64(a->return_ns, T0 + 3000);
	CHECK_EQ_U64(a->detail->phase[ATTR_RETURN].irqs, 0);	/* 3500 came after the return */
	CHECK_EQ_U64(c->bdf, GPUPROBE_BDF_NONE);
	CHECK_EQ_U64(at->ops_unmapped, 1);
	CHECK_EQ_U64(c->detail->phase[ATTR_RUN].irqs + c->detail->phase[ATTR_RUN].dma_maps, 0);
	CHECK_EQ_U64(at->ndevices, 2);
out:
	attribution_free(at);
}

static void two_threads_kernel_events(struct trace_writer *w)
{
	put_irq(w, GPU_A, 3200, 0);
	put_wakeup(w, 200, 3900);
	put_wakeup(w, 100, 4800);
}

/*
 * Thread 100 launches kX (stream 7, ends 3000) and waits for its device
 * [2500, 5000]; thread 200 launches kY (stream 8, ends 3500) and waits
 * [2500, 4000].  By process, both waits would take kY (the last to end in
 * each).  Thread 100 then waits on stream 8 [5500, 6000] after kZ (stream 8,
 * issued by 200) and kW (stream 7, issued by 100) end at 5700 and 5800: the
 * stream wait takes kZ.
 */
void test_attribution_two_threads(void)
{
	static const struct app apps[] = {
		{ GPUPROBE_APP_API, "cuLaunchKernel", .tid = 100, .corr = 1, .start = 500, .end = 600 },
		{ GPUPROBE_APP_API, "cuLaunchKernel", .tid = 200, .corr = 2, .start = 700, .end = 800 },
		{ GPUPROBE_APP_KERNEL, "kX", .stream = 7, .corr = 1, .start = 1000, .end = 3000 },
		{ GPUPROBE_APP_KERNEL, "kY", .stream = 8, .corr = 2, .start = 1100, .end = 3500 },
		{ GPUPROBE_APP_API, "cuCtxSynchronize", .tid = 100, .corr = 3, .start = 2500, .end = 5000,
		  .flags = GPUPROBE_APPF_BLOCKING },
		{ GPUPROBE_APP_API, "cuCtxSynchronize", .tid = 200, .corr = 4, .start = 2500, .end = 4000,
		  .flags = GPUPROBE_APPF_BLOCKING },
		{ GPUPROBE_APP_API, "cuLaunchKernel", .tid = 200, .corr = 5, .start = 5100, .end = 5150 },
		{ GPUPROBE_APP_API, "cuLaunchKernel", .tid = 100, .corr = 6, .start = 5200, .end = 5250 },
		{ GPUPROBE_APP_KERNEL, "kZ", .stream = 8, .corr = 5, .start = 5300, .end = 5700 },
		{ GPUPROBE_APP_KERNEL, "kW", .stream = 7, .corr = 6, .start = 5400, .end = 5800 },
		/* CUPTI's sync record names no thread: its API call (corr 7) does */
		{ GPUPROBE_APP_API, "cuStreamSynchronize", .tid = 100, .corr = 7, .start = 5500, .end = 6000 },
		{ GPUPROBE_APP_SYNC, "stream_synchronize", .tid = 0, .stream = 8, .kind = GPUPROBE_SYNC_STREAM,
		  .flags = GPUPROBE_APPF_BLOCKING, .corr = 7, .start = 5500, .end = 6000 },
	};
	struct attribution *at = attribute_apps("threads", two_threads_kernel_events, apps, 12);
	const struct attr_op *x = op_named(at, "kX"), *y = op_named(at, "kY");
	const struct attr_op *z = op_named(at, "kZ"), *wk = op_named(at, "kW");

	if (!x || !y || !z || !wk)
		goto out;
	CHECK_EQ_U64(x->issue_tid, 100);
	CHECK_EQ_U64(x->return_ns, T0 + 5000);
	CHECK_EQ_U64(x->wait_tid, 100);
	CHECK_EQ_U64(y->return_ns, T0 + 4000);
	CHECK_EQ_U64(y->wait_tid, 200);
	CHECK_EQ_U64(x->detail->phase[ATTR_RETURN].wakeups, 1);	/* 100's at 4800, not 200's */
	CHECK_EQ_U64(y->detail->phase[ATTR_RETURN].wakeups, 1);	/* 200's at 3900 */
	CHECK_EQ_U64(x->detail->phase[ATTR_RETURN].irqs, 1);	/* GPU events are the GPU's, any thread */
	CHECK_EQ_U64(y->detail->phase[ATTR_RETURN].irqs, 0);	/* 3200 is before kY ended */
	CHECK_EQ_U64(z->return_ns, T0 + 6000);		/* the stream wait's stream */
	CHECK_EQ_U64(z->wait_tid, 100);
	CHECK_EQ_U64(wk->return_ns, 0);			/* stream 7: nobody waited */
	CHECK_EQ_U64(at->sum.waits, 3);
out:
	attribution_free(at);
}

/*
 * A thread unknown: torch launches through the runtime, and with only the
 * driver's API records (GPUPROBE_CUDA_RUNTIME=0, or CUPTI without them) no
 * kernel has an issuing call and the device sync's record names no thread.
 * The wait then takes the process's ops, as before waits were matched by
 * thread (on the H200, 3 of 30 torch steps' waits matched without this).
 */
void test_attribution_thread_unknown(void)
{
	static const struct app apps[] = {
		{ GPUPROBE_APP_KERNEL, "kA", .stream = 7, .corr = 11, .start = 1000, .end = 3000 },
		{ GPUPROBE_APP_SYNC, "context_synchronize", .tid = 0, .kind = GPUPROBE_SYNC_DEVICE,
		  .flags = GPUPROBE_APPF_BLOCKING, .corr = 12, .start = 2500, .end = 5000 },
	};
	struct attribution *at = attribute_apps("unknown", two_threads_kernel_events, apps, 2);
	const struct attr_op *a = op_named(at, "kA");

	if (!a)
		goto out;
	CHECK_EQ_U64(a->issue_tid, 0);
	CHECK_EQ_U64(a->return_ns, T0 + 5000);
	CHECK_EQ_U64(at->sum.waits, 1);
out:
	attribution_free(at);
}

/*
 * A synchronization record outside the call whose correlation id it carries
 * (on the H200, with a second process on the GPU, CUPTI gave thousands of
 * sub-us stream syncs after their call had returned): not a wait.  Thread
 * 100 waits on stream 7 in cudaStreamSynchronize [1500, 2500] for kA (ends
 * 2000); a record of the same correlation at [3900, 4100] spans kB's end
 * (4000, same stream): kB was waited for by nobody.
 */
void test_attribution_sync_outside_call(void)
{
	static const struct app apps[] = {
		{ GPUPROBE_APP_API, "cuLaunchKernel", .tid = 100, .corr = 1, .start = 500, .end = 600 },
		{ GPUPROBE_APP_KERNEL, "kA", .stream = 7, .corr = 1, .start = 1000, .end = 2000 },
		{ GPUPROBE_APP_API, "cuLaunchKernel", .tid = 100, .corr = 3, .start = 2600, .end = 2700 },
		{ GPUPROBE_APP_KERNEL, "kB", .stream = 7, .corr = 3, .start = 3000, .end = 4000 },
		{ GPUPROBE_APP_API, "cudaStreamSynchronize", .tid = 100, .corr = 2,
		  .flags = GPUPROBE_APPF_BLOCKING, .start = 1500, .end = 2500 },
		{ GPUPROBE_APP_SYNC, "stream_synchronize", .kind = GPUPROBE_SYNC_STREAM, .stream = 7,
		  .flags = GPUPROBE_APPF_BLOCKING, .corr = 2, .start = 1600, .end = 2400 },
		{ GPUPROBE_APP_SYNC, "stream_synchronize", .kind = GPUPROBE_SYNC_STREAM, .stream = 7,
		  .flags = GPUPROBE_APPF_BLOCKING, .corr = 2, .start = 3900, .end = 4100 },
	};
	struct attribution *at = attribute_apps("outside", two_threads_kernel_events, apps,
						ARRAY_SIZE(apps));
	const struct attr_op *a = op_named(at, "kA"), *b = op_named(at, "kB");

	if (!a || !b)
		goto out;
	CHECK_EQ_U64(a->return_ns, T0 + 2400);
	CHECK_EQ_U64(b->return_ns, 0);
	CHECK_EQ_U64(at->sum.waits, 1);
	CHECK_EQ_U64(at->syncs_outside_call, 1);
	CHECK_EQ_U64(at->syncs_by_kind[GPUPROBE_SYNC_STREAM], 2);
out:
	attribution_free(at);
}

static void margin_kernel_events(struct trace_writer *w)
{
	static const uint64_t at[] = { 850, 950, 1050, 1500, 1950, 2050, 2150 };

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		put_irq(w, GPU_A, at[i], 0);
}

static const struct app margin_apps[] = {
	{ GPUPROBE_APP_API, "cuLaunchKernel", .tid = PID, .corr = 1, .start = 800, .end = 820 },
	{ GPUPROBE_APP_KERNEL, "k", .stream = 7, .corr = 1, .start = 1000, .end = 2000 },
	{ GPUPROBE_APP_SYNC, "stream_synchronize", .tid = PID, .stream = 7, .kind = GPUPROBE_SYNC_STREAM,
	  .flags = GPUPROBE_APPF_BLOCKING, .corr = 2, .start = 1500, .end = 3000 },
	{ GPUPROBE_APP_CLOCK, "clock", .stream = 7, .start = 100, .end = 100, .extra = 100 },
};

/* Bound 100: issue {850}, margin {950, 1050, 1950, 2050}, run {1500}, return {2150}. */
void test_attribution_clock_margin(void)
{
	struct attribution *at = attribute_apps("margin", margin_kernel_events, margin_apps, 4);
	const struct attr_op *k = op_named(at, "k");

	if (!k)
		goto out;
	CHECK(k->clock_bound_known && k->clock_error_ns == 100, "bound %llu",
	      (unsigned long long)k->clock_error_ns);
	CHECK_EQ_U64(k->detail->phase[ATTR_ISSUE].irqs, 1);
	CHECK_EQ_U64(k->detail->margin.irqs, 4);
	CHECK_EQ_U64(k->detail->phase[ATTR_RUN].irqs, 1);
	CHECK_EQ_U64(k->detail->phase[ATTR_RETURN].irqs, 1);
	CHECK_EQ_U64(at->sum.margin_irqs, 4);
	CHECK_EQ_U64(at->clock_error_max_ns, 100);
	attribution_free(at);
	/* No CLOCK record: nothing is widened, the bound is reported unmeasured. */
	at = attribute_apps("nomargin", margin_kernel_events, margin_apps, 3);
	k = op_named(at, "k");
	if (!k)
		goto out;
	CHECK(!k->clock_bound_known, "no bound");
	CHECK_EQ_U64(k->detail->margin.irqs, 0);
	CHECK_EQ_U64(k->detail->phase[ATTR_ISSUE].irqs, 2);
	CHECK_EQ_U64(k->detail->phase[ATTR_RUN].irqs, 3);
	CHECK_EQ_U64(k->detail->phase[ATTR_RETURN].irqs, 2);
	CHECK_EQ_U64(at->ops_without_clock_bound, 1);
out:
	attribution_free(at);
}

/* JSON: times that were not measured are null, never 0. */
void test_attribution_json_nulls(void)
{
	struct attribution *at = attribute_apps("nulls", margin_kernel_events, margin_apps, 3);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct json j;

	if (!at || !out)
		goto out;
	json_init(&j, out, false);
	json_object_begin(&j);
	attribute_print_json(&j, at);
	json_object_end(&j);
	fflush(out);
	CHECK(strstr(buf, "\"clock_error_ns\":null") && strstr(buf, "\"clock_error_max_ns\":null") &&
	      strstr(buf, "\"map_call_ns\":null"), "nulls missing: %.400s", buf);
	CHECK(!strstr(buf, "\"return_ns\":0,") && !strstr(buf, "\"issue_ns\":0,"), "a 0 time: %.400s", buf);
out:
	if (out)
		fclose(out);
	free(buf);
	attribution_free(at);
}

/* CUDA: CUPTI maps the whole device's times, so its CLOCK record names all streams. */
static const struct app cuda_clock_apps[] = {
	{ GPUPROBE_APP_API, "cuLaunchKernel", .tid = PID, .corr = 1, .start = 800, .end = 820 },
	{ GPUPROBE_APP_KERNEL, "k", .stream = 7, .corr = 1, .start = 1000, .end = 2000 },
	{ GPUPROBE_APP_SYNC, "stream_synchronize", .tid = PID, .stream = 7, .kind = GPUPROBE_SYNC_STREAM,
	  .flags = GPUPROBE_APPF_BLOCKING, .corr = 2, .start = 1500, .end = 3000 },
	{ GPUPROBE_APP_CLOCK, "other device", .device = 1, .stream = GPUPROBE_APP_ALL_STREAMS,
	  .start = 100, .end = 100, .extra = 900 },
	{ GPUPROBE_APP_CLOCK, "CUPTI clock check", .stream = GPUPROBE_APP_ALL_STREAMS,
	  .start = 100, .end = 100, .extra = 100 },
};

void test_attribution_clock_all_streams(void)
{
	struct attribution *at = attribute_apps("allstreams", margin_kernel_events, cuda_clock_apps, 5);
	const struct attr_op *k = op_named(at, "k");

	if (!k)
		goto out;
	CHECK(k->clock_bound_known && k->clock_error_ns == 100, "bound %llu",
	      (unsigned long long)k->clock_error_ns);
	CHECK_EQ_U64(k->detail->margin.irqs, 4);
	CHECK_EQ_U64(at->ops_without_clock_bound, 0);
	attribution_free(at);
	/* only the other device's record: this op's bound stays unmeasured */
	at = attribute_apps("otherdevice", margin_kernel_events, cuda_clock_apps, 4);
	k = op_named(at, "k");
	if (!k)
		goto out;
	CHECK(!k->clock_bound_known && k->detail->margin.irqs == 0, "other device's bound used");
	CHECK_EQ_U64(at->ops_without_clock_bound, 1);
out:
	attribution_free(at);
}

/*
 * More kernel events than one prefix block (64) and than the sort's
 * insertion cutoff (16), given out of time order: the interrupts of GPU A
 * at 1000 + 10 k for k = 0..299, in the order k = 7 i mod 300 (7 is prime
 * to 300: each k once), plus one at 500 and one at 9000, before and after
 * every window.  No API call: the kernels' windows alone make the span.
 *   a [1000, 3990]: run [1000, 3991): every k, 300 interrupts
 *   b [1500, 2500]: run [1500, 2501): k = 50..150, 101
 *   c [2005, 3333]: run [2005, 3334): k = 101..233, 133
 * Each interrupt lasts 100 ns (put_irq).
 */
static void many_kernel_events(struct trace_writer *w)
{
	put_irq(w, GPU_A, 9000, 0);
	for (uint64_t i = 0; i < 300; i++)
		put_irq(w, GPU_A, 1000 + 10 * (7 * i % 300), 0);
	put_irq(w, GPU_A, 500, 0);
}

static const struct app many_apps[] = {
	{ GPUPROBE_APP_KERNEL, "a", .stream = 7, .corr = 1, .start = 1000, .end = 3990 },
	{ GPUPROBE_APP_KERNEL, "b", .stream = 7, .corr = 2, .start = 1500, .end = 2500 },
	{ GPUPROBE_APP_KERNEL, "c", .stream = 7, .corr = 3, .start = 2005, .end = 3333 },
};

void test_attribution_many_events(void)
{
	struct attribution *at = attribute_apps("many", many_kernel_events, many_apps, 3);
	const struct attr_op *a = op_named(at, "a"), *b = op_named(at, "b"), *c = op_named(at, "c");

	if (!a || !b || !c)
		goto out;
	CHECK_EQ_U64(at->kernel_events, 300);		/* the two outside every window left out */
	CHECK_EQ_U64(a->detail->phase[ATTR_RUN].irqs, 300);
	CHECK_EQ_U64(a->detail->phase[ATTR_RUN].irq_ns, 300 * 100);
	CHECK_EQ_U64(b->detail->phase[ATTR_RUN].irqs, 101);
	CHECK_EQ_U64(b->detail->phase[ATTR_RUN].irq_ns, 101 * 100);
	CHECK_EQ_U64(c->detail->phase[ATTR_RUN].irqs, 133);
out:
	attribution_free(at);
}

/*
 * report's clock, device and API-with-maps lines and keys.  A launch call
 * [800, 820] with a DMA map at 810 inside it (so 1 call, 20 ns, with maps),
 * the GPU's DEVICE record (CUDA device 0 of pid 42 is 0000:01:00.0), a CLOCK
 * bound of 100 ns for every stream: clock_points 1, clock_error_max_ns 100.
 */
static void launch_map_kernel_events(struct trace_writer *w)
{
	put_map(w, GPU_A, 810);
	margin_kernel_events(w);
}

static const struct app report_apps[] = {
	{ GPUPROBE_APP_API, "cuLaunchKernel", .tid = PID, .corr = 1, .start = 800, .end = 820 },
	{ GPUPROBE_APP_KERNEL, "k", .stream = 7, .corr = 1, .start = 1000, .end = 2000 },
	{ GPUPROBE_APP_DEVICE, "NVIDIA H200", .device = 0, .flags = GPUPROBE_APPF_PCI_KNOWN, .extra = GPU_A },
	{ GPUPROBE_APP_CLOCK, "CUPTI clock check", .stream = GPUPROBE_APP_ALL_STREAMS,
	  .start = 100, .end = 100, .extra = 100 },
};

static int attribution_json_check(const struct attribution *at, const char *assertions)
{
	const char *path = test_tmp_path("attrjson");
	struct json j;
	FILE *f = test_json_begin(&j, path);
	int rc;

	if (!f)
		return -1;
	attribute_print_json(&j, at);
	json_object_end(&j);
	fclose(f);
	rc = test_python_json(path, assertions);
	unlink(path);
	return rc;
}

static void attribution_text(const struct attribution *at, char **buf)
{
	size_t len = 0;
	FILE *out = open_memstream(buf, &len);

	*buf = NULL;
	if (!out)
		return;
	attribute_print_text(out, at, false);
	fclose(out);
}

void test_attribution_report_keys(void)
{
	struct attribution *at = attribute_apps("keys", launch_map_kernel_events, report_apps, 4);
	char *text = NULL;

	if (!at)
		return;
	CHECK(!attribution_json_check(at,
		"a=d[\"app\"]\n"
		"assert a[\"summary\"][\"api_calls_with_maps\"]==1, a[\"summary\"]\n"
		"assert a[\"summary\"][\"api_ns_with_maps\"]==20, a[\"summary\"]\n"
		"assert a[\"clock_points\"]==1 and a[\"clock_error_max_ns\"]==100, a\n"
		"assert a[\"ops_without_clock_bound\"]==0, a\n"
		"assert [(x[\"api\"],x[\"pid\"],x[\"device\"],x[\"name\"]) for x in a[\"devices\"]]=="
		"[(\"cuda\",42,0,\"NVIDIA H200\")], a[\"devices\"]\n"), "report --json's app keys (above)");
	attribution_free(at);
	/* without the CLOCK record: the bound is null and the text says so */
	at = attribute_apps("keys2", launch_map_kernel_events, report_apps, 3);
	if (!at)
		return;
	CHECK(!attribution_json_check(at,
		"a=d[\"app\"]\n"
		"assert a[\"clock_points\"]==0 and a[\"clock_error_max_ns\"] is None, a\n"
		"assert a[\"ops_without_clock_bound\"]==1, a\n"), "report --json without a clock bound (above)");
	attribution_text(at, &text);
	CHECK(text && strstr(text, "no error bound measured for 1 ops' device times"),
	      "text without the unmeasured bound: %s", text ? text : "(none)");
	free(text);
	attribution_free(at);
}

/*
 * Two processes, each a launch, a kernel on its stream 7 and a blocking
 * stream synchronize, the second process's kernel ending first:
 *   pid 42: kA [1000, 2000], its sync [1500, 3000] -> kA returns at 3000
 *   pid 43: kB [1000, 1500], its sync [1200, 2500] -> kB returns at 2500
 * A wait is matched within its own process only (the same stream number
 * in another process is another stream).
 */
static void no_kernel_events(struct trace_writer *w)
{
	(void)w;
}

static const struct app two_process_apps[] = {
	{ GPUPROBE_APP_API, "cuLaunchKernel", .tid = 42, .corr = 1, .start = 800, .end = 820, .pid = 42 },
	{ GPUPROBE_APP_KERNEL, "kA", .stream = 7, .corr = 1, .start = 1000, .end = 2000, .pid = 42 },
	{ GPUPROBE_APP_SYNC, "stream_synchronize", .tid = 42, .stream = 7, .kind = GPUPROBE_SYNC_STREAM,
	  .flags = GPUPROBE_APPF_BLOCKING, .corr = 2, .start = 1500, .end = 3000, .pid = 42 },
	{ GPUPROBE_APP_API, "cuLaunchKernel", .tid = 43, .corr = 1, .start = 805, .end = 825, .pid = 43 },
	{ GPUPROBE_APP_KERNEL, "kB", .stream = 7, .corr = 1, .start = 1000, .end = 1500, .pid = 43 },
	{ GPUPROBE_APP_SYNC, "stream_synchronize", .tid = 43, .stream = 7, .kind = GPUPROBE_SYNC_STREAM,
	  .flags = GPUPROBE_APPF_BLOCKING, .corr = 2, .start = 1200, .end = 2500, .pid = 43 },
};

void test_attribution_two_processes(void)
{
	struct attribution *at = attribute_apps("twoproc", no_kernel_events, two_process_apps, 6);
	const struct attr_op *a = op_named(at, "kA"), *b = op_named(at, "kB");

	if (a && b) {
		CHECK_EQ_U64(a->return_ns, T0 + 3000);
		CHECK_EQ_U64(b->return_ns, T0 + 2500);
		CHECK_EQ_U64(a->issue_ns, T0 + 800);
		CHECK_EQ_U64(b->issue_ns, T0 + 805);
	}
	attribution_free(at);
}

/*
 * A damaged string table (issue 28): three string records before the
 * events, one whole (the kernel's name, 200 'w'), one whose hash is not its
 * text's, one with a NUL inside its text.  The whole one still gives the
 * kernel its name; the two others are counted and reported (text and JSON),
 * never taken.
 */
#define LONG_NAME_LEN	200

static void put_string(struct trace_writer *w, const char *text, size_t len, uint64_t hash)
{
	static char buf[sizeof(struct tracefile_rec_string) + TRACEFILE_STRING_MAX + 8];

	if (strtab_record_build(hash, text, len, false, T0 + 50, buf, sizeof(buf)))
		trace_writer_put(w, (const struct gpuprobe_rec_hdr *)buf);
}

static void damaged_strings_kernel_events(struct trace_writer *w)
{
	char name[LONG_NAME_LEN], other[LONG_NAME_LEN];

	memset(name, 'w', sizeof(name));
	memset(other, 'v', sizeof(other));
	put_string(w, name, sizeof(name), strtab_hash(name, sizeof(name)));
	put_string(w, other, sizeof(other), strtab_hash(other, sizeof(other)) ^ 1);
	other[10] = '\0';	/* the hash is the text's, NUL included: still refused */
	put_string(w, other, sizeof(other), strtab_hash(other, sizeof(other)));
	put_irq(w, GPU_A, 1500, 0);
}

void test_attribution_malformed_strings(void)
{
	char name[LONG_NAME_LEN + 1], shortn[64];
	struct app apps[] = {
		{ GPUPROBE_APP_API, "cuLaunchKernel", .tid = PID, .corr = 1, .start = 800, .end = 820 },
		{ GPUPROBE_APP_KERNEL, shortn, .stream = 7, .corr = 1, .start = 1000, .end = 2000,
		  .flags = GPUPROBE_APPF_TRUNCATED_NAME },
	};
	struct attribution *at;
	char *text = NULL;

	memset(name, 'w', LONG_NAME_LEN);
	name[LONG_NAME_LEN] = '\0';
	snprintf(shortn, sizeof(shortn), "%.46s~%016llx", name,
		 (unsigned long long)strtab_hash(name, LONG_NAME_LEN));
	at = attribute_apps("badstrings", damaged_strings_kernel_events, apps, 2);
	if (!at)
		return;
	CHECK(at->strings.malformed == 2 && at->strings.n == 1, "%llu malformed, %zu kept",
	      (unsigned long long)at->strings.malformed, at->strings.n);
	CHECK(!attribution_json_check(at,
		"a=d[\"app\"]\n"
		"assert a[\"string_records_malformed\"]==2, a[\"string_records_malformed\"]\n"
		"assert a[\"names_note\"].startswith(\"2 string records (whole kernel names) are malformed\"), a[\"names_note\"]\n"
		"assert [n[\"name\"] for n in a[\"names\"]]==[\"w\"*200], a[\"names\"]\n"),
	      "report --json: the damaged string table's count and note (above)");
	attribution_text(at, &text);
	CHECK(text && strstr(text, "\n  warning: 2 string records (whole kernel names) are malformed"),
	      "text lacks the warning: %s", text ? text : "(none)");
	free(text);
	attribution_free(at);
	/* a whole table: 0 and no note, no warning */
	at = attribute_apps("goodstrings", launch_map_kernel_events, report_apps, 4);
	if (!at)
		return;
	CHECK(!attribution_json_check(at,
		"a=d[\"app\"]\n"
		"assert a[\"string_records_malformed\"]==0 and a[\"names_note\"]==\"\", a\n"),
	      "report --json without damaged strings (above)");
	attribution_text(at, &text);
	CHECK(text && !strstr(text, "warning:"), "a warning without damage: %s", text ? text : "(none)");
	free(text);
	attribution_free(at);
}
