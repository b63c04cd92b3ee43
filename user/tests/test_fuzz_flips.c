// SPDX-License-Identifier: GPL-2.0
/*
 * Flipped bytes and cuts, 5000 of each encoding of the known trace and
 * 1000 of a trace of every record type with adversarial values
 * (synth_fields.c, the newer types included; their readers past agg, the
 * string table and the exact clock, run on what is handed out) (fixed
 * seeds: a failure reproduces).  A damaged file must be refused with an offset, or read; a
 * read must then say where it was cut or find its end record, and give back
 * exactly the original records up to the first damaged byte
 * (Documentation/trace-format.md, "Incomplete files").  Past it, what the
 * format can promise without checksums of its own (issue 29):
 *
 *  - a cut file holds exactly the records of the whole records (version 1)
 *    before the cut, or those of the whole chunks (versions 2 and 3) and
 *    then the first of the cut chunk's, in order (the whole records before
 *    the cut; which ones exactly: test_damage.c);
 *  - version 1 gives back the file's bytes: a record handed out is the
 *    bytes at its offset, whatever they say;
 *  - version 2 chunks decode on their own: while no chunk header (nor the
 *    file header) is hit, a chunk without a flipped byte gives back its
 *    original records, whatever happened to the others;
 *  - a zstd chunk is covered by zstd's content checksum and the chunk
 *    header's sizes: with a flipped byte it is refused or read as a cut,
 *    or gives back exactly its records (a flip that changes nothing
 *    decoded).
 *
 * What is left: a flip in a version 1 record or in a compact chunk's bytes
 * can change a value, or turn a known type into an unknown one, and the
 * file still reads as complete; those reads are counted and printed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "strtab.h"
#include "synth.h"
#include "file.h"
#include "testlib.h"
#include "tests.h"
#include "tracefile_chunk.h"
#include "tscclock.h"

#define FUZZ_ITERATIONS	5000
/* the every-type image: its report prints 258 vectors, a read costs 5 times the known one's */
#define FUZZ_FIELDS_ITERATIONS	1000

struct image {
	unsigned char *data;
	size_t len;
	uint32_t header_size;
	/* version 2: the original's chunks */
	size_t nchunks;
	uint64_t *chunk_off, *chunk_end;
	uint32_t *chunk_enc;
};

/* Records a read handed out, each with its unit: its offset (version 1), its chunk's (version 2). */
struct readout {
	struct synth_recs recs;
	uint64_t *unit;
	uint32_t *pos;		/* of each record in recs.buf */
	size_t cap;
	bool complete, truncated;
	uint64_t truncated_at;
	char error[512];
};

static const struct gpuprobe_rec_hdr *rec_at(const struct readout *o, size_t i)
{
	return (const void *)(o->recs.buf + o->pos[i]);
}

static void keep(struct readout *o, const struct trace_reader *r, const struct gpuprobe_rec_hdr *rec)
{
	if (o->recs.n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 1024;
		o->unit = realloc(o->unit, o->cap * sizeof(*o->unit));
		o->pos = realloc(o->pos, o->cap * sizeof(*o->pos));
		if (!o->unit || !o->pos)
			abort();
	}
	o->unit[o->recs.n] = r->chunked ? r->chunk_offset :
			     r->buf_file_offset + (uint64_t)((const unsigned char *)rec - r->buf);
	o->pos[o->recs.n] = (uint32_t)o->recs.len;
	synth_recs_append(&o->recs, rec);
}

static void readout_free(struct readout *o)
{
	synth_recs_free(&o->recs);
	free(o->unit);
	free(o->pos);
	memset(o, 0, sizeof(*o));
}

/*
 * The readers of the newer records past agg, on whatever a damaged file
 * hands out: the string table and the exact clock (solved, and a guest time
 * mapped).  Never a crash; a malformed record is refused by them, counted.
 */
static void consume(struct strtab *names, struct tsc_clock *clock, bool *clock_used,
		    const struct gpuprobe_rec_hdr *rec)
{
	if (rec->type == TRACEFILE_REC_STRING) {
		strtab_add(names, rec);
	} else if (rec->type == TRACEFILE_REC_TSC) {
		if (!*clock_used)
			tsc_clock_init(clock);
		*clock_used = true;
		tsc_clock_add(clock, (const struct tracefile_rec_tsc *)rec);
	}
}

