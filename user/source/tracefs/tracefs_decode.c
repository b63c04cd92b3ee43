// SPDX-License-Identifier: GPL-2.0
/*
 * The tracefs source: a private tracefs instance ("gpuprobe-<pid>", never
 * the shared top-level buffer), trace_clock mono, events filtered in the
 * kernel to the targets' irqs and device names, binary per-CPU buffers read
 * through libtracefs and decoded with libtraceevent into uapi records.
 * This is the only file that touches libtracefs/libtraceevent.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "irqpair.h"
#include "batch.h"
#include "source.h"
#include "tracefile.h"
#include "tracefs_decoder.h"
#include "tracefs_events.h"
#include "tracefs_kprobe.h"
#include "util.h"

#define INSTANCE_PREFIX		"gpuprobe-"
#define SCHED_SUFFIX		"-sched"
#define SCHED_BUFFER_KB		2048
#define BUFFER_KB_PER_CPU	8192
#define FILTER_MAX		4096
#define DMA_PENDING_SLOTS	256

#define NSPECS			TRACEFS_NSPECS
#define specs			event_specs

_Static_assert(TRACEFS_NSPECS <= TRACEFS_EVENT_COUNT, "TRACEFS_EVENT_COUNT too small");

struct bound_event {
	const struct event_spec *spec;
	struct tep_event *event;
	struct tep_format_field *field[F_COUNT];
	bool enabled;
};

struct instance_handle {
	struct tracefs_instance *instance;
	char name[48];
};

/* Fields of the kprobe events of tracefs_kprobe.c, by the names given there. */
enum kprobe_field { KP_DEVNAME, KP_SIZE, KP_DIR, KP_ADDR, KP_NENTS, KP_SP, KP_RET, KP_COUNT };

static const char *const kprobe_field_names[KP_COUNT] = {
	"devname", "size", "dir", "addr", "nents", "sp", "ret",
};

struct kprobe_event {
	const struct dma_kprobe_def *def;
	bool is_return;
	struct tracefs_dynevent *dyn;
	struct tep_event *event;
	struct tep_format_field *field[KP_COUNT];
};

/* DMA-API kprobe events of this run, when the kernel has no dma: events. */
struct dma_kprobes {
	char group[32];
	unsigned int nev;
	struct kprobe_event ev[2 * DMA_KPROBE_COUNT];
	struct dma_call_pairer pairer;
};

/*
 * Two instances: "gpuprobe-PID" for device events, which must see every
 * task, and "gpuprobe-PID-sched" whose set_event_pid + event-fork follow
 * the workload and every thread and child it creates.
 */
struct tracefs_source {
	const struct source_config *cfg;
	struct instance_handle main;
	struct instance_handle sched;
	struct tep_handle *tep;
	struct bound_event events[NSPECS];
	struct irq_pairer pairer;
	struct dma_kprobes *kp;		/* NULL: dma: tracepoints or no DMA */
	const struct record_sink *sink;
	struct source_counters counters;
	uint64_t lost_inband;
	int sink_error;
	unsigned int ncpus;
};

/* ---- what tracefs offers (for `info`) ---- */

int tracefs_probe_state(struct tracefs_state *state)
{
	const char *dir = tracefs_tracing_dir();

	memset(state, 0, sizeof(*state));
	state->mounted = dir != NULL;
	copy_string(state->dir, sizeof(state->dir), dir ? dir : "");
	if (dir) {
		char events[300];

		snprintf(events, sizeof(events), "%s/events", dir);
		state->readable = access(events, R_OK | X_OK) == 0;
	}
	for (size_t i = 0; i < NSPECS; i++) {
		struct tracefs_event_state *e = &state->events[state->nevents++];

		e->system = specs[i].system;
		e->name = specs[i].name;
		e->present = dir && tracefs_event_file_exists(NULL, specs[i].system,
							      specs[i].name, "format");
	}
	return state->mounted ? 0 : -1;
}

/* ---- decoding ---- */

