// SPDX-License-Identifier: GPL-2.0
/*
 * Damaged and cut chunks (Documentation/trace-format.md, "Validation" and
 * "Incomplete files").  Bytes flipped inside a chunk of format version 3:
 * the chunk is skipped and named by its offset, every other chunk is read,
 * the report says the file is damaged.  A cut inside a chunk: every whole
 * record before the cut is read.
 *
 * The expectations come from the writer's side, never from the reader: the
 * same records written as version 1 (walked by their sizes) are aggregated
 * without the reader, a chunk holds the records of one flush
 * (synth_set_compression), and where each record ends inside a chunk's
 * compact bytes is what an encoder given the same records says; for zstd,
 * what libzstd decompresses from the bytes before the cut.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "cmds.h"
#include "report.h"
#include "synth.h"
#include "testlib.h"
#include "tests.h"
#include "tracefile_chunk.h"

#define SEED		7
#define FLUSH		37	/* records a chunk in the small traces */
#define MAX_CHUNKS	256

struct image {
	unsigned char *data;
	size_t len;
};

static int write_image(int level, uint32_t version, uint64_t flush, uint64_t n, struct image *img)
{
	const char *path = test_tmp_path("damage.trace");
	FILE *f;
	long size;
	int err;

	synth_set_compression(level, flush);
	synth_set_chunk_version(version);
	err = synth_write_mix(path, n, SEED);
	synth_set_compression(0, 0);
	synth_set_chunk_version(TRACEFILE_VERSION);
	f = err ? NULL : fopen(path, "rb");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	img->data = malloc((size_t)size + 1);
	img->len = fread(img->data, 1, (size_t)size, f);
	fclose(f);
	unlink(path);
	return img->len == (size_t)size ? 0 : -1;
}

static uint32_t header_size_of(const struct image *img)
{
	uint32_t h;

	memcpy(&h, img->data + offsetof(struct tracefile_header_fixed, header_size), sizeof(h));
	return h;
}

/* The records as the writer was given them: version 1, walked by size (the end record last). */
struct records {
	struct image v1;
	size_t *off;
	size_t n;
};

static int load_records(uint64_t n, struct records *rs)
{
	size_t off;

	if (write_image(0, TRACEFILE_VERSION, 0, n, &rs->v1))
		return -1;
	rs->off = malloc((n + 1) * sizeof(*rs->off));
	rs->n = 0;
	for (off = header_size_of(&rs->v1); off < rs->v1.len && rs->n <= n; rs->n++) {
		rs->off[rs->n] = off;
		off += ((const struct gpuprobe_rec_hdr *)(rs->v1.data + off))->size;
	}
	return rs->n == n + 1 && off == rs->v1.len ? 0 : -1;
}

static const struct gpuprobe_rec_hdr *record(const struct records *rs, size_t i)
{
	return (const void *)(rs->v1.data + rs->off[i]);
}

static void free_records(struct records *rs)
{
	free(rs->off);
	free(rs->v1.data);
}

/* What a report counts. */
struct counts {
	uint64_t records, irqs, handled, handler_ns, dma_calls, dma_bytes, iommu;
};

static void counts_of(const struct agg *a, struct counts *c)
{
	memset(c, 0, sizeof(*c));
	c->records = a->records;
	for (unsigned int i = 0; i < a->nvectors; i++) {
		c->irqs += a->vectors[i].count;
		c->handled += a->vectors[i].handled;
		c->handler_ns += a->vectors[i].handler_ns->sum;
	}
	for (unsigned int i = 0; i < a->ntargets; i++) {
		for (unsigned int op = 0; op < AGG_DMA_OPS; op++)
			if (a->targets[i].dma[op]) {
				c->dma_calls += a->targets[i].dma[op]->calls;
				c->dma_bytes += a->targets[i].dma[op]->bytes;
			}
		for (unsigned int op = 0; op < AGG_IOMMU_OPS; op++)
			c->iommu += a->targets[i].iommu[op].count;
	}
}

