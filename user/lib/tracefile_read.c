// SPDX-License-Identifier: GPL-2.0
/*
 * Validating, streaming trace file reader.  It keeps one buffer and hands
 * out pointers into it, so memory does not depend on the file's length.
 *
 * A file cut short (a recording killed, a full disk) is read up to its last
 * whole record and marked incomplete, with the byte offset of the cut in
 * r->warning: nothing before the cut is lost.  A file whose header is
 * unreadable, or whose records stop making sense before the end, is refused
 * with the byte offset where it broke; in format version 3, whose chunks
 * carry checksums, a damaged chunk is skipped instead, and listed in
 * r->damage (tracefile_read_chunks.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracefile.h"
#include "tracefile_read.h"
#include "util.h"

#define READER_BUF_SIZE		(4u << 20)
#define HDR_SIZE		sizeof(struct gpuprobe_rec_hdr)

int reader_fail(struct trace_reader *r, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->error, sizeof(r->error), "%s: %s", r->path, msg);
	return -1;
}

static int read_exact(struct trace_reader *r, void *dst, size_t len,
		      uint64_t offset, const char *what)
{
	size_t got = fread(dst, 1, len, r->file);

	if (got == len)
		return 0;
	if (ferror(r->file))
		return reader_fail(r, "read error at offset %" PRIu64 ": %s",
				   offset + got, strerror(errno));
	return reader_fail(r, "truncated %s at offset %" PRIu64 ": needs %zu bytes, file ends after %zu",
			   what, offset, len, got);
}

static bool string_terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

static int check_fixed_header(struct trace_reader *r,
			      const struct tracefile_header_fixed *h)
{
	if (memcmp(h->magic, TRACEFILE_MAGIC, sizeof(h->magic)))
		return reader_fail(r, "not a gpuprobe trace file (bad magic at offset 0)");
	if (h->format_version < TRACEFILE_VERSION_RAW || h->format_version > TRACEFILE_VERSION)
		return reader_fail(r, "format version %u at offset 8 is not supported (this tool reads versions %u to %u): use a matching gpuprobe-trace",
				   h->format_version, TRACEFILE_VERSION_RAW, TRACEFILE_VERSION);
	if (h->header_size < sizeof(*h) || h->header_size % 8 ||
	    h->header_size > TRACEFILE_MAX_HEADER)
		return reader_fail(r, "corrupt header size %u at offset 12", h->header_size);
	if (h->record_version == 0 || h->record_version > GPUPROBE_RECORD_VERSION)
		return reader_fail(r, "record version %u at offset 16 is not supported (this tool reads versions 1 to %u): use a matching gpuprobe-trace",
				   h->record_version, GPUPROBE_RECORD_VERSION);
	if (h->clock_id != CLOCK_MONOTONIC)
		return reader_fail(r, "clock %u at offset 20 is not CLOCK_MONOTONIC (%u): the timestamps cannot be lined up with anything",
				   h->clock_id, CLOCK_MONOTONIC);
	if (h->ntargets > TARGET_MAX)
		return reader_fail(r, "corrupt target count %u at offset 32 (at most %u)",
				   h->ntargets, TARGET_MAX);
	if (!string_terminated(h->host, sizeof(h->host)) ||
	    !string_terminated(h->kernel_release, sizeof(h->kernel_release)) ||
	    !string_terminated(h->tool_version, sizeof(h->tool_version)))
		return reader_fail(r, "corrupt header strings at offset %zu",
				   offsetof(struct tracefile_header_fixed, host));
	return 0;
}

static void decode_fixed_header(const struct tracefile_header_fixed *h,
				struct trace_info *info)
{
	memset(info, 0, offsetof(struct trace_info, targets));
	info->targets.count = 0;
	info->format_version = h->format_version;
	info->record_version = h->record_version;
	info->clock_id = h->clock_id;
	info->source = h->source;
	info->start_ns = h->start_ns;
	info->start_realtime_ns = h->start_realtime_ns;
	info->app_events = h->app_events;
	copy_string(info->host, sizeof(info->host), h->host);
	copy_string(info->kernel_release, sizeof(info->kernel_release), h->kernel_release);
	copy_string(info->tool_version, sizeof(info->tool_version), h->tool_version);
}

/* Decode one target and its vectors from the variable part of the header. */
static int decode_target(struct trace_reader *r, const unsigned char *var,
			 size_t var_len, size_t *pos, struct target *t)
{
	uint64_t off = sizeof(struct tracefile_header_fixed) + *pos;
	const char *driver = (const char *)var + *pos + offsetof(struct tracefile_target, driver);
	int err = tracefile_target_decode(var, var_len, pos, t);

	if (err == TRACEFILE_TARGET_TRUNCATED)
		return reader_fail(r, "truncated target at offset %" PRIu64 " (header too small)", off);
	if (err == TRACEFILE_TARGET_BAD_NVEC)
		return reader_fail(r, "corrupt vector count %u at offset %" PRIu64,
				   t->nvec, off + offsetof(struct tracefile_target, nvec));
	if (!string_terminated(driver, sizeof(((struct tracefile_target *)0)->driver)))
		return reader_fail(r, "corrupt driver name at offset %" PRIu64,
				   off + offsetof(struct tracefile_target, driver));
	return 0;
}