static uint64_t field_u64(const struct tep_record *rec, struct tep_format_field *f)
{
	unsigned long long v = 0;

	if (f && tep_read_number_field(f, rec->data, &v))
		v = 0;
	return v;
}

/* A __data_loc field's bytes, bounds-checked against the record. */
static const void *field_dynamic(const struct tep_record *rec,
				 struct tep_format_field *f, unsigned int *len)
{
	unsigned int loc, off;

	*len = 0;
	if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC) || f->offset + 4 > rec->size)
		return NULL;
	memcpy(&loc, (const char *)rec->data + f->offset, 4);
	off = loc & 0xffff;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += f->offset + f->size;
	*len = loc >> 16;
	if (off + *len > (unsigned int)rec->size) {
		*len = 0;
		return NULL;
	}
	return (const char *)rec->data + off;
}

/* bdf of the device named in the record; false if it is no PCI function. */
static bool record_bdf(const struct tep_record *rec, struct bound_event *be, uint32_t *bdf)
{
	char name[64];
	unsigned int len;
	const char *s = field_dynamic(rec, be->field[F_DEVICE], &len);

	if (!s || !len)
		return false;
	snprintf(name, sizeof(name), "%.*s", (int)len, s);
	return bdf_parse(name, bdf) == 0;
}

static void put(struct tracefs_source *ts, const struct gpuprobe_rec_hdr *rec)
{
	ts->counters.events++;
	if (sink_put(ts->sink, rec))
		ts->sink_error = -1;
}

static void decode_sched(struct tracefs_source *ts, struct bound_event *be,
			 const struct tep_record *r, uint16_t cpu)
{
	struct gpuprobe_rec_sched rec = {
		.hdr = { .size = sizeof(rec), .cpu = cpu, .ts_ns = r->ts },
		/* tgid: the sched events do not carry it; 0 = unknown */
	};

	if (be->spec->kind == K_WAKEUP) {
		rec.hdr.type = GPUPROBE_EV_WAKEUP;
		rec.pid = (uint32_t)field_u64(r, be->field[F_PID]);
		rec.target_cpu = (uint32_t)field_u64(r, be->field[F_TARGET_CPU]);
	} else {
		rec.hdr.type = GPUPROBE_EV_SWITCH;
		rec.pid = (uint32_t)field_u64(r, be->field[F_NEXT_PID]);
		rec.prev_pid = (uint32_t)field_u64(r, be->field[F_PREV_PID]);
		rec.target_cpu = cpu;
	}
	put(ts, &rec.hdr);
}

static void decode_iommu(struct tracefs_source *ts, struct bound_event *be,
			 const struct tep_record *r, uint16_t cpu)
{
	struct gpuprobe_rec_iommu rec = {
		.hdr = { .type = GPUPROBE_EV_IOMMU, .size = sizeof(rec), .cpu = cpu, .ts_ns = r->ts },
		.bdf = GPUPROBE_BDF_NONE,
		.op = be->spec->op,
		.iova = field_u64(r, be->field[F_IOVA]),
		.paddr = field_u64(r, be->field[F_PADDR]),
		.size = field_u64(r, be->field[F_SIZE]),
	};

	if (be->field[F_DEVICE] && !record_bdf(r, be, &rec.bdf))
		return;
	put(ts, &rec.hdr);
}

static void decode_swiotlb(struct tracefs_source *ts, struct bound_event *be,
			   const struct tep_record *r, uint16_t cpu)
{
	struct gpuprobe_rec_swiotlb rec = {
		.hdr = { .type = GPUPROBE_EV_SWIOTLB, .size = sizeof(rec), .cpu = cpu, .ts_ns = r->ts },
		.dir = 3,	/* the tracepoint carries no direction: DMA_NONE */
		.bytes = field_u64(r, be->field[F_SIZE]),
	};

	if (record_bdf(r, be, &rec.bdf))
		put(ts, &rec.hdr);
}

/* Scatterlist events carry arrays: sum the lengths, count the entries. */
static void decode_dma_arrays(const struct tep_record *r, struct bound_event *be,
			      struct gpuprobe_rec_dma *rec)
{
	unsigned int len;
	const unsigned char *p = field_dynamic(r, be->field[F_LENGTHS], &len);