/* Counts of records [0, upto) except [skip_lo, skip_hi), aggregated without the reader. */
static void expected(const struct records *rs, size_t upto, size_t skip_lo, size_t skip_hi,
		     struct counts *c)
{
	static struct trace_info info;
	struct agg *a;

	synth_info(&info);
	info.app_events = TRACEFILE_APP_NONE;
	a = agg_new(&info);
	for (size_t i = 0; i < upto && i + 1 < rs->n; i++)
		if (i < skip_lo || i >= skip_hi)
			agg_add(a, record(rs, i));
	counts_of(a, c);
	agg_free(a);
}

/* What the reader made of an image. */
struct result {
	int n;				/* trace_reader_next's last: 0 or -1 */
	char error[512];
	struct counts c;
	bool complete, truncated;
	uint64_t truncated_at;
	uint32_t damaged;
	struct tracefile_damage damage[TRACEFILE_DAMAGE_LIST];
	uint64_t skipped;
	bool exact;
};

static void read_image(const unsigned char *data, size_t len, struct result *res)
{
	static struct trace_info info;
	const struct gpuprobe_rec_hdr *rec;
	FILE *f = fmemopen((void *)data, len, "rb");
	struct trace_reader r;
	struct agg *a;

	memset(res, 0, sizeof(*res));
	res->n = -1;
	if (!f || trace_reader_open_stream(&r, f, "image", &info)) {
		snprintf(res->error, sizeof(res->error), "%s", f ? r.error : "fmemopen failed");
		if (f)
			trace_reader_close(&r);
		return;
	}
	a = agg_new(&info);
	while ((res->n = trace_reader_next(&r, &rec)) > 0)
		agg_add(a, rec);
	counts_of(a, &res->c);
	snprintf(res->error, sizeof(res->error), "%s", r.error);
	res->complete = r.seen_end;
	res->truncated = r.truncated;
	res->truncated_at = r.truncated_at;
	res->damaged = r.damaged;
	memcpy(res->damage, r.damage, sizeof(res->damage));
	res->skipped = trace_reader_skipped(&r, &res->exact);
	agg_free(a);
	trace_reader_close(&r);
}

/* The chunks of a version 2 or 3 image, and the index of each one's first record. */
struct chunk_at {
	size_t off;
	struct tracefile_chunk h;
	size_t first;
};

static size_t chunk_table(const struct image *img, size_t hsize, struct chunk_at *c)
{
	size_t off = header_size_of(img), n = 0, first = 0;

	while (off + hsize <= img->len && n < MAX_CHUNKS) {
		c[n].off = off;
		c[n].first = first;
		memset(&c[n].h, 0, sizeof(c[n].h));
		memcpy(&c[n].h, img->data + off, hsize);
		first += c[n].h.records;
		off += hsize + c[n].h.stored_size;
		n++;
	}
	CHECK(off == img->len, "chunks end at %zu, the file at %zu", off, img->len);
	return n;
}

static bool counts_equal(const struct counts *got, const struct counts *want, const char *what)
{
	bool same = !memcmp(got, want, sizeof(*got));

	CHECK(same, "%s: %" PRIu64 " records, %" PRIu64 " irqs, %" PRIu64 " dma, %" PRIu64
	      " iommu; expected %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64, what,
	      got->records, got->irqs, got->dma_calls, got->iommu,
	      want->records, want->irqs, want->dma_calls, want->iommu);
	return same;
}

static const struct encoding {
	const char *name;
	int level;
} encodings[] = { { "compact", TRACEFILE_COMPACT }, { "zstd", 3 } };

