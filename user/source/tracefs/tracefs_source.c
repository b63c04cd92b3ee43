// SPDX-License-Identifier: GPL-2.0
/*
 * The tracefs source as a struct trace_source: the order of the work.
 * Open finds the events (kprobe events first, when the kernel has no dma:
 * tracepoints, so their formats are read with the rest), creates the
 * private instances and enables the events there, filtered to the targets;
 * start switches tracing on; poll reads the buffers every timeout_ms and
 * rescans the targets' vectors every VECTOR_RESCAN_MS; drain
 * reads them empty, pairs what is left and counts the kernel's drops; close
 * removes everything it created.  The files behind each step:
 * tracefs_source.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "tracefile.h"
#include "tracefs_source.h"
#include "util.h"

static void tracefs_close(void *src);

/*
 * The formats of the named systems' events, and nothing else.
 * tracefs_local_events_system() also parses /proc/kallsyms, saved_cmdlines
 * and printk_formats for printing, none of which this source uses: on the
 * test VM's kernel kallsyms was the larger part of an empty recording's CPU
 * time (Documentation/benchmarks.md, "tracefs source in the test VM").
 * An event whose format cannot be read or parsed is left out, as there:
 * binding it then finds nothing, and what is missing is said.
 */
static struct tep_handle *load_formats(const char *const *systems)
{
	struct tep_handle *tep = tep_alloc();
	int len = 0;
	char *header = tracefs_instance_file_read(NULL, "events/header_page", &len);

	if (!tep || !header || len <= 0 ||
	    tep_parse_header_page(tep, header, len, sizeof(long))) {
		free(header);
		tep_free(tep);
		return NULL;
	}
	free(header);
	/* the kernel's long: the size of the page header's commit field */
	tep_set_long_size(tep, tep_get_header_page_size(tep));
	for (; *systems; systems++) {
		char **events = tracefs_system_events(NULL, *systems);

		for (size_t i = 0; events && events[i]; i++) {
			char *fmt = tracefs_event_file_read(NULL, *systems, events[i],
							    "format", &len);

			if (fmt && len > 0)
				tep_parse_event(tep, fmt, len, *systems);
			free(fmt);
		}
		tracefs_list_free(events);
	}
	return tep;
}

static void *tracefs_open(const struct source_config *cfg, char *err, size_t errlen)
{
	const char *systems[] = { "irq", "sched", "iommu", "swiotlb", "dma", "kvm", NULL, NULL };
	struct tracefs_source *ts;
	struct tep_handle *tep;

	if (!tracefs_tracing_dir()) {
		snprintf(err, errlen, "%s", TRACEFS_NOT_MOUNTED);
		return NULL;
	}
	if (cfg->cgroup_dir && tracefs_own_pidns()) {
		snprintf(err, errlen, "--cgroup with the tracefs source in a pid namespace of its own: set_event_pid takes the kernel's pids, which cgroup.threads does not show here; record --cgroup from the host, or use the module source");
		return NULL;
	}
	tracefs_remove_stale_instances();
	ts = tracefs_decoder_new(NULL, cfg);
	if (!ts) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ts->own_pidns = tracefs_own_pidns();
	ts->kpid_self = getpid();
	ts->kpid_workload = cfg->workload_pid;
	if (ts->own_pidns &&
	    tracefs_kernel_pids(cfg->workload_pid, cfg->workload_unstarted, &ts->kpid_self, &ts->kpid_workload, err, errlen)) {
		tracefs_close(ts);
		return NULL;
	}
	tracefs_create_dma_kprobes(ts);
	if (ts->kp)
		systems[6] = ts->kp->group;
	tep = load_formats(systems);
	if (!tep) {
		snprintf(err, errlen, "cannot read tracefs event formats (needs root)");
		tracefs_close(ts);
		return NULL;
	}
	ts->tep = tep;
	tracefs_bind_events(ts);
	tracefs_bind_dma_kprobes(ts);
	if (tracefs_create_main_instance(ts, err, errlen)) {
		tracefs_close(ts);
		return NULL;
	}
	tracefs_create_sched_instance(ts);
	tracefs_enable_events(ts);
	tracefs_enable_dma_kprobes(ts);
	return ts;
}

static int tracefs_start(void *src, char *err, size_t errlen)
{
	struct tracefs_source *ts = src;

	if (tracefs_instances_on(ts, err, errlen))
		return -1;
	vectors_tracing_on(&ts->vectors, mono_now_ns());
	return 0;
}

static int tracefs_poll(void *src, int timeout_ms, const struct record_sink *sink)
{
	tracefs_cgroup_refresh(src, false);
	return tracefs_read_after(src, timeout_ms, sink);
}

/* The late vectors' stop counts while tracing is still on, as record.c's. */
static int tracefs_stop(void *src)
{
	struct tracefs_source *ts = src;

	if (vectors_put_stop_counts(&ts->vectors, ts->cfg->sink))
		ts->sink_error = -1;
	return tracefs_instances_off(ts);
}

static int tracefs_drain(void *src, const struct record_sink *sink)
{
	struct tracefs_source *ts = src;
	int err;

	err = tracefs_read_until_empty(ts, sink);
	err |= irq_pairer_flush(&ts->pairer, sink);
	if (ts->kp)
		err |= dma_pairer_flush(&ts->kp->pairer, sink);
	err |= tracefs_put_unreported_drops(ts, sink);
	return err | ts->sink_error;
}

static void tracefs_close(void *src)
{
	struct tracefs_source *ts = src;

	tracefs_close_readers(ts);
	if (ts->unmapped_dropped)
		warnf("%llu KVM records of tasks this pid namespace cannot map were dropped: only the workload's main thread's kernel pid is known here, its other threads' and children's are not (record from the host to keep them)",
		      (unsigned long long)ts->unmapped_dropped);
	tracefs_destroy_instance(&ts->sched);
	tracefs_destroy_instance(&ts->main);
	tracefs_destroy_dma_kprobes(ts);	/* after the instances: no longer enabled */
	tep_free(ts->tep);
	tracefs_cgroup_free(ts);
	tracefs_decoder_free(ts);
}

static void tracefs_counters(void *src, struct source_counters *out)
{
	*out = ((struct tracefs_source *)src)->counters;
}

const struct trace_source tracefs_source = {
	.name = "tracefs",
	.file_source = TRACE_SOURCE_TRACEFS,
	.open = tracefs_open,
	.start = tracefs_start,
	.poll = tracefs_poll,
	.stop = tracefs_stop,
	.drain = tracefs_drain,
	.close = tracefs_close,
	.counters = tracefs_counters,
};
