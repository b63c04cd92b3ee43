// SPDX-License-Identifier: GPL-2.0
/*
 * record --source xentrace, in Xen's dom0: Debian's xentrace reads Xen's
 * per-CPU trace buffers into a file (xentrace -D -e MASK -S PAGES FILE)
 * while the recording runs; at the end it is stopped (SIGINT: it reads the
 * buffers one last time) and its file becomes records (xentrace_records.c).
 * The mask, XENTRACE_SOURCE_MASK, is classes HVM and HW with subclass 2:
 * TRC_HVM_HANDLER (INJ_VIRQ, INTR, ...) and TRC_HW_IRQ (IRQ_HANDLED, ...),
 * not VMENTRY/VMEXIT (subclass 1), which would be most of the volume.
 *
 * Xen stamps with the physical CPU's TSC; dom0 (a PV guest) reads the same
 * TSC, so samples of (CLOCK_MONOTONIC, TSC) at the start and the end put
 * Xen's records on dom0's clock.  With --xentrace-input FILE an existing
 * file is converted instead, on a line of two samples 50 ms apart now
 * (right only if the file is of this boot).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "machine.h"
#include "source.h"
#include "tscclock.h"
#include "util.h"
#include "xentrace_records.h"

#define XENTRACE_BUF_PAGES	"256"	/* per CPU: 1 MiB, polled every 100 ms by xentrace */

struct xentrace_src {
	const struct source_config *cfg;
	char xentrace[PATH_MAX];	/* the binary */
	char path[PATH_MAX];		/* its output */
	char log[PATH_MAX];		/* its stderr */
	bool temporary;			/* path and log removed at close */
	pid_t pid;
	struct tsc_sample start, stop;
	bool have_start, have_stop;
	uint64_t start_ns;
	struct xentrace_stats stats;
	uint64_t written;
	bool drained;
};

/* The narrowest of tries (mono, rdtsc, mono) reads: dom0 may lack RDTSCP (the testbed's CPU does). */
static int sample_tsc(struct tsc_sample *out)
{
#if defined(__x86_64__) || defined(__i386__)
	bool have = false;

	for (int i = 0; i < 16; i++) {
		struct tsc_sample s = { .apic_id = TSC_APIC_UNKNOWN };
		int cpu = sched_getcpu();

		s.mono_lo = mono_now_ns();
		_mm_lfence();
		s.tsc = __rdtsc();
		_mm_lfence();
		s.mono_hi = mono_now_ns();
		s.cpu = cpu < 0 ? 0 : (uint32_t)cpu;
		if (!have || s.mono_hi - s.mono_lo < out->mono_hi - out->mono_lo)
			*out = s;
		have = true;
	}
	return 0;
#else
	(void)out;
	return -1;
#endif
}

static bool executable(const char *path)
{
	return !access(path, X_OK);
}

/* $GPUPROBE_XENTRACE, else xentrace on PATH, in /usr/sbin or Xen's own bin directory. */
static int find_xentrace(char *out, size_t size)
{
	static const char *const fixed[] = {
		"/usr/sbin/xentrace", "/usr/lib/xen-4.17/bin/xentrace", "/usr/lib/xen/bin/xentrace",
	};
	const char *env = getenv("GPUPROBE_XENTRACE"), *path = getenv("PATH");

	if (env && *env)
		return executable(env) && !format_into(out, size, "%s", env) ? 0 : -1;
	while (path && *path) {
		size_t n = strcspn(path, ":");

		if (n && !format_into(out, size, "%.*s/xentrace", (int)n, path) && executable(out))
			return 0;
		path += n + (path[n] == ':');
	}
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
		if (executable(fixed[i]))
			return format_into(out, size, "%s", fixed[i]);
	return -1;
}

/* An input file must start as xentrace's do: a CPU-change record. */
static int check_input(const char *path, char *err, size_t errlen)
{
	uint32_t hdr = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	n = read(fd, &hdr, sizeof(hdr));
	close(fd);
	if (n == 0)
		return 0;	/* empty: xentrace saw nothing */
	if (n != sizeof(hdr) || hdr != (XT_CPU_CHANGE | 2u << XT_EXTRA_SHIFT)) {
		snprintf(err, errlen,
			 "%s is not a file xentrace wrote: it starts with 0x%08x, not a CPU-change record (0x%08x)",
			 path, hdr, XT_CPU_CHANGE | 2u << XT_EXTRA_SHIFT);
		return -1;
	}
	return 0;
}

