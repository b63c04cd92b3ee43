// SPDX-License-Identifier: GPL-2.0
/*
 * benchrun CMD ARGS...: run CMD (stdout to /dev/null), print wall time, CPU
 * time and peak RSS (to $BENCHRUN_OUT when set).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status, fd;
	FILE *out;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: benchrun CMD [ARGS...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid == 0) {
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* BENCHRUN_OUT=FILE: the line goes there (benchrun inside a recorder) */
	out = getenv("BENCHRUN_OUT") && *getenv("BENCHRUN_OUT") ?
	      fopen(getenv("BENCHRUN_OUT"), "a") : stdout;
	if (!out) {
		perror(getenv("BENCHRUN_OUT"));
		return 1;
	}
	fprintf(out, "wall_s=%.3f user_s=%.3f sys_s=%.3f maxrss_kb=%ld status=%d\n",
		(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss,
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return out == stdout ? 0 : fclose(out) != 0;
}
