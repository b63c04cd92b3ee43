// SPDX-License-Identifier: GPL-2.0
/*
 * Round trips on every field: every record type, with adversarial values
 * (tests/synth_fields.c), written through the real writer in version 1,
 * compact and compact + zstd, with chunks of every size, and read back
 * through the real reader: every record must come back bit for bit, in
 * order, and the header field by field.  Values the format cannot carry
 * get the behaviour Documentation/trace-format.md says ("Validation"):
 * refused, with the offset.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "synth.h"
#include "testlib.h"
#include "tests.h"
#include "tracefile_chunk.h"
#include "file.h"
#include <stddef.h>

static const struct encoding {
	const char *name;
	int level;
} encodings[] = {
	{ "version 1", 0 }, { "compact", TRACEFILE_COMPACT }, { "zstd", TRACEFILE_ZSTD_LEVEL },
};

#define NENC (sizeof(encodings) / sizeof(encodings[0]))

/* What the reader gave back: the records it handed out, back to back, and its counts. */
struct readback {
	struct synth_recs recs;
	struct trace_info info;
	uint64_t records, unknown;
	bool seen_end, truncated;
	struct tracefile_rec_end end;
	char error[512];
};

/* 0 read to its end, -1 refused (rb->error says why). */
static int read_back(const char *path, struct readback *rb)
{
	const struct gpuprobe_rec_hdr *rec;
	struct trace_reader r;
	int n = -1;

	memset(rb, 0, sizeof(*rb));
	if (trace_reader_open(&r, path, &rb->info) == 0)
		while ((n = trace_reader_next(&r, &rec)) > 0)
			synth_recs_append(&rb->recs, rec);
	snprintf(rb->error, sizeof(rb->error), "%s", r.error);
	rb->records = r.records;
	rb->unknown = r.unknown_records;
	rb->seen_end = r.seen_end;
	rb->truncated = r.truncated;
	rb->end = r.end;
	trace_reader_close(&r);
	return n < 0 ? -1 : 0;
}

/* The first byte where two records differ, and which field of the header holds it. */
static void report_difference(const char *what, size_t index, const struct gpuprobe_rec_hdr *want,
			      const struct gpuprobe_rec_hdr *got)
{
	const unsigned char *a = (const void *)want, *b = (const void *)got;
	size_t i = 0;

	while (i < want->size && a[i] == b[i])
		i++;
	CHECK(0, "%s: record %zu (type 0x%x, %u bytes) differs at byte %zu: 0x%02x, written 0x%02x",
	      what, index, want->type, want->size, i, b[i], a[i]);
}

/* got's records are want's known-type records, bit for bit, in order. */
static bool same_records(const char *what, const struct synth_recs *want, const struct synth_recs *got)
{
	size_t wo = 0, go = 0, index = 0;

	for (; wo < want->len; index++) {
		const struct gpuprobe_rec_hdr *w = (const void *)(want->buf + wo);
		const struct gpuprobe_rec_hdr *g = (const void *)(got->buf + go);

		wo += w->size;
		if (!tracefile_record_min_size(w->type))
			continue;	/* skipped by the reader: counted, checked by the caller */
		if (go >= got->len) {
			CHECK(0, "%s: record %zu (type 0x%x) not given back", what, index, w->type);
			return false;
		}
		if (g->size != w->size || memcmp(w, g, w->size)) {
			report_difference(what, index, w, g);
			return false;
		}
		go += g->size;
	}
	CHECK(go == got->len, "%s: %zu bytes of records given back that were never written",
	      what, got->len - go);
	return go == got->len;
}

static void check_target(const char *what, const struct target *w, const struct target *g)
{
	CHECK(g->bdf == w->bdf && g->vendor == w->vendor && g->device == w->device &&
	      g->class == w->class && g->nvec == w->nvec && !strcmp(g->name, w->name) &&
	      !strcmp(g->driver, w->driver),
	      "%s: target %s: bdf 0x%x vendor 0x%x device 0x%x class 0x%x nvec %u driver '%s'",
	      what, w->name, g->bdf, g->vendor, g->device, g->class, g->nvec, g->driver);
	for (uint32_t v = 0; v < w->nvec && v < g->nvec; v++)
		CHECK(!memcmp(&g->vec[v], &w->vec[v], sizeof(w->vec[v])),
		      "%s: target %s vector %u: index %u irq %u flags %u, written %u %u %u", what,
		      w->name, v, g->vec[v].index, g->vec[v].irq, g->vec[v].flags,
		      w->vec[v].index, w->vec[v].irq, w->vec[v].flags);
}