static void consumed(struct strtab *names, struct tsc_clock *clock, bool clock_used)
{
	uint64_t host;

	strtab_free(names);
	if (!clock_used)
		return;
	tsc_clock_solve(clock);
	for (uint32_t cpu = 0; cpu < 3; cpu++)
		tsc_guest_to_host(clock, 1000000000ull * cpu, cpu, &host);
	tsc_clock_free(clock);
}

/* Read like `report` does (both views printed to /dev/null: never a crash); 0 read, -1 refused. */
static int read_image(const unsigned char *data, size_t len, struct readout *o)
{
	static struct trace_info info;
	static FILE *devnull;
	const struct gpuprobe_rec_hdr *rec;
	FILE *f = len ? fmemopen((void *)data, len, "rb") : fopen("/dev/null", "rb");
	static struct tsc_clock clock;
	struct strtab names = { 0 };
	bool clock_used = false;
	struct trace_reader r;
	struct agg *a = NULL;
	int n = -1;

	memset(o, 0, sizeof(*o));
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!f || !devnull) {
		snprintf(o->error, sizeof(o->error), "cannot open the image");
		return -2;
	}
	if (trace_reader_open_stream(&r, f, "image", &info) == 0) {
		a = agg_new(&info);
		while ((n = trace_reader_next(&r, &rec)) > 0) {
			agg_add(a, rec);
			consume(&names, &clock, &clock_used, rec);
			keep(o, &r, rec);
		}
	}
	consumed(&names, &clock, clock_used);
	if (n < 0) {
		snprintf(o->error, sizeof(o->error), "%s", r.error);
	} else {
		agg_finish(a, &r);
		report_print_json(devnull, "image", a, NULL, NULL, NULL);
		report_print_text(devnull, "image", a, NULL, NULL, NULL);
		o->complete = r.seen_end;
		o->truncated = r.truncated;
		o->truncated_at = r.truncated_at;
	}
	agg_free(a);
	trace_reader_close(&r);
	return n < 0 ? -1 : 0;
}

static int load(const char *path, struct image *img)
{
	struct tracefile_header_fixed h;

	memset(img, 0, sizeof(*img));
	img->data = (unsigned char *)read_whole_file(path, &img->len);
	if (!img->data || img->len < sizeof(h))
		return -1;
	memcpy(&h, img->data, sizeof(h));
	img->header_size = h.header_size;
	for (uint64_t off = h.header_size; h.format_version == TRACEFILE_VERSION && off < img->len; ) {
		struct tracefile_chunk c;

		memcpy(&c, img->data + off, sizeof(c));
		img->chunk_off = realloc(img->chunk_off, (img->nchunks + 1) * sizeof(uint64_t));
		img->chunk_end = realloc(img->chunk_end, (img->nchunks + 1) * sizeof(uint64_t));
		img->chunk_enc = realloc(img->chunk_enc, (img->nchunks + 1) * sizeof(uint32_t));
		img->chunk_off[img->nchunks] = off;
		off += sizeof(c) + c.stored_size;
		img->chunk_end[img->nchunks] = off;
		img->chunk_enc[img->nchunks++] = c.encoding;
	}
	return 0;
}

static void image_free(struct image *img)
{
	free(img->data);
	free(img->chunk_off);
	free(img->chunk_end);
	free(img->chunk_enc);
}