static int read_header(struct trace_reader *r, struct trace_info *info)
{
	struct tracefile_header_fixed h;
	unsigned char *var;
	size_t var_len, pos = 0, got;
	int err = 0;

	got = fread(&h, 1, sizeof(h), r->file);
	/* a short file that does not begin as a trace is not a trace (a PNG), not a cut one */
	if (got < sizeof(h) && !ferror(r->file) && got &&
	    memcmp(h.magic, TRACEFILE_MAGIC, got < sizeof(h.magic) ? got : sizeof(h.magic)))
		return reader_fail(r, "not a gpuprobe trace file (bad magic at offset 0)");
	if (got < sizeof(h)) {
		if (ferror(r->file))
			return reader_fail(r, "read error at offset %zu: %s", got, strerror(errno));
		return reader_fail(r, "truncated file header at offset 0: needs %zu bytes, file ends after %zu",
				   sizeof(h), got);
	}
	if (check_fixed_header(r, &h))
		return -1;
	decode_fixed_header(&h, info);
	var_len = h.header_size - sizeof(h);
	var = malloc(var_len ? var_len : 1);
	if (!var)
		return reader_fail(r, "out of memory reading a %u-byte header", h.header_size);
	if (read_exact(r, var, var_len, sizeof(h), "target table"))
		err = -1;
	for (uint32_t i = 0; !err && i < h.ntargets; i++)
		err = decode_target(r, var, var_len, &pos, &info->targets.t[i]);
	if (!err)
		info->targets.count = h.ntargets;
	free(var);
	r->buf_file_offset = h.header_size;
	r->format_version = h.format_version;
	if (!err && h.format_version != TRACEFILE_VERSION_RAW)
		err = chunks_open(r);
	return err;
}

int trace_reader_open_stream(struct trace_reader *r, FILE *f, const char *name,
			     struct trace_info *info)
{
	memset(r, 0, sizeof(*r));
	r->file = f;
	copy_string(r->path, sizeof(r->path), name);
	r->buf_size = READER_BUF_SIZE;
	r->buf = r->buf_own = malloc(r->buf_size);
	if (!r->buf)
		return reader_fail(r, "out of memory for the read buffer");
	return read_header(r, info);
}

int trace_reader_open(struct trace_reader *r, const char *path, struct trace_info *info)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;

	if (!f) {
		memset(r, 0, sizeof(*r));
		if (errno == ENOENT)
			snprintf(r->error, sizeof(r->error),
				 "cannot open trace file %s: %s (record one with: gpuprobe-trace record -o %s)",
				 path, strerror(errno), path);
		else if (errno == EACCES)
			snprintf(r->error, sizeof(r->error),
				 "cannot open trace file %s: %s: a trace is private to who recorded it (mode 0600: it carries DMA and physical addresses); read it as its owner or root",
				 path, strerror(errno));
		else
			snprintf(r->error, sizeof(r->error), "cannot open trace file %s: %s", path,
				 strerror(errno));
		return -1;
	}
	return trace_reader_open_stream(r, f, path, info);
}

