// SPDX-License-Identifier: GPL-2.0
/* Reading JSON documents with jansson; see json_read.h. */
#include <stdio.h>

#include "json_read.h"

static json_t *loaded(json_t *doc, const json_error_t *e, const char *what,
		      char *err, size_t errsize)
{
	if (!doc)
		snprintf(err, errsize, "%s: offset %d (line %d column %d): %s", what, e->position,
			 e->line, e->column, e->text);
	return doc;
}

json_t *jread_file(const char *path, char *err, size_t errsize)
{
	json_error_t e;

	return loaded(json_load_file(path, JSON_REJECT_DUPLICATES, &e), &e, path, err, errsize);
}

json_t *jread_parse(const char *text, char *err, size_t errsize)
{
	json_error_t e;

	return loaded(json_loads(text, JSON_REJECT_DUPLICATES, &e), &e, "JSON", err, errsize);
}

void jread_free(json_t *doc)
{
	json_decref(doc);
}

const json_t *jread_get(const json_t *obj, const char *key)
{
	return json_is_object(obj) ? json_object_get(obj, key) : NULL;
}

const json_t *jread_array(const json_t *obj, const char *key)
{
	const json_t *a = jread_get(obj, key);

	return json_is_array(a) ? a : NULL;
}

const char *jread_string(const json_t *obj, const char *key, const char *fallback)
{
	const json_t *s = jread_get(obj, key);

	return json_is_string(s) ? json_string_value(s) : fallback;
}

double jread_number(const json_t *obj, const char *key, double fallback)
{
	const json_t *n = jread_get(obj, key);

	return json_is_number(n) ? json_number_value(n) : fallback;
}

uint64_t jread_u64(const json_t *obj, const char *key, uint64_t fallback)
{
	const json_t *n = jread_get(obj, key);
	double d;

	if (json_is_integer(n))
		return json_integer_value(n) >= 0 ? (uint64_t)json_integer_value(n) : fallback;
	if (!json_is_real(n))
		return fallback;
	d = json_real_value(n);
	return d >= 0 && d < 18446744073709551616.0 ? (uint64_t)d : fallback;
}