	for (unsigned int i = 0; p && i + 4 <= len; i += 4) {
		uint32_t seg;

		memcpy(&seg, p + i, 4);
		rec->bytes += seg;
	}
	if (p)
		rec->nents = len / 4;
	p = field_dynamic(r, be->field[F_DMA_ADDRS], &len);
	if (p && len >= 8) {
		memcpy(&rec->dma_addr, p, 8);
		if (!rec->nents)
			rec->nents = len / 8;
	}
	if (be->field[F_NENTS])
		rec->nents = (uint32_t)field_u64(r, be->field[F_NENTS]);
}

static void decode_dma(struct tracefs_source *ts, struct bound_event *be,
		       const struct tep_record *r, uint16_t cpu)
{
	struct gpuprobe_rec_dma rec = {
		.hdr = { .type = GPUPROBE_EV_DMA, .size = sizeof(rec), .cpu = cpu, .ts_ns = r->ts },
		.op = be->spec->op,
		.dir = (uint8_t)field_u64(r, be->field[F_DIR]),
		.bytes = field_u64(r, be->field[F_SIZE]),
		.dma_addr = field_u64(r, be->field[F_DMA_ADDR]),
		.nents = 1,
	};

	if (!record_bdf(r, be, &rec.bdf))
		return;
	if (be->field[F_LENGTHS] || be->field[F_DMA_ADDRS]) {
		rec.nents = 0;
		decode_dma_arrays(r, be, &rec);
	}
	put(ts, &rec.hdr);
}

static struct kprobe_event *kprobe_for(struct tracefs_source *ts, struct tep_event *event)
{
	for (unsigned int i = 0; ts->kp && i < ts->kp->nev; i++)
		if (ts->kp->ev[i].event == event)
			return &ts->kp->ev[i];
	return NULL;
}

static void decode_kprobe(struct tracefs_source *ts, struct kprobe_event *ke,
			  const struct tep_record *r, uint16_t cpu)
{
	struct tep_format_field **f = ke->field;
	uint32_t pid = (uint32_t)tep_data_pid(ts->tep, (struct tep_record *)r);
	struct gpuprobe_rec_dma rec = {
		.hdr = { .type = GPUPROBE_EV_DMA, .size = sizeof(rec), .cpu = cpu, .ts_ns = r->ts },
		.op = ke->def->op,
		.nents = 1,
	};
	unsigned int len;
	const char *name;
	char bdf[64];
	int err;

	if (ke->is_return) {
		err = dma_pairer_return(&ts->kp->pairer, pid, field_u64(r, f[KP_SP]), r->ts,
					field_u64(r, f[KP_RET]), ts->sink);
	} else {
		name = field_dynamic(r, f[KP_DEVNAME], &len);
		snprintf(bdf, sizeof(bdf), "%.*s", name ? (int)len : 0, name ? name : "");
		if (bdf_parse(bdf, &rec.bdf))
			return;		/* no PCI function: the filter let it by */
		rec.dir = (uint8_t)field_u64(r, f[KP_DIR]);
		rec.bytes = field_u64(r, f[KP_SIZE]);
		rec.dma_addr = field_u64(r, f[KP_ADDR]);
		if (f[KP_NENTS])
			rec.nents = (uint32_t)field_u64(r, f[KP_NENTS]);
		ts->counters.events++;
		err = dma_pairer_entry(&ts->kp->pairer, &rec, pid, field_u64(r, f[KP_SP]), ts->sink);
	}
	if (err)
		ts->sink_error = -1;
}

static struct bound_event *bound_for(struct tracefs_source *ts, struct tep_event *event)
{
	for (size_t i = 0; i < NSPECS; i++)
		if (ts->events[i].event == event)
			return &ts->events[i];
	return NULL;
}

static void note_missed(struct tracefs_source *ts, const struct tep_record *r, uint16_t cpu)
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
	put(ts, &lost.hdr);
}