static void check_info(const char *what, const struct trace_info *w, const struct trace_info *g,
		       uint32_t version)
{
	CHECK(g->format_version == version, "%s: format version %u", what, g->format_version);
	CHECK(g->record_version == w->record_version && g->clock_id == w->clock_id &&
	      g->source == w->source && g->app_events == w->app_events,
	      "%s: record version %u clock %u source %u app_events %u", what, g->record_version,
	      g->clock_id, g->source, g->app_events);
	CHECK_EQ_U64(g->start_ns, w->start_ns);
	CHECK_EQ_U64(g->start_realtime_ns, w->start_realtime_ns);
	CHECK(!strcmp(g->host, w->host) && !strcmp(g->kernel_release, w->kernel_release) &&
	      !strcmp(g->tool_version, w->tool_version),
	      "%s: host '%s' kernel '%s' tool '%s'", what, g->host, g->kernel_release, g->tool_version);
	CHECK(g->targets.count == w->targets.count, "%s: %u targets, written %u", what,
	      g->targets.count, w->targets.count);
	for (unsigned int i = 0; i < w->targets.count && i < g->targets.count; i++)
		check_target(what, &w->targets.t[i], &g->targets.t[i]);
}

/* Chunks of each encoding in a version 2 file: [CHUNK_COMPACT], [CHUNK_COMPACT_ZSTD]. */
static void count_chunks(const char *path, unsigned int counts[4])
{
	struct tracefile_header_fixed h;
	struct tracefile_chunk c;
	FILE *f = fopen(path, "rb");

	memset(counts, 0, 4 * sizeof(counts[0]));
	if (!f || fread(&h, sizeof(h), 1, f) != 1 || fseek(f, h.header_size, SEEK_SET)) {
		if (f)
			fclose(f);
		return;
	}
	while (fread(&c, sizeof(c), 1, f) == 1 && !fseek(f, c.stored_size, SEEK_CUR))
		counts[c.encoding & 3]++;
	fclose(f);
}

/* The records hold what the round trip claims to cover (synth_fields.c could drift). */
static void check_adversarial(const struct synth_recs *s)
{
	uint64_t last_ts[TRACEFILE_MAX_CPUS] = { 0 }, prev = 0;
	bool seen[TRACEFILE_MAX_CPUS] = { false };
	unsigned int back_same_cpu = 0, back_other_cpu = 0, zero_gap = 0, top = 0, half = 0, cpu_max = 0;

	for (size_t off = 0, i = 0; off < s->len; i++) {
		const struct gpuprobe_rec_hdr *h = (const void *)(s->buf + off);

		back_same_cpu += seen[h->cpu] && h->ts_ns < last_ts[h->cpu];
		back_other_cpu += i && h->ts_ns < prev && !(seen[h->cpu] && h->ts_ns < last_ts[h->cpu]);
		zero_gap += i && h->ts_ns == prev;
		top += h->ts_ns == UINT64_MAX;
		half += h->ts_ns == 1ull << 63;
		cpu_max += h->cpu == TRACEFILE_MAX_CPUS - 1;
		seen[h->cpu] = true;
		last_ts[h->cpu] = prev = h->ts_ns;
		off += h->size;
	}
	CHECK(back_same_cpu && back_other_cpu && zero_gap && top && half && cpu_max,
	      "the adversarial records lack a case: time back on one cpu %u, across cpus %u, "
	      "zero gaps %u, UINT64_MAX %u, 2^63 %u, cpu 8191 %u",
	      back_same_cpu, back_other_cpu, zero_gap, top, half, cpu_max);
}

/*
 * Every type the reader knows (tracefile_record_min_size), the end record
 * aside (the writer's), is among the records: a type added to the format
 * fails here until synth_fields.c writes it.
 */
static void check_every_type(const struct synth_recs *s)
{
	static bool seen[65536];
	unsigned int missing = 0;

	memset(seen, 0, sizeof(seen));
	for (size_t off = 0; off < s->len; ) {
		const struct gpuprobe_rec_hdr *h = (const void *)(s->buf + off);

		seen[h->type] = true;
		off += h->size;
	}
	for (unsigned int t = 1; t < 65536; t++)
		if (tracefile_record_min_size((uint16_t)t) && t != TRACEFILE_REC_END && !seen[t]) {
			CHECK(0, "the every-field records hold no record of type 0x%x (%s)", t,
			      tracefile_record_type_name((uint16_t)t));
			missing++;
		}
	CHECK(!missing, "%u known types missing", missing);
}

