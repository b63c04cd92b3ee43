// SPDX-License-Identifier: GPL-2.0
/*
 * The targets' vectors while the tracefs source records (tracefs_vectors.h).
 *
 * A vector found after the start is written as a VECTOR record (and a
 * target record, as the module writes one), and gets the kernel-count
 * window of its own that `report` compares: when its irq number did not
 * exist when tracing was switched on and was never excluded by the filter,
 * every interrupt it ever had is in the ring buffer, so its count started
 * at 0 then; otherwise the filter is widened first and the kernel's count
 * read after, as record.c does at the start.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "tracefile.h"
#include "tracefs_vectors.h"
#include "util.h"

/* In the tracker's copy only: the rescan no longer finds the vector. */
#define VECTOR_SEEN_GONE	(1u << 31)

static size_t numbers_find(const struct irq_numbers *s, uint32_t irq, bool *found)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->v[mid] < irq)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < s->n && s->v[lo] == irq;
	return lo;
}

static bool numbers_has(const struct irq_numbers *s, uint32_t irq)
{
	bool found;

	numbers_find(s, irq, &found);
	return found;
}

static int numbers_add(struct irq_numbers *s, uint32_t irq)
{
	bool found;
	size_t at = numbers_find(s, irq, &found);

	if (found)
		return 0;
	if (array_reserve((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v)))
		return -1;
	memmove(s->v + at + 1, s->v + at, (s->n - at) * sizeof(*s->v));
	s->v[at] = irq;
	s->n++;
	return 0;
}

static bool numbers_remove(struct irq_numbers *s, uint32_t irq)
{
	bool found;
	size_t at = numbers_find(s, irq, &found);

	if (!found)
		return false;
	memmove(s->v + at, s->v + at + 1, (s->n - at - 1) * sizeof(*s->v));
	s->n--;
	return true;
}

/* Every irq number that has a descriptor now (<root>/kernel/irq/N). */
static int read_irq_numbers(const char *root, struct irq_numbers *out)
{
	char dir[PATH_MAX];
	struct dirent *de;
	uint64_t irq;
	DIR *d;

	out->n = 0;
	if (format_into(dir, sizeof(dir), "%s/kernel/irq", root) || !(d = opendir(dir)))
		return -1;
	while ((de = readdir(d)))
		if (!parse_u64(de->d_name, &irq) && irq <= INT32_MAX &&
		    numbers_add(out, (uint32_t)irq)) {
			closedir(d);
			return -1;
		}
	closedir(d);
	return 0;
}

int vectors_init(struct vector_tracker *vt, const char *root, const struct target_set *header)
{
	uint32_t bdf;

	memset(vt, 0, sizeof(*vt));
	vt->root = root ? root : "/sys";
	vt->set = malloc(sizeof(*vt->set));
	if (!vt->set)
		return -1;
	*vt->set = *header;
	vt->have_others = read_irq_numbers(vt->root, &vt->others) == 0;
	for (size_t i = 0; i < vt->others.n; )
		if (target_set_vector(vt->set, vt->others.v[i], &bdf))
			numbers_remove(&vt->others, vt->others.v[i]);
		else
			i++;
	for (size_t i = 0; i < vt->others.n; i++)
		if (numbers_add(&vt->ever_excluded, vt->others.v[i]))
			return -1;
	return 0;
}

void vectors_free(struct vector_tracker *vt)
{
	free(vt->set);
	free(vt->others.v);
	free(vt->ever_excluded.v);
	free(vt->at_start.v);
	free(vt->late);
	memset(vt, 0, sizeof(*vt));
}

void vectors_tracing_on(struct vector_tracker *vt, uint64_t now_ns)
{
	vt->start_ns = now_ns;
	vt->last_rescan_ns = now_ns;
	vt->have_start = read_irq_numbers(vt->root, &vt->at_start) == 0;
}

static int put_vector_record(const struct record_sink *sink, const struct target *t,
			     const struct target_vector *v, uint16_t change, uint64_t now)
{
	struct tracefile_rec_vector rec = {
		.hdr = { .type = TRACEFILE_REC_VECTOR, .size = sizeof(rec), .ts_ns = now },
		.bdf = t->bdf, .irq = v->irq, .index = v->index,
		.flags = (uint16_t)(v->flags & VECTOR_MSIX), .change = change,
	};

	return sink_put(sink, &rec.hdr);
}