static int on_raw_event(struct tep_event *event, struct tep_record *r, int cpu, void *ctx)
{
	struct tracefs_source *ts = ctx;
	struct bound_event *be = bound_for(ts, event);
	struct kprobe_event *ke;
	uint16_t c = (uint16_t)cpu;

	if (r->missed_events)
		note_missed(ts, r, c);
	if (!be && (ke = kprobe_for(ts, event)))
		decode_kprobe(ts, ke, r, c);
	if (!be)
		return 0;
	switch (be->spec->kind) {
	case K_IRQ_ENTRY:
		if (irq_pairer_entry(&ts->pairer, c, r->ts,
				     (uint32_t)field_u64(r, be->field[F_IRQ]), ts->sink))
			ts->sink_error = -1;
		ts->counters.events++;
		break;
	case K_IRQ_EXIT:
		if (irq_pairer_exit(&ts->pairer, c, r->ts, (uint32_t)field_u64(r, be->field[F_IRQ]),
				    field_u64(r, be->field[F_RET]) != 0, ts->sink))
			ts->sink_error = -1;
		break;
	case K_WAKEUP:
	case K_SWITCH:
		decode_sched(ts, be, r, c);
		break;
	case K_IOMMU:
		decode_iommu(ts, be, r, c);
		break;
	case K_SWIOTLB:
		decode_swiotlb(ts, be, r, c);
		break;
	case K_DMA:
		decode_dma(ts, be, r, c);
		break;
	}
	return 0;
}

/* ---- instance lifecycle ---- */

