// SPDX-License-Identifier: GPL-2.0
/*
 * Corrupt and truncated trace files: each must be refused with a message
 * naming a byte offset, or parsed; never a crash.  The fuzz loop is
 * deterministic (fixed seed) so a failure reproduces.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "synth.h"
#include "testlib.h"
#include "tests.h"

#define FUZZ_ITERATIONS	5000
#define COUNT_SIZE	sizeof(struct tracefile_rec_irq_count)

struct image {
	unsigned char *data;
	size_t len;
};

static int load_image(const char *path, struct image *img)
{
	FILE *f = fopen(path, "rb");
	long size;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	img->data = malloc((size_t)size);
	img->len = fread(img->data, 1, (size_t)size, f);
	fclose(f);
	return img->len == (size_t)size ? 0 : -1;
}

static int known_image(struct image *img)
{
	const char *path = test_tmp_path("fuzz-known.trace");
	int err = synth_write_known(path) || load_image(path, img);

	unlink(path);
	return err;
}

/* Parse like `report` does, printing both views to /dev/null. 0 ok, -1 refused. */
static int parse_image(const unsigned char *data, size_t len, char *err, size_t errlen)
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
		report_print_json(devnull, "image", a);
		report_print_text(devnull, "image", a);
	}
	agg_free(a);
	trace_reader_close(&r);
	return n < 0 ? -1 : 0;
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
	img.data[8] = 2;	/* format version 2 */
	expect_refusal(&img, img.len, "format version 2 at offset 8");
	free(img.data);
}

void test_reader_names_truncation_offset(void)
{
	size_t header = sizeof(struct tracefile_header_fixed) + sizeof(struct tracefile_target) +
			SYNTH_NVEC * sizeof(struct tracefile_vector);
	struct image img;
	char want[128];

	CHECK(known_image(&img) == 0, "no image");
	expect_refusal(&img, 100, "truncated file header at offset 0");
	expect_refusal(&img, header - 8, "truncated target table at offset 240");
	/* cut in the middle of the second record (both are irq counts) */
	snprintf(want, sizeof(want), "truncated record at offset %zu", header + COUNT_SIZE);
	expect_refusal(&img, header + COUNT_SIZE + 20, want);
	snprintf(want, sizeof(want), "truncated record header at offset %zu", header + COUNT_SIZE);
	expect_refusal(&img, header + COUNT_SIZE + 4, want);
	/* cut exactly at a record boundary: only the missing end record tells */
	snprintf(want, sizeof(want), "file ends at offset %zu without an end record",
		 header + 2 * COUNT_SIZE);
	expect_refusal(&img, header + 2 * COUNT_SIZE, want);
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
	h.size = 0xfff8;	/* beyond the end of the file */
	memcpy(img.data + header, &h, sizeof(h));
	snprintf(want, sizeof(want), "truncated record at offset %zu: 65528 bytes declared", header);
	expect_refusal(&img, img.len, want);
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

/* Mutate a copy; returns the new length; *truncated tells if it was cut. */
static size_t mutate(const struct image *img, unsigned char *buf, uint32_t *rng, bool *truncated)
{
	uint32_t mode = next_random(rng) % 10, flips = 1 + next_random(rng) % 8;
	size_t len = img->len;

	memcpy(buf, img->data, img->len);
	*truncated = false;
	if (mode >= 5) {
		len = next_random(rng) % img->len;
		*truncated = true;
	}
	if (mode < 5 || mode >= 8)
		for (uint32_t i = 0; i < flips && len; i++)
			buf[next_random(rng) % len] ^= (unsigned char)(1 + next_random(rng) % 255);
	return len;
}

void test_fuzz_flips_and_truncations(void)
{
	int refused = 0, accepted = 0, bad = 0;
	struct image img;
	unsigned char *buf;
	uint32_t rng = 0x9e3779b9;
	char err[512];

	CHECK(known_image(&img) == 0, "no image");
	buf = malloc(img.len);
	for (int i = 0; i < FUZZ_ITERATIONS && bad < 5; i++) {
		bool truncated;
		size_t len = mutate(&img, buf, &rng, &truncated);
		int ret = parse_image(buf, len, err, sizeof(err));

		if (ret == 0 && !truncated) {
			accepted++;
			continue;
		}
		if (ret == -1 && strstr(err, "offset")) {
			refused++;
			continue;
		}
		bad++;
		CHECK(0, "iteration %d (len %zu, truncated %d): %s", i, len, truncated,
		      ret == 0 ? "truncated file accepted" : err);
	}
	printf("    fuzz: %d iterations, %d refused with an offset, %d parsed\n",
	       refused + accepted + bad, refused, accepted);
	free(buf);
	free(img.data);
}
