// SPDX-License-Identifier: GPL-2.0
/*
 * Totals per kernel, copy or memset name (attribute.h: struct attr_name):
 * the names are found by hash (FNV-1a over api, type and name, open
 * addressing, the table at most half full), not by comparing every name.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "attribute_internal.h"
#include "util.h"

#define NAME_SLOTS_MIN	64		/* power of two */

static uint64_t name_hash(uint8_t api, uint16_t type, const char *name)
{
	uint64_t h = 14695981039346656037ull;	/* FNV-1a */

	h = (h ^ api) * 1099511628211ull;
	h = (h ^ type) * 1099511628211ull;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	return h;
}

static bool same_name(const struct attr_name *n, const struct attr_op *op)
{
	return n->api == op->ev.api && n->type == op->ev.type &&
	       !strncmp(n->name, op->ev.name, sizeof(n->name));
}

/* Double the slot table (load at most 1/2) and re-insert every name. */
static int grow_name_slots(struct attr_builder *ps)
{
	const struct attribution *at = ps->at;
	size_t slots = ps->name_slots ? 2 * ps->name_slots : NAME_SLOTS_MIN;
	uint32_t *t = calloc(slots, sizeof(*t));

	if (!t)
		return -1;
	for (size_t i = 0; i < at->nnames; i++) {
		const struct attr_name *n = &at->names[i];
		size_t s = name_hash(n->api, n->type, n->name) & (slots - 1);

		while (t[s])
			s = (s + 1) & (slots - 1);
		t[s] = (uint32_t)i + 1;
	}
	free(ps->name_slot);
	ps->name_slot = t;
	ps->name_slots = slots;
	return 0;
}

/* The totals of op's (api, type, name), created on first use; NULL when out of memory. */
static struct attr_name *name_slot(struct attr_builder *ps, const struct attr_op *op)
{
	struct attribution *at = ps->at;
	struct attr_name *n;
	size_t s;

	if (2 * (at->nnames + 1) > ps->name_slots && grow_name_slots(ps))
		return NULL;
	s = name_hash(op->ev.api, op->ev.type, op->ev.name) & (ps->name_slots - 1);
	for (; ps->name_slot[s]; s = (s + 1) & (ps->name_slots - 1))
		if (same_name(&at->names[ps->name_slot[s] - 1], op))
			return &at->names[ps->name_slot[s] - 1];
	if (array_reserve((void **)&at->names, &ps->names_cap, at->nnames + 1, sizeof(*at->names)))
		return NULL;
	n = &at->names[at->nnames];
	memset(n, 0, sizeof(*n));
	n->api = op->ev.api;
	n->type = op->ev.type;
	copy_string(n->name, sizeof(n->name), op->ev.name);
	ps->name_slot[s] = (uint32_t)++at->nnames;
	return n;
}

static int by_device_time(const void *a, const void *b)
{
	const struct attr_name *x = a, *y = b;

	return x->device_ns > y->device_ns ? -1 : x->device_ns < y->device_ns;
}

/* An op's totals into its name's: 0, or -1 without memory (the op is left out). */
int attr_name_add(struct attr_builder *ps, const struct attr_op *op, const struct attr_op_detail *d)
{
	struct attr_name *n = name_slot(ps, op);

	if (!n)
		return -1;
	n->count++;
	n->device_ns += op->ev.end_ns - op->ev.start_ns;
	n->bytes += op->ev.bytes;
	n->return_ns += op->return_ns ? op->return_ns - op->ev.end_ns : 0;
	for (int p = 0; p < ATTR_PHASES; p++)
		attr_counts_add(&n->phase[p], &d->phase[p], 1);
	return 0;
}

void attr_names_sort(struct attr_builder *ps)
{
	struct attribution *at = ps->at;

	qsort(at->names, at->nnames, sizeof(*at->names), by_device_time);
}
