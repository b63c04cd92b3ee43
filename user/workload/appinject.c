// SPDX-License-Identifier: GPL-2.0
/*
 * Loading inject/'s libraries into the workload, and merging their events.
 *
 * CUDA: CUDA_INJECTION64_PATH=libgpuprobe_cupti.so (the driver loads it at
 * cuInit).  A value the user set is kept, and we say that CUDA events are
 * then theirs, not ours.  OpenCL: OPENCL_LAYERS gets libgpuprobe_opencl.so
 * prepended (ocl-icd >= 2.3 and the Khronos loader load layers from it).
 * Both libraries append to GPUPROBE_APP_EVENTS, a private temporary file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "appinject.h"
#include "array.h"
#include "file.h"
#include "strtab.h"
#include "util.h"

#define CUPTI_LIB	"libgpuprobe_cupti.so"
#define OPENCL_LIB	"libgpuprobe_opencl.so"

static bool lib_in(const char *dir, const char *lib, char *out, size_t size)
{
	return !format_into(out, size, "%s/%s", dir, lib) && access(out, R_OK) == 0;
}

/* The directory holding both (or either) libraries; false if none found. */
static bool find_inject_dir(const char *given, char *dir, size_t size)
{
	char exe[PATH_MAX], probe[PATH_MAX + 64], *exedir;
	const char *env = getenv("GPUPROBE_INJECT_DIR");
	ssize_t n;

	if (given || (env && *env)) {
		copy_string(dir, size, given ? given : env);
		return lib_in(dir, CUPTI_LIB, probe, sizeof(probe)) ||
		       lib_in(dir, OPENCL_LIB, probe, sizeof(probe));
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	exedir = dirname(exe);
	for (int i = 0; i < 2; i++) {
		if (format_into(dir, size, i ? "%s/../inject" : "%s", exedir))
			continue;
		if (lib_in(dir, CUPTI_LIB, probe, sizeof(probe)) ||
		    lib_in(dir, OPENCL_LIB, probe, sizeof(probe)))
			return true;
	}
	return false;
}

static void set_cuda(const char *dir, bool quiet)
{
	const char *old = getenv("CUDA_INJECTION64_PATH");
	char path[PATH_MAX + 64];

	if (!lib_in(dir, CUPTI_LIB, path, sizeof(path))) {
		if (!quiet)
			warnf("no %s in %s (built without CUPTI?): no CUDA events", CUPTI_LIB, dir);
		return;
	}
	if (old && *old) {
		if (strcmp(old, path))
			warnf("CUDA_INJECTION64_PATH is already set to %s: keeping it, so no CUDA events from gpuprobe (unset it, or --no-inject to silence this)",
			      old);
		return;
	}
	setenv("CUDA_INJECTION64_PATH", path, 1);
}

static void set_opencl(const char *dir, bool quiet)
{
	const char *old = getenv("OPENCL_LAYERS");
	char path[PATH_MAX + 64], value[2 * PATH_MAX];

	if (!lib_in(dir, OPENCL_LIB, path, sizeof(path))) {
		if (!quiet)
			warnf("no %s in %s: no OpenCL events", OPENCL_LIB, dir);
		return;
	}
	if (old && strstr(old, path))
		return;
	if (format_into(value, sizeof(value), "%s%s%s", path, old && *old ? ":" : "",
			old ? old : "")) {
		warnf("OPENCL_LAYERS is too long to prepend %s: no OpenCL events", path);
		return;
	}
	setenv("OPENCL_LAYERS", value, 1);
}

void app_inject_setup(struct app_inject *ai, const char *inject_dir, bool quiet)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX];
	int fd;

	memset(ai, 0, sizeof(*ai));
	if (!find_inject_dir(inject_dir, dir, sizeof(dir))) {
		if (!quiet || inject_dir)
			warnf("no application tracing libraries found%s%s (build inject/, or pass --inject-dir; --no-inject silences this): kernel events only",
			      inject_dir ? " in " : "", inject_dir ? inject_dir : "");
		return;
	}
	if (format_into(ai->events_path, sizeof(ai->events_path), "%s/gpuprobe-app.XXXXXX",
			tmp && *tmp ? tmp : "/tmp"))
		return;
	fd = mkstemp(ai->events_path);	/* 0600: names of the app's kernels */
	if (fd < 0) {
		warnf("cannot create %s: %s: kernel events only", ai->events_path, strerror(errno));
		return;
	}
	close(fd);
	setenv(GPUPROBE_APP_EVENTS_ENV, ai->events_path, 1);
	set_cuda(dir, quiet);
	set_opencl(dir, quiet);
	ai->active = true;
}

