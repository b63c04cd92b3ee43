/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal test harness: one function per behaviour, counted. */
#ifndef GPUPROBE_TESTLIB_H
#define GPUPROBE_TESTLIB_H

#include <stdbool.h>
#include <stdio.h>

struct test_case {
	const char *name;
	void (*fn)(void);
};

extern int test_failed_checks;

void test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define CHECK(cond, ...) do { \
	if (!(cond)) \
		test_fail(__FILE__, __LINE__, __VA_ARGS__); \
} while (0)

#define CHECK_EQ_U64(a, b) do { \
	unsigned long long _a = (a), _b = (b); \
	if (_a != _b) \
		test_fail(__FILE__, __LINE__, "%s == %llu, expected %s == %llu", #a, _a, #b, _b); \
} while (0)

/* Runs cases; returns number failed. */
int run_tests(const struct test_case *cases, int n, int *passed);

/* Temporary file path under $TMPDIR, unique per call. */
const char *test_tmp_path(const char *stem);

/*
 * Runs python3 on the JSON file at path with `raw` (its bytes) and `d` (the
 * parsed document) defined, then the given assertion lines; 0 when they hold.
 */
int test_python_json(const char *path, const char *assertions);

struct json;
/* Opens path for writing and starts a JSON object in it; NULL (a failed check) if it cannot. */
FILE *test_json_begin(struct json *j, const char *path);

#endif /* GPUPROBE_TESTLIB_H */
