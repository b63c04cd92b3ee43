// SPDX-License-Identifier: GPL-2.0
/* A protocol-buffers encoder (pbenc.h): the wire format, nothing more. */
#include <stdlib.h>
#include <string.h>

#include "pbenc.h"

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_BYTES = 2 };

static int pb_room(struct pb *p, size_t more)
{
	size_t cap = p->cap ? p->cap : 256;
	uint8_t *nb;

	if (p->oom)
		return -1;
	if (p->len + more <= p->cap)
		return 0;
	while (cap < p->len + more)
		cap *= 2;
	nb = realloc(p->buf, cap);
	if (!nb) {
		p->oom = 1;
		return -1;
	}
	p->buf = nb;
	p->cap = cap;
	return 0;
}

static void raw_varint(struct pb *p, uint64_t v)
{
	if (pb_room(p, 10))
		return;
	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		p->buf[p->len++] = b | (v ? 0x80 : 0);
	} while (v);
}

void pb_reset(struct pb *p)
{
	p->len = 0;
	p->oom = 0;
}

void pb_free(struct pb *p)
{
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

void pb_varint(struct pb *p, uint32_t field, uint64_t v)
{
	raw_varint(p, (uint64_t)field << 3 | WIRE_VARINT);
	raw_varint(p, v);
}

void pb_sint(struct pb *p, uint32_t field, int64_t v)
{
	pb_varint(p, field, (uint64_t)v);
}

void pb_fixed64(struct pb *p, uint32_t field, uint64_t v)
{
	raw_varint(p, (uint64_t)field << 3 | WIRE_FIXED64);
	if (pb_room(p, 8))
		return;
	for (int i = 0; i < 8; i++)
		p->buf[p->len++] = (uint8_t)(v >> (8 * i));
}

void pb_bytes(struct pb *p, uint32_t field, const void *data, size_t len)
{
	raw_varint(p, (uint64_t)field << 3 | WIRE_BYTES);
	raw_varint(p, len);
	if (pb_room(p, len))
		return;
	memcpy(p->buf + p->len, data, len);
	p->len += len;
}

void pb_string(struct pb *p, uint32_t field, const char *s)
{
	pb_bytes(p, field, s, strlen(s));
}

void pb_message(struct pb *p, uint32_t field, const struct pb *child)
{
	if (child->oom)
		p->oom = 1;
	pb_bytes(p, field, child->buf, child->len);
}
