// SPDX-License-Identifier: GPL-2.0
/*
 * Corrupt and truncated trace files.  A corrupt one must be refused with a
 * message naming a byte offset; a truncated one (header whole) must be read
 * up to its last whole record, marked incomplete with the offset of the
 * cut, and give the counts of the records before the cut.  Random flips and
 * cuts: test_fuzz_flips.c; encodings against each other: test_roundtrip.c.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "synth.h"
#include "tracefile_chunk.h"
#include "file.h"
#include "testlib.h"
#include "tests.h"

#define COUNT_SIZE	sizeof(struct tracefile_rec_irq_count)

struct image {
	unsigned char *data;
	size_t len;
};

static int load_image(const char *path, struct image *img)
{
	img->data = (unsigned char *)read_whole_file(path, &img->len);
	return img->data ? 0 : -1;
}

static int known_image(struct image *img)
{
	const char *path = test_tmp_path("fuzz-known.trace");
	int err = synth_write_known(path) || load_image(path, img);

	unlink(path);
	return err;
}

struct parsed {
	bool complete, truncated;
	uint64_t truncated_at;
	char warning[512];
};

/* Parse like `report` does, printing both views to /dev/null. 0 ok, -1 refused. */
static int parse_image_into(const unsigned char *data, size_t len, char *err, size_t errlen,
			    struct parsed *p)
{
	static struct trace_info info;
	const struct gpuprobe_rec_hdr *rec;
	static FILE *devnull;
	struct trace_reader r;
	struct agg *a = NULL;
	FILE *f = len ? fmemopen((void *)data, len, "rb") : fopen("/dev/null", "rb");
	int n = -1;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!f) {
		snprintf(err, errlen, "fmemopen failed");
		return -2;
	}
	if (trace_reader_open_stream(&r, f, "image", &info) == 0) {
		a = agg_new(&info);
		while ((n = trace_reader_next(&r, &rec)) > 0)
			agg_add(a, rec);
	}
	if (n < 0) {
		snprintf(err, errlen, "%s", r.error);
	} else {
		agg_finish(a, &r);
		report_print_json(devnull, "image", a, NULL, NULL, NULL);
		report_print_text(devnull, "image", a, NULL, NULL, NULL);
		if (p) {
			p->complete = r.seen_end;
			p->truncated = r.truncated;
			p->truncated_at = r.truncated_at;
			snprintf(p->warning, sizeof(p->warning), "%s", r.warning);
		}
	}
	agg_free(a);
	trace_reader_close(&r);
	return n < 0 ? -1 : 0;
}

static int parse_image(const unsigned char *data, size_t len, char *err, size_t errlen)
{
	return parse_image_into(data, len, err, errlen, NULL);
}

/* The image cut at len reads as incomplete, cut at offset cut_at. */
static void expect_cut(struct image *img, size_t len, uint64_t cut_at)
{
	char err[512] = "", want[64];
	struct parsed p = { 0 };

	CHECK(parse_image_into(img->data, len, err, sizeof(err), &p) == 0,
	      "cut at %zu refused: %s", len, err);
	snprintf(want, sizeof(want), "offset %" PRIu64 " ", cut_at);
	CHECK(!p.complete && p.truncated && p.truncated_at == cut_at && strstr(p.warning, want),
	      "cut at %zu: complete %d truncated %d at %" PRIu64 ", warning '%s' lacks '%s'",
	      len, p.complete, p.truncated, p.truncated_at, p.warning, want);
}

static void expect_refusal(struct image *img, size_t len, const char *needle)
{
	char err[512] = "";

	CHECK(parse_image(img->data, len, err, sizeof(err)) == -1,
	      "accepted an image that should fail with '%s'", needle);
	CHECK(strstr(err, needle), "error '%s' lacks '%s'", err, needle);
}

void test_reader_rejects_bad_magic(void)
{
	struct image img;

	CHECK(known_image(&img) == 0, "no image");
	img.data[0] ^= 0xff;
	expect_refusal(&img, img.len, "bad magic at offset 0");
	img.data[0] ^= 0xff;
	img.data[8] = 4;	/* format version 4 */
	expect_refusal(&img, img.len, "format version 4 at offset 8");
	free(img.data);
}

void test_reader_names_truncation_offset(void)
{
	size_t header = sizeof(struct tracefile_header_fixed) + sizeof(struct tracefile_target) +
			SYNTH_NVEC * sizeof(struct tracefile_vector);
	struct image img;

	CHECK(known_image(&img) == 0, "no image");
	/* an unreadable header is refused */
	expect_refusal(&img, 100, "truncated file header at offset 0");
	expect_refusal(&img, header - 8, "truncated target table at offset 240");
	/* a cut in the records is read up to the last whole record */
	expect_cut(&img, header + COUNT_SIZE + 20, header + COUNT_SIZE);
	expect_cut(&img, header + COUNT_SIZE + 4, header + COUNT_SIZE);
	expect_cut(&img, header + 2 * COUNT_SIZE, header + 2 * COUNT_SIZE);
	expect_cut(&img, header, header);
	free(img.data);
}