/* Four bytes flipped in the middle of chunk j's bytes: it alone is skipped, named by its offset. */
static void flipped_in(const struct encoding *e, const struct records *rs, struct image *img,
		       const struct chunk_at *c, size_t nchunks, size_t j)
{
	unsigned char *bad = malloc(img->len);
	size_t at = c[j].off + TRACEFILE_CHUNK_HDR_V3 + c[j].h.stored_size / 2;
	struct result res;
	struct counts want;
	char what[96];

	memcpy(bad, img->data, img->len);
	for (int k = 0; k < 4; k++)
		bad[at + k] ^= 0x5a;
	read_image(bad, img->len, &res);
	snprintf(what, sizeof(what), "%s, flipped in chunk %zu of %zu", e->name, j + 1, nchunks);
	CHECK(res.n == 0, "%s: refused: %s", what, res.error);
	CHECK(res.complete && res.damaged == 1, "%s: complete %d, %u damaged", what, res.complete,
	      res.damaged);
	CHECK(res.damage[0].offset == c[j].off && res.damage[0].index == j + 1 &&
	      res.damage[0].records == (int64_t)c[j].h.records,
	      "%s: damage at %" PRIu64 " (chunk %u, %" PRId64 " records), expected %zu (%zu, %u)", what,
	      res.damage[0].offset, res.damage[0].index, res.damage[0].records, c[j].off, j + 1,
	      c[j].h.records);
	CHECK(res.skipped == c[j].h.records && res.exact, "%s: %" PRIu64 " skipped (exact %d)", what,
	      res.skipped, res.exact);
	expected(rs, rs->n, c[j].first, c[j].first + c[j].h.records, &want);
	counts_equal(&res.c, &want, what);
	free(bad);
}

void test_damage_flipped_bytes(void)
{
	struct chunk_at c[MAX_CHUNKS];
	struct records rs;

	CHECK(load_records(3000, &rs) == 0, "no records");
	for (size_t e = 0; e < sizeof(encodings) / sizeof(encodings[0]); e++) {
		struct image img;
		size_t n;

		CHECK(write_image(encodings[e].level, TRACEFILE_VERSION, FLUSH, 3000, &img) == 0,
		      "no image");
		n = chunk_table(&img, TRACEFILE_CHUNK_HDR_V3, c);
		CHECK(n == 3000 / FLUSH + 1, "%zu chunks", n);
		/* a chunk holds one flush's records: the writer's, not the reader's, numbers */
		for (size_t j = 0; j + 1 < n; j++)
			CHECK(c[j].h.records == FLUSH && c[j].first == j * FLUSH, "chunk %zu: %u records",
			      j, c[j].h.records);
		flipped_in(&encodings[e], &rs, &img, c, n, 0);
		flipped_in(&encodings[e], &rs, &img, c, n, n / 2);
		flipped_in(&encodings[e], &rs, &img, c, n, n - 2);
		free(img.data);
	}
	free_records(&rs);
}

/*
 * A damaged chunk header (its size, its check, its magic): the reader finds
 * the next chunk, the end record says how many records were skipped.  Two
 * damaged chunks, and the last one (the end record's): damaged and cut.
 */
