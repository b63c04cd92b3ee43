// SPDX-License-Identifier: GPL-2.0
/*
 * Recursive-descent JSON reader for `compare` (probe outputs are small):
 * the document becomes a tree of jnode; \u escapes outside ASCII become '?'.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_jsonread.h"

#define JREAD_MAX_DEPTH	64

struct reader {
	const char *start, *p;
	char *err;
	size_t errsize;
	int depth;
};

static struct jnode *parse_value(struct reader *r);

static void *fail(struct reader *r, const char *what)
{
	if (!r->err[0])
		snprintf(r->err, r->errsize, "%s at offset %zu", what, (size_t)(r->p - r->start));
	return NULL;
}

static void skip_space(struct reader *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

static struct jnode *new_node(enum jnode_type type)
{
	struct jnode *n = calloc(1, sizeof(*n));

	if (n)
		n->type = type;
	return n;
}

static char *parse_string_raw(struct reader *r)
{
	size_t cap = 16, len = 0;
	char *s = malloc(cap);

	if (!s || *r->p != '"')
		return free(s), fail(r, "expected a string");
	r->p++;
	while (*r->p != '"') {
		char c = *r->p++;

		if (c == '\0' || (unsigned char)c < 0x20)
			return free(s), fail(r, "unterminated string");
		if (c == '\\') {
			c = *r->p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': {
				unsigned v;

				if (sscanf(r->p, "%4x", &v) != 1)
					return free(s), fail(r, "bad \\u escape");
				r->p += 4;
				c = v < 0x80 ? (char)v : '?';
				break;
			}
			case '"': case '\\': case '/': break;
			default:
				return free(s), fail(r, "bad escape");
			}
		}
		if (len + 2 > cap) {
			char *grown = realloc(s, cap *= 2);

			if (!grown)
				return free(s), fail(r, "out of memory");
			s = grown;
		}
		s[len++] = c;
	}
	r->p++;
	s[len] = '\0';
	return s;
}

/* Elements of an array or members of an object, up to `close`. */
static struct jnode *parse_container(struct reader *r, enum jnode_type type, char close)
{
	struct jnode *n = new_node(type), **tail;

	if (!n)
		return fail(r, "out of memory");
	if (++r->depth > JREAD_MAX_DEPTH)
		return jread_free(n), fail(r, "nested too deeply");
	tail = &n->child;
	r->p++;
	skip_space(r);
	if (*r->p == close) {
		r->p++;
		r->depth--;
		return n;
	}
	for (;;) {
		char *key = NULL;
		struct jnode *v;

		skip_space(r);
		if (type == JNODE_OBJECT) {
			key = parse_string_raw(r);
			skip_space(r);
			if (!key || *r->p != ':')
				return free(key), jread_free(n), fail(r, "expected \"key\":");
			r->p++;
		}
		v = parse_value(r);
		if (!v)
			return free(key), jread_free(n), NULL;
		v->key = key;
		*tail = v;
		tail = &v->next;
		skip_space(r);
		if (*r->p == ',') {
			r->p++;
			continue;
		}
		if (*r->p == close) {
			r->p++;
			r->depth--;
			return n;
		}
		return jread_free(n), fail(r, "expected ',' or a closing bracket");
	}
}

static struct jnode *parse_value(struct reader *r)
{
	struct jnode *n;
	char *end;

	skip_space(r);
	switch (*r->p) {
	case '{':
		return parse_container(r, JNODE_OBJECT, '}');
	case '[':
		return parse_container(r, JNODE_ARRAY, ']');
	case '"':
		n = new_node(JNODE_STRING);
		if (n && !(n->str = parse_string_raw(r)))
			return jread_free(n), NULL;
		return n ? n : fail(r, "out of memory");
	}
	if (!strncmp(r->p, "true", 4) || !strncmp(r->p, "false", 5) || !strncmp(r->p, "null", 4)) {
		n = new_node(*r->p == 'n' ? JNODE_NULL : JNODE_BOOL);
		if (!n)
			return fail(r, "out of memory");
		n->num = *r->p == 't';
		r->p += *r->p == 'f' ? 5 : 4;
		return n;
	}
	errno = 0;
	n = new_node(JNODE_NUMBER);
	if (!n)
		return fail(r, "out of memory");
	n->num = strtod(r->p, &end);
	if (end == r->p || errno)
		return jread_free(n), fail(r, "expected a value");
	r->p = end;
	return n;
}

struct jnode *jread_parse(const char *text, char *err, size_t errsize)
{
	struct reader r = { text, text, err, errsize, 0 };
	struct jnode *n;

	err[0] = '\0';
	n = parse_value(&r);
	if (!n)
		return NULL;
	skip_space(&r);
	if (*r.p)
		return jread_free(n), fail(&r, "trailing data");
	return n;
}

struct jnode *jread_file(const char *path, char *err, size_t errsize)
{
	FILE *f = fopen(path, "r");
	char *text = NULL, msg[160];
	size_t len = 0, cap = 0, got;
	struct jnode *n;

	if (!f) {
		snprintf(err, errsize, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	do {
		if (len + 4096 + 1 > cap) {
			char *grown = realloc(text, cap = 2 * cap + 8192);

			if (!grown) {
				free(text);
				fclose(f);
				snprintf(err, errsize, "%s: out of memory", path);
				return NULL;
			}
			text = grown;
		}
		got = fread(text + len, 1, 4096, f);
		len += got;
	} while (got > 0);
	fclose(f);
	text[len] = '\0';
	n = jread_parse(text, msg, sizeof(msg));
	if (!n)
		snprintf(err, errsize, "%s: not valid JSON: %s", path, msg);
	free(text);
	return n;
}

const struct jnode *jread_get(const struct jnode *obj, const char *key)
{
	if (!obj || obj->type != JNODE_OBJECT)
		return NULL;
	for (const struct jnode *c = obj->child; c; c = c->next)
		if (!strcmp(c->key, key))
			return c;
	return NULL;
}

const char *jread_string(const struct jnode *obj, const char *key, const char *fallback)
{
	const struct jnode *n = jread_get(obj, key);

	return n && n->type == JNODE_STRING ? n->str : fallback;
}

double jread_number(const struct jnode *obj, const char *key, double fallback)
{
	const struct jnode *n = jread_get(obj, key);

	return n && n->type == JNODE_NUMBER ? n->num : fallback;
}

void jread_free(struct jnode *n)
{
	while (n) {
		struct jnode *next = n->next;

		jread_free(n->child);
		free(n->key);
		free(n->str);
		free(n);
		n = next;
	}
}
