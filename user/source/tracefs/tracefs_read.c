// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the tracefs source's ring buffers, and accounting for what they
 * dropped.  Each instance's per-CPU trace_pipe_raw is opened once, as a
 * non-blocking libtracefs tracefs_cpu reader (splice where the kernel
 * allows it), and read page by page at every poll; libtraceevent's kbuffer
 * parses each page into events for the decoder.  Reopening every CPU's file
 * at every poll, as tracefs_iterate_raw_events() does, cost more than the
 * events at high rates (Documentation/benchmarks.md, "tracefs source").  Losses are known two ways: in
 * band, a record's missed_events (a LOST record at that point of the
 * trace), and the per-CPU "overrun" and "dropped events" counters, read at
 * the end; what the counters hold beyond the in-band count becomes one
 * more LOST record, so the trace's total is the kernel's.
 */
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "tracefile.h"
#include "tracefs_source.h"
#include "util.h"

void tracefs_note_missed(struct tracefs_source *ts, const struct tep_record *r, uint16_t cpu)
{
	struct gpuprobe_rec_lost lost = {
		.hdr = { .type = GPUPROBE_EV_LOST, .size = sizeof(lost), .cpu = cpu, .ts_ns = r->ts },
	};

	if (r->missed_events > 0)
		lost.count = (uint64_t)r->missed_events;
	else
		lost.hdr.flags = TRACEFILE_LOST_COUNT_UNKNOWN;
	ts->lost_inband += lost.count;
	ts->counters.lost += lost.count;
	tracefs_put(ts, &lost.hdr);
}

/* Every CPU's reader of h, once; a CPU that cannot be opened is skipped (offline). */
static int open_readers(struct tracefs_source *ts, struct instance_handle *h)
{
	if (!ts->kbuf) {
		ts->kbuf = tep_kbuffer(ts->tep);
		ts->page_size = getpagesize();
		ts->page = malloc((size_t)ts->page_size);
		if (!ts->kbuf || !ts->page)
			return -1;
	}
	h->cpu = calloc(ts->ncpus ? ts->ncpus : 1, sizeof(*h->cpu));
	if (!h->cpu)
		return -1;
	for (unsigned int cpu = 0; cpu < ts->ncpus; cpu++)
		h->cpu[cpu] = tracefs_cpu_open(h->instance, (int)cpu, true);
	return 0;
}

/* One page's events into the decoder. */
static void decode_page(struct tracefs_source *ts, unsigned int cpu)
{
	struct tep_record rec = { .cpu = (int)cpu };
	unsigned long long ts_ns;
	void *data;

	if (kbuffer_load_subbuffer(ts->kbuf, ts->page) < 0)
		return;
	rec.missed_events = kbuffer_missed_events(ts->kbuf);
	for (data = kbuffer_read_event(ts->kbuf, &ts_ns); data;
	     data = kbuffer_next_event(ts->kbuf, &ts_ns)) {
		rec.ts = ts_ns;
		rec.data = data;
		rec.size = kbuffer_event_size(ts->kbuf);
		tracefs_decode_record(ts, &rec, (int)cpu);
		rec.missed_events = 0;	/* the page's, said with its first event */
	}
}

/*
 * What each CPU's buffer holds now: whole pages first (splice, while
 * tracing), then the rest, the partial last page included (a read: splice
 * moves only whole pages, and serve's cut and a quiet device's few events
 * must not wait for a page to fill).
 */
static int read_instance(struct tracefs_source *ts, struct instance_handle *h, bool flush)
{
	if (!h->instance)
		return 0;
	if (!h->cpu && open_readers(ts, h)) {
		warnf("reading the trace buffers of %s failed: cannot open the per-CPU readers", h->name);
		return -1;
	}
	for (unsigned int cpu = 0; cpu < ts->ncpus; cpu++) {
		struct tracefs_cpu *tcpu = h->cpu[cpu];
		int n;

		if (!tcpu)
			continue;
		while (!flush && (n = tracefs_cpu_buffered_read(tcpu, ts->page, true)) > 0)
			decode_page(ts, cpu);
		while ((n = tracefs_cpu_flush(tcpu, ts->page)) > 0)
			decode_page(ts, cpu);
	}
	return 0;
}

