/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the trace reader: what tracefile_read.c (the header, version 1's
 * records) and tracefile_read_chunks.c (the chunks of versions 2 and 3) share.
 */
#ifndef GPUPROBE_TRACEFILE_READ_H
#define GPUPROBE_TRACEFILE_READ_H

#include "tracefile.h"

int reader_fail(struct trace_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The file ends (or only zeros follow) at off without an end record: returns 0. */
int stop_at_cut(struct trace_reader *r, uint64_t off, const char *what);
bool all_zero(const void *p, size_t len);
/*
 * A whole record at off (the chunk's offset in versions 2 and 3) checked and
 * counted: 1 hand it out, 0 skip it (the end record, unknown types), -1 error.
 */
int accept_record(struct trace_reader *r, const struct gpuprobe_rec_hdr *h, uint64_t off);

/* Versions 2 and 3: start the thread that reads and decodes chunks ahead. */
int chunks_open(struct trace_reader *r);
int chunks_next(struct trace_reader *r, const struct gpuprobe_rec_hdr **rec);
void chunks_close(struct trace_reader *r);

#endif /* GPUPROBE_TRACEFILE_READ_H */