static bool header_valid(const struct gpuprobe_app_event *ev)
{
	return ev->magic == GPUPROBE_APP_MAGIC && ev->version == GPUPROBE_APP_VERSION &&
	       ev->size == sizeof(*ev) && ev->type >= GPUPROBE_APP_KERNEL &&
	       ev->type <= GPUPROBE_APP_NAME;
}

static bool event_valid(const struct gpuprobe_app_event *ev)
{
	return header_valid(ev) && ev->end_ns >= ev->start_ns;
}

/*
 * Where, inside the event at data[0], another event's header starts: then
 * the first was cut short (its library killed mid-write) and the rest of
 * its bytes belong to the next one.  0 when none does.
 */
static size_t next_header_inside(const char *data, size_t len)
{
	struct gpuprobe_app_event ev;
	const size_t hdr = offsetof(struct gpuprobe_app_event, kind);

	for (size_t j = 1; j < sizeof(ev) && j + hdr <= len; j++) {
		memcpy(&ev, data + j, hdr);
		if (header_valid(&ev))
			return j;
	}
	return 0;
}

void app_inject_discard(struct app_inject *ai)
{
	if (ai->active)
		unlink(ai->events_path);
	ai->active = false;
}

/* A long name being joined from its NAME pieces. */
struct whole_name {
	uint64_t hash;
	uint32_t len, pieces, got;
	bool cut;
	uint8_t have[GPUPROBE_APP_WHOLE_NAME_MAX / GPUPROBE_APP_NAME_PIECE / 8 + 1];
	char text[GPUPROBE_APP_WHOLE_NAME_MAX + 1];
};

struct names {
	struct whole_name **v;
	size_t n, cap;
	uint64_t bad;		/* pieces that disagree with their name's others */
};

static struct whole_name *name_of(struct names *ns, const struct gpuprobe_app_event *ev)
{
	struct whole_name *w;

	for (size_t i = 0; i < ns->n; i++)
		if (ns->v[i]->hash == ev->correlation)
			return ns->v[i];
	if (ns->n == ns->cap &&
	    array_reserve((void **)&ns->v, &ns->cap, ns->n + 1, sizeof(*ns->v)))
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->hash = ev->correlation;
	w->len = (uint32_t)ev->bytes;
	w->pieces = (w->len + GPUPROBE_APP_NAME_PIECE - 1) / GPUPROBE_APP_NAME_PIECE;
	w->cut = ev->flags & GPUPROBE_APPF_TRUNCATED_NAME;
	ns->v[ns->n++] = w;
	return w;
}

/* One piece into its name (processes that used the same name send the same pieces). */
static void name_piece(struct names *ns, const struct gpuprobe_app_event *ev)
{
	struct whole_name *w;
	size_t off, n;

	if (!ev->bytes || ev->bytes > GPUPROBE_APP_WHOLE_NAME_MAX) {
		ns->bad++;
		return;
	}
	w = name_of(ns, ev);
	if (!w)
		return;
	off = (size_t)ev->kind * GPUPROBE_APP_NAME_PIECE;
	n = off < w->len ? w->len - off : 0;
	n = n > GPUPROBE_APP_NAME_PIECE ? GPUPROBE_APP_NAME_PIECE : n;
	if (w->len != ev->bytes || !n || strnlen(ev->name, sizeof(ev->name)) != n) {
		ns->bad++;
		return;
	}
	if (w->have[ev->kind / 8] & (1u << (ev->kind % 8)))
		return;
	w->have[ev->kind / 8] |= (uint8_t)(1u << (ev->kind % 8));
	memcpy(w->text + off, ev->name, n);
	w->got++;
}