/* Blocks allocated but never written (crash, full disk) read as a cut. */
void test_reader_zero_tail_is_a_cut(void)
{
	size_t header = sizeof(struct tracefile_header_fixed) + sizeof(struct tracefile_target) +
			SYNTH_NVEC * sizeof(struct tracefile_vector);
	size_t cut = header + 2 * COUNT_SIZE;
	struct image img;

	CHECK(known_image(&img) == 0, "no image");
	memset(img.data + cut, 0, img.len - cut);
	expect_cut(&img, img.len, cut);
	img.data[img.len - 3] = 7;	/* zeros, then data: corrupt */
	expect_refusal(&img, img.len, "size 0");
	free(img.data);
}

void test_reader_rejects_bad_sizes(void)
{
	size_t header = sizeof(struct tracefile_header_fixed) + sizeof(struct tracefile_target) +
			SYNTH_NVEC * sizeof(struct tracefile_vector);
	struct gpuprobe_rec_hdr h;
	struct image img;
	char want[128];

	CHECK(known_image(&img) == 0, "no image");
	memcpy(&h, img.data + header, sizeof(h));
	h.size = 12;
	memcpy(img.data + header, &h, sizeof(h));
	snprintf(want, sizeof(want), "corrupt record at offset %zu: size 12", header);
	expect_refusal(&img, img.len, want);
	h.size = 16;	/* an irq count record cannot be 16 bytes */
	memcpy(img.data + header, &h, sizeof(h));
	snprintf(want, sizeof(want), "corrupt record at offset %zu: type %u needs %zu bytes", header,
		 TRACEFILE_REC_IRQ_COUNT, COUNT_SIZE);
	expect_refusal(&img, img.len, want);
	h.size = 0xfff8;	/* beyond the end of the file: a cut, nothing before it */
	memcpy(img.data + header, &h, sizeof(h));
	expect_cut(&img, img.len, header);
	free(img.data);
}

void test_reader_rejects_trailing_data(void)
{
	struct image img;
	unsigned char *bigger;
	char want[128];

	CHECK(known_image(&img) == 0, "no image");
	bigger = calloc(1, img.len + 16);
	memcpy(bigger, img.data, img.len);
	bigger[img.len] = 1;
	bigger[img.len + 2] = 16;
	free(img.data);
	img.data = bigger;
	snprintf(want, sizeof(want), "after the end record at offset %zu", img.len);
	expect_refusal(&img, img.len + 16, want);
	free(img.data);
}

