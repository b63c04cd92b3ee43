/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A protocol-buffers encoder, just what export's Perfetto writer needs
 * (pbenc.c): varints, fixed64, length-delimited bytes and nested messages
 * built into growable buffers.  No schema, no reflection: callers name the
 * field numbers of the .proto they follow.
 */
#ifndef GPUPROBE_PBENC_H
#define GPUPROBE_PBENC_H

#include <stddef.h>
#include <stdint.h>

struct pb {
	uint8_t *buf;
	size_t len, cap;
	int oom;		/* set once an allocation failed: the message is unusable */
};

void pb_reset(struct pb *p);		/* empty, keeps its buffer */
void pb_free(struct pb *p);
void pb_varint(struct pb *p, uint32_t field, uint64_t v);
void pb_sint(struct pb *p, uint32_t field, int64_t v);	/* int64 (two's complement varint) */
void pb_fixed64(struct pb *p, uint32_t field, uint64_t v);
void pb_bytes(struct pb *p, uint32_t field, const void *data, size_t len);
void pb_string(struct pb *p, uint32_t field, const char *s);
/* child as a length-delimited field of p */
void pb_message(struct pb *p, uint32_t field, const struct pb *child);

#endif /* GPUPROBE_PBENC_H */
