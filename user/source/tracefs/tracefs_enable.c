// SPDX-License-Identifier: GPL-2.0
/*
 * The tracefs source's events: which of the table's events this kernel has,
 * which of them this run enables, each filtered in the kernel to the
 * targets' irqs or device names; and, on kernels without dma: tracepoints,
 * the DMA-API kprobe events that stand in for them (group gpuprobe_<pid>,
 * removed at close, or by the next run when a run was killed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "tracefs_source.h"
#include "util.h"

#define FILTER_MAX		4096
#define DMA_PENDING_SLOTS	256

enum { FILTER_REFUSED = -1, ENABLE_FAILED = -2 };

const char *const kprobe_field_names[KP_COUNT] = {
	"devname", "size", "dir", "addr", "nents", "sp", "ret",
};

/* What tracefs offers, for `info`. */
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

		e->system = event_specs[i].system;
		e->name = event_specs[i].name;
		e->present = dir && tracefs_event_file_exists(NULL, event_specs[i].system,
							      event_specs[i].name, "format");
	}
	return state->mounted ? 0 : -1;
}

/*
 * The filter first (NULL: none), then enable.  A refused filter leaves the
 * event off, as recording everything would be another event: what_lost says
 * what is then missing.
 */
static int filter_and_enable(struct tracefs_instance *inst, const char *system, const char *name,
			     const char *filter, const char *what_lost)
{
	if (filter && tracefs_event_file_write(inst, system, name, "filter", filter) < 0) {
		warnf("tracefs refused filter '%s' on %s/%s: %s", filter, system, name, what_lost);
		return FILTER_REFUSED;
	}
	if (tracefs_event_file_write(inst, system, name, "enable", "1") < 0) {
		warnf("cannot enable %s/%s: %s", system, name, strerror(errno));
		return ENABLE_FAILED;
	}
	return 0;
}

static bool wanted(const struct tracefs_source *ts, const struct event_spec *spec)
{
	if (!(ts->cfg->event_mask & GPUPROBE_EVMASK(spec->rec_type)))
		return false;
	if (spec->filter == BY_WORKLOAD)
		return (ts->cfg->workload_pid > 0 || ts->cfg->cgroup_dir) && ts->sched.instance;
	if (spec->kind == K_KVM && spec->op >= GPUPROBE_KVM_ENTRY && spec->op <= GPUPROBE_KVM_PV_EOI)
		return ts->cfg->kvm_vcpu_steps;		/* every entry and exit: only for a crossing */
	return true;
}

/* The irq events' filter, from the vectors known now (tracefs_vectors.c). */
static int irq_filter(struct tracefs_source *ts, char *filter, size_t size, bool warn)
{
	int mode = vectors_irq_filter(&ts->vectors, filter, size);

	if (mode < 0)
		warnf("the targets' irq filter does not fit in %zu bytes: no interrupts will be recorded", size);
	else if (mode == 1 && warn)
		warnf("cannot list the other devices' irqs (%s/kernel/irq): a vector the targets' driver requests while recording is recorded from the next rescan (%d ms) on, not from its first interrupt",
		      ts->vectors.root, VECTOR_RESCAN_MS);
	return mode < 0 ? -1 : 0;
}

static int enable_event(struct tracefs_source *ts, struct bound_event *be)
{
	const struct event_spec *spec = be->spec;
	struct tracefs_instance *inst = spec->filter == BY_WORKLOAD ?
					ts->sched.instance : ts->main.instance;
	char filter[FILTER_MAX];

	if (spec->filter == BY_IRQ) {
		if (irq_filter(ts, filter, sizeof(filter), spec->kind == K_IRQ_ENTRY))
			return -1;
	} else if (build_event_filter(spec, ts->cfg->targets,
				      be->field[F_DEVICE] ? be->field[F_DEVICE]->name : NULL,
				      filter, sizeof(filter))) {
		return -1;
	}
	if (filter_and_enable(inst, spec->system, spec->name, filter[0] ? filter : NULL,
			      "event left off"))
		return -1;
	be->enabled = true;
	return 0;
}

void tracefs_enable_events(struct tracefs_source *ts)
{
	for (size_t i = 0; i < NSPECS; i++)
		if (ts->events[i].event && wanted(ts, ts->events[i].spec))
			enable_event(ts, &ts->events[i]);
}

