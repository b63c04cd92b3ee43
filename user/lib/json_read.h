/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading JSON documents (probe outputs for `compare` and `explain`) with
 * jansson.  Integers stay 64-bit (timestamps are CLOCK_MONOTONIC ns); a
 * malformed, too deep or out-of-range document is refused with jansson's
 * line and column.
 */
#ifndef GPUPROBE_JSON_READ_H
#define GPUPROBE_JSON_READ_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* NULL with "PATH: offset N (line L column C): reason" in err. */
json_t *jread_file(const char *path, char *err, size_t errsize);
json_t *jread_parse(const char *text, char *err, size_t errsize);
void jread_free(json_t *doc);

/* Members of obj; NULL (or the fallback) when obj is not an object or the type differs. */
const json_t *jread_get(const json_t *obj, const char *key);
const json_t *jread_array(const json_t *obj, const char *key);
const char *jread_string(const json_t *obj, const char *key, const char *fallback);
double jread_number(const json_t *obj, const char *key, double fallback);
/* An integer member exactly; a non-negative real truncated; else fallback. */
uint64_t jread_u64(const json_t *obj, const char *key, uint64_t fallback);

/* for each element e (const json_t *) of arr, from index first; arr may be NULL. */
#define jread_each_from(i, first, e, arr) \
	for (size_t i = (first); ((e) = json_array_get((arr), i)) != NULL; i++)
#define jread_each(i, e, arr) jread_each_from(i, 0, e, arr)

#endif /* GPUPROBE_JSON_READ_H */