static uint32_t next_random(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* A damaged copy in buf, flipped[] marking the bytes flipped; its length; *flips: how many. */
static size_t mutate(const struct image *img, unsigned char *buf, unsigned char *flipped,
		     uint32_t *rng, uint32_t *flips)
{
	uint32_t mode = next_random(rng) % 10, n = 1 + next_random(rng) % 8;
	size_t len = img->len;

	memcpy(buf, img->data, img->len);
	memset(flipped, 0, img->len);
	*flips = 0;
	if (mode >= 5)
		len = next_random(rng) % img->len;
	if (mode < 5 || mode >= 8)
		for (uint32_t i = 0; i < n && len; i++) {
			size_t at = next_random(rng) % len;

			buf[at] ^= (unsigned char)(1 + next_random(rng) % 255);
			flipped[at] = 1;
			(*flips)++;
		}
	return len;
}

/* End of the unit of original record i: the record's (version 1), its chunk's (version 2). */
static uint64_t unit_end(const struct image *img, const struct readout *o, size_t i)
{
	for (size_t c = 0; c < img->nchunks; c++)
		if (img->chunk_off[c] == o->unit[i])
			return img->chunk_end[c];
	return o->unit[i] + rec_at(o, i)->size;
}

static bool same_rec(const struct readout *a, size_t i, const struct readout *b, size_t j)
{
	const struct gpuprobe_rec_hdr *x = rec_at(a, i), *y = rec_at(b, j);

	return a->unit[i] == b->unit[j] && x->size == y->size && !memcmp(x, y, x->size);
}

/* The records of unit u in got are those in want, in order (none at all, when absent is true). */
static bool unit_matches(const struct readout *want, const struct readout *got, uint64_t u, bool absent)
{
	size_t i = 0, j = 0;

	for (;;) {
		while (i < want->recs.n && want->unit[i] != u)
			i++;
		while (j < got->recs.n && got->unit[j] != u)
			j++;
		if (j == got->recs.n)
			return i == want->recs.n || absent;
		if (i == want->recs.n || !same_rec(want, i, got, j))
			return false;
		absent = false;
		i++;
		j++;
	}
}

static bool any_flipped(const unsigned char *flipped, uint64_t from, uint64_t to)
{
	return memchr(flipped + from, 1, to - from) != NULL;
}

struct tally {
	int refused, cut, whole, whole_flipped, silent, bad;
};

/* Version 2: every chunk whole in the read holds its original records where the format says it must. */
static bool check_chunks(const struct image *img, const struct readout *orig, size_t len,
			 const unsigned char *flipped, const struct readout *got, const char *what)
{
	bool framing = !any_flipped(flipped, 0, img->header_size), ok = true;

	for (size_t c = 0; c < img->nchunks && img->chunk_end[c] <= len; c++) {
		uint64_t off = img->chunk_off[c];
		bool damaged = any_flipped(flipped, off, img->chunk_end[c]);

		if (framing && !damaged && !unit_matches(orig, got, off, false)) {
			CHECK(0, "%s: chunk at %" PRIu64 ", no byte flipped, gave other records", what, off);
			ok = false;
		}
		if (framing && damaged && img->chunk_enc[c] == CHUNK_COMPACT_ZSTD &&
		    !unit_matches(orig, got, off, true)) {
			CHECK(0, "%s: zstd chunk at %" PRIu64 ", flipped, read as other records", what, off);
			ok = false;
		}
		framing = framing && !any_flipped(flipped, off, off + sizeof(struct tracefile_chunk));
	}
	return ok;
}

/*
 * A cut at len read as got: the k records of the whole units before it, and
 * in versions 2 and 3 maybe more of the chunk the cut is in, all the
 * original records in order.
 */
static bool cut_holds(const struct image *img, const struct readout *orig,
		      const struct readout *got, size_t len, size_t k)
{
	size_t most = k;

	if (!img->nchunks)
		return got->recs.n == k;
	while (most < orig->recs.n && orig->unit[most] < len)
		most++;
	if (got->recs.n < k || got->recs.n > most)
		return false;
	for (size_t i = k; i < got->recs.n; i++)
		if (!same_rec(orig, i, got, i))
			return false;
	return true;
}

/* A read of a damaged image (cut at len, flips bytes flipped): what it must hold. */
static bool check_read(const struct image *img, const struct readout *orig, const unsigned char *buf,
		       size_t len, const unsigned char *flipped, uint32_t flips,
		       const struct readout *got, const char *what)
{
	const unsigned char *first = memchr(flipped, 1, len);
	uint64_t d = first ? (uint64_t)(first - flipped) : len;	/* the first damaged byte */
	size_t k = 0;
	bool ok = got->complete != got->truncated;

	CHECK(ok, "%s: read, neither complete nor cut", what);
	/* the original records of the units before the first damaged byte, all of them, first */
	if (d >= img->header_size)
		while (k < orig->recs.n && unit_end(img, orig, k) <= d)
			k++;
	for (size_t i = 0; i < k && ok; i++)
		if (i >= got->recs.n || !same_rec(orig, i, got, i)) {
			CHECK(0, "%s: record %zu of the %zu before the first damaged byte (%" PRIu64 ") %s",
			      what, i, k, d, i >= got->recs.n ? "missing" : "differs");
			ok = false;
		}
	if (!flips && ok && !(got->truncated && cut_holds(img, orig, got, len, k))) {
		CHECK(0, "%s: cut at %zu: %zu records (truncated %d), the whole units before it hold %zu",
		      what, len, got->recs.n, got->truncated, k);
		ok = false;
	}
	if (img->nchunks)
		return check_chunks(img, orig, len, flipped, got, what) && ok;
	for (size_t j = 0; j < got->recs.n && ok; j++) {
		const struct gpuprobe_rec_hdr *h = rec_at(got, j);

		if (got->unit[j] + h->size > len || memcmp(h, buf + got->unit[j], h->size)) {
			CHECK(0, "%s: record at %" PRIu64 " is not the file's bytes there", what, got->unit[j]);
			ok = false;
		}
	}
	return ok;
}

static bool same_all(const struct readout *a, const struct readout *b)
{
	if (a->recs.n != b->recs.n)
		return false;
	for (size_t i = 0; i < a->recs.n; i++)
		if (!same_rec(a, i, b, i))
			return false;
	return true;
}

static void fuzz_one(const char *name, const struct image *img, const struct readout *orig,
		     int iterations, struct tally *t)
{
	unsigned char *buf = malloc(img->len), *flipped = malloc(img->len);
	uint32_t rng = 0x9e3779b9;
	char what[160];

	for (int i = 0; i < iterations && t->bad < 5; i++) {
		struct readout got;
		uint32_t flips;
		size_t len = mutate(img, buf, flipped, &rng, &flips);
		int ret = read_image(buf, len, &got);

		snprintf(what, sizeof(what), "%s, iteration %d (len %zu, %u flips)", name, i, len, flips);
		if (ret == -1 && strstr(got.error, "offset")) {
			t->refused++;
		} else if (ret == 0 && check_read(img, orig, buf, len, flipped, flips, &got, what)) {
			t->cut += got.truncated;
			t->whole += got.complete;
			t->whole_flipped += got.complete && flips;
			t->silent += got.complete && flips && !same_all(orig, &got);
		} else {
			t->bad++;
			CHECK(ret == 0, "%s: %s", what, got.error);
		}
		readout_free(&got);
	}
	free(buf);
	free(flipped);
}

void test_fuzz_flips_and_truncations(void)
{
	static const struct { const char *name; int level; } encodings[] = {
		{ "version 1", 0 }, { "compact", TRACEFILE_COMPACT }, { "zstd", TRACEFILE_ZSTD_LEVEL },
	};
	const char *path = test_tmp_path("fuzz-known.trace");

	/* the known trace, and every record type with adversarial values (synth_fields.c, the newer types too) */
	for (size_t e = 0; e < 2 * sizeof(encodings) / sizeof(encodings[0]); e++) {
		const bool fields = e >= sizeof(encodings) / sizeof(encodings[0]);
		const char *enc = encodings[e % 3].name;
		struct tally t = { 0 };
		struct image img = { 0 };
		struct readout orig;
		char name[64];
		int err;

		snprintf(name, sizeof(name), "%s%s", fields ? "every record type, " : "", enc);
		/* version 2: a chunk every 7 records, so that flips and cuts meet chunk headers */
		synth_set_compression(encodings[e % 3].level, 7);
		synth_fields_set_newer(true);
		err = fields ? synth_write_fields(path, 2, false) : synth_write_known(path);
		synth_fields_set_newer(false);
		CHECK(err == 0 && load(path, &img) == 0, "no image");
		synth_set_compression(0, 0);
		unlink(path);
		if (read_image(img.data, img.len, &orig) || !orig.complete) {
			CHECK(0, "%s: the original not read whole: %s", name, orig.error);
			readout_free(&orig);
			image_free(&img);
			continue;
		}
		fuzz_one(name, &img, &orig, fields ? FUZZ_FIELDS_ITERATIONS : FUZZ_ITERATIONS, &t);
		printf("    fuzz, %s: %d iterations: %d refused with an offset, %d read up to the cut they "
		       "report, %d read whole (%d with flipped bytes, %d of them other records: no checksum)\n",
		       name, t.refused + t.cut + t.whole + t.bad, t.refused, t.cut,
		       t.whole, t.whole_flipped, t.silent);
		readout_free(&orig);
		image_free(&img);
	}
}
