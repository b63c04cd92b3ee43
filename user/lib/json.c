// SPDX-License-Identifier: GPL-2.0
/* A small streaming JSON writer; nesting is tracked only to place commas. */
#include <inttypes.h>
#include <math.h>

#include "json.h"

void json_init(struct json *j, FILE *out, bool pretty)
{
	j->out = out;
	j->depth = 0;
	j->need_comma[0] = false;
	j->pretty = pretty;
	j->after_key = false;
}

static void newline_indent(struct json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* Comma and indentation before a value or key at the current level. */
static void before_item(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma[j->depth])
		fputc(',', j->out);
	if (j->depth > 0)
		newline_indent(j);
	j->need_comma[j->depth] = true;
}

static void open_level(struct json *j, char c)
{
	before_item(j);
	fputc(c, j->out);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_level(struct json *j, char c)
{
	bool had_items = j->need_comma[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had_items)
		newline_indent(j);
	fputc(c, j->out);
	if (j->depth == 0 && j->pretty)
		fputc('\n', j->out);
}

void json_object_begin(struct json *j) { open_level(j, '{'); }
void json_object_end(struct json *j) { close_level(j, '}'); }
void json_array_begin(struct json *j) { open_level(j, '['); }
void json_array_end(struct json *j) { close_level(j, ']'); }

/*
 * Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlongs,
 * no surrogates, at most U+10FFFF), 0 when it is not one.
 */
static size_t utf8_sequence(const unsigned char *p)
{
	unsigned int n, cp;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (unsigned int i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;	/* also stops at the NUL */
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/*
 * UTF-8 is written as UTF-8 (JSON text is UTF-8, RFC 8259); control
 * characters and DEL as \u escapes; a byte that starts no well-formed
 * sequence (a name cut inside a character, Latin-1) as U+FFFD.
 */
void json_write_escaped(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		size_t n;

		if (*p >= 0x80) {
			n = utf8_sequence(p);
			if (n) {
				fwrite(p, 1, n, out);
				p += n - 1;
			} else {
				fputs("\\ufffd", out);
			}
			continue;
		}
		switch (*p) {
		case '"':  fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

void json_key(struct json *j, const char *key)
{
	before_item(j);
	json_write_escaped(j->out, key);
	fputs(j->pretty ? ": " : ":", j->out);
	j->after_key = true;
}

void json_put_string(struct json *j, const char *s)
{
	before_item(j);
	json_write_escaped(j->out, s ? s : "");
}

void json_u64(struct json *j, uint64_t v)
{
	before_item(j);
	fprintf(j->out, "%" PRIu64, v);
}

void json_i64(struct json *j, int64_t v)
{
	before_item(j);
	fprintf(j->out, "%" PRId64, v);
}

void json_double(struct json *j, double v)
{
	before_item(j);
	/* %.17g: every double reads back as itself; integral ones print as integers. */
	if (isfinite(v))
		fprintf(j->out, "%.17g", v);
	else
		fputs("null", j->out);
}

void json_bool(struct json *j, bool v)
{
	before_item(j);
	fputs(v ? "true" : "false", j->out);
}

void json_put_null(struct json *j)
{
	before_item(j);
	fputs("null", j->out);
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_put_string(j, s);
}

void json_kv_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_kv_i64(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_i64(j, v);
}

void json_kv_double(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_double(j, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_kv_u64_or_null(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	if (v)
		json_u64(j, v);
	else
		json_put_null(j);
}
