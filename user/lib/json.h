/* SPDX-License-Identifier: GPL-2.0 */
/* A small streaming JSON writer: objects, arrays, strings, numbers. */
#ifndef GPUPROBE_JSON_H
#define GPUPROBE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	32

struct json {
	FILE *out;
	int depth;
	bool need_comma[JSON_MAX_DEPTH];
	bool pretty;
	bool after_key;
};

void json_init(struct json *j, FILE *out, bool pretty);
void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_put_string(struct json *j, const char *s);
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
void json_double(struct json *j, double v);
void json_bool(struct json *j, bool v);
void json_put_null(struct json *j);

/* key + value shorthands */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_u64(struct json *j, const char *key, uint64_t v);
void json_kv_i64(struct json *j, const char *key, int64_t v);
void json_kv_double(struct json *j, const char *key, double v);
void json_kv_bool(struct json *j, const char *key, bool v);
/* v, or null when v is 0: a time or id that was not measured. */
void json_kv_u64_or_null(struct json *j, const char *key, uint64_t v);

/* Write s as a JSON string literal (with quotes) to out. */
void json_write_escaped(FILE *out, const char *s);

#endif /* GPUPROBE_JSON_H */