static void *xentrace_open(const struct source_config *cfg, char *err, size_t errlen)
{
	struct xentrace_src *x = calloc(1, sizeof(*x));
	const char *tmp = getenv("TMPDIR");

	if (!x) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	x->cfg = cfg;
	x->pid = -1;
	if (cfg->xentrace_input) {
		if (check_input(cfg->xentrace_input, err, errlen))
			goto err;
		return x;
	}
	if (access("/proc/xen/privcmd", F_OK) && access("/dev/xen/privcmd", F_OK)) {
		snprintf(err, errlen,
			 "not in Xen's dom0 (no /dev/xen/privcmd nor /proc/xen/privcmd): xentrace reads Xen's trace buffers from dom0 only; run record --source xentrace there (modprobe xen-privcmd; mount -t xenfs xenfs /proc/xen), or convert a file xentrace wrote with --xentrace-input FILE");
		goto err;
	}
	if (find_xentrace(x->xentrace, sizeof(x->xentrace))) {
		snprintf(err, errlen,
			 "xentrace not found (not on PATH, not /usr/sbin/xentrace): install Xen's tools (Debian: xen-utils-4.17) or name it with GPUPROBE_XENTRACE=/path/to/xentrace");
		goto err;
	}
	if (cfg->xentrace_file) {
		if (format_into(x->path, sizeof(x->path), "%s", cfg->xentrace_file) ||
		    format_into(x->log, sizeof(x->log), "%s.log", cfg->xentrace_file))
			goto err_long;
	} else {
		x->temporary = true;
		if (format_into(x->path, sizeof(x->path), "%s/gpuprobe-xentrace-%d.bin",
				tmp && *tmp ? tmp : "/tmp", (int)getpid()) ||
		    format_into(x->log, sizeof(x->log), "%s.log", x->path))
			goto err_long;
	}
	return x;
err_long:
	snprintf(err, errlen, "xentrace's file name is too long");
err:
	free(x);
	return NULL;
}

/* xentrace's stderr, for an error message: its last line. */
static void log_tail(const struct xentrace_src *x, char *buf, size_t size)
{
	char text[2048];
	char *end, *line;

	buf[0] = '\0';
	if (read_text_file(x->log, text, sizeof(text)) || !text[0])
		return;
	end = text + strlen(text);
	line = end;
	while (line > text && line[-1] != '\n')
		line--;
	snprintf(buf, size, "%.*s", (int)(size > 1 ? size - 1 : 0), line);
}

static int xentrace_start(void *src, char *err, size_t errlen)
{
	struct xentrace_src *x = src;
	char mask[16], why[300];
	struct timespec step = { 0, 20 * 1000000L };
	int status;

	x->start_ns = mono_now_ns();
	if (x->cfg->xentrace_input)
		return 0;
	snprintf(mask, sizeof(mask), "0x%08x", XENTRACE_SOURCE_MASK);
	unlink(x->path);
	x->pid = fork();
	if (x->pid < 0) {
		snprintf(err, errlen, "cannot start xentrace: %s", strerror(errno));
		return -1;
	}
	if (!x->pid) {
		int fd = open(x->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fd >= 0)
			dup2(fd, STDERR_FILENO);
		/* -D: what the buffers held before is not this recording's */
		execl(x->xentrace, "xentrace", "-D", "-e", mask, "-S", XENTRACE_BUF_PAGES, x->path,
		      (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", x->xentrace, strerror(errno));
		_exit(127);
	}
	/* running once its file exists (it enables tracing right after) */
	for (int i = 0; i < 250 && access(x->path, F_OK); i++) {
		if (waitpid(x->pid, &status, WNOHANG) == x->pid) {
			x->pid = -1;
			log_tail(x, why, sizeof(why));
			snprintf(err, errlen, "xentrace exited at once (%s %d): %s",
				 WIFEXITED(status) ? "status" : "signal",
				 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
				 why[0] ? why : "it said nothing");
			return -1;
		}
		nanosleep(&step, NULL);
	}
	x->have_start = !sample_tsc(&x->start);
	return 0;
}

static int xentrace_poll(void *src, int timeout_ms, const struct record_sink *sink)
{
	struct xentrace_src *x = src;
	struct timespec t = { timeout_ms / 1000, (timeout_ms % 1000) * 1000000L };
	int status;

	(void)sink;
	/* its records come at the end; meanwhile: is it still there? */
	if (x->pid > 0 && waitpid(x->pid, &status, WNOHANG) == x->pid) {
		char why[300];

		x->pid = -1;
		log_tail(x, why, sizeof(why));
		warnf("xentrace ended during the recording (%s): what it wrote is kept", why);
	}
	nanosleep(&t, NULL);
	return 0;
}

static int xentrace_stop(void *src)
{
	struct xentrace_src *x = src;
	int status;

	x->have_stop = !sample_tsc(&x->stop);
	if (x->pid <= 0)
		return 0;
	/* SIGINT: xentrace switches tracing off and reads the buffers a last time */
	kill(x->pid, SIGINT);
	while (waitpid(x->pid, &status, 0) < 0 && errno == EINTR)
		;
	x->pid = -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		char why[300];

		log_tail(x, why, sizeof(why));
		warnf("xentrace ended with %s %d: %s", WIFEXITED(status) ? "status" : "signal",
		      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), why);
	}
	return 0;
}