static void round_trip(const struct encoding *e, uint64_t chunk, unsigned int ntargets)
{
	const char *path = test_tmp_path("roundtrip.trace");
	static struct trace_info want;
	struct synth_recs recs;
	struct readback rb;
	unsigned int chunks[4];
	char what[96];

	snprintf(what, sizeof(what), "%s, a chunk every %" PRIu64 " records, %u targets",
		 e->name, chunk, ntargets);
	synth_set_compression(e->level, chunk);
	synth_fields_set_newer(true);
	CHECK(synth_write_fields(path, ntargets, true) == 0, "%s: not written", what);
	synth_set_compression(0, 0);
	synth_fields_info(&want, ntargets);
	synth_fields_build(&recs, true);
	synth_fields_set_newer(false);
	check_adversarial(&recs);
	check_every_type(&recs);
	if (e->level)
		count_chunks(path, chunks);
	if (read_back(path, &rb)) {
		CHECK(0, "%s: refused: %s", what, rb.error);
	} else {
		check_info(what, &want, &rb.info, e->level ? TRACEFILE_VERSION : TRACEFILE_VERSION_RAW);
		same_records(what, &recs, &rb.recs);
		CHECK(rb.seen_end && !rb.truncated, "%s: end %d truncated %d", what, rb.seen_end,
		      rb.truncated);
		CHECK(rb.records == recs.n && rb.unknown == recs.unknown,
		      "%s: %" PRIu64 " records (%" PRIu64 " unknown), written %zu (%zu)", what,
		      rb.records, rb.unknown, recs.n, recs.unknown);
		CHECK(rb.end.hdr.ts_ns == SYNTH_FIELDS_STOP_NS && rb.end.exit_status == SYNTH_FIELDS_EXIT &&
		      rb.end.records == recs.n,
		      "%s: end record ts %" PRIu64 " exit %d records %" PRIu64, what, (uint64_t)rb.end.hdr.ts_ns,
		      rb.end.exit_status, rb.end.records);
	}
	/* the zstd path must have been taken: a one-record chunk may stay compact, a whole one not */
	if (e->level > 0 && !chunk)
		CHECK(chunks[CHUNK_COMPACT_ZSTD] > 0, "%s: no zstd chunk", what);
	if (e->level < 0)
		CHECK(chunks[CHUNK_COMPACT] > 0 && !chunks[CHUNK_COMPACT_ZSTD], "%s: chunk encodings", what);
	synth_recs_free(&recs);
	synth_recs_free(&rb.recs);
	unlink(path);
}

void test_roundtrip_every_field(void)
{
	static const uint64_t chunks[] = { 0, 1, 2, 7, 64 };

	for (size_t e = 0; e < NENC; e++)
		for (size_t c = 0; c < (e ? sizeof(chunks) / sizeof(chunks[0]) : 1); c++)
			round_trip(&encodings[e], chunks[c], c % 2 ? 1 : TARGET_MAX);
}

/* A trace of one record r (after an interrupt), in encoding e, at path. */
static int write_one(const char *path, const struct encoding *e, const struct gpuprobe_rec_hdr *r)
{
	static struct trace_info info;
	struct gpuprobe_rec_irq q;
	struct trace_writer w;
	int err;

	synth_info(&info);
	synth_irq(&q, 5, 0, 0, 1, true);
	if (trace_writer_create(&w, path))
		return -1;
	if (trace_writer_compress(&w, e->level) || trace_writer_header(&w, &info)) {
		trace_writer_abort(&w);
		return -1;
	}
	err = trace_writer_put(&w, &q.hdr) | trace_writer_put(&w, r);
	return trace_writer_finish(&w, 10, 0) || err ? -1 : 0;
}

/*
 * What the format cannot carry: a record size below 16 or not a multiple of
 * 8 (the writer refuses it, EINVAL); a cpu from 8192, type 0, a known type
 * smaller than its struct (written as they are, the reader refuses them and
 * names the offset: the record's in version 1, its chunk's in version 2).
 */