/* Instances of gpuprobe-trace runs that were killed with SIGKILL. */
static void remove_stale_instances(void)
{
	/* libtracefs compiles a basic regex: no +, no groups */
	char **names = tracefs_instances("^" INSTANCE_PREFIX "[0-9][0-9]*");

	for (char **n = names; n && *n; n++) {
		char *end;
		long pid = strtol(*n + strlen(INSTANCE_PREFIX), &end, 10);
		struct tracefs_instance *old;

		if (pid <= 0 || (*end && strcmp(end, SCHED_SUFFIX)) ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		old = tracefs_instance_alloc(NULL, *n);
		if (old && tracefs_instance_destroy(old) == 0)
			warnf("removed tracefs instance %s left by a killed run", *n);
		tracefs_instance_free(old);
	}
	tracefs_list_free(names);
}

static void bind_fields(struct bound_event *be)
{
	for (int role = 0; role < F_COUNT; role++)
		for (int i = 0; i < FIELD_NAME_CHOICES && field_names[role][i] && !be->field[role]; i++)
			be->field[role] = tep_find_field(be->event, field_names[role][i]);
}

static bool wanted(const struct tracefs_source *ts, const struct event_spec *spec)
{
	if (!(ts->cfg->event_mask & GPUPROBE_EVMASK(spec->rec_type)))
		return false;
	if (spec->filter == BY_WORKLOAD)
		return ts->cfg->workload_pid > 0 && ts->sched.instance;
	return true;
}

static int enable_event(struct tracefs_source *ts, struct bound_event *be)
{
	const struct event_spec *spec = be->spec;
	struct tracefs_instance *inst = spec->filter == BY_WORKLOAD ?
					ts->sched.instance : ts->main.instance;
	char filter[FILTER_MAX];

	if (build_event_filter(spec, ts->cfg->targets,
			       be->field[F_DEVICE] ? be->field[F_DEVICE]->name : NULL,
			       filter, sizeof(filter))) {
		if (spec->filter == BY_IRQ)
			warnf("the targets have no MSI/MSI-X vectors (driver not bound?): no interrupts will be recorded");
		return -1;
	}
	if (filter[0] &&
	    tracefs_event_file_write(inst, spec->system, spec->name, "filter", filter) < 0) {
		warnf("tracefs refused filter '%s' on %s/%s: event left off", filter,
		      spec->system, spec->name);
		return -1;
	}
	if (tracefs_event_file_write(inst, spec->system, spec->name, "enable", "1") < 0) {
		warnf("cannot enable %s/%s: %s", spec->system, spec->name, strerror(errno));
		return -1;
	}
	be->enabled = true;
	return 0;
}

/* Every event of the table this kernel has, found in tep with its fields. */
static void bind_events(struct tracefs_source *ts)
{
	for (size_t i = 0; i < NSPECS; i++) {
		struct bound_event *be = &ts->events[i];

		be->spec = &specs[i];
		be->event = tep_find_event_by_name(ts->tep, specs[i].system, specs[i].name);
		if (be->event)
			bind_fields(be);
	}
}

static void enable_events(struct tracefs_source *ts)
{
	for (size_t i = 0; i < NSPECS; i++)
		if (ts->events[i].event && wanted(ts, ts->events[i].spec))
			enable_event(ts, &ts->events[i]);
}

/* Decoding state without instances: the source's core, and the tests'. */
struct tracefs_source *tracefs_decoder_new(struct tep_handle *tep,
					   const struct source_config *cfg)
{
	struct tracefs_source *ts = calloc(1, sizeof(*ts));

	if (!ts)
		return NULL;
	ts->cfg = cfg;
	ts->tep = tep;
	ts->ncpus = (unsigned int)sysconf(_SC_NPROCESSORS_CONF);
	if (irq_pairer_init(&ts->pairer, ts->ncpus, cfg->targets)) {
		free(ts);
		return NULL;
	}
	if (tep)
		bind_events(ts);
	return ts;
}

int tracefs_decoder_feed(struct tracefs_source *ts, struct tep_record *r, int cpu,
			 const struct record_sink *sink)
{
	struct tep_event *event = tep_find_event(ts->tep, tep_data_type(ts->tep, r));

	ts->sink = sink;
	if (event)
		on_raw_event(event, r, cpu, ts);
	return ts->sink_error;
}

int tracefs_decoder_flush(struct tracefs_source *ts, const struct record_sink *sink)
{
	return irq_pairer_flush(&ts->pairer, sink);
}

/* The tep stays with the caller. */
void tracefs_decoder_free(struct tracefs_source *ts)
{
	irq_pairer_free(&ts->pairer);
	free(ts);
}

static void tracefs_close(void *src);

/* ---- DMA-API kprobe events (kernels without dma: tracepoints) ---- */

static bool have_dma_tracepoints(void)
{
	for (size_t i = 0; i < NSPECS; i++)
		if (specs[i].kind == K_DMA &&
		    tracefs_event_file_exists(NULL, specs[i].system, specs[i].name, "format"))
			return true;
	return false;
}

int tracefs_dma_support(char *why, size_t len)
{
	const char *dir = tracefs_tracing_dir();
	char path[300];

	if (!dir) {
		snprintf(why, len, "tracefs is not mounted");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/kprobe_events", dir);
	if (access(path, F_OK))
		snprintf(why, len, "no kprobe events: %s is missing (CONFIG_KPROBE_EVENTS off)", path);
	else if (access(path, W_OK))
		snprintf(why, len, "kprobe events: %s is not writable by this user: run as root", path);
#ifndef __x86_64__
	else
		snprintf(why, len, "kprobe events: the DMA-API probes know only x86_64's argument registers");
#else
	else
		snprintf(why, len, "kprobe events: available");
#endif
	if (have_dma_tracepoints())
		return 1;
	return strcmp(why, "kprobe events: available") ? 0 : 2;
}

/* Kprobe groups of gpuprobe-trace runs that were killed with SIGKILL. */
static void remove_stale_kprobes(void)
{
	struct tracefs_dynevent **all = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_KPROBE |
								 TRACEFS_DYNEVENT_KRETPROBE, NULL);
	const size_t plen = strlen(DMA_KPROBE_GROUP_PREFIX);
	unsigned int removed = 0;

	for (struct tracefs_dynevent **d = all; d && *d; d++) {
		char *group = NULL, *end;
		long pid;

		tracefs_dynevent_info(*d, &group, NULL, NULL, NULL, NULL);
		if (group && !strncmp(group, DMA_KPROBE_GROUP_PREFIX, plen)) {
			pid = strtol(group + plen, &end, 10);
			if (pid > 0 && !*end && kill((pid_t)pid, 0) && errno == ESRCH &&
			    tracefs_dynevent_destroy(*d, true) == 0)
				removed++;
		}
		free(group);
	}
	if (removed)
		warnf("removed %u kprobe events left by killed runs", removed);
	tracefs_dynevent_list_free(all);
}

static void destroy_dma_kprobes(struct tracefs_source *ts)
{
	struct dma_kprobes *kp = ts->kp;

	if (!kp)
		return;
	for (unsigned int i = 0; i < kp->nev; i++) {
		if (tracefs_dynevent_destroy(kp->ev[i].dyn, true) < 0)
			warnf("could not remove kprobe event %s/%s%s: echo '-:%s/%s%s' >> %s/kprobe_events",
			      kp->group, kp->ev[i].def->event, kp->ev[i].is_return ? "_ret" : "",
			      kp->group, kp->ev[i].def->event, kp->ev[i].is_return ? "_ret" : "",
			      tracefs_tracing_dir());
		tracefs_dynevent_free(kp->ev[i].dyn);
	}
	dma_pairer_free(&kp->pairer);
	free(kp);
	ts->kp = NULL;
}

static struct tracefs_dynevent *create_kprobe(const char *group, const struct dma_kprobe_def *def,
					      bool is_return)
{
	struct tracefs_dynevent *d;
	char name[64];

	snprintf(name, sizeof(name), "%s%s", def->event, is_return ? "_ret" : "");
	d = is_return ? tracefs_kretprobe_alloc(group, name, def->func, DMA_KPROBE_RET_FETCH, 0) :
			tracefs_kprobe_alloc(group, name, def->func, def->fetch);
	if (d && tracefs_dynevent_create(d) == 0)
		return d;
	warnf("kernel refused kprobe event %s on %s: %s: its DMA calls are not recorded",
	      name, def->func, strerror(errno));
	tracefs_dynevent_free(d);
	return NULL;
}

/*
 * Entry and return events on the DMA API, in group gpuprobe_<pid>, when
 * the kernel has no dma: events (see tracefs_kprobe.c for the design).
 */
static void create_dma_kprobes(struct tracefs_source *ts)
{
	struct dma_kprobes *kp;
	char why[300];

	if (!(ts->cfg->event_mask & GPUPROBE_EVMASK(GPUPROBE_EV_DMA)))
		return;
	switch (tracefs_dma_support(why, sizeof(why))) {
	case 1:
		return;
	case 0:
		warnf("no DMA-API calls will be recorded: no dma: tracepoints (kernel before 6.12) and %s", why);
		return;
	}
	remove_stale_kprobes();
	kp = calloc(1, sizeof(*kp));
	if (!kp || dma_pairer_init(&kp->pairer, DMA_PENDING_SLOTS)) {
		free(kp);
		warnf("out of memory: no DMA-API calls will be recorded");
		return;
	}
	snprintf(kp->group, sizeof(kp->group), DMA_KPROBE_GROUP_PREFIX "%d", (int)getpid());
	ts->kp = kp;
	for (size_t i = 0; i < DMA_KPROBE_COUNT; i++) {
		struct kprobe_event *entry = &kp->ev[kp->nev], *ret = entry + 1;

		entry->def = ret->def = &dma_kprobe_defs[i];
		ret->is_return = true;
		entry->dyn = create_kprobe(kp->group, entry->def, false);
		if (!entry->dyn)
			continue;
		ret->dyn = create_kprobe(kp->group, ret->def, true);
		if (!ret->dyn) {
			tracefs_dynevent_destroy(entry->dyn, true);
			tracefs_dynevent_free(entry->dyn);
			memset(entry, 0, 2 * sizeof(*entry));
			continue;
		}
		kp->nev += 2;
	}
}

static void bind_dma_kprobes(struct tracefs_source *ts)
{
	for (unsigned int i = 0; ts->kp && i < ts->kp->nev; i++) {
		struct kprobe_event *ke = &ts->kp->ev[i];

		ke->event = tracefs_dynevent_get_event(ts->tep, ke->dyn);
		for (int f = 0; ke->event && f < KP_COUNT; f++)
			ke->field[f] = tep_find_field(ke->event, kprobe_field_names[f]);
	}
}

/* Entry events filtered to the targets; return events see every call. */
static void enable_dma_kprobes(struct tracefs_source *ts)
{
	static const struct event_spec by_device = { .filter = BY_DEVICE };
	struct dma_kprobes *kp = ts->kp;
	struct tracefs_instance *inst = ts->main.instance;
	char filter[FILTER_MAX], name[64];

	if (!kp || build_event_filter(&by_device, ts->cfg->targets,
				      kprobe_field_names[KP_DEVNAME], filter, sizeof(filter)))
		return;
	for (unsigned int i = 0; i < kp->nev; i++) {
		struct kprobe_event *ke = &kp->ev[i];

		snprintf(name, sizeof(name), "%s%s", ke->def->event, ke->is_return ? "_ret" : "");
		if (!ke->event)
			continue;
		if (!ke->is_return &&
		    tracefs_event_file_write(inst, kp->group, name, "filter", filter) < 0) {
			warnf("tracefs refused filter '%s' on %s/%s: %s not recorded",
			      filter, kp->group, name, ke->def->func);
			i++;	/* and its return event */
			continue;
		}
		if (tracefs_event_file_write(inst, kp->group, name, "enable", "1") < 0)
			warnf("cannot enable %s/%s: %s", kp->group, name, strerror(errno));
	}
}

static int create_instance(struct instance_handle *h, const char *suffix, int buffer_kb,
			   char *err, size_t errlen)
{
	snprintf(h->name, sizeof(h->name), INSTANCE_PREFIX "%d%s", (int)getpid(), suffix);
	h->instance = tracefs_instance_create(h->name);
	if (!h->instance) {
		snprintf(err, errlen, "cannot create tracefs instance %s: %s (needs root)",
			 h->name, strerror(errno));
		return -1;
	}
	/* A new instance traces at once: keep it off until start. */
	tracefs_trace_off(h->instance);
	if (tracefs_instance_file_write(h->instance, "trace_clock", "mono") < 0) {
		snprintf(err, errlen, "tracefs refused trace_clock mono: this kernel cannot timestamp on CLOCK_MONOTONIC");
		return -1;
	}
	/* Drop new events when full rather than overwrite unread ones; both are counted. */
	tracefs_option_disable(h->instance, TRACEFS_OPTION_OVERWRITE);
	if (tracefs_instance_set_buffer_size(h->instance, buffer_kb, -1) < 0)
		warnf("cannot grow the %s buffer to %d KiB per CPU: drops more likely",
		      h->name, buffer_kb);
	return 0;
}

static void destroy_instance(struct instance_handle *h)
{
	if (!h->instance)
		return;
	tracefs_trace_off(h->instance);
	if (tracefs_instance_destroy(h->instance) < 0)
		warnf("could not remove tracefs instance %s: rmdir %s/instances/%s",
		      h->name, tracefs_tracing_dir(), h->name);
	tracefs_instance_free(h->instance);
	h->instance = NULL;
}

/* The sched instance records only the workload's tasks, children included. */
static void create_sched_instance(struct tracefs_source *ts)
{
	uint32_t sched_mask = GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP) |
			      GPUPROBE_EVMASK(GPUPROBE_EV_SWITCH);
	char err[256], pid[16];

	if (ts->cfg->workload_pid <= 0 || !(ts->cfg->event_mask & sched_mask))
		return;
	snprintf(pid, sizeof(pid), "%d", (int)ts->cfg->workload_pid);
	if (create_instance(&ts->sched, SCHED_SUFFIX, SCHED_BUFFER_KB, err, sizeof(err)) ||
	    tracefs_instance_file_write(ts->sched.instance, "set_event_pid", pid) < 0 ||
	    tracefs_option_enable(ts->sched.instance, TRACEFS_OPTION_EVENT_FORK) < 0) {
		warnf("no scheduler events for the workload: %s",
		      err[0] ? err : "set_event_pid/event-fork refused");
		destroy_instance(&ts->sched);
	}
}