static int put_count(const struct record_sink *sink, uint32_t bdf, uint32_t irq,
		     uint32_t phase, uint64_t count, uint64_t ts)
{
	struct tracefile_rec_irq_count rec = {
		.hdr = { .type = TRACEFILE_REC_IRQ_COUNT, .size = sizeof(rec), .ts_ns = ts },
		.bdf = bdf, .irq = irq, .phase = phase, .count = count,
	};

	return sink_put(sink, &rec.hdr);
}

static bool index_used(const struct target *t, uint32_t index)
{
	for (uint32_t j = 0; j < t->nvec; j++)
		if (t->vec[j].index == index)
			return true;
	return false;
}

/* The fresh rank of a vector may be a known vector's index: then the first free one. */
static uint32_t free_index(const struct target *t, uint32_t wanted)
{
	uint32_t index = 0;

	if (!index_used(t, wanted))
		return wanted;
	while (index_used(t, index))
		index++;
	return index;
}

static int add_late_vector(struct vector_tracker *vt, struct target *t,
			   const struct target_vector *fresh, uint64_t now,
			   const struct record_sink *sink)
{
	struct target_vector *v;
	struct late_vector *late;
	int err;

	if (t->nvec >= TARGET_MAX_VECTORS ||
	    array_reserve((void **)&vt->late, &vt->late_cap, vt->nlate + 1, sizeof(*vt->late)))
		return -1;
	v = &t->vec[t->nvec];
	*v = *fresh;
	v->index = free_index(t, fresh->index);
	t->nvec++;
	late = &vt->late[vt->nlate++];
	*late = (struct late_vector){ .bdf = t->bdf, .irq = v->irq };
	err = put_vector_record(sink, t, v, VECTOR_ADDED, now);
	if (vt->have_others && vt->have_start && !numbers_has(&vt->at_start, v->irq) &&
	    !numbers_has(&vt->ever_excluded, v->irq)) {
		/* born after tracing was on, never filtered out: all of it is traced */
		late->counted = true;
		return err | put_count(sink, t->bdf, v->irq, IRQ_COUNT_START, 0, vt->start_ns);
	}
	late->count_pending = true;
	if (numbers_remove(&vt->others, v->irq) || !vt->have_others)
		vt->filter_changed = true;
	return err;
}

static struct late_vector *late_of(struct vector_tracker *vt, uint32_t bdf, uint32_t irq)
{
	for (size_t i = 0; i < vt->nlate; i++)
		if (vt->late[i].bdf == bdf && vt->late[i].irq == irq)
			return &vt->late[i];
	return NULL;
}

static struct target_vector *vector_of(struct target *t, uint32_t irq)
{
	for (uint32_t j = 0; j < t->nvec; j++)
		if (t->vec[j].irq == irq)
			return &t->vec[j];
	return NULL;
}

static int rescan_target(struct vector_tracker *vt, struct target *t, uint64_t now,
			 const struct record_sink *sink)
{
	struct target *fresh = malloc(sizeof(*fresh));
	struct gpuprobe_rec_target rec = {
		.hdr = { .type = GPUPROBE_EV_TARGET, .size = sizeof(rec), .ts_ns = now },
		.bdf = t->bdf, .event = GPUPROBE_TARGET_VECTORS,
	};
	bool changed = false;
	char err[256];
	int ret = 0;

	if (!fresh)
		return -1;
	if (target_resolve(vt->root, t->bdf, fresh, err, sizeof(err)))
		fresh->nvec = 0;	/* the device is gone: so are its vectors */
	for (uint32_t j = 0; j < fresh->nvec; j++) {
		struct target_vector *known = vector_of(t, fresh->vec[j].irq);

		if (known && (known->flags & VECTOR_SEEN_GONE)) {
			known->flags &= ~VECTOR_SEEN_GONE;
			ret |= put_vector_record(sink, t, known, VECTOR_ADDED, now);
			changed = true;
		} else if (!known) {
			ret |= add_late_vector(vt, t, &fresh->vec[j], now, sink);
			changed = true;
		}
	}
	for (uint32_t j = 0; j < t->nvec; j++) {
		struct target_vector *v = &t->vec[j];
		struct late_vector *late;

		if ((v->flags & VECTOR_SEEN_GONE) || vector_of(fresh, v->irq))
			continue;
		v->flags |= VECTOR_SEEN_GONE;
		late = late_of(vt, t->bdf, v->irq);
		if (late)
			late->gone = true;
		ret |= put_vector_record(sink, t, v, VECTOR_GONE, now);
		changed = true;
	}
	if (changed) {
		rec.nvec = fresh->nvec;
		ret |= sink_put(sink, &rec.hdr);
	}
	free(fresh);
	return ret;
}

