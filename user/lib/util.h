/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by every subcommand: errors, numbers, time, files. */
#ifndef GPUPROBE_UTIL_H
#define GPUPROBE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

extern const char *progname;

/* Set by `record` in its workload's environment: a probe run says it was traced. */
#define GPUPROBE_RECORDING_ENV	"GPUPROBE_RECORDING"

/* Print "gpuprobe-trace: <msg>" on stderr. */
void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

uint64_t mono_now_ns(void);
uint64_t realtime_now_ns(void);

/* Parse helpers: return 0 on success, -1 (and leave *out alone) on bad input. */
int parse_u64(const char *s, uint64_t *out);
int parse_seconds(const char *s, double *out);

/* Read a small sysfs/proc file into buf (NUL-terminated, trailing newline cut). */
int read_text_file(const char *path, char *buf, size_t size);
int read_hex_file(const char *path, uint64_t *out);
int read_u64_file(const char *path, uint64_t *out);

/* snprintf that reports truncation as an error (-1). */
int format_into(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

void copy_string(char *dst, size_t size, const char *src);

/*
 * Whether no process pid exists any more: what the names of a killed run's
 * leftovers (tracefs instances, kprobe groups, temporary files) are checked
 * by.  A pid in use by someone else, or not ours to signal, is not gone.
 */
bool pid_gone(long pid);
/*
 * Whether a /proc/PID/uid_map's text maps this user namespace's root to
 * the host's (a "0 0 N" line): then tracefs's files, the host root's, are
 * its own.
 */
bool uid_map_root_is_host_root(const char *map);

#endif /* GPUPROBE_UTIL_H */
