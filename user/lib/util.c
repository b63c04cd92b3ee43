// SPDX-License-Identifier: GPL-2.0
/* Small helpers shared by every subcommand: errors, numbers, time, files. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

const char *progname = "gpuprobe-trace";

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: %s", progname, prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void errorf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

void warnf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t mono_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t realtime_now_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

int parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v > 0) || v > 1e9)
		return -1;
	*out = v;
	return 0;
}

int read_text_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	if (size == 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int read_number_file(const char *path, int base, uint64_t *out)
{
	unsigned long long v;
	char buf[64], *end;

	if (read_text_file(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	v = strtoull(buf, &end, base);
	if (errno || end == buf)
		return -1;
	*out = v;
	return 0;
}

int read_hex_file(const char *path, uint64_t *out)
{
	return read_number_file(path, 16, out);
}

int read_u64_file(const char *path, uint64_t *out)
{
	return read_number_file(path, 10, out);
}

int format_into(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return (n < 0 || (size_t)n >= size) ? -1 : 0;
}

void copy_string(char *dst, size_t size, const char *src)
{
	size_t n;

	if (size == 0)
		return;
	n = src ? strnlen(src, size - 1) : 0;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

bool pid_gone(long pid)
{
	return pid > 0 && pid == (pid_t)pid && kill((pid_t)pid, 0) && errno == ESRCH;
}

bool uid_map_root_is_host_root(const char *map)
{
	unsigned long long inside, outside, count;

	while (map && *map) {
		if (sscanf(map, "%llu %llu %llu", &inside, &outside, &count) == 3 &&
		    !inside && !outside && count)
			return true;
		map = strchr(map, '\n');
		if (map)
			map++;
	}
	return false;
}
