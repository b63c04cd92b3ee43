// SPDX-License-Identifier: GPL-2.0
/*
 * The workload's command record (Documentation/trace-format.md, "Workload
 * command") through the real writer and reader in every encoding: the text
 * comes back byte for byte as worked out here by hand, the cut falls where
 * the page says (4096 bytes, NULs included), and a malformed record is
 * refused by the decoder, not shown.
 */
#include <string.h>

#include "command.h"
#include "synth.h"
#include "testlib.h"
#include "tests.h"

static const int levels[] = { 0, TRACEFILE_COMPACT, TRACEFILE_ZSTD_LEVEL };

/* argv into a file at level, between two interrupts; the command read back into c. */
static int round_trip(char *const *argv, int level, struct trace_command *c, size_t *size)
{
	static unsigned char buf[sizeof(struct tracefile_rec_command) + TRACEFILE_COMMAND_MAX];
	static struct trace_info info;
	const char *path = test_tmp_path("command.trace");
	const struct gpuprobe_rec_hdr *rec;
	struct gpuprobe_rec_irq q;
	struct trace_writer w;
	struct trace_reader r;
	int n, err;

	synth_info(&info);
	synth_irq(&q, 5, 0, 0, 1, true);
	if (!command_record_build(argv, 3, buf, sizeof(buf)) || trace_writer_create(&w, path))
		return -1;
	if (trace_writer_compress(&w, level) || trace_writer_header(&w, &info)) {
		trace_writer_abort(&w);
		return -1;
	}
	err = trace_writer_put(&w, &q.hdr) | trace_writer_put(&w, (const void *)buf) |
	      trace_writer_put(&w, &q.hdr);
	if (trace_writer_finish(&w, 10, 0) || err)
		return -1;
	memset(c, 0, sizeof(*c));
	if (trace_reader_open(&r, path, &info))
		return -1;
	while ((n = trace_reader_next(&r, &rec)) > 0)
		if (rec->type == TRACEFILE_REC_COMMAND) {
			*size = rec->size;
			command_record_decode(rec, c);
		}
	CHECK(r.records == 3 && r.unknown_records == 0, "level %d: %llu records, %llu unknown", level,
	      (unsigned long long)r.records, (unsigned long long)r.unknown_records);
	trace_reader_close(&r);
	return n;
}

static void check_text(const char *what, int level, const struct trace_command *c,
		       const char *want, size_t want_len)
{
	CHECK(c->present && !c->malformed, "%s, level %d: no command read back", what, level);
	CHECK(c->len == want_len && !memcmp(c->text, want, want_len),
	      "%s, level %d: %u bytes back, %zu written", what, level, c->len, want_len);
}

void test_command_round_trip(void)
{
	/* spaces, quotes, an empty string, UTF-8, a byte that is not, a newline */
	static char *argv[] = { "sh", "-c", "echo \"a b\"", "", "it's", "\xc3\xa9", "\xff", "a\nb", NULL };
	static const char want[] = "sh\0-c\0echo \"a b\"\0\0it's\0\xc3\xa9\0\xff\0a\nb";
	struct trace_command c;
	size_t size = 0;

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		CHECK(round_trip(argv, levels[i], &c, &size) == 0, "level %d: not read back", levels[i]);
		check_text("eight arguments", levels[i], &c, want, sizeof(want));
		/* 32 bytes of fields and 32 of text (3+3+11+1+5+3+2+4), a multiple of 8 */
		CHECK(size == 64, "level %d: size %zu, expected 64", levels[i], size);
		CHECK(c.argc == 8 && c.nargs == 8 && !c.cut, "level %d: argc %u nargs %u cut %d",
		      levels[i], c.argc, c.nargs, c.cut);
		CHECK(!strcmp(command_arg(&c, 2), "echo \"a b\"") && !strcmp(command_arg(&c, 3), "") &&
		      command_arg(&c, 8) == NULL, "level %d: command_arg", levels[i]);
	}
}

/* 2 + 2001 + n bytes: the third argument's length decides the cut */
static void cut_case(size_t third, bool cut, uint32_t argc)
{
	static char a[2001], b[4000];
	char *argv[] = { "x", a, b, "y", NULL };
	static char want[TRACEFILE_COMMAND_MAX];
	size_t want_len = 2 + 2001 + third + 1;
	struct trace_command c;
	size_t size = 0;

	memset(a, 'a', 2000);
	memset(b, 'b', sizeof(b) - 1);
	b[third] = '\0';
	if (argc == 3)
		argv[3] = NULL;
	memset(want, 0, sizeof(want));
	memcpy(want, "x", 2);
	memcpy(want + 2, a, 2001);
	memcpy(want + 2003, b, third);
	if (want_len > TRACEFILE_COMMAND_MAX)	/* the page: the last kept ends at 4096 */
		want_len = TRACEFILE_COMMAND_MAX, want[TRACEFILE_COMMAND_MAX - 1] = '\0';
	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		CHECK(round_trip(argv, levels[i], &c, &size) == 0, "level %d: not read back", levels[i]);
		check_text("long", levels[i], &c, want, want_len);
		CHECK(c.cut == cut && c.argc == argc && c.nargs == 3,
		      "third %zu, level %d: cut %d argc %u nargs %u", third, levels[i], c.cut, c.argc, c.nargs);
	}
}

void test_command_cut(void)
{
	cut_case(2092, false, 3);	/* 2 + 2001 + 2093 = 4096: all of it */
	cut_case(2093, true, 3);	/* one byte over */
	cut_case(2092, true, 4);	/* fits, but "y" does not */
	cut_case(3000, true, 4);
}

void test_command_malformed(void)
{
	static unsigned char buf[sizeof(struct tracefile_rec_command) + TRACEFILE_COMMAND_MAX];
	static char *argv[] = { "ls", "-l", NULL };
	struct tracefile_rec_command *r = (void *)buf;
	struct trace_command c;

	command_record_build(argv, 1, buf, sizeof(buf));
	command_record_decode(&r->hdr, &c);
	CHECK(c.present && !c.malformed && c.nargs == 2, "a good record refused");
	r->nargs = 1;			/* two NULs */
	command_record_decode(&r->hdr, &c);
	CHECK(c.malformed, "nargs that are not the NULs accepted");
	r->nargs = 2;
	r->len = 64;			/* past hdr.size */
	command_record_decode(&r->hdr, &c);
	CHECK(c.malformed, "len past the record accepted");
	r->len = 5;			/* "ls\0-l" without its NUL */
	command_record_decode(&r->hdr, &c);
	CHECK(c.malformed, "text without its last NUL accepted");
	r->len = 6;
	r->argc = 1;			/* fewer than stored */
	command_record_decode(&r->hdr, &c);
	CHECK(c.malformed, "nargs over argc accepted");
}