void test_damage_headers(void)
{
	static const size_t fields[] = { 0, 8, 16, 28 };	/* magic, stored_size, records, header_check */
	struct chunk_at c[MAX_CHUNKS];
	struct records rs;
	struct image img;
	struct counts want;
	struct result res;
	unsigned char *bad;
	size_t n, j = 20, k = 40;

	CHECK(load_records(3000, &rs) == 0 &&
	      write_image(TRACEFILE_COMPACT, TRACEFILE_VERSION, FLUSH, 3000, &img) == 0, "no image");
	n = chunk_table(&img, TRACEFILE_CHUNK_HDR_V3, c);
	bad = malloc(img.len);
	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
		memcpy(bad, img.data, img.len);
		bad[c[j].off + fields[f] + 1] ^= 0x10;
		read_image(bad, img.len, &res);
		CHECK(res.n == 0 && res.complete && res.damaged == 1, "header byte %zu: n %d (%s), complete %d, %u damaged",
		      fields[f] + 1, res.n, res.error, res.complete, res.damaged);
		CHECK(res.damage[0].offset == c[j].off && res.damage[0].records == -1 &&
		      res.damage[0].bytes == c[j + 1].off - c[j].off,
		      "header byte %zu: damage at %" PRIu64 ", %" PRIu64 " bytes, expected %zu, %zu",
		      fields[f] + 1, res.damage[0].offset, res.damage[0].bytes, c[j].off, c[j + 1].off - c[j].off);
		CHECK(res.skipped == FLUSH && res.exact, "header byte %zu: %" PRIu64 " skipped", fields[f] + 1,
		      res.skipped);
		expected(&rs, rs.n, c[j].first, c[j].first + FLUSH, &want);
		counts_equal(&res.c, &want, "damaged header");
	}
	/* two chunks: one header, one body */
	memcpy(bad, img.data, img.len);
	bad[c[j].off + 9] ^= 0xff;
	bad[c[k].off + TRACEFILE_CHUNK_HDR_V3 + 3] ^= 0xff;
	read_image(bad, img.len, &res);
	CHECK(res.n == 0 && res.complete && res.damaged == 2 && res.damage[0].offset == c[j].off &&
	      res.damage[1].offset == c[k].off && res.skipped == 2 * FLUSH,
	      "two damaged: n %d, %u damaged at %" PRIu64 ", %" PRIu64 ", %" PRIu64 " skipped", res.n,
	      res.damaged, res.damage[0].offset, res.damage[1].offset, res.skipped);
	/* the last chunk, with the end record: damaged, and no end record */
	memcpy(bad, img.data, img.len);
	bad[c[n - 1].off + TRACEFILE_CHUNK_HDR_V3 + 1] ^= 0xff;
	read_image(bad, img.len, &res);
	CHECK(res.n == 0 && !res.complete && res.truncated && res.damaged == 1 &&
	      res.damage[0].offset == c[n - 1].off && res.truncated_at == img.len,
	      "last damaged: n %d (%s), complete %d, %u damaged, cut at %" PRIu64, res.n, res.error,
	      res.complete, res.damaged, res.truncated_at);
	expected(&rs, c[n - 1].first, 0, 0, &want);
	counts_equal(&res.c, &want, "last chunk damaged");
	free(bad);
	free(img.data);
	free_records(&rs);
}

/* The report of a damaged file, text and JSON, through `report`'s own path. */
void test_damage_report(void)
{
	const char *path = test_tmp_path("damaged.trace"), *json = test_tmp_path("damaged.json");
	struct chunk_at c[MAX_CHUNKS];
	struct records rs;
	struct counts want;
	struct image img;
	char *text, *doc, want_text[96], assertions[1024];
	FILE *f;
	size_t j = 30;

	CHECK(load_records(3000, &rs) == 0 &&
	      write_image(TRACEFILE_COMPACT, TRACEFILE_VERSION, FLUSH, 3000, &img) == 0, "no image");
	chunk_table(&img, TRACEFILE_CHUNK_HDR_V3, c);
	for (int k = 0; k < 4; k++)
		img.data[c[j].off + TRACEFILE_CHUNK_HDR_V3 + 100 + k] ^= 0xa5;
	f = fopen(path, "wb");
	CHECK(f && fwrite(img.data, 1, img.len, f) == img.len && !fclose(f), "write %s", path);
	text = test_report(path, false);
	doc = test_report(path, true);
	CHECK(text && doc, "report failed on a damaged file");
	snprintf(want_text, sizeof(want_text), "chunk %zu at offset %zu: its checksum fails", j + 1, c[j].off);
	CHECK(text && strstr(text, "the file is DAMAGED: 1 chunk skipped, 37 records") &&
	      strstr(text, "DAMAGED: 1 chunk") && strstr(text, "every count below is a lower bound") &&
	      strstr(text, want_text), "text lacks DAMAGED or '%s':\n%.600s", want_text, text ? text : "");
	expected(&rs, rs.n, c[j].first, c[j].first + FLUSH, &want);
	f = fopen(json, "w");
	CHECK(f && doc && fputs(doc, f) >= 0 && !fclose(f), "write %s", json);
	snprintf(assertions, sizeof(assertions),
		 "t=d[\"trace\"]\n"
		 "assert t[\"damaged\"] and t[\"damaged_chunks\"] == 1 and t[\"counts_are_lower_bounds\"], t\n"
		 "assert t[\"damage\"][0][\"offset\"] == %zu and t[\"damage\"][0][\"records\"] == %d, t\n"
		 "assert t[\"skipped_records\"] == %d and t[\"skipped_records_exact\"] and t[\"complete\"], t\n"
		 "assert t[\"records\"] == %" PRIu64 ", t\n"
		 "assert d[\"verdict\"][\"damaged\"] and d[\"verdict\"][\"lower_bounds\"], d[\"verdict\"]\n"
		 "assert sum(x[\"irq_count\"] for x in d[\"targets\"]) == %" PRIu64 ", d[\"targets\"]\n",
		 c[j].off, FLUSH, FLUSH, want.records, want.irqs);
	CHECK(test_python_json(json, assertions) == 0, "report --json of a damaged file");
	free(text);
	free(doc);
	unlink(path);
	unlink(json);
	free(img.data);
	free_records(&rs);
}