static void *tracefs_open(const struct source_config *cfg, char *err, size_t errlen)
{
	const char *systems[] = { "irq", "sched", "iommu", "swiotlb", "dma", NULL, NULL };
	struct tracefs_source *ts;
	struct tep_handle *tep;

	if (!tracefs_tracing_dir()) {
		snprintf(err, errlen, "tracefs is not mounted and could not be: mount -t tracefs nodev /sys/kernel/tracing");
		return NULL;
	}
	remove_stale_instances();
	ts = tracefs_decoder_new(NULL, cfg);
	if (!ts) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	create_dma_kprobes(ts);
	if (ts->kp)
		systems[5] = ts->kp->group;
	tep = tracefs_local_events_system(NULL, systems);
	if (!tep) {
		snprintf(err, errlen, "cannot read tracefs event formats (needs root)");
		tracefs_close(ts);
		return NULL;
	}
	ts->tep = tep;
	bind_events(ts);
	bind_dma_kprobes(ts);
	if (create_instance(&ts->main, "", BUFFER_KB_PER_CPU, err, errlen)) {
		tracefs_close(ts);
		return NULL;
	}
	create_sched_instance(ts);
	enable_events(ts);
	enable_dma_kprobes(ts);
	return ts;
}

static int tracefs_start(void *src, char *err, size_t errlen)
{
	struct tracefs_source *ts = src;

	if (ts->sched.instance && tracefs_trace_on(ts->sched.instance) < 0)
		warnf("cannot switch tracing on in %s: no scheduler events", ts->sched.name);
	if (tracefs_trace_on(ts->main.instance) < 0) {
		snprintf(err, errlen, "cannot switch tracing on in instance %s: %s",
			 ts->main.name, strerror(errno));
		return -1;
	}
	return 0;
}

