// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "testlib.h"

int test_failed_checks;

/* report.c and export.c want main.c's help printer; tests print no usage. */
void usage_of(const char *cmd, FILE *out);
void usage_of(const char *cmd, FILE *out)
{
	(void)cmd;
	(void)out;
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "    %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	test_failed_checks++;
}

int run_tests(const struct test_case *cases, int n, int *passed)
{
	int failed = 0;

	for (int i = 0; i < n; i++) {
		int before = test_failed_checks;

		cases[i].fn();
		if (test_failed_checks == before) {
			printf("PASS %s\n", cases[i].name);
			(*passed)++;
		} else {
			printf("FAIL %s\n", cases[i].name);
			failed++;
		}
		fflush(stdout);
	}
	return failed;
}

const char *test_tmp_path(const char *stem)
{
	static char paths[8][256];
	static int next, serial;
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *p = paths[next++ % 8];

	snprintf(p, 256, "%s/gpuprobe-test-%d-%d-%s", dir, (int)getpid(), serial++, stem);
	return p;
}
