// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "json.h"
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

int test_python_json(const char *path, const char *assertions)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys\nraw=open(sys.argv[1],\"rb\").read()\n"
		 "d=json.loads(raw.decode(\"utf-8\"))\n%s' %s", assertions, path);
	return system(cmd);
}

FILE *test_json_begin(struct json *j, const char *path)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL, "open %s", path);
	if (!f)
		return NULL;
	json_init(j, f, false);
	json_object_begin(j);
	return f;
}