void tracefs_close_readers(struct tracefs_source *ts)
{
	struct instance_handle *hs[] = { &ts->main, &ts->sched };

	for (unsigned int i = 0; i < 2; i++) {
		for (unsigned int cpu = 0; hs[i]->cpu && cpu < ts->ncpus; cpu++)
			if (hs[i]->cpu[cpu])
				tracefs_cpu_close(hs[i]->cpu[cpu]);
		free(hs[i]->cpu);
		hs[i]->cpu = NULL;
	}
	free(ts->page);
	ts->page = NULL;
	ts->kbuf = NULL;	/* the tep's */
}

static int read_buffers(struct tracefs_source *ts, const struct record_sink *sink, bool flush)
{
	int err;

	ts->sink = sink;
	err = read_instance(ts, &ts->main, flush);
	err |= read_instance(ts, &ts->sched, flush);
	return err | ts->sink_error;
}

int tracefs_read_buffers(struct tracefs_source *ts, const struct record_sink *sink)
{
	return read_buffers(ts, sink, false);
}

/*
 * What the vectors' rescans changed: the irq filter first, then the kernel
 * counts that must be read after it.
 */
static int apply_vector_changes(struct tracefs_source *ts, const struct record_sink *sink)
{
	if (ts->vectors.filter_changed)
		tracefs_update_irq_filter(ts);
	return vectors_put_pending_counts(&ts->vectors, sink);
}

/*
 * While recording: let timeout_ms of events gather, rescan the targets'
 * vectors when VECTOR_RESCAN_MS have passed, then read the events (whose
 * decoding rescans too, for an irq it does not know).
 */
int tracefs_read_after(struct tracefs_source *ts, int timeout_ms, const struct record_sink *sink)
{
	struct timespec delay = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
	uint64_t now;
	int err = 0;

	nanosleep(&delay, NULL);	/* a signal cuts it short, as wanted */
	now = mono_now_ns();
	if (now - ts->vectors.last_rescan_ns >= VECTOR_RESCAN_MS * 1000000ull)
		err |= vectors_rescan(&ts->vectors, now, sink);
	err |= apply_vector_changes(ts, sink);
	err |= tracefs_read_buffers(ts, sink);
	return err | apply_vector_changes(ts, sink);
}

/* After stop: read until a pass delivers nothing more. */
int tracefs_read_until_empty(struct tracefs_source *ts, const struct record_sink *sink)
{
	uint64_t before;
	int err = 0;

	err = read_buffers(ts, sink, false);
	do {
		before = ts->counters.events;
		err |= read_buffers(ts, sink, true);
	} while (!err && ts->counters.events != before);
	return err;
}

/* "overrun" and "dropped events" of per_cpu/cpuN/stats, summed. */
static uint64_t kernel_drop_count(struct tracefs_source *ts, struct instance_handle *h)
{
	uint64_t total = 0;

	for (unsigned int cpu = 0; h->instance && cpu < ts->ncpus; cpu++) {
		char path[64], *text, *p;

		snprintf(path, sizeof(path), "per_cpu/cpu%u/stats", cpu);
		text = tracefs_instance_file_read(h->instance, path, NULL);
		if (!text)
			continue;
		if ((p = strstr(text, "overrun:")))
			total += strtoull(p + 8, NULL, 10);
		if ((p = strstr(text, "dropped events:")))
			total += strtoull(p + 15, NULL, 10);
		free(text);
	}
	return total;
}

int tracefs_put_unreported_drops(struct tracefs_source *ts, const struct record_sink *sink)
{
	uint64_t dropped = kernel_drop_count(ts, &ts->main) + kernel_drop_count(ts, &ts->sched);

	return put_unreported_drops(sink, dropped, ts->lost_inband, &ts->counters);
}
