// SPDX-License-Identifier: GPL-2.0
/*
 * What a killed process leaves behind, read back or cleaned up: temporary
 * trace files of recorders killed before their source started, and
 * application event files with cut and corrupt events in them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "appinject.h"
#include "file.h"
#include "testlib.h"
#include "tests.h"
#include "tracefile.h"

static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static void touch_in(const char *dir, const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0, "cannot create %s", path);
	if (fd >= 0)
		close(fd);
}

static bool exists_in(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

void test_stale_temp_files_removed(void)
{
	char dir[256], dead_a[128], dead_other[128], live[128], locked[128], subdir[512];
	char path[512], our_tag[64], toolong[128], lockpath[512];
	/* The old name without a pid, and a name without the leading dot. */
	const char *const keep[] = { ".x.trace.12345.AbC123", "x.trace.gpuprobe-1.AbC123" };
	struct trace_writer w;
	pid_t dead = dead_pid();
	int lockfd;

	snprintf(dir, sizeof(dir), "%s", test_tmp_path("temps"));
	CHECK(mkdir(dir, 0700) == 0, "mkdir %s", dir);
	snprintf(dead_a, sizeof(dead_a), ".x.trace.gpuprobe-%d.AbC123", (int)dead);
	snprintf(dead_other, sizeof(dead_other), ".other.trace.gpuprobe-%d.ZzZ999", (int)dead);
	snprintf(live, sizeof(live), ".x.trace.gpuprobe-%d.LiVe00", (int)getpid());
	snprintf(locked, sizeof(locked), ".x.trace.gpuprobe-%d.LoCk00", (int)dead);
	snprintf(toolong, sizeof(toolong), ".x.trace.gpuprobe-%d.toolong7", (int)dead);
	snprintf(subdir, sizeof(subdir), "%s/.y.trace.gpuprobe-%d.DiR000", dir, (int)dead);
	touch_in(dir, dead_a);
	touch_in(dir, dead_other);
	touch_in(dir, live);
	touch_in(dir, locked);
	touch_in(dir, toolong);
	touch_in(dir, keep[0]);
	touch_in(dir, keep[1]);
	CHECK(mkdir(subdir, 0700) == 0, "mkdir %s", subdir);
	/* A recorder in another pid namespace: its pid means nothing here, its lock does. */
	snprintf(lockpath, sizeof(lockpath), "%s/%s", dir, locked);
	lockfd = open(lockpath, O_RDONLY);
	CHECK(lockfd >= 0 && flock(lockfd, LOCK_EX) == 0, "lock %s", lockpath);

	snprintf(path, sizeof(path), "%s/x.trace", dir);
	CHECK(trace_writer_create_temp(&w, path) == 0, "create_temp %s", path);
	CHECK(!exists_in(dir, dead_a), "%s (dead recorder) still there", dead_a);
	CHECK(!exists_in(dir, dead_other), "%s (dead recorder, other name) still there", dead_other);
	CHECK(exists_in(dir, live), "%s (live recorder) removed", live);
	CHECK(exists_in(dir, locked), "%s (locked) removed", locked);
	CHECK(exists_in(dir, toolong), "%s (not our name) removed", toolong);
	CHECK(exists_in(dir, keep[0]) && exists_in(dir, keep[1]), "a name not ours was removed");
	CHECK(access(subdir, F_OK) == 0, "a directory was removed");
	snprintf(our_tag, sizeof(our_tag), "/.x.trace.gpuprobe-%d.", (int)getpid());
	CHECK(strstr(w.temp_path, our_tag) != NULL, "temporary name %s lacks %s", w.temp_path,
	      our_tag);
	trace_writer_abort(&w);
	close(lockfd);

	unlink(lockpath);
	rmdir(subdir);
	for (const char *const *n = (const char *const[]){ live, toolong, keep[0], keep[1], NULL };
	     *n; n++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *n);
		unlink(path);
	}
	CHECK(rmdir(dir) == 0, "%s not empty after the test", dir);
}

/* ---- application events: resynchronising after cut and corrupt events ---- */

static struct gpuprobe_app_event app_event(const char *name, uint64_t start_ns)
{
	struct gpuprobe_app_event ev = {
		.magic = GPUPROBE_APP_MAGIC, .version = GPUPROBE_APP_VERSION,
		.api = GPUPROBE_APP_CUDA, .size = sizeof(ev), .type = GPUPROBE_APP_KERNEL,
		.start_ns = start_ns, .end_ns = start_ns + 1000, .bytes = 0,
	};

	snprintf(ev.name, sizeof(ev.name), "%s", name);
	return ev;
}

static void put_bytes(FILE *f, const void *p, size_t n)
{
	CHECK(fwrite(p, 1, n, f) == n, "short write of the events file");
}

void test_app_merge_resyncs(void)
{
	struct gpuprobe_app_event k1 = app_event("k1", 100), k2 = app_event("k2-cut", 200),
		k3 = app_event("k3", 300), k4 = app_event("k4", 400), k5 = app_event("k5-bad", 500),
		k6 = app_event("k6", 600), k7 = app_event("k7-cut", 700);
	static const char *const want[] = { "k1", "k3", "k4", "k6" };
	const char *events = test_tmp_path("app-events"), *out = test_tmp_path("app.trace");
	unsigned char junk[13];
	struct app_inject ai = { .active = true };
	struct trace_writer w;
	size_t len = 0, off = 0, n = 0;
	char *data;
	FILE *f = fopen(events, "wb");

	CHECK(f != NULL, "cannot create %s", events);
	if (!f)
		return;
	memset(junk, 0xff, sizeof(junk));
	k5.magic ^= 0xffff;
	put_bytes(f, &k1, sizeof(k1));
	put_bytes(f, &k2, 100);		/* killed mid-write, header and times whole */
	put_bytes(f, &k3, sizeof(k3));
	put_bytes(f, junk, sizeof(junk));
	put_bytes(f, &k4, sizeof(k4));
	put_bytes(f, &k5, sizeof(k5));	/* corrupt */
	put_bytes(f, &k2, 5);		/* killed inside the header */
	put_bytes(f, &k6, sizeof(k6));
	put_bytes(f, &k7, 40);		/* the file's cut tail */
	fclose(f);

	snprintf(ai.events_path, sizeof(ai.events_path), "%s", events);
	CHECK(trace_writer_create(&w, out) == 0, "cannot create %s", out);
	CHECK_EQ_U64(app_inject_merge(&ai, &w, true), 4);
	trace_writer_close_incomplete(&w);
	CHECK(access(events, F_OK) != 0, "the events file was left behind");

	data = read_whole_file(out, &len);
	CHECK(data != NULL, "cannot read %s", out);
	while (data && len - off >= sizeof(struct tracefile_rec_app)) {
		struct tracefile_rec_app rec;

		memcpy(&rec, data + off, sizeof(rec));
		CHECK(rec.hdr.type == TRACEFILE_REC_APP && rec.hdr.size == sizeof(rec),
		      "record %zu: type %u size %u", n, rec.hdr.type, rec.hdr.size);
		CHECK(n < 4 && !strcmp(rec.ev.name, want[n]), "record %zu is '%s', expected '%s'",
		      n, rec.ev.name, n < 4 ? want[n] : "none");
		CHECK_EQ_U64(rec.hdr.ts_ns, rec.ev.start_ns);
		off += sizeof(rec);
		n++;
	}
	CHECK_EQ_U64(n, 4);
	CHECK_EQ_U64(off, len);
	free(data);
	unlink(out);
}
