// SPDX-License-Identifier: GPL-2.0
/* The trace's string table (strtab.h). */
#include <stdlib.h>
#include <string.h>

#include "appevents.h"
#include "strtab.h"

#define SHORT_PREFIX	46	/* characters of the name an event keeps (inject/appwriter.c) */

uint64_t strtab_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

size_t strtab_record_build(uint64_t hash, const char *text, size_t len, bool cut, uint64_t ts_ns,
			   void *buf, size_t size)
{
	struct tracefile_rec_string *r = buf;
	size_t keep = len > TRACEFILE_STRING_MAX ? TRACEFILE_STRING_MAX : len;
	size_t total = (sizeof(*r) + keep + 1 + 7) & ~(size_t)7;

	if (size < total)
		return 0;
	memset(buf, 0, total);
	r->hdr.type = TRACEFILE_REC_STRING;
	r->hdr.size = (uint16_t)total;
	r->hdr.ts_ns = ts_ns;
	r->hash = hash;
	r->len = (uint32_t)keep;
	r->flags = cut || keep < len ? STRING_CUT : 0;
	memcpy(r + 1, text, keep);
	return total;
}

static struct strtab_slot *find(const struct strtab *t, uint64_t hash)
{
	if (!t->cap)
		return NULL;
	for (size_t i = hash & (t->cap - 1);; i = (i + 1) & (t->cap - 1))
		if (!t->slot[i].text || t->slot[i].hash == hash)
			return &t->slot[i];
}

static int grow(struct strtab *t)
{
	struct strtab old = *t;

	t->cap = old.cap ? 2 * old.cap : 64;
	t->slot = calloc(t->cap, sizeof(*t->slot));
	if (!t->slot) {
		*t = old;
		return -1;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i].text)
			*find(t, old.slot[i].hash) = old.slot[i];
	free(old.slot);
	return 0;
}

int strtab_put(struct strtab *t, uint64_t hash, const char *text, size_t len)
{
	struct strtab_slot *s;

	if (2 * (t->n + 1) > t->cap && grow(t))
		return -1;
	s = find(t, hash);
	if (s->text)
		return 0;	/* the first one stays */
	s->text = malloc(len + 1);
	if (!s->text)
		return -1;
	memcpy(s->text, text, len);
	s->text[len] = '\0';
	s->hash = hash;
	t->n++;
	return 0;
}

int strtab_add(struct strtab *t, const struct gpuprobe_rec_hdr *h)
{
	const struct tracefile_rec_string *r = (const void *)h;
	const char *text = (const char *)(r + 1);

	/* a record inside a guest wrapper was checked for its outer size only */
	if (h->size < sizeof(*r) + 8) {
		t->malformed++;
		return -1;
	}
	if (r->len > TRACEFILE_STRING_MAX || (size_t)r->len + 1 > h->size - sizeof(*r) ||
	    text[r->len] ||
	    memchr(text, '\0', r->len) ||
	    (!(r->flags & STRING_CUT) && strtab_hash(text, r->len) != r->hash)) {
		t->malformed++;
		return -1;
	}
	return strtab_put(t, r->hash, text, r->len);
}

const char *strtab_whole(const struct strtab *t, const char *name, uint32_t flags)
{
	const char *tilde;
	const struct strtab_slot *s;
	char *end;
	uint64_t hash;

	if (!t || !(flags & GPUPROBE_APPF_TRUNCATED_NAME))
		return name;
	tilde = strrchr(name, '~');
	if (!tilde || tilde - name > SHORT_PREFIX || strlen(tilde + 1) != 16)
		return name;
	hash = strtoull(tilde + 1, &end, 16);
	if (*end)
		return name;
	s = find(t, hash);
	/* the prefix must agree too: a hash alone could be another name's */
	if (!s || !s->text || strncmp(s->text, name, (size_t)(tilde - name)))
		return name;
	return s->text;
}

void strtab_free(struct strtab *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->slot[i].text);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

void strtab_each(const struct strtab *t, void (*fn)(void *arg, uint64_t hash, const char *text),
		 void *arg)
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->slot[i].text)
			fn(arg, t->slot[i].hash, t->slot[i].text);
}