static uint32_t next_random(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* The encodings a trace file can have: version 1, and version 2 compact or compact + zstd. */
static const struct encoding {
	const char *name;
	int level;
} encodings[] = {
	{ "version 1", 0 }, { "compact", TRACEFILE_COMPACT }, { "zstd", 3 },
};

/* What a report counts, to compare a cut file with its first records. */
struct fingerprint {
	uint64_t records, lost, wakeups, switches, app_events, irqs, handled, handler_ns;
	uint64_t dma_calls, dma_bytes, iommu, iommu_bytes, swiotlb;
};

static void fingerprint_of(const struct agg *a, struct fingerprint *f)
{
	memset(f, 0, sizeof(*f));
	f->records = a->records;
	f->lost = a->lost;
	f->wakeups = a->wakeups;
	f->switches = a->switches;
	f->app_events = a->app_events;
	for (unsigned int i = 0; i < a->nvectors; i++) {
		f->irqs += a->vectors[i].count;
		f->handled += a->vectors[i].handled;
		f->handler_ns += a->vectors[i].handler_ns->sum;
	}
	for (unsigned int i = 0; i < a->ntargets; i++) {
		const struct agg_target *t = &a->targets[i];

		for (unsigned int op = 0; op < AGG_DMA_OPS; op++)
			if (t->dma[op]) {
				f->dma_calls += t->dma[op]->calls;
				f->dma_bytes += t->dma[op]->bytes;
			}
		for (unsigned int op = 0; op < AGG_IOMMU_OPS; op++) {
			f->iommu += t->iommu[op].count;
			f->iommu_bytes += t->iommu[op].bytes;
		}
		f->swiotlb += t->swiotlb_bytes + t->swiotlb_bounces;
	}
}

/* Aggregate the image cut at len; *cut_records: records read; -1 when refused. */
static int agg_image(const struct image *img, size_t len, uint64_t max_records,
		     struct fingerprint *f, struct parsed *p)
{
	static struct trace_info info;
	const struct gpuprobe_rec_hdr *rec;
	FILE *in = fmemopen(img->data, len, "rb");
	struct trace_reader r;
	struct agg *a;
	int n = -1;

	if (!in || trace_reader_open_stream(&r, in, "image", &info)) {
		if (in)
			trace_reader_close(&r);
		return -1;
	}
	a = agg_new(&info);
	while (a->records < max_records && (n = trace_reader_next(&r, &rec)) > 0)
		agg_add(a, rec);
	if (n >= 0 || a->records == max_records) {
		agg_finish(a, &r);
		fingerprint_of(a, f);
		p->complete = r.seen_end;
		p->truncated_at = r.truncated_at;
		n = 0;
	}
	agg_free(a);
	trace_reader_close(&r);
	return n < 0 ? -1 : 0;
}

/* A cut at len must count exactly the whole records before it. */
static bool check_cut(const struct image *img, size_t len, uint64_t cut_at, uint64_t before)
{
	struct fingerprint cut, ref;
	struct parsed p, pref;

	if (agg_image(img, len, UINT64_MAX, &cut, &p)) {
		CHECK(0, "cut at %zu refused", len);
		return false;
	}
	if (agg_image(img, img->len, before, &ref, &pref)) {
		CHECK(0, "reference of %" PRIu64 " records refused", before);
		return false;
	}
	CHECK(!p.complete && p.truncated_at == cut_at, "cut at %zu: complete %d, cut at %" PRIu64
	      " not %" PRIu64, len, p.complete, p.truncated_at, cut_at);
	CHECK(cut.records == before && !memcmp(&cut, &ref, sizeof(cut)),
	      "cut at %zu: %" PRIu64 " records (%" PRIu64 " irqs), the first %" PRIu64 " give %" PRIu64 " irqs",
	      len, cut.records, cut.irqs, before, ref.irqs);
	return !p.complete && cut.records == before && !memcmp(&cut, &ref, sizeof(cut));
}

void test_truncation_every_boundary(void)
{
	const char *path = test_tmp_path("fuzz-mix.trace");
	uint64_t boundaries = 0, randoms = 0, bad = 0, records = 0;
	uint32_t rng = 0x2545f491;
	uint32_t header_size;
	struct image img;
	size_t off;

	CHECK(synth_write_mix(path, 3000, 7) == 0 && load_image(path, &img) == 0, "no mix image");
	unlink(path);
	memcpy(&header_size, img.data + offsetof(struct tracefile_header_fixed, header_size),
	       sizeof(header_size));
	/* every boundary, the end record's included */
	for (off = header_size; off < img.len && bad < 5; records++) {
		const struct gpuprobe_rec_hdr *h = (const void *)(img.data + off);

		bad += !check_cut(&img, off, off, records);
		boundaries++;
		/* and a random offset inside this record */
		if (h->size > 1 && next_random(&rng) % 4 == 0) {
			bad += !check_cut(&img, off + 1 + next_random(&rng) % (h->size - 1), off, records);
			randoms++;
		}
		off += h->size;
	}
	printf("    %" PRIu64 " cuts at record boundaries, %" PRIu64 " inside records: counts of the records before each cut\n",
	       boundaries, randoms);
	free(img.data);
}

/*
 * Versions 2 and 3: a cut at a chunk boundary or in a chunk's header loses
 * that chunk and nothing before it; the counts are those of the whole
 * chunks.  (A cut inside a chunk's bytes keeps its whole records before the
 * cut: test_damage.c.)
 */
void test_truncation_every_chunk(void)
{
	const char *path = test_tmp_path("fuzz-mix-chunks.trace");

	for (size_t e = 1; e < sizeof(encodings) / sizeof(encodings[0]); e++) {
		uint64_t boundaries = 0, randoms = 0, bad = 0, records = 0;
		uint32_t rng = 0x2545f491;
		uint32_t header_size;
		struct image img;
		size_t off;

		synth_set_compression(encodings[e].level, 37);	/* a chunk every 37 records */
		CHECK(synth_write_mix(path, 3000, 7) == 0 && load_image(path, &img) == 0,
		      "no mix image");
		synth_set_compression(0, 0);
		unlink(path);
		memcpy(&header_size, img.data + offsetof(struct tracefile_header_fixed, header_size),
		       sizeof(header_size));
		for (off = header_size; off < img.len && bad < 5; ) {
			struct tracefile_chunk ch;
			size_t len;

			memcpy(&ch, img.data + off, sizeof(ch));
			len = sizeof(ch) + ch.stored_size;
			bad += !check_cut(&img, off, off, records);
			boundaries++;
			/* twice inside its header */
			for (int i = 0; i < 2; i++)
				bad += !check_cut(&img, off + 1 + next_random(&rng) % (sizeof(ch) - 1), off, records);
			randoms += 2;
			records += ch.records;
			off += len;
		}
		/* the last chunk holds the end record, not counted in records */
		CHECK(off == img.len && records == 3001, "%s: chunks end at %zu of %zu, %" PRIu64 " records",
		      encodings[e].name, off, img.len, records);
		printf("    %s: %" PRIu64 " cuts at chunk boundaries, %" PRIu64 " inside chunk headers: counts of the whole chunks before each cut\n",
		       encodings[e].name, boundaries, randoms);
		free(img.data);
	}
}

/*
 * A stream whose reads past the first chunk are slow, and which notes a
 * close that comes while a read is in progress: the reader's chunk thread
 * must be done with the file before the file is closed.  (It was not: the
 * thread's fread() on a FILE that trace_reader_close() had freed crashed the
 * unit tests in CI, once in a while.)
 */
struct slow_stream {
	const unsigned char *data;
	size_t len, pos, fast;	/* reads below fast are not slowed */
	atomic_int in_read;
	atomic_int closing;	/* the test is about to close the reader */
	atomic_int slept;
	atomic_int closed_during_read;
	atomic_int read_after_close;
	atomic_int closed;
};

/*
 * Reads stop at fast (the end of chunk 1); the first read past it waits for
 * the test to start closing the reader, then 50 ms more: a close that does
 * not wait for the chunk thread comes inside that read.
 */
static ssize_t slow_read(void *cookie, char *buf, size_t size)
{
	struct slow_stream *s = cookie;
	size_t n;

	if (s->closed)
		s->read_after_close++;
	if (s->pos < s->fast && size > s->fast - s->pos)
		size = s->fast - s->pos;
	if (s->pos >= s->fast && !s->slept) {
		s->in_read = 1;
		for (int i = 0; i < 5000 && !s->closing; i++)
			nanosleep(&(struct timespec){ .tv_nsec = 1000 * 1000 }, NULL);
		nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
		s->slept = 1;
		s->in_read = 0;
	}
	n = s->len - s->pos < size ? s->len - s->pos : size;
	memcpy(buf, s->data + s->pos, n);
	s->pos += n;
	return (ssize_t)n;
}

static int slow_close(void *cookie)
{
	struct slow_stream *s = cookie;

	if (s->in_read)
		s->closed_during_read++;
	s->closed = 1;
	return 0;
}

void test_close_waits_for_chunk_thread(void)
{
	const char *path = test_tmp_path("close-race.trace");
	cookie_io_functions_t io = { .read = slow_read, .close = slow_close };
	static struct trace_info info;
	const struct gpuprobe_rec_hdr *rec;
	struct slow_stream s = { 0 };
	struct trace_reader r;
	uint32_t header_size;
	struct tracefile_chunk ch;
	struct image img;
	FILE *f;
	int waited;

	synth_set_compression(TRACEFILE_COMPACT, 37);
	CHECK(synth_write_mix(path, 3000, 7) == 0 && load_image(path, &img) == 0, "no image");
	synth_set_compression(0, 0);
	unlink(path);
	memcpy(&header_size, img.data + offsetof(struct tracefile_header_fixed, header_size),
	       sizeof(header_size));
	memcpy(&ch, img.data + header_size, sizeof(ch));
	s.data = img.data;
	s.len = img.len;
	s.fast = header_size + sizeof(ch) + ch.stored_size;	/* the header and chunk 1 */
	f = fopencookie(&s, "rb", io);
	CHECK(f, "fopencookie");
	if (!f) {
		free(img.data);
		return;
	}
	/* no stream lock: a close must not wait for a read in the FILE's lock */
	__fsetlocking(f, FSETLOCKING_BYCALLER);
	CHECK(trace_reader_open_stream(&r, f, "slow", &info) == 0, "open: %s", r.error);
	CHECK(trace_reader_next(&r, &rec) == 1, "no first record");
	/* the thread reads chunk 2 now and waits in the read: close while it does */
	for (waited = 0; !s.in_read && waited < 5000; waited++)
		nanosleep(&(struct timespec){ .tv_nsec = 1000 * 1000 }, NULL);
	CHECK(s.in_read, "the chunk thread never read past chunk 1");
	s.closing = 1;
	trace_reader_close(&r);
	CHECK(!s.closed_during_read, "the file was closed while the chunk thread read it");
	CHECK(!s.read_after_close, "the chunk thread read the file after it was closed");
	CHECK(s.closed, "the file was not closed");
	free(img.data);
}