void test_roundtrip_refusals(void)
{
	static const uint16_t bad_sizes[] = { 0, 8, 12, 20, 65535 };
	const size_t header = sizeof(struct tracefile_header_fixed) + sizeof(struct tracefile_target) +
			      SYNTH_NVEC * sizeof(struct tracefile_vector);
	const char *path = test_tmp_path("refusals.trace");

	for (size_t e = 0; e < NENC; e++) {
		static const struct { uint16_t type, size, cpu; const char *says; } cases[] = {
			{ GPUPROBE_EV_IRQ, sizeof(struct gpuprobe_rec_irq), 8192, "cpu 8192" },
			{ GPUPROBE_EV_IRQ, sizeof(struct gpuprobe_rec_irq), 65535, "cpu 65535" },
			{ GPUPROBE_EV_UNSPEC, 24, 0, "type 0" },
			{ GPUPROBE_EV_DMA, 32, 0, "type 6 needs 64 bytes, size says 32" },
			{ TRACEFILE_REC_MACHINE, 272, 1, "needs 280 bytes" },
		};
		uint64_t rec[8] = { 0 };
		struct gpuprobe_rec_hdr *h = (void *)rec;
		struct trace_writer w;
		struct readback rb;
		char want[96];

		for (size_t i = 0; i < sizeof(bad_sizes) / sizeof(bad_sizes[0]); i++) {
			*h = (struct gpuprobe_rec_hdr){ .type = GPUPROBE_EV_LOST, .size = bad_sizes[i] };
			CHECK(trace_writer_create(&w, path) == 0, "create");
			trace_writer_compress(&w, encodings[e].level);
			errno = 0;
			CHECK(trace_writer_put(&w, h) == -1 && errno == EINVAL && w.records == 0,
			      "%s: a record of %u bytes was written", encodings[e].name, bad_sizes[i]);
			trace_writer_abort(&w);
		}
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			uint64_t big[40] = { 0 };

			h = (void *)big;
			*h = (struct gpuprobe_rec_hdr){ .type = cases[i].type, .size = cases[i].size,
							.cpu = cases[i].cpu, .ts_ns = 7 };
			CHECK(write_one(path, &encodings[e], h) == 0, "%s: not written", encodings[e].name);
			/* the second record: version 1 names it, version 2 the only chunk */
			snprintf(want, sizeof(want), "offset %zu: ",
				 encodings[e].level ? header : header + sizeof(struct gpuprobe_rec_irq));
			CHECK(read_back(path, &rb) == -1 && strstr(rb.error, want) &&
			      strstr(rb.error, cases[i].says),
			      "%s: '%s' read as: '%s' (wants '%s' and '%s')", encodings[e].name,
			      cases[i].says, rb.error, want, cases[i].says);
			synth_recs_free(&rb.recs);
		}
		/* the last cpu there can be comes back */
		*h = (struct gpuprobe_rec_hdr){ .type = GPUPROBE_EV_LOST, .size = 24, .cpu = 8191,
						.ts_ns = UINT64_MAX };
		CHECK(write_one(path, &encodings[e], h) == 0 && read_back(path, &rb) == 0 &&
		      rb.recs.n == 2 && !memcmp(rb.recs.buf + sizeof(struct gpuprobe_rec_irq), h, 24),
		      "%s: cpu 8191 not read back: %s", encodings[e].name, rb.error);
		synth_recs_free(&rb.recs);
	}
	unlink(path);
}

/* The three encodings of one trace read back: the same header, records and end, byte for byte. */
static void agree(const char *what, int (*write)(const char *path))
{
	const char *path[NENC];
	struct readback rb[NENC];

	for (size_t e = 0; e < NENC; e++) {
		path[e] = test_tmp_path("agree.trace");
		synth_set_compression(encodings[e].level, 1000);
		CHECK(write(path[e]) == 0, "%s, %s: not written", what, encodings[e].name);
		synth_set_compression(0, 0);
		CHECK(read_back(path[e], &rb[e]) == 0 && rb[e].seen_end, "%s, %s: not read whole: %s",
		      what, encodings[e].name, rb[e].error);
	}
	for (size_t e = 1; e < NENC; e++) {
		char name[96];

		snprintf(name, sizeof(name), "%s: %s against version 1", what, encodings[e].name);
		rb[e].info.format_version = rb[0].info.format_version;
		check_info(name, &rb[0].info, &rb[e].info, rb[0].info.format_version);
		CHECK(rb[e].recs.n == rb[0].recs.n && rb[e].records == rb[0].records &&
		      rb[e].unknown == rb[0].unknown && !memcmp(&rb[e].end, &rb[0].end, sizeof(rb[0].end)),
		      "%s: %zu records handed out (%" PRIu64 " read, %" PRIu64 " unknown), version 1 %zu (%"
		      PRIu64 ", %" PRIu64 "), or the end records differ", name, rb[e].recs.n,
		      rb[e].records, rb[e].unknown, rb[0].recs.n, rb[0].records, rb[0].unknown);
		same_records(name, &rb[0].recs, &rb[e].recs);
	}
	for (size_t e = 0; e < NENC; e++) {
		synth_recs_free(&rb[e].recs);
		unlink(path[e]);
	}
}