/* The clock: the recording's two samples, or two now for an existing file. */
static void fit_clock(struct xentrace_src *x, struct xentrace_clock *clock)
{
	struct timespec gap = { 0, 50 * 1000000L };

	if (x->cfg->xentrace_input) {
		x->have_start = !sample_tsc(&x->start);
		nanosleep(&gap, NULL);
		x->have_stop = !sample_tsc(&x->stop);
	}
	memset(clock, 0, sizeof(*clock));
	if (x->have_start && x->have_stop)
		xentrace_clock_fit(clock, x->start.tsc, (x->start.mono_lo + x->start.mono_hi) / 2,
				   x->stop.tsc, (x->stop.mono_lo + x->stop.mono_hi) / 2);
}

static void put_samples(const struct xentrace_src *x, const struct record_sink *sink)
{
	struct tracefile_rec_tsc rec;

	if (x->have_start) {
		tsc_sample_record(&x->start, MACHINE_HOST, x->start.mono_lo, &rec);
		sink_put(sink, &rec.hdr);
	}
	if (x->have_stop) {
		tsc_sample_record(&x->stop, MACHINE_HOST, x->stop.mono_lo, &rec);
		sink_put(sink, &rec.hdr);
	}
}

static int xentrace_drain(void *src, const struct record_sink *sink)
{
	struct xentrace_src *x = src;
	const char *path = x->cfg->xentrace_input ? x->cfg->xentrace_input : x->path;
	struct xentrace_clock clock;
	char err[300];
	struct stat st;
	void *map = NULL;
	int fd, ret;

	if (x->drained)
		return 0;
	x->drained = true;
	fit_clock(x, &clock);
	if (!clock.known)
		warnf("no TSC samples: Xen's records are stamped with the recording's start");
	put_samples(x, sink);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		warnf("cannot read xentrace's file %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (st.st_size) {
		map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			warnf("cannot map %s: %s", path, strerror(errno));
			close(fd);
			return -1;
		}
	}
	ret = xentrace_convert(map, st.st_size, &clock, x->start_ns, sink, &x->stats, &x->written,
			       err, sizeof(err));
	if (ret)
		warnf("%s: %s (%llu records read before it)", path, err,
		      (unsigned long long)x->written);
	if (x->stats.truncated && x->stats.used < (size_t)st.st_size)
		warnf("%s ends inside a record: read up to its last whole one (%zu of %lld bytes)",
		      path, x->stats.used, (long long)st.st_size);
	else if (x->stats.truncated)
		warnf("%s ends before the end of its last CPU window (xentrace stopped while writing it): read to its last whole record",
		      path);
	if (x->stats.lost)
		warnf("Xen lost %llu trace records (its buffers were full): counts are lower bounds",
		      (unsigned long long)x->stats.lost);
	if (map)
		munmap(map, st.st_size);
	close(fd);
	return ret;
}

static void xentrace_close(void *src)
{
	struct xentrace_src *x = src;

	if (x->pid > 0)
		xentrace_stop(x);
	if (x->temporary) {
		unlink(x->path);
		unlink(x->log);
	}
	free(x);
}

static void xentrace_counters(void *src, struct source_counters *out)
{
	struct xentrace_src *x = src;

	memset(out, 0, sizeof(*out));
	out->events = x->written;
	out->lost = x->stats.lost;
}

const struct trace_source xentrace_source = {
	.name = "xentrace",
	.file_source = TRACE_SOURCE_XENTRACE,
	.open = xentrace_open,
	.start = xentrace_start,
	.poll = xentrace_poll,
	.stop = xentrace_stop,
	.drain = xentrace_drain,
	.close = xentrace_close,
	.counters = xentrace_counters,
};
