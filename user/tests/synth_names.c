// SPDX-License-Identifier: GPL-2.0
/*
 * gentrace names FILE: a trace whose kernels have names of thousands of
 * characters, through record's own merge (workload/appinject.c) of an events
 * file written here the way inject/appwriter.c writes one, but by this
 * code's own hand: the NAME pieces, the short forms and their FNV-1a hashes.
 *
 *   long    "_ZN" + 50 x "4abcd" + "1fI" + 600 x "i" + "EEvv" (860 characters):
 *           demangled (Itanium C++ ABI: N...E a nested name of 4-character
 *           parts, I...E 600 template arguments of type int, 'v' the void
 *           return and no parameters) "void " + 50 x "abcd::" + "f<int, ...
 *           int>()", 3308 characters; its pieces are sent twice (two
 *           processes used it), the second time in reverse order
 *   huge    20000 'x': past the 16384 kept, so its string is cut (flag)
 *   lost    "lost_" and 95 'y': its second piece never arrives, so it stays short
 *   short   "short_kernel": never shortened
 * Each kernel runs once, 1 us, at 1 ms steps; 1 interrupt inside each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "appinject.h"
#include "synth.h"
#include "util.h"

#define NEST		50
#define TARGS		600
#define HUGE_LEN	20000
#define PIECE		63

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ull;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

static void event(FILE *f, uint16_t type, uint32_t pid, uint64_t start, uint64_t end,
		  const char *name, uint32_t flags, uint64_t corr, uint64_t bytes, uint32_t kind)
{
	struct gpuprobe_app_event ev = {
		.magic = GPUPROBE_APP_MAGIC, .version = GPUPROBE_APP_VERSION, .api = GPUPROBE_APP_CUDA,
		.size = sizeof(ev), .type = type, .kind = kind, .flags = flags, .pid = pid,
		.correlation = corr, .start_ns = start, .end_ns = end, .bytes = bytes,
	};

	snprintf(ev.name, sizeof(ev.name), "%s", name);
	fwrite(&ev, sizeof(ev), 1, f);
}

/* name's pieces (len bytes kept of whole, hash of all of it), in order or backwards */
static void pieces(FILE *f, uint32_t pid, const char *name, size_t len, uint64_t hash, bool cut,
		   bool backwards, size_t skip)
{
	size_t n = (len + PIECE - 1) / PIECE;

	for (size_t k = 0; k < n; k++) {
		size_t i = backwards ? n - 1 - k : k;
		char buf[PIECE + 1];
		size_t m = len - i * PIECE < PIECE ? len - i * PIECE : PIECE;

		if (i == skip)
			continue;
		memcpy(buf, name + i * PIECE, m);
		buf[m] = '\0';
		event(f, GPUPROBE_APP_NAME, pid, 0, 0, buf, cut ? GPUPROBE_APPF_TRUNCATED_NAME : 0,
		      hash, len, (uint32_t)i);
	}
}

static void kernel(FILE *f, uint64_t t, const char *whole, bool shortened)
{
	char shown[64];

	if (shortened)
		snprintf(shown, sizeof(shown), "%.46s~%016llx", whole,
			 (unsigned long long)fnv1a(whole, strlen(whole)));
	else
		snprintf(shown, sizeof(shown), "%s", whole);
	event(f, GPUPROBE_APP_KERNEL, 100, t, t + 1000, shown,
	      shortened ? GPUPROBE_APPF_TRUNCATED_NAME : 0, t, 0, 0);
}

int synth_write_names(const char *path)
{
	char *longn = malloc(16 + 5 * NEST + TARGS), *huge = malloc(HUGE_LEN + 1), lost[101];
	struct app_inject ai = { .active = true };
	struct trace_writer w;
	struct trace_info info;
	int ret = -1;
	FILE *f;

	if (!longn || !huge)
		goto out;
	strcpy(longn, "_ZN");
	for (int i = 0; i < NEST; i++)
		strcat(longn, "4abcd");
	strcat(longn, "1fI");
	memset(longn + strlen(longn), 'i', TARGS);
	strcpy(longn + 3 + 5 * NEST + 3 + TARGS, "EEvv");
	memset(huge, 'x', HUGE_LEN);
	huge[HUGE_LEN] = '\0';
	memset(lost, 'y', 100);
	memcpy(lost, "lost_", 5);
	lost[100] = '\0';
	snprintf(ai.events_path, sizeof(ai.events_path), "%s.events", path);
	f = fopen(ai.events_path, "w");
	if (!f)
		goto out;
	pieces(f, 100, longn, strlen(longn), fnv1a(longn, strlen(longn)), false, false, SIZE_MAX);
	pieces(f, 101, longn, strlen(longn), fnv1a(longn, strlen(longn)), false, true, SIZE_MAX);
	pieces(f, 100, huge, 16384, fnv1a(huge, HUGE_LEN), true, false, SIZE_MAX);
	pieces(f, 100, lost, 100, fnv1a(lost, 100), false, false, 1);
	synth_info(&info);
	kernel(f, info.start_ns + 1000000, longn, true);
	kernel(f, info.start_ns + 2000000, huge, true);
	kernel(f, info.start_ns + 3000000, lost, true);
	kernel(f, info.start_ns + 4000000, "short_kernel", false);
	if (fclose(f) || synth_open(&w, path, &info))
		goto out;
	for (int i = 1; i <= 4; i++) {
		struct gpuprobe_rec_irq irq;

		synth_irq(&irq, info.start_ns + (uint64_t)i * 1000000 + 500, 0, 0, 100, true);
		trace_writer_put(&w, &irq.hdr);
	}
	if (app_inject_merge(&ai, &w, true) != 4)
		goto out;
	ret = trace_writer_finish(&w, info.start_ns + 5000000, 0);
out:
	unlink(ai.events_path);
	free(longn);
	free(huge);
	return ret;
}