/* Version 2 (no checksums) reads as it did: every record, no damage. */
void test_damage_version2_as_before(void)
{
	struct records rs;
	struct counts want;
	struct result res;
	struct image img;

	CHECK(load_records(3000, &rs) == 0 &&
	      write_image(TRACEFILE_COMPACT, TRACEFILE_VERSION_UNCHECKED, FLUSH, 3000, &img) == 0, "no image");
	CHECK(img.data[8] == TRACEFILE_VERSION_UNCHECKED, "format version %u", img.data[8]);
	chunk_table(&img, TRACEFILE_CHUNK_HDR_V2, (struct chunk_at[MAX_CHUNKS]){ 0 });
	read_image(img.data, img.len, &res);
	expected(&rs, rs.n, 0, 0, &want);
	CHECK(res.n == 0 && res.complete && !res.damaged, "version 2: n %d (%s), complete %d",
	      res.n, res.error, res.complete);
	counts_equal(&res.c, &want, "version 2");
	free(img.data);
	free_records(&rs);
}

/* Where each of chunk j's records ends in its compact bytes: what an encoder of the same records says. */
static void record_ends(const struct records *rs, const struct chunk_at *c, uint32_t *end)
{
	struct chunk_encoder *enc = chunk_encoder_new(TRACEFILE_COMPACT);

	for (uint32_t k = 0; k < c->h.records; k++) {
		const struct gpuprobe_rec_hdr *h = record(rs, c->first + k);

		chunk_encoder_add(enc, h, h->size);
		end[k] = (uint32_t)enc->enc_len;
	}
	CHECK(c->h.records && end[c->h.records - 1] == c->h.encoded_size,
	      "the encoder's bytes (%u) are not the chunk's (%u)",
	      c->h.records ? end[c->h.records - 1] : 0, c->h.encoded_size);
	chunk_encoder_free(enc);
}

/* The compact bytes libzstd gives back from a frame's first got bytes. */
static size_t zstd_decodable(const unsigned char *frame, size_t got)
{
	static unsigned char out[TRACEFILE_CHUNK_ENC_MAX];
	ZSTD_DStream *z = ZSTD_createDStream();
	ZSTD_inBuffer in = { frame, got, 0 };
	ZSTD_outBuffer o = { out, sizeof(out), 0 };
	size_t ret = 0;

	while (in.pos < in.size && !ZSTD_isError(ret)) {
		size_t before = in.pos + o.pos;

		ret = ZSTD_decompressStream(z, &o, &in);
		if (in.pos + o.pos == before)
			break;
	}
	ZSTD_freeDStream(z);
	return o.pos;
}

