// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the tracefs source's ring buffers, and accounting for what they
 * dropped.  Each instance's per-CPU buffers are read raw through
 * libtracefs and handed to the decoder.  Losses are known two ways: in
 * band, a record's missed_events (a LOST record at that point of the
 * trace), and the per-CPU "overrun" and "dropped events" counters, read at
 * the end; what the counters hold beyond the in-band count becomes one
 * more LOST record, so the trace's total is the kernel's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event-parse.h>
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

static int read_instance(struct tracefs_source *ts, struct instance_handle *h)
{
	if (!h->instance)
		return 0;
	if (tracefs_iterate_raw_events(ts->tep, h->instance, NULL, 0, tracefs_on_raw_event, ts) < 0) {
		warnf("reading the trace buffers of %s failed", h->name);
		return -1;
	}
	return 0;
}

int tracefs_read_buffers(struct tracefs_source *ts, const struct record_sink *sink)
{
	int err;

	ts->sink = sink;
	err = read_instance(ts, &ts->main);
	err |= read_instance(ts, &ts->sched);
	return err | ts->sink_error;
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

	do {
		before = ts->counters.events;
		err |= tracefs_read_buffers(ts, sink);
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