/*
 * The targets' vectors changed while recording: the irq events' filters
 * again, entry before exit, so an interrupt between the two writes is at
 * worst an entry without exit (counted), never an exit without entry.
 */
void tracefs_update_irq_filter(struct tracefs_source *ts)
{
	char filter[FILTER_MAX];

	ts->vectors.filter_changed = false;
	if (irq_filter(ts, filter, sizeof(filter), false))
		return;
	for (int kind = K_IRQ_ENTRY; kind <= K_IRQ_EXIT; kind++)
		for (size_t i = 0; i < NSPECS; i++) {
			struct bound_event *be = &ts->events[i];

			if (be->enabled && be->spec->kind == (enum event_kind)kind &&
			    tracefs_event_file_write(ts->main.instance, be->spec->system,
						     be->spec->name, "filter", filter) < 0)
				warnf("tracefs refused the new irq filter on %s/%s: %s",
				      be->spec->system, be->spec->name, strerror(errno));
		}
}

/* ---- DMA-API kprobe events (kernels without dma: tracepoints) ---- */

static bool have_dma_tracepoints(void)
{
	for (size_t i = 0; i < NSPECS; i++)
		if (event_specs[i].kind == K_DMA &&
		    tracefs_event_file_exists(NULL, event_specs[i].system, event_specs[i].name, "format"))
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
	/* unreadable events: whether dma: events exist cannot be told (not "a kernel before 6.12") */
	snprintf(path, sizeof(path), "%s/events", dir);
	if (access(path, R_OK | X_OK)) {
		snprintf(why, len, "%s is not readable by this user (%s): run as root", path,
			 strerror(errno));
		return -1;
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
			if (!*end && pid_gone(pid) && tracefs_dynevent_destroy(*d, true) == 0)
				removed++;
		}
		free(group);
	}
	if (removed)
		warnf("removed %u kprobe events left by killed runs", removed);
	tracefs_dynevent_list_free(all);
}

void tracefs_destroy_dma_kprobes(struct tracefs_source *ts)
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
void tracefs_create_dma_kprobes(struct tracefs_source *ts)
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
	case -1:
		warnf("no DMA-API calls will be recorded: %s", why);
		return;
	}
	if (!ts->own_pidns)	/* named by kernel pids: as the instances */
		remove_stale_kprobes();
	kp = calloc(1, sizeof(*kp));
	if (!kp || dma_pairer_init(&kp->pairer, DMA_PENDING_SLOTS)) {
		free(kp);
		warnf("out of memory: no DMA-API calls will be recorded");
		return;
	}
	snprintf(kp->group, sizeof(kp->group), DMA_KPROBE_GROUP_PREFIX "%d", (int)ts->kpid_self);
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

void tracefs_bind_dma_kprobes(struct tracefs_source *ts)
{
	for (unsigned int i = 0; ts->kp && i < ts->kp->nev; i++) {
		struct kprobe_event *ke = &ts->kp->ev[i];

		ke->event = tracefs_dynevent_get_event(ts->tep, ke->dyn);
		for (int f = 0; ke->event && f < KP_COUNT; f++)
			ke->field[f] = tep_find_field(ke->event, kprobe_field_names[f]);
	}
}

/* Entry events filtered to the targets; return events see every call. */
void tracefs_enable_dma_kprobes(struct tracefs_source *ts)
{
	static const struct event_spec by_device = { .filter = BY_DEVICE };
	struct dma_kprobes *kp = ts->kp;
	struct tracefs_instance *inst = ts->main.instance;
	char filter[FILTER_MAX], name[64], lost[96];

	if (!kp || build_event_filter(&by_device, ts->cfg->targets,
				      kprobe_field_names[KP_DEVNAME], filter, sizeof(filter)))
		return;
	for (unsigned int i = 0; i < kp->nev; i++) {
		struct kprobe_event *ke = &kp->ev[i];

		snprintf(name, sizeof(name), "%s%s", ke->def->event, ke->is_return ? "_ret" : "");
		if (!ke->event)
			continue;
		snprintf(lost, sizeof(lost), "%s not recorded", ke->def->func);
		if (filter_and_enable(inst, kp->group, name, ke->is_return ? NULL : filter,
				      lost) == FILTER_REFUSED)
			i++;	/* and its return event */
	}
}
