// SPDX-License-Identifier: GPL-2.0
/* Run the traced command; see workload.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "workload.h"

volatile sig_atomic_t workload_hurry;

static void child_run(int go_fd, char *const argv[], bool stdout_to_stderr)
{
	sigset_t none;
	char go;

	/* the trace goes to stdout (-o -): the command's output must not land in it */
	if (stdout_to_stderr)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);	/* the recorder ignores it; exec keeps ignored signals */
	/* EOF instead of the go byte: the recorder gave up before starting. */
	if (read(go_fd, &go, 1) != 1)
		_exit(127);
	close(go_fd);
	/*
	 * The command starts with no signal blocked, whatever the recorder's
	 * caller blocked, and none pending: a probe SIGWINCH of
	 * tracefs_pidns.c that a blocked mask kept is dropped (ignoring a
	 * signal discards it) rather than handed to the command.
	 */
	signal(SIGWINCH, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGWINCH, SIG_DFL);
	execvp(argv[0], argv);
	fprintf(stderr, "%s: cannot run '%s': %s\n", progname, argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

int workload_spawn(struct workload *w, char *const argv[], bool stdout_to_stderr)
{
	int fds[2];

	memset(w, 0, sizeof(*w));
	w->go_fd = -1;
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	w->pid = fork();
	if (w->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (w->pid == 0) {
		close(fds[1]);
		child_run(fds[0], argv, stdout_to_stderr);
	}
	close(fds[0]);
	w->go_fd = fds[1];
	return 0;
}

void workload_release(struct workload *w)
{
	char go = 1;

	if (w->go_fd < 0)
		return;
	if (write(w->go_fd, &go, 1) != 1)
		warnf("could not start the workload: %s", strerror(errno));
	close(w->go_fd);
	w->go_fd = -1;
}

bool workload_poll(struct workload *w)
{
	if (w->pid <= 0 || w->exited)
		return w->exited;
	if (waitpid(w->pid, &w->status, WNOHANG) == w->pid)
		w->exited = true;
	return w->exited;
}

void workload_stop(struct workload *w, int sig, int grace_ms)
{
	struct timespec tick = { 0, 10 * 1000000L };

	if (w->go_fd >= 0) {
		close(w->go_fd);	/* never released: it exits 127 on EOF */
		w->go_fd = -1;
	}
	if (w->pid <= 0 || workload_poll(w))
		return;
	if (sig)
		kill(w->pid, sig);
	for (int waited = 0; waited < grace_ms && !workload_hurry; waited += 10) {
		if (workload_poll(w))
			return;
		nanosleep(&tick, NULL);
	}
	if (workload_hurry)
		warnf("interrupted again: killing workload %d", (int)w->pid);
	else
		warnf("workload %d did not exit after %d ms: killing it", (int)w->pid, grace_ms);
	kill(w->pid, SIGKILL);
	if (waitpid(w->pid, &w->status, 0) == w->pid)
		w->exited = true;
}

int workload_exit_code(const struct workload *w)
{
	if (!w->exited)
		return 1;
	if (WIFEXITED(w->status))
		return WEXITSTATUS(w->status);
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return 1;
}
