// SPDX-License-Identifier: GPL-2.0
/*
 * Format version 2's records: a thread reads and decodes chunks
 * (decompression and the compact encoding, lib/tracefile_chunk.c) into a
 * ring of CHUNK_RING buffers while the caller reads records out of the one
 * before: on two cores decoding costs no wall time.  Memory is bounded by
 * the ring, whatever the file's length.
 *
 * The thread only reads; what its last event means (a clean end, a cut, data
 * after the end record) is decided here, by the caller's side, which knows
 * whether the end record was seen.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "tracefile_chunk.h"
#include "tracefile_read.h"

#define CHUNK_RING	3

enum chunk_event {
	CHUNK_RECORDS,		/* a decoded chunk */
	CHUNK_EOF,		/* no byte after the last chunk */
	CHUNK_ZEROS,		/* only zeros from here to the end */
	CHUNK_CUT_HEADER,	/* the file ends inside a chunk header */
	CHUNK_CUT,		/* the file ends inside a chunk */
	CHUNK_ERROR,		/* what: the problem */
};

struct chunk_slot {
	unsigned char *buf;	/* TRACEFILE_CHUNK_RAW_MAX + CHUNK_SLACK */
	uint32_t len;
	uint64_t offset;	/* of the chunk, or of the event */
	enum chunk_event event;
	char what[200];
};

struct chunk_pipe {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct chunk_slot slot[CHUNK_RING];
	unsigned int produced, consumed;	/* slots filled, slots given back */
	bool stop;				/* the reader closes */
	bool holding;				/* the caller reads slot[consumed % RING] */
	bool started;				/* the thread runs: join it */
	FILE *file;
	uint64_t offset;			/* of the next chunk */
	unsigned char *stored;
	struct chunk_decoder decoder;
};

/* Whether the rest of the stream is zeros (consumes it). */
static bool zero_tail(struct chunk_pipe *p)
{
	size_t cap = ZSTD_compressBound(TRACEFILE_CHUNK_ENC_MAX), got;

	do {
		got = fread(p->stored, 1, cap, p->file);
		if (!all_zero(p->stored, got))
			return false;
	} while (got == cap);
	return !ferror(p->file);
}

static enum chunk_event fail(struct chunk_slot *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static enum chunk_event fail(struct chunk_slot *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->what, sizeof(s->what), fmt, ap);
	va_end(ap);
	return CHUNK_ERROR;
}

/* The next chunk into s (thread side). */
static enum chunk_event read_chunk(struct chunk_pipe *p, struct chunk_slot *s)
{
	uint64_t off = p->offset;
	struct tracefile_chunk h;
	const char *problem;
	size_t got = fread(&h, 1, sizeof(h), p->file);

	s->offset = off;
	if (got < sizeof(h)) {
		if (ferror(p->file))
			return fail(s, "read error at offset %" PRIu64 ": %s", off + got, strerror(errno));
		if (!got)
			return CHUNK_EOF;
		return all_zero(&h, got) && zero_tail(p) ? CHUNK_ZEROS : CHUNK_CUT_HEADER;
	}
	if (all_zero(&h, sizeof(h))) {
		if (zero_tail(p))
			return CHUNK_ZEROS;
		return fail(s, "corrupt chunk at offset %" PRIu64 ": zeros", off);
	}
	problem = chunk_header_problem(&h);
	if (problem)
		return fail(s, "corrupt chunk at offset %" PRIu64 ": %s", off, problem);
	got = fread(p->stored, 1, h.stored_size, p->file);
	if (got < h.stored_size) {
		if (ferror(p->file))
			return fail(s, "read error at offset %" PRIu64 ": %s",
				    off + sizeof(h) + got, strerror(errno));
		return CHUNK_CUT;
	}
	problem = chunk_decode(&p->decoder, &h, p->stored, s->buf);
	if (problem)
		return fail(s, "corrupt chunk at offset %" PRIu64 ": %s", off, problem);
	s->len = h.raw_size;
	p->offset = off + sizeof(h) + h.stored_size;
	return CHUNK_RECORDS;
}

static void *read_ahead(void *arg)
{
	struct chunk_pipe *p = arg;
	enum chunk_event ev;

	do {
		struct chunk_slot *s;
		bool stop;

		pthread_mutex_lock(&p->lock);
		/* one slot stays with the caller while it reads it */
		while (!p->stop && p->produced - p->consumed >= CHUNK_RING - 1)
			pthread_cond_wait(&p->changed, &p->lock);
		stop = p->stop;
		pthread_mutex_unlock(&p->lock);
		if (stop)
			break;
		s = &p->slot[p->produced % CHUNK_RING];
		ev = s->event = read_chunk(p, s);
		pthread_mutex_lock(&p->lock);
		p->produced++;
		pthread_cond_broadcast(&p->changed);
		pthread_mutex_unlock(&p->lock);
	} while (ev == CHUNK_RECORDS);
	return NULL;
}

