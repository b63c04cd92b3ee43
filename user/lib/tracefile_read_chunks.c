// SPDX-License-Identifier: GPL-2.0
/*
 * Format versions 2 and 3's records: a thread reads and decodes chunks
 * (decompression and the compact encoding, lib/tracefile_chunk.c) into a
 * ring of CHUNK_RING buffers while the caller reads records out of the one
 * before: on two cores decoding costs no wall time.  Memory is bounded by
 * the ring, whatever the file's length.
 *
 * Version 3's chunks carry checksums: the thread skips a damaged chunk (to
 * the next header that checks, when its own header is wrong) and passes
 * the caller a CHUNK_DAMAGED slot saying where and how much; a chunk cut
 * short gives its whole records before the cut, then the cut.
 *
 * The thread only reads; what its last event means (a clean end, a cut, data
 * after the end record) is decided here, by the caller's side, which knows
 * whether the end record was seen.
 */
#include <errno.h>
#include <stddef.h>
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
	CHUNK_RECORDS,		/* a decoded chunk (or the whole records before a cut in it) */
	CHUNK_DAMAGED,		/* version 3: a chunk skipped, reading goes on */
	CHUNK_EOF,		/* no byte after the last chunk */
	CHUNK_ZEROS,		/* only zeros from here to the end */
	CHUNK_CUT_HEADER,	/* the file ends inside a chunk header */
	CHUNK_CUT,		/* the file ends inside a chunk */
	CHUNK_ERROR,		/* what: the problem */
};

/* Bytes looked at a time for the next chunk header after a damaged one. */
#define SCAN_WINDOW	(64u << 10)
#define PENDING_CAP	(2 * SCAN_WINDOW + 256)

struct chunk_slot {
	unsigned char *buf;	/* TRACEFILE_CHUNK_RAW_MAX + CHUNK_SLACK */
	uint32_t len;
	uint64_t offset;	/* of the chunk, or of the event */
	enum chunk_event event;
	/* CHUNK_DAMAGED */
	uint64_t skipped;	/* bytes, to the next chunk header that checks */
	int64_t records;	/* the chunk's, -1: unknown */
	uint32_t index;		/* the chunk's, from 1 */
	const char *why;
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
	bool checked;				/* version 3: chunks carry checks */
	uint32_t chunks;			/* chunks met so far, damaged ones too */
	size_t hsize;				/* bytes of a chunk header */
	bool cut_pending;			/* the chunk read last was cut: a cut next */
	uint64_t cut_at;
	char cut_what[120];
	unsigned char *stored;
	unsigned char *scan;			/* SCAN_WINDOW + a header */
	unsigned char *pending;			/* bytes read ahead while scanning, given back */
	size_t pending_pos, pending_len;
	struct chunk_decoder decoder;
};

/* fread() of the stream, after the bytes given back. */
static size_t pipe_read(struct chunk_pipe *p, void *dst, size_t len)
{
	size_t got = 0;

	if (p->pending_pos < p->pending_len) {
		got = p->pending_len - p->pending_pos < len ? p->pending_len - p->pending_pos : len;
		memcpy(dst, p->pending + p->pending_pos, got);
		p->pending_pos += got;
	}
	if (got < len)
		got += fread((unsigned char *)dst + got, 1, len - got, p->file);
	return got;
}

/* Bytes read too far go back in front of the stream (len < SCAN_WINDOW + a header). */
static void give_back(struct chunk_pipe *p, const unsigned char *src, size_t len)
{
	size_t rest = p->pending_len - p->pending_pos;

	/* the window was filled from pending first: what is left of it is below a window */
	memmove(p->pending + len, p->pending + p->pending_pos, rest);
	memcpy(p->pending, src, len);
	p->pending_pos = 0;
	p->pending_len = len + rest;
}

/*
 * Whether the rest of the stream is zeros; from: its offset.  If not, the
 * bytes from the first one that is not zero are given back and *nonzero is
 * its offset.
 */