/* Keep unread bytes and top the buffer up. */
static void refill(struct trace_reader *r)
{
	size_t left = r->buf_len - r->buf_pos, got;

	if (r->eof)
		return;
	memmove(r->buf, r->buf + r->buf_pos, left);
	r->buf_file_offset += r->buf_pos;
	r->buf_pos = 0;
	r->buf_len = left;
	got = fread(r->buf + left, 1, r->buf_size - left, r->file);
	r->buf_len += got;
	if (got < r->buf_size - left)
		r->eof = true;
}

/*
 * The end record counts the records before it, those of damaged chunks
 * too: exactly when every damaged chunk's header said how many it held.
 */
static bool end_count_fits(const struct trace_reader *r, const struct tracefile_rec_end *e)
{
	if (r->damaged_unknown)
		return e->records >= r->records + r->damaged_records;
	return e->records == r->records + r->damaged_records;
}

/* min: tracefile_record_min_size() of its type, 0 when unknown */
static int check_record(struct trace_reader *r, const struct gpuprobe_rec_hdr *h,
			uint64_t off, size_t min)
{
	if (h->type == GPUPROBE_EV_UNSPEC)
		return reader_fail(r, "corrupt record at offset %" PRIu64 ": type 0", off);
	if (min && h->size < min)
		return reader_fail(r, "corrupt record at offset %" PRIu64 ": type %u needs %zu bytes, size says %u",
				   off, h->type, min, h->size);
	if (h->cpu >= TRACEFILE_MAX_CPUS)
		return reader_fail(r, "corrupt record at offset %" PRIu64 ": cpu %u", off, h->cpu);
	if (h->type == TRACEFILE_REC_GUEST &&
	    ((const struct gpuprobe_rec_hdr *)((const struct tracefile_rec_guest *)h + 1))->size !=
	    h->size - sizeof(struct tracefile_rec_guest))
		return reader_fail(r, "corrupt guest record at offset %" PRIu64 ": the record it carries says %u bytes, it has %zu",
				   off, ((const struct gpuprobe_rec_hdr *)((const struct tracefile_rec_guest *)h + 1))->size,
				   h->size - sizeof(struct tracefile_rec_guest));
	if (h->type == TRACEFILE_REC_END && !end_count_fits(r, (const struct tracefile_rec_end *)h))
		return reader_fail(r, "end record at offset %" PRIu64 " counts %" PRIu64 " records, the file holds %" PRIu64 "%s",
				   off, ((const struct tracefile_rec_end *)h)->records, r->records,
				   r->damaged ? " and its damaged chunks fewer or more" : "");
	return 0;
}

/* The file ends (or only zeros follow) at off without an end record: keep what came before. */
int stop_at_cut(struct trace_reader *r, uint64_t off, const char *what)
{
	r->truncated = true;
	r->truncated_at = off;
	r->eof = true;
	r->buf_pos = r->buf_len;
	snprintf(r->warning, sizeof(r->warning),
		 "%s: incomplete: %s at offset %" PRIu64 " (no end record: the recording was cut short); %" PRIu64 " whole records before it were read",
		 r->path, what, off, r->records);
	return 0;
}

static int end_of_data(struct trace_reader *r, size_t avail)
{
	uint64_t off = r->buf_file_offset + r->buf_pos;

	if (ferror(r->file))
		return reader_fail(r, "read error at offset %" PRIu64 ": %s", off, strerror(errno));
	if (avail)
		return stop_at_cut(r, off, "the file ends inside a record header");
	if (!r->seen_end)
		return stop_at_cut(r, off, "the file ends");
	return 0;
}

bool all_zero(const void *p, size_t len)
{
	const unsigned char *c = p;

	return len == 0 || (c[0] == 0 && !memcmp(c, c + 1, len - 1));
}

/* Whether everything from buf_pos to the end of the file is zero (consumes it if so). */
static bool zero_tail(struct trace_reader *r)
{
	for (;;) {
		if (!all_zero(r->buf + r->buf_pos, r->buf_len - r->buf_pos))
			return false;
		if (r->eof)
			return true;
		r->buf_pos = r->buf_len;
		refill(r);
	}
}

static inline int accept(struct trace_reader *r, const struct gpuprobe_rec_hdr *h, uint64_t off)
{
	size_t min = tracefile_record_min_size(h->type);

	if (check_record(r, h, off, min))
		return -1;
	if (h->type == TRACEFILE_REC_END) {
		memcpy(&r->end, h, sizeof(r->end));
		r->seen_end = true;
		return 0;
	}
	r->records++;
	if (!min) {
		r->unknown_records++;
		return 0;
	}
	return 1;
}