/* The image cut at len, inside chunk j's bytes: the records before the cut, exactly. */
static bool check_cut_inside(const struct records *rs, const struct image *img, size_t hsize,
			     const struct chunk_at *c, const uint32_t *end, size_t len, uint64_t *kept_total)
{
	size_t have = len - c->off - hsize, avail = have, kept = 0;
	uint64_t cut_at = c->off;
	struct counts want;
	struct result res;

	if (c->h.encoding == CHUNK_COMPACT_ZSTD)
		avail = zstd_decodable(img->data + c->off + hsize, have);
	while (kept < c->h.records && end[kept] <= avail)
		kept++;
	/* the end record before a cut is not read: the file is cut all the same */
	if (c->first + kept == rs->n)
		kept--;
	if (kept)
		cut_at = c->h.encoding == CHUNK_COMPACT_ZSTD ? len : c->off + hsize + end[kept - 1];
	read_image(img->data, len, &res);
	expected(rs, c->first + kept, 0, 0, &want);
	CHECK(res.n == 0 && !res.complete && res.truncated && res.truncated_at == cut_at,
	      "cut at %zu (chunk at %zu, %zu of its bytes): n %d (%s), cut at %" PRIu64 ", expected %" PRIu64,
	      len, c->off, have, res.n, res.error, res.truncated_at, cut_at);
	*kept_total += kept;
	return counts_equal(&res.c, &want, "cut inside a chunk") && res.truncated_at == cut_at;
}

static void cuts_in(const char *name, int level, uint32_t version, uint64_t flush, uint64_t n,
		    unsigned int per_chunk)
{
	size_t hsize = version == TRACEFILE_VERSION ? TRACEFILE_CHUNK_HDR_V3 : TRACEFILE_CHUNK_HDR_V2;
	static struct chunk_at c[MAX_CHUNKS];
	uint32_t rng = 0x2545f491, *end;
	uint64_t cuts = 0, kept = 0, bad = 0;
	struct records rs;
	struct image img;
	size_t nchunks;

	CHECK(load_records(n, &rs) == 0 && write_image(level, version, flush, n, &img) == 0, "no image");
	nchunks = chunk_table(&img, hsize, c);
	end = malloc((n + 1) * sizeof(*end));
	for (size_t j = 0; j < nchunks && bad < 5; j++) {
		size_t body = c[j].off + hsize;
		/* the first and last chunks at every byte, the others at random ones */
		bool every = j == 0 || j + 1 == nchunks;
		unsigned int m = every && c[j].h.stored_size < 4096 ? c[j].h.stored_size : per_chunk;

		record_ends(&rs, &c[j], end);
		for (unsigned int i = 0; i < m && bad < 5; i++) {
			size_t at = m == c[j].h.stored_size ? i : 1 + (rng = rng ^ rng << 13,
				     rng ^= rng >> 17, rng ^= rng << 5) % (c[j].h.stored_size - 1);

			bad += !check_cut_inside(&rs, &img, hsize, &c[j], end, body + at, &kept);
			cuts++;
		}
	}
	printf("    %s: %" PRIu64 " cuts inside %zu chunks, %" PRIu64 " whole records of the cut chunks kept\n",
	       name, cuts, nchunks, kept);
	CHECK(kept > 0, "%s: no cut kept a record of its chunk", name);
	free(end);
	free(img.data);
	free_records(&rs);
}

void test_cut_inside_compact_chunks(void)
{
	cuts_in("compact, a chunk every 37 records", TRACEFILE_COMPACT, TRACEFILE_VERSION, FLUSH, 3000, 6);
	cuts_in("compact, version 2", TRACEFILE_COMPACT, TRACEFILE_VERSION_UNCHECKED, FLUSH, 1000, 6);
	/* a short recording in one chunk, as a 100 ms flush leaves it */
	cuts_in("compact, one chunk", TRACEFILE_COMPACT, TRACEFILE_VERSION, 0, 1500, 40);
}

void test_cut_inside_zstd_chunks(void)
{
	/* chunks as full as they get: frames of several zstd blocks */
	cuts_in("zstd, full chunks", 3, TRACEFILE_VERSION, 0, 60000, 25);
	cuts_in("zstd, a chunk every 37 records", 3, TRACEFILE_VERSION, FLUSH, 1000, 4);
}