static int read_instance(struct tracefs_source *ts, struct instance_handle *h)
{
	if (!h->instance)
		return 0;
	if (tracefs_iterate_raw_events(ts->tep, h->instance, NULL, 0, on_raw_event, ts) < 0) {
		warnf("reading the trace buffers of %s failed", h->name);
		return -1;
	}
	return 0;
}

static int read_buffers(struct tracefs_source *ts, const struct record_sink *sink)
{
	int err;

	ts->sink = sink;
	err = read_instance(ts, &ts->main);
	err |= read_instance(ts, &ts->sched);
	return err | ts->sink_error;
}

static int tracefs_poll(void *src, int timeout_ms, const struct record_sink *sink)
{
	struct timespec delay = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };

	nanosleep(&delay, NULL);	/* a signal cuts it short, as wanted */
	return read_buffers(src, sink);
}

static int tracefs_stop(void *src)
{
	struct tracefs_source *ts = src;

	if (ts->sched.instance)
		tracefs_trace_off(ts->sched.instance);
	return tracefs_trace_off(ts->main.instance) < 0 ? -1 : 0;
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

static int tracefs_drain(void *src, const struct record_sink *sink)
{
	struct tracefs_source *ts = src;
	uint64_t before, dropped;
	int err = 0;

	do {
		before = ts->counters.events;
		err |= read_buffers(ts, sink);
	} while (!err && ts->counters.events != before);
	err |= irq_pairer_flush(&ts->pairer, sink);
	if (ts->kp)
		err |= dma_pairer_flush(&ts->kp->pairer, sink);
	dropped = kernel_drop_count(ts, &ts->main) + kernel_drop_count(ts, &ts->sched);
	if (dropped > ts->lost_inband) {
		ts->counters.lost += dropped - ts->lost_inband;
		err |= put_lost_record(sink, 0, dropped - ts->lost_inband, false);
	}
	return err | ts->sink_error;
}

static void tracefs_close(void *src)
{
	struct tracefs_source *ts = src;

	destroy_instance(&ts->sched);
	destroy_instance(&ts->main);
	destroy_dma_kprobes(ts);	/* after the instances: no longer enabled */
	tep_free(ts->tep);
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
