// SPDX-License-Identifier: GPL-2.0
/* Pids and tids of the Perfetto exports: perfetto_ids.h. */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "perfetto_ids.h"

void pf_calls_add(struct pf_calls *calls, int machine, const struct gpuprobe_app_event *ev)
{
	struct pf_call *c;

	if (ev->type != GPUPROBE_APP_API || !ev->correlation || !ev->tid)
		return;
	if (array_reserve((void **)&calls->c, &calls->cap, calls->n + 1, sizeof(*c))) {
		calls->oom = true;	/* its syncs stay on no thread */
		return;
	}
	c = &calls->c[calls->n++];
	*c = (struct pf_call){ .machine = (uint32_t)machine, .api = ev->api, .pid = ev->pid,
			       .tid = ev->tid, .correlation = ev->correlation,
			       .start = ev->start_ns, .end = ev->end_ns };
}

static int by_key(const void *a, const void *b)
{
	const struct pf_call *x = a, *y = b;

	if (x->machine != y->machine)
		return x->machine < y->machine ? -1 : 1;
	if (x->api != y->api)
		return x->api < y->api ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->correlation < y->correlation ? -1 : x->correlation > y->correlation;
}

void pf_calls_sort(struct pf_calls *calls)
{
	if (calls->n)
		qsort(calls->c, calls->n, sizeof(*calls->c), by_key);
}

/*
 * As the attribution does (analysis/attribute_match.c): a sync record
 * outside the span of its call waited for no call of the application, it
 * is left on no thread rather than drawn across the thread's other calls.
 */
uint32_t pf_app_tid(const struct pf_calls *calls, int machine, const struct gpuprobe_app_event *ev)
{
	struct pf_call key = { .machine = (uint32_t)machine, .api = ev->api, .pid = ev->pid,
			       .correlation = ev->correlation };
	const struct pf_call *hit;

	if (ev->tid || ev->type != GPUPROBE_APP_SYNC || !ev->correlation || !calls->n)
		return ev->tid;
	hit = bsearch(&key, calls->c, calls->n, sizeof(key), by_key);
	if (!hit || ev->start_ns < hit->start || ev->end_ns > hit->end)
		return 0;
	return hit->tid;
}

void pf_calls_free(struct pf_calls *calls)
{
	free(calls->c);
	memset(calls, 0, sizeof(*calls));
}

static size_t slot_of(const struct pf_tracks *t, int pid, uint32_t kind, uint32_t id)
{
	uint64_t h = ((uint64_t)(uint32_t)pid << 32 | id) * 0x9e3779b97f4a7c15ull;

	h ^= (kind + 1) * 0xc2b2ae3d27d4eb4full;
	h ^= h >> 29;
	return (size_t)h & (t->cap - 1);
}

/* Doubled at half full: a probe stays short. */
static int grow(struct pf_tracks *t)
{
	struct pf_tracks bigger = { .cap = t->cap ? 2 * t->cap : 256, .n = t->n };

	bigger.slot = calloc(bigger.cap, sizeof(*bigger.slot));
	if (!bigger.slot)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		const struct pf_track *o = &t->slot[i];
		size_t s;

		if (!o->tid)
			continue;
		for (s = slot_of(&bigger, o->pid, o->kind, o->id); bigger.slot[s].tid;
		     s = (s + 1) & (bigger.cap - 1))
			;
		bigger.slot[s] = *o;
	}
	free(t->slot);
	*t = bigger;
	return 0;
}

int pf_synth_tid(struct pf_tracks *t, int pid, uint32_t kind, uint32_t id, bool *fresh)
{
	size_t s;

	*fresh = false;
	if ((t->n + 1) * 2 > t->cap && grow(t))
		return -1;
	for (s = slot_of(t, pid, kind, id); t->slot[s].tid; s = (s + 1) & (t->cap - 1)) {
		const struct pf_track *o = &t->slot[s];

		if (o->pid == pid && o->kind == kind && o->id == id)
			return o->tid;
	}
	if (t->n >= (size_t)(PF_SYNTH_TID_END - PF_SYNTH_TID_BASE))
		return -1;
	t->slot[s] = (struct pf_track){ .pid = pid, .kind = kind, .id = id,
					.tid = PF_SYNTH_TID_BASE + (int)t->n };
	t->n++;
	*fresh = true;
	return t->slot[s].tid;
}

void pf_tracks_free(struct pf_tracks *t)
{
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