int accept_record(struct trace_reader *r, const struct gpuprobe_rec_hdr *h, uint64_t off)
{
	return accept(r, h, off);
}

int trace_reader_next(struct trace_reader *r, const struct gpuprobe_rec_hdr **rec)
{
	if (r->chunked)
		return chunks_next(r, rec);
	for (;;) {
		size_t avail = r->buf_len - r->buf_pos;
		const struct gpuprobe_rec_hdr *h;
		uint64_t off;
		int n;

		if (r->truncated)
			return 0;
		if (avail < HDR_SIZE) {
			refill(r);
			avail = r->buf_len - r->buf_pos;
			if (avail < HDR_SIZE)
				return end_of_data(r, avail);
		}
		h = (const void *)(r->buf + r->buf_pos);
		off = r->buf_file_offset + r->buf_pos;
		if (r->seen_end)
			return reader_fail(r, "unexpected data after the end record at offset %" PRIu64, off);
		if (h->size < HDR_SIZE || h->size % 8) {
			/* Blocks allocated but never written (a crash, a full disk) read as zeros. */
			if (all_zero(h, HDR_SIZE)) {
				if (zero_tail(r))
					return stop_at_cut(r, off, "only zeros follow");
				return reader_fail(r, "corrupt record at offset %" PRIu64 ": size 0", off);
			}
			return reader_fail(r, "corrupt record at offset %" PRIu64 ": size %u is not a multiple of 8 of at least %zu",
					   off, h->size, HDR_SIZE);
		}
		if (r->buf_len - r->buf_pos < h->size) {
			refill(r);
			h = (const void *)(r->buf + r->buf_pos);
			if (r->buf_len - r->buf_pos < h->size) {
				if (ferror(r->file))
					return reader_fail(r, "read error at offset %" PRIu64 ": %s",
							   off + r->buf_len - r->buf_pos, strerror(errno));
				return stop_at_cut(r, off, "the file ends inside a record");
			}
		}
		r->buf_pos += h->size;
		n = accept(r, h, off);
		if (n) {
			*rec = h;
			return n;
		}
	}
}

uint64_t trace_reader_skipped(const struct trace_reader *r, bool *exact)
{
	if (r->seen_end) {
		*exact = true;
		return r->end.records - r->records;
	}
	*exact = !r->damaged_unknown;
	return r->damaged_records;
}

const char *trace_reader_damage_line(const struct trace_reader *r, unsigned int i,
				     char *buf, size_t len)
{
	const struct tracefile_damage *d = &r->damage[i];
	char records[48] = "its records unknown";

	if (d->records >= 0)
		snprintf(records, sizeof(records), "%" PRId64 " records", d->records);
	snprintf(buf, len, "%s: damaged: chunk %u at offset %" PRIu64 ": %s; %" PRIu64 " bytes skipped (%s), reading goes on",
		 r->path, d->index, d->offset, d->why, d->bytes, records);
	return buf;
}

void trace_reader_warn(const struct trace_reader *r)
{
	unsigned int n = r->damaged < TRACEFILE_DAMAGE_LIST ? r->damaged : TRACEFILE_DAMAGE_LIST;
	char line[400];
	bool exact;
	uint64_t skipped = trace_reader_skipped(r, &exact);

	for (unsigned int i = 0; i < n; i++)
		warnf("%s", trace_reader_damage_line(r, i, line, sizeof(line)));
	if (r->damaged)
		warnf("%s: damaged: %u chunk%s skipped, %s%" PRIu64 " records lost: every count is a lower bound",
		      r->path, r->damaged, r->damaged == 1 ? "" : "s", exact ? "" : "at least ", skipped);
	if (r->truncated)
		warnf("%s", r->warning);
}

void trace_reader_close(struct trace_reader *r)
{
	/*
	 * The chunk thread first: it may be inside fread() on the file, and
	 * the buffer may point into its slots.
	 */
	chunks_close(r);
	if (r->file && r->file != stdin)
		fclose(r->file);
	r->file = NULL;
	free(r->buf_own);
	r->buf = r->buf_own = NULL;
}