int vectors_rescan(struct vector_tracker *vt, uint64_t now_ns, const struct record_sink *sink)
{
	int err = 0;

	vt->last_rescan_ns = now_ns;
	for (unsigned int i = 0; i < vt->set->count; i++)
		err |= rescan_target(vt, &vt->set->t[i], now_ns, sink);
	return err;
}

const struct target_vector *vectors_resolve(struct vector_tracker *vt, uint32_t irq,
					    uint32_t *bdf, const struct record_sink *sink)
{
	const struct target_vector *v = target_set_vector(vt->set, irq, bdf);

	if (v)
		return v;
	/* an irq already found to be another device's passed before the filter changed */
	if (!numbers_has(&vt->others, irq)) {
		vectors_rescan(vt, mono_now_ns(), sink);
		v = target_set_vector(vt->set, irq, bdf);
		if (v)
			return v;
		if (vt->have_others && !numbers_add(&vt->others, irq) &&
		    !numbers_add(&vt->ever_excluded, irq))
			vt->filter_changed = true;
	}
	vt->unknown_irqs++;
	return NULL;
}

int vectors_put_pending_counts(struct vector_tracker *vt, const struct record_sink *sink)
{
	int err = 0;

	for (size_t i = 0; i < vt->nlate; i++) {
		struct late_vector *late = &vt->late[i];
		uint64_t count;

		if (!late->count_pending || late->gone)
			continue;
		late->count_pending = false;
		if (irq_kernel_count(vt->root, late->irq, &count))
			continue;
		/* stamped after the read, as record.c stamps the others */
		err |= put_count(sink, late->bdf, late->irq, IRQ_COUNT_START, count, mono_now_ns());
		late->counted = true;
	}
	return err;
}

int vectors_put_stop_counts(struct vector_tracker *vt, const struct record_sink *sink)
{
	int err = 0;

	for (size_t i = 0; i < vt->nlate; i++) {
		struct late_vector *late = &vt->late[i];
		uint64_t count;

		if (!late->counted || late->gone || irq_kernel_count(vt->root, late->irq, &count))
			continue;
		err |= put_count(sink, late->bdf, late->irq, IRQ_COUNT_STOP, count, mono_now_ns());
	}
	return err;
}

static int append(char *buf, size_t size, const char *text)
{
	size_t used = strlen(buf), len = strlen(text) + (used ? 2 : 0);

	if (used + len >= size)
		return -1;
	snprintf(buf + used, size - used, "%s%s", used ? "||" : "", text);
	return 0;
}

/* Every irq number but the other devices': the gaps between them, and above. */
static int complement_filter(const struct vector_tracker *vt, char *buf, size_t size)
{
	uint64_t next = 0;
	char clause[48];

	buf[0] = '\0';
	for (size_t i = 0; i <= vt->others.n; i++) {
		uint64_t end = i < vt->others.n ? vt->others.v[i] : (uint64_t)INT32_MAX + 1;

		if (end > next) {
			if (end == (uint64_t)INT32_MAX + 1)
				snprintf(clause, sizeof(clause), "irq>=%llu", (unsigned long long)next);
			else if (end - 1 == next)
				snprintf(clause, sizeof(clause), "irq==%llu", (unsigned long long)next);
			else
				snprintf(clause, sizeof(clause), "(irq>=%llu&&irq<=%llu)",
					 (unsigned long long)next, (unsigned long long)end - 1);
			if (append(buf, size, clause))
				return -1;
		}
		next = end + 1;
	}
	return 0;
}

int vectors_irq_filter(const struct vector_tracker *vt, char *buf, size_t size)
{
	char clause[24];

	if (vt->have_others && !complement_filter(vt, buf, size))
		return 0;
	buf[0] = '\0';
	for (unsigned int i = 0; i < vt->set->count; i++)
		for (uint32_t j = 0; j < vt->set->t[i].nvec; j++) {
			snprintf(clause, sizeof(clause), "irq==%u", vt->set->t[i].vec[j].irq);
			if (append(buf, size, clause))
				return -1;
		}
	if (!buf[0])
		snprintf(buf, size, "irq<0");	/* nothing yet: a rescan widens it */
	return 1;
}