static int write_mix(const char *path)
{
	return synth_write_mix(path, 20000, 11);
}

static int write_fields(const char *path)
{
	int err;

	synth_fields_set_newer(true);
	err = synth_write_fields(path, 3, true);
	synth_fields_set_newer(false);
	return err;
}

/* Version 1, compact and zstd of one trace: the same header, records and end record, bit for bit. */
void test_encodings_agree(void)
{
	agree("mix", write_mix);
	agree("every field", write_fields);
}

/* read_back() of len bytes of data. */
static int read_back_mem(const unsigned char *data, size_t len, struct readback *rb)
{
	const struct gpuprobe_rec_hdr *rec;
	FILE *f = fmemopen((void *)data, len, "rb");
	struct trace_reader r;
	int n = -1;

	memset(rb, 0, sizeof(*rb));
	if (!f)
		return -1;
	if (trace_reader_open_stream(&r, f, "cut", &rb->info) == 0)
		while ((n = trace_reader_next(&r, &rec)) > 0)
			synth_recs_append(&rb->recs, rec);
	snprintf(rb->error, sizeof(rb->error), "%s", r.error);
	rb->records = r.records;
	rb->truncated = r.truncated;
	rb->seen_end = r.seen_end;
	rb->end.records = r.truncated_at;	/* the cut's offset */
	trace_reader_close(&r);
	return n < 0 ? -1 : 0;
}

/*
 * Every record type cut short (version 1, the every-field records): cut at
 * each record's start and inside it (after its header, and a byte before
 * its end), the file reads as cut at that record's offset and gives back
 * exactly the records before it, bit for bit.
 */
void test_roundtrip_cut_every_record(void)
{
	const char *path = test_tmp_path("cut-fields.trace");
	struct synth_recs want;
	unsigned char *data;
	size_t len, off, hsize, cuts = 0, bad = 0;

	synth_fields_set_newer(true);
	CHECK(synth_write_fields(path, 2, false) == 0, "not written");
	synth_fields_build(&want, false);
	synth_fields_set_newer(false);
	data = (unsigned char *)read_whole_file(path, &len);
	unlink(path);
	if (!data) {
		CHECK(0, "cannot read %s", path);
		synth_recs_free(&want);
		return;
	}
	memcpy(&hsize, data + offsetof(struct tracefile_header_fixed, header_size), sizeof(uint32_t));
	hsize &= 0xffffffffu;
	off = hsize;
	for (size_t wo = 0, i = 0; wo < want.len && bad < 3; i++) {
		const struct gpuprobe_rec_hdr *h = (const void *)(want.buf + wo);
		const size_t at[] = { 0, sizeof(*h), (size_t)h->size - 1 };
		struct synth_recs before = { .buf = want.buf, .len = wo };

		for (size_t k = 0; k < 3; k++) {
			struct readback rb;
			char what[96];

			if (k && at[k] >= h->size)
				continue;	/* a bare header: the next record's start */
			snprintf(what, sizeof(what), "record %zu (type 0x%x) cut %zu bytes in", i, h->type, at[k]);
			if (read_back_mem(data, off + at[k], &rb) == -1) {
				CHECK(0, "%s: refused: %s", what, rb.error);
				bad++;
			} else {
				if (!rb.truncated || rb.seen_end || rb.end.records != off) {
					CHECK(0, "%s: truncated %d end %d at %" PRIu64 ", not %zu", what,
					      rb.truncated, rb.seen_end, rb.end.records, off);
					bad++;
				}
				bad += !same_records(what, &before, &rb.recs);
			}
			synth_recs_free(&rb.recs);
			cuts++;
		}
		wo += h->size;
		off += h->size;
	}
	CHECK(bad || off + sizeof(struct tracefile_rec_end) == len, "records end at %zu, the file at %zu", off, len);
	printf("    %zu cuts in %zu records of every type: the records before each, bit for bit\n",
	       cuts, want.n);
	free(data);
	synth_recs_free(&want);
}
