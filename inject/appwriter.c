// SPDX-License-Identifier: GPL-2.0
/*
 * Application event writer.  Records are buffered per process and written
 * with one write() per batch on an O_APPEND descriptor, so the processes of
 * a workload share the file without interleaving inside a record.  A forked
 * child drops the parent's buffered records (the parent writes them).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "appwriter.h"

#define BUF_EVENTS	512

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;	/* the long names written */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int fd = -1;
static uint32_t pid;
static unsigned int nbuf;
static struct gpuprobe_app_event buf[BUF_EVENTS];

uint64_t appwriter_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint32_t appwriter_tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static void after_fork_child(void)
{
	nbuf = 0;
	pid = (uint32_t)getpid();
	pthread_mutex_init(&lock, NULL);
	pthread_mutex_init(&names_lock, NULL);	/* the child keeps the list: the parent wrote them */
}

static void open_once(void)
{
	const char *path = getenv(GPUPROBE_APP_EVENTS_ENV);

	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "gpuprobe: cannot open %s=%s: %s; no application events\n",
			GPUPROBE_APP_EVENTS_ENV, path, strerror(errno));
		return;
	}
	pid = (uint32_t)getpid();
	pthread_atfork(NULL, NULL, after_fork_child);
}

bool appwriter_open(void)
{
	pthread_once(&once, open_once);
	return fd >= 0;
}

void appwriter_init_event(struct gpuprobe_app_event *ev, uint8_t api, uint16_t type)
{
	memset(ev, 0, sizeof(*ev));
	ev->magic = GPUPROBE_APP_MAGIC;
	ev->version = GPUPROBE_APP_VERSION;
	ev->size = sizeof(*ev);
	ev->api = api;
	ev->type = type;
	ev->pid = pid;
}

static uint64_t *names_sent;	/* hashes of the long names written whole */
static size_t nnames_sent, names_cap;

/* Whether hash is new (and now remembered); a full memory keeps writing it. */
static bool first_time(uint64_t hash)
{
	bool fresh = true;

	pthread_mutex_lock(&names_lock);
	for (size_t i = 0; i < nnames_sent && fresh; i++)
		fresh = names_sent[i] != hash;
	if (fresh && nnames_sent == names_cap) {
		size_t cap = names_cap ? 2 * names_cap : 64;
		uint64_t *p = realloc(names_sent, cap * sizeof(*p));

		if (p) {
			names_sent = p;
			names_cap = cap;
		}
	}
	if (fresh && nnames_sent < names_cap)
		names_sent[nnames_sent++] = hash;
	pthread_mutex_unlock(&names_lock);
	return fresh;
}

/* The whole name, in pieces, before the event that carries its short form. */
static void put_whole_name(uint8_t api, const char *name, size_t len, uint64_t hash)
{
	struct gpuprobe_app_event ev;
	bool cut = len > GPUPROBE_APP_WHOLE_NAME_MAX;

	if (cut)
		len = GPUPROBE_APP_WHOLE_NAME_MAX;
	if (!first_time(hash))
		return;
	for (size_t off = 0, piece = 0; off < len; off += GPUPROBE_APP_NAME_PIECE, piece++) {
		size_t n = len - off < GPUPROBE_APP_NAME_PIECE ? len - off : GPUPROBE_APP_NAME_PIECE;

		appwriter_init_event(&ev, api, GPUPROBE_APP_NAME);
		ev.correlation = hash;
		ev.bytes = len;
		ev.kind = (uint32_t)piece;
		ev.flags = cut ? GPUPROBE_APPF_TRUNCATED_NAME : 0;	/* the text stops short of the name */
		memcpy(ev.name, name + off, n);
		ev.name[n] = '\0';
		appwriter_put(&ev);
	}
}

/*
 * Long names (mangled C++ kernels) keep their first 46 characters and a hash
 * of the whole name, so different kernels stay different in per-name totals;
 * the whole name goes once into the events (NAME pieces) for the trace's
 * string table.
 */
void appwriter_set_name(struct gpuprobe_app_event *ev, const char *name)
{
	size_t len = name ? strlen(name) : 0;
	uint64_t hash = 0xcbf29ce484222325ull;	/* FNV-1a */

	if (len < sizeof(ev->name)) {
		memcpy(ev->name, name ? name : "", len);
		ev->name[len] = '\0';
		return;
	}
	for (size_t i = 0; i < len; i++)
		hash = (hash ^ (unsigned char)name[i]) * 0x100000001b3ull;
	snprintf(ev->name, sizeof(ev->name), "%.46s~%016llx", name, (unsigned long long)hash);
	ev->flags |= GPUPROBE_APPF_TRUNCATED_NAME;
	put_whole_name(ev->api, name, len, hash);
}

/* Called with the lock held. */
static void write_buffer(void)
{
	const char *p = (const char *)buf;
	size_t left = nbuf * sizeof(buf[0]);

	while (left) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;	/* disk full: drop; the merge counts what arrived */
		p += n;
		left -= (size_t)n;
	}
	nbuf = 0;
}

void appwriter_put(const struct gpuprobe_app_event *ev)
{
	if (fd < 0)
		return;
	pthread_mutex_lock(&lock);
	buf[nbuf++] = *ev;
	if (nbuf == BUF_EVENTS)
		write_buffer();
	pthread_mutex_unlock(&lock);
}

void appwriter_flush(void)
{
	if (fd < 0)
		return;
	if (pthread_mutex_trylock(&lock))
		return;
	if (nbuf)
		write_buffer();
	pthread_mutex_unlock(&lock);
}

void appwriter_note(uint8_t api, const char *prefix, const char *fmt, ...)
{
	struct gpuprobe_app_event ev;
	char text[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", prefix, text);
	if (!appwriter_open())
		return;
	appwriter_init_event(&ev, api, GPUPROBE_APP_NOTE);
	ev.start_ns = ev.end_ns = appwriter_mono_ns();
	ev.tid = appwriter_tid();
	appwriter_set_name(&ev, text);
	appwriter_put(&ev);
}