static bool zero_tail(struct chunk_pipe *p, uint64_t from, uint64_t *nonzero)
{
	size_t got;

	do {
		got = pipe_read(p, p->scan, SCAN_WINDOW);
		if (!all_zero(p->scan, got)) {
			size_t i = 0;

			while (!p->scan[i])
				i++;
			give_back(p, p->scan + i, got - i);
			*nonzero = from + i;
			return false;
		}
		from += got;
	} while (got == SCAN_WINDOW);
	return !ferror(p->file);
}

/*
 * The next chunk header that checks, from offset off where head (len
 * bytes, below a header) were already read: true and given back (it is read
 * next) at *found, or false: none to the end of the file (*found is its end).
 */
static bool resync(struct chunk_pipe *p, uint64_t off, const void *head, size_t len,
		   uint64_t *found)
{
	unsigned char *w = p->scan;
	struct tracefile_chunk h;
	size_t got;

	if (len)
		memcpy(w, head, len);
	for (;;) {
		unsigned char *c = w;

		got = pipe_read(p, w + len, SCAN_WINDOW - len);
		len += got;
		while (len >= p->hsize &&
		       (c = memmem(c, len - p->hsize + sizeof(h.magic) - (size_t)(c - w),
				   TRACEFILE_CHUNK_MAGIC, sizeof(h.magic)))) {
			memcpy(&h, c, p->hsize);
			if (!chunk_header_problem(&h) && chunk_header_checks(&h)) {
				give_back(p, c, len - (size_t)(c - w));
				*found = off + (size_t)(c - w);
				return true;
			}
			c++;
		}
		if (!got) {
			*found = off + len;
			return false;
		}
		/* a header may start in the last bytes: keep them */
		if (len >= p->hsize) {
			memmove(w, w + len - (p->hsize - 1), p->hsize - 1);
			off += len - (p->hsize - 1);
			len = p->hsize - 1;
		}
	}
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

/* A chunk whose header cannot be believed: skipped to the next one that checks. */
static enum chunk_event skip_to_next(struct chunk_pipe *p, struct chunk_slot *s, uint64_t off,
				     uint64_t from, const void *head, size_t len, const char *why)
{
	uint64_t next;

	resync(p, from, head, len, &next);
	if (ferror(p->file))
		return fail(s, "read error after offset %" PRIu64 ": %s", from, strerror(errno));
	s->offset = off;
	s->skipped = next - off;
	s->records = -1;
	s->index = ++p->chunks;
	s->why = why;
	p->offset = next;
	return CHUNK_DAMAGED;
}

/* The file ends inside the stored bytes of h (got of them): its whole records before the cut. */
static enum chunk_event cut_inside(struct chunk_pipe *p, struct chunk_slot *s, uint64_t off,
				   const struct tracefile_chunk *h, size_t got)
{
	struct chunk_prefix kept;

	chunk_decode_prefix(&p->decoder, h, p->stored, got, s->buf, &kept);
	if (!kept.records)
		return CHUNK_CUT;
	p->cut_pending = true;
	p->cut_at = off + p->hsize + kept.stored_used;
	snprintf(p->cut_what, sizeof(p->cut_what),
		 "the file ends inside chunk %u (offset %" PRIu64 ", its first %u of %u records whole)",
		 p->chunks, off, kept.records, h->records);
	s->len = kept.raw_size;
	return CHUNK_RECORDS;
}

/* The next chunk into s (thread side). */
static enum chunk_event read_chunk(struct chunk_pipe *p, struct chunk_slot *s)
{
	uint64_t off = p->offset, nonzero = off;
	struct tracefile_chunk h;
	const char *problem;
	size_t got;

	s->offset = off;
	if (p->cut_pending) {
		s->offset = p->cut_at;
		snprintf(s->what, sizeof(s->what), "%s", p->cut_what);
		return CHUNK_CUT;
	}
	snprintf(s->what, sizeof(s->what), "the file ends inside a chunk");
	got = pipe_read(p, &h, p->hsize);
	if (got < p->hsize) {
		if (ferror(p->file))
			return fail(s, "read error at offset %" PRIu64 ": %s", off + got, strerror(errno));
		if (!got)
			return CHUNK_EOF;
		return all_zero(&h, got) ? CHUNK_ZEROS : CHUNK_CUT_HEADER;
	}
	if (all_zero(&h, p->hsize)) {
		if (zero_tail(p, off + p->hsize, &nonzero))
			return CHUNK_ZEROS;
		if (!p->checked)
			return fail(s, "corrupt chunk at offset %" PRIu64 ": zeros", off);
		return skip_to_next(p, s, off, nonzero, NULL, 0, "zeros, then data");
	}
	problem = chunk_header_problem(&h);
	if (!problem && p->checked && !chunk_header_checks(&h))
		problem = "its header's checksum fails";
	if (problem && p->checked)
		return skip_to_next(p, s, off, off + 1, (unsigned char *)&h + 1, p->hsize - 1, problem);
	if (problem)
		return fail(s, "corrupt chunk at offset %" PRIu64 ": %s", off, problem);
	p->chunks++;
	got = pipe_read(p, p->stored, h.stored_size);
	if (got < h.stored_size) {
		if (ferror(p->file))
			return fail(s, "read error at offset %" PRIu64 ": %s",
				    off + p->hsize + got, strerror(errno));
		return cut_inside(p, s, off, &h, got);
	}
	p->offset = off + p->hsize + h.stored_size;
	s->skipped = p->hsize + h.stored_size;
	s->records = h.records;
	s->index = p->chunks;
	if (p->checked && chunk_check(p->stored, h.stored_size) != h.data_check) {
		s->why = "its checksum fails";
		return CHUNK_DAMAGED;
	}
	problem = chunk_decode(&p->decoder, &h, p->stored, s->buf);
	if (problem && p->checked) {
		/* the checksum holds, the writer's bytes do not decode: skipped all the same */
		s->why = problem;
		return CHUNK_DAMAGED;
	}
	if (problem)
		return fail(s, "corrupt chunk at offset %" PRIu64 ": %s", off, problem);
	s->len = h.raw_size;
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
	} while (ev == CHUNK_RECORDS || ev == CHUNK_DAMAGED);
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
	p->checked = r->format_version == TRACEFILE_VERSION;
	p->hsize = p->checked ? TRACEFILE_CHUNK_HDR_V3 : TRACEFILE_CHUNK_HDR_V2;
	p->stored = malloc(ZSTD_compressBound(TRACEFILE_CHUNK_ENC_MAX) + CHUNK_INPUT_SLACK);
	p->scan = malloc(SCAN_WINDOW + sizeof(struct tracefile_chunk));
	p->pending = malloc(PENDING_CAP);
	ok = p->stored && p->scan && p->pending && !chunk_decoder_init(&p->decoder);
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
	p->holding = s->event == CHUNK_RECORDS || s->event == CHUNK_DAMAGED;
	pthread_mutex_unlock(&p->lock);
	return s;
}

/* A damaged chunk skipped: noted for the report. */
static void note_damage(struct trace_reader *r, const struct chunk_slot *s)
{
	if (r->damaged < TRACEFILE_DAMAGE_LIST)
		r->damage[r->damaged] = (struct tracefile_damage){
			s->offset, s->skipped, s->records, s->index, s->why };
	r->damaged++;
	if (s->records < 0)
		r->damaged_unknown++;
	else
		r->damaged_records += (uint64_t)s->records;
}

/* 1: buf holds the next chunk's records; 0 and -1 as trace_reader_next. */
static int load_chunk(struct trace_reader *r)
{
	struct chunk_slot *s = next_slot(r->pipe);

	while (s->event == CHUNK_DAMAGED && !r->seen_end) {
		note_damage(r, s);
		s = next_slot(r->pipe);
	}
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
		return stop_at_cut(r, s->offset, s->what);
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
	free(p->scan);
	free(p->pending);
	free(p);
	r->pipe = NULL;
	r->buf = NULL;
}