int chunks_open(struct trace_reader *r)
{
	struct chunk_pipe *p = calloc(1, sizeof(*p));
	bool ok;

	free(r->buf_own);
	r->buf = r->buf_own = NULL;
	r->buf_len = r->buf_pos = 0;
	r->chunked = true;
	if (!p)
		return reader_fail(r, "out of memory for the chunk buffers");
	r->pipe = p;
	p->file = r->file;
	p->offset = r->buf_file_offset;
	p->stored = malloc(ZSTD_compressBound(TRACEFILE_CHUNK_ENC_MAX) + CHUNK_INPUT_SLACK);
	ok = p->stored && !chunk_decoder_init(&p->decoder);
	for (int i = 0; i < CHUNK_RING; i++) {
		p->slot[i].buf = aligned_alloc(64, TRACEFILE_CHUNK_RAW_MAX + CHUNK_SLACK);
		ok = ok && p->slot[i].buf;
	}
	if (!ok)
		return reader_fail(r, "out of memory for the chunk buffers");
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->changed, NULL);
	errno = pthread_create(&p->thread, NULL, read_ahead, p);
	if (errno) {
		int err = errno;

		pthread_cond_destroy(&p->changed);
		pthread_mutex_destroy(&p->lock);
		return reader_fail(r, "cannot start the chunk reader thread: %s", strerror(err));
	}
	p->started = true;
	return 0;
}

/* The caller is done with its slot: the next one, once the thread filled it. */
static struct chunk_slot *next_slot(struct chunk_pipe *p)
{
	struct chunk_slot *s;

	pthread_mutex_lock(&p->lock);
	if (p->holding) {
		p->consumed++;
		p->holding = false;
		pthread_cond_broadcast(&p->changed);
	}
	while (p->produced == p->consumed)
		pthread_cond_wait(&p->changed, &p->lock);
	s = &p->slot[p->consumed % CHUNK_RING];
	p->holding = s->event == CHUNK_RECORDS;
	pthread_mutex_unlock(&p->lock);
	return s;
}

/* 1: buf holds the next chunk's records; 0 and -1 as trace_reader_next. */
static int load_chunk(struct trace_reader *r)
{
	struct chunk_slot *s = next_slot(r->pipe);

	if (s->event == CHUNK_ERROR)
		return reader_fail(r, "%s", s->what);
	if (s->event == CHUNK_EOF && r->seen_end)
		return 0;
	if (r->seen_end)
		return reader_fail(r, "unexpected data after the end record at offset %" PRIu64, s->offset);
	switch (s->event) {
	case CHUNK_RECORDS:
		r->buf = s->buf;
		r->buf_len = s->len;
		r->buf_pos = 0;
		r->chunk_offset = s->offset;
		return 1;
	case CHUNK_EOF:
		return stop_at_cut(r, s->offset, "the file ends");
	case CHUNK_ZEROS:
		return stop_at_cut(r, s->offset, "only zeros follow");
	case CHUNK_CUT_HEADER:
		return stop_at_cut(r, s->offset, "the file ends inside a chunk header");
	default:
		return stop_at_cut(r, s->offset, "the file ends inside a chunk");
	}
}

int chunks_next(struct trace_reader *r, const struct gpuprobe_rec_hdr **rec)
{
	for (;;) {
		const struct gpuprobe_rec_hdr *h;
		int n;

		if (r->truncated || !r->pipe)
			return 0;
		if (r->buf_pos == r->buf_len) {
			n = load_chunk(r);
			if (n <= 0)
				return n;
			continue;
		}
		/* whole records: the decoder checked every size against the chunk */
		h = (const void *)(r->buf + r->buf_pos);
		if (r->seen_end)
			return reader_fail(r, "unexpected data after the end record in the chunk at offset %" PRIu64,
					   r->chunk_offset);
		r->buf_pos += h->size;
		n = accept_record(r, h, r->chunk_offset);
		if (n) {
			*rec = h;
			return n;
		}
	}
}

void chunks_close(struct trace_reader *r)
{
	struct chunk_pipe *p = r->pipe;

	if (!p)
		return;
	if (p->started) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_broadcast(&p->changed);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
		pthread_cond_destroy(&p->changed);
		pthread_mutex_destroy(&p->lock);
	}
	for (int i = 0; i < CHUNK_RING; i++)
		free(p->slot[i].buf);
	chunk_decoder_free(&p->decoder);
	free(p->stored);
	free(p);
	r->pipe = NULL;
	r->buf = NULL;
}
