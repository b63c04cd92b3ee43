// SPDX-License-Identifier: GPL-2.0
/* The workload's command line record (lib/command.h). */
#include <string.h>

#include "command.h"

size_t command_record_build(char *const *argv, uint64_t ts_ns, void *buf, size_t size)
{
	struct tracefile_rec_command *c = buf;
	char *text = (char *)(c + 1);
	size_t need = sizeof(*c) + TRACEFILE_COMMAND_MAX, len = 0;
	uint32_t argc = 0, nargs = 0;
	bool cut = false;

	if (size < need)
		return 0;
	memset(buf, 0, need);
	for (; argv[argc]; argc++) {
		size_t n = strlen(argv[argc]) + 1;

		if (cut)
			continue;
		/* the last one kept ends at the limit, NUL included */
		if (len + n > TRACEFILE_COMMAND_MAX) {
			n = TRACEFILE_COMMAND_MAX - len;
			cut = true;
		}
		if (!n)
			continue;
		memcpy(text + len, argv[argc], n - 1);
		text[len + n - 1] = '\0';
		len += n;
		nargs++;
	}
	c->hdr.type = TRACEFILE_REC_COMMAND;
	c->hdr.size = (uint16_t)((sizeof(*c) + len + 7) & ~(size_t)7);
	c->hdr.ts_ns = ts_ns;
	c->argc = argc;
	c->nargs = nargs;
	c->len = (uint32_t)len;
	c->flags = cut ? COMMAND_CUT : 0;
	return c->hdr.size;
}

void command_record_decode(const struct gpuprobe_rec_hdr *h, struct trace_command *c)
{
	const struct tracefile_rec_command *r = (const void *)h;
	const char *text = (const char *)(r + 1);
	uint32_t nuls = 0;

	memset(c, 0, sizeof(*c));
	c->present = true;
	/* the reader checked h->size >= sizeof(*r); the rest is checked here */
	if (r->len > h->size - sizeof(*r) || r->len > TRACEFILE_COMMAND_MAX ||
	    (r->len && text[r->len - 1] != '\0') || r->nargs > r->argc) {
		c->malformed = true;
		return;
	}
	for (uint32_t i = 0; i < r->len; i++)
		nuls += text[i] == '\0';
	if (nuls != r->nargs) {
		c->malformed = true;
		return;
	}
	c->cut = r->flags & COMMAND_CUT;
	c->argc = r->argc;
	c->nargs = r->nargs;
	c->len = r->len;
	memcpy(c->text, text, r->len);
}

const char *command_arg(const struct trace_command *c, uint32_t i)
{
	const char *p = c->text;

	if (i >= c->nargs)
		return NULL;
	while (i--)
		p += strlen(p) + 1;
	return p;
}

static bool safe_char(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       strchr("_./:=@%+,-", ch);
}

static void print_quoted(FILE *out, const unsigned char *s)
{
	bool bare = *s, control = false;

	for (const unsigned char *p = s; *p; p++) {
		bare = bare && safe_char(*p);
		control = control || *p < 0x20 || *p == 0x7f;
	}
	if (bare) {
		fputs((const char *)s, out);
	} else if (!control) {
		fputc('\'', out);
		for (; *s; s++) {
			if (*s == '\'')
				fputs("'\\''", out);
			else
				fputc(*s, out);
		}
		fputc('\'', out);
	} else {
		fputs("$'", out);
		for (; *s; s++) {
			if (*s == '\'' || *s == '\\')
				fprintf(out, "\\%c", *s);
			else if (*s < 0x20 || *s == 0x7f)
				fprintf(out, "\\x%02x", *s);
			else
				fputc(*s, out);
		}
		fputc('\'', out);
	}
}

void command_print_shell(FILE *out, const struct trace_command *c)
{
	for (uint32_t i = 0; i < c->nargs; i++) {
		if (i)
			fputc(' ', out);
		print_quoted(out, (const unsigned char *)command_arg(c, i));
	}
}

void command_print_cut(FILE *out, const struct trace_command *c)
{
	if (c->cut)
		fprintf(out, " (longer than %u bytes: cut there, %u of its %u arguments kept)",
			TRACEFILE_COMMAND_MAX, c->nargs, c->argc);
}