/* The joined names as the trace's string records, before the events that use them. */
static void put_names(struct names *ns, struct trace_writer *w, uint64_t ts_ns)
{
	static char buf[sizeof(struct tracefile_rec_string) + TRACEFILE_STRING_MAX + 8];
	uint64_t partial = 0;

	for (size_t i = 0; i < ns->n; i++) {
		struct whole_name *nm = ns->v[i];

		if (nm->got != nm->pieces)
			partial++;	/* a piece lost: its events keep the short form */
		else if (strtab_record_build(nm->hash, nm->text, nm->len, nm->cut, ts_ns, buf, sizeof(buf)))
			trace_writer_put(w, (const struct gpuprobe_rec_hdr *)buf);
		free(nm);
	}
	free(ns->v);
	if (partial || ns->bad)
		warnf("%" PRIu64 " long names incomplete and %" PRIu64 " pieces malformed: those names stay short",
		      partial, ns->bad);
}

/* The next valid event at *pos (skipping what is not one, counted in *skipped); false at the end. */
static bool next_event(const char *data, size_t len, size_t *pos, struct gpuprobe_app_event *ev,
		       uint64_t *skipped)
{
	size_t cut;

	while (len - *pos >= sizeof(*ev)) {
		memcpy(ev, data + *pos, sizeof(*ev));
		if (!event_valid(ev)) {
			(*pos)++;
			(*skipped)++;
			continue;
		}
		cut = next_header_inside(data + *pos, len - *pos);
		if (cut) {
			*pos += cut;
			*skipped += cut;
			continue;
		}
		*pos += sizeof(*ev);
		return true;
	}
	return false;
}

/*
 * The events file is a sequence of fixed-size events, but a library killed
 * mid-write leaves a short one, which another process's events may follow,
 * and anything may be corrupt: where an event does not validate, or the
 * next one's header starts inside it, look for the next one byte by byte
 * instead of rejecting everything after it.  Two passes: the long names'
 * pieces first, joined into string records ahead of every event.
 */
uint64_t app_inject_merge(struct app_inject *ai, struct trace_writer *w, bool quiet)
{
	struct tracefile_rec_app rec = {
		.hdr = { .type = TRACEFILE_REC_APP, .size = sizeof(rec) },
	};
	uint64_t merged = 0, skipped = 0, devops = 0, first_ts = UINT64_MAX;
	struct names names = { 0 };
	size_t len = 0, pos = 0;
	char *data;

	if (!ai->active)
		return 0;
	data = read_whole_file(ai->events_path, &len);
	app_inject_discard(ai);
	if (!data) {
		warnf("cannot read %s: %s: no application events", ai->events_path, strerror(errno));
		return 0;
	}
	while (next_event(data, len, &pos, &rec.ev, &skipped))
		if (rec.ev.type == GPUPROBE_APP_NAME)
			name_piece(&names, &rec.ev);
		else if (rec.ev.start_ns < first_ts)
			first_ts = rec.ev.start_ns;
	put_names(&names, w, first_ts == UINT64_MAX ? 0 : first_ts);
	pos = 0;
	skipped = 0;
	while (next_event(data, len, &pos, &rec.ev, &skipped)) {
		if (rec.ev.type == GPUPROBE_APP_NAME)
			continue;
		rec.ev.name[sizeof(rec.ev.name) - 1] = '\0';
		rec.hdr.ts_ns = rec.ev.start_ns;
		if (trace_writer_put(w, &rec.hdr))
			break;
		merged++;
		devops += rec.ev.type <= GPUPROBE_APP_MEMSET;
	}
	skipped += len - pos;
	free(data);
	if (skipped)
		warnf("%" PRIu64 " bytes of malformed or cut application events skipped; the events around them were kept",
		      skipped);
	/* Nothing when the workload made no CUDA/OpenCL calls: there is nothing to say. */
	if (!quiet && merged)
		fprintf(stderr, "%s: %" PRIu64 " application events merged (%" PRIu64 " kernels, copies and memsets)\n",
			progname, merged, devops);
	return merged;
}
