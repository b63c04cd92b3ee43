// SPDX-License-Identifier: GPL-2.0
/*
 * One session of the agent: handshake, START, the guest's recording as a
 * child (`record -q -o -`), its stdout to the host as DATA and its stderr as
 * LOG, SYNC answered at any time with this machine's CLOCK_MONOTONIC, STOP
 * or a host gone quiet ends the recording; EXIT carries its status.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "protocol.h"
#include "tscclock.h"
#include "target.h"
#include "util.h"

#define START_MAX_ARGS		(8 + 2 * TARGET_MAX + 4)
#define CHILD_STOP_GRACE_MS	15000

volatile sig_atomic_t agent_exiting;

struct session {
	const struct agent_options *o;
	struct remote_chan c;
	pid_t child;
	int out_fd, err_fd;	/* the child's stdout (trace) and stderr; -1 at EOF */
	bool child_stopped;	/* SIGINT sent */
	bool exit_sent;
	uint64_t last_heard_ns;
	char *argv[START_MAX_ARGS];
	unsigned int argc;
	char line[4096];	/* stderr of the child, up to a newline */
	size_t line_len;
};

static uint64_t agent_clock_ns(const struct agent_options *o)
{
	uint64_t now = mono_now_ns();
	double drift = (double)o->test_drift_ppb / 1e9 * (double)now;

	return now + (uint64_t)o->test_offset_ns + (uint64_t)(int64_t)drift;
}

static uint64_t agent_clock_cb(void *o)
{
	return agent_clock_ns(o);
}

static void logf_agent(const struct session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void logf_agent(const struct session *s, const char *fmt, ...)
{
	va_list ap;

	if (s->o->quiet)
		return;
	fprintf(stderr, "%s agent: %s: ", progname, s->c.peer);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int add_arg(struct session *s, const char *arg)
{
	if (s->argc + 1 >= START_MAX_ARGS)
		return -1;
	s->argv[s->argc++] = (char *)arg;
	s->argv[s->argc] = NULL;
	return 0;
}

/*
 * START: key=value strings.  Everything is checked here, so that a host
 * cannot put options of its own choosing on the record command line.
 */
static int parse_start(struct session *s)
{
	char *p = (char *)s->c.payload, *end = p + s->c.hdr.length;
	const char *command = NULL, *source = "auto", *duration = NULL;
	unsigned int ntargets = 0;
	static char *targets[TARGET_MAX];

	if (s->c.hdr.length && end[-1] != '\0')
		goto malformed;
	for (; p < end; p += strlen(p) + 1) {
		uint32_t bdf;
		double secs;

		if (!strncmp(p, "source=", 7)) {
			source = p + 7;
			if (strcmp(source, "auto") && strcmp(source, "module") && strcmp(source, "tracefs"))
				goto malformed;
		} else if (!strncmp(p, "target=", 7)) {
			if (ntargets >= TARGET_MAX || bdf_parse(p + 7, &bdf))
				goto malformed;
			targets[ntargets++] = p + 7;
		} else if (!strncmp(p, "command=", 8) && !command && p[8]) {
			command = p + 8;
		} else if (!strncmp(p, "duration=", 9) && !duration) {
			duration = p + 9;
			if (parse_seconds(duration, &secs))
				goto malformed;
		} else {
			goto malformed;
		}
	}
	s->argc = 0;
	add_arg(s, s->o->self_exe);
	add_arg(s, "record");
	add_arg(s, "-q");
	add_arg(s, "-o");
	add_arg(s, "-");
	add_arg(s, "--source");
	add_arg(s, source);
	for (unsigned int i = 0; i < ntargets; i++)
		if (add_arg(s, "-d") || add_arg(s, targets[i]))
			goto malformed;
	if (duration && (add_arg(s, "--duration") || add_arg(s, duration)))
		goto malformed;
	if (command && (add_arg(s, "--") || add_arg(s, "/bin/sh") || add_arg(s, "-c") ||
			add_arg(s, command)))
		goto malformed;
	return 0;
malformed:
	snprintf(s->c.error, sizeof(s->c.error),
		 "%s: malformed START: '%.60s' (expected source=auto|module|tracefs, target=BDF, duration=SEC, command=CMD)",
		 s->c.peer, p < end ? p : "");
	return -1;
}

static int spawn_record(struct session *s)
{
	int out[2], err[2];

	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		snprintf(s->c.error, sizeof(s->c.error), "pipe: %s", strerror(errno));
		return -1;
	}
	s->child = fork();
	if (s->child < 0) {
		snprintf(s->c.error, sizeof(s->c.error), "fork: %s", strerror(errno));
		return -1;
	}
	if (s->child == 0) {
		/* the recording must not outlive the agent (killed: SIGINT ends it cleanly) */
		prctl(PR_SET_PDEATHSIG, SIGINT);
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		execv(s->o->self_exe, s->argv);
		fprintf(stderr, "cannot run %s: %s\n", s->o->self_exe, strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	s->out_fd = out[0];
	s->err_fd = err[0];
	return 0;
}

static void stop_child(struct session *s, const char *why)
{
	if (s->child <= 0 || s->child_stopped)
		return;
	logf_agent(s, "stopping the recording: %s", why);
	kill(s->child, SIGINT);
	s->child_stopped = true;
}

/* Lines of the child's stderr go to the host as LOG (and to ours). */
static void forward_stderr(struct session *s, const char *buf, size_t n, bool flush)
{
	for (size_t i = 0; i <= n; i++) {
		bool eol = i < n && buf[i] == '\n';

		if (i < n && !eol && s->line_len < sizeof(s->line) - 1) {
			s->line[s->line_len++] = buf[i];
			continue;
		}
		if (!eol && !(i == n && flush))
			continue;
		if (!s->line_len)
			continue;
		if (!s->o->quiet)
			fprintf(stderr, "%s agent: guest recording: %.*s\n", progname,
				(int)s->line_len, s->line);
		remote_send(&s->c, REMOTE_LOG, s->line, (uint32_t)s->line_len);
		s->line_len = 0;
	}
}

/* -1: the host is gone (the child is told to stop). */
static int pump_pipe(struct session *s, int *fd, bool is_trace)
{
	static char buf[REMOTE_DATA_MAX];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0) {
		if (!is_trace)
			forward_stderr(s, buf, 0, true);
		close(*fd);
		*fd = -1;
		return 0;
	}
	if (!is_trace) {
		forward_stderr(s, buf, (size_t)n, false);
		return 0;
	}
	if (remote_send(&s->c, REMOTE_DATA, buf, (uint32_t)n)) {
		stop_child(s, s->c.error);
		return -1;
	}
	return 0;
}

/* One message from the host: -1 ends the session. */
static int handle_host(struct session *s)
{
	int n = remote_recv(&s->c, 0);

	if (n == 0)
		return 0;
	if (n < 0) {
		stop_child(s, s->c.error);
		return -1;
	}
	s->last_heard_ns = mono_now_ns();
	switch (s->c.hdr.type) {
	case REMOTE_SYNC: {
		struct remote_sync_reply r = { 0 };
		struct tsc_sample t;
		uint32_t len = REMOTE_SYNC_REPLY_SHORT;

		memcpy(&r.seq, s->c.payload, sizeof(r.seq));
		r.guest_ns = agent_clock_ns(s->o);
		/* the same clock as guest_ns (the test skew included): the host maps by it */
		/*
		 * the narrowest of 32: a guest read is now and then descheduled (1.7 us under TCG);
		 * a try is two clock reads and an rdtscp (cpuid once), ~1 us there, tens of ns on hardware
		 */
		if (!tsc_sample_now(agent_clock_cb, (void *)s->o, 32, &t)) {
			r.tsc_mono_lo = t.mono_lo;
			r.tsc = t.tsc;
			r.tsc_mono_hi = t.mono_hi;
			r.cpu = t.cpu;
			r.apic_id = t.apic_id;
			len = sizeof(r);
		}
		return remote_send(&s->c, REMOTE_SYNC_REPLY, &r, len) ? -1 : 0;
	}
	case REMOTE_STOP:
		stop_child(s, "the host asked");
		return 0;
	case REMOTE_ERROR:
		snprintf(s->c.error, sizeof(s->c.error), "%s: the host gave up: %s", s->c.peer,
			 remote_text(&s->c));
		stop_child(s, s->c.error);
		return -1;
	default:
		snprintf(s->c.error, sizeof(s->c.error), "%s: malformed exchange: %s during the recording",
			 s->c.peer, remote_msg_name(s->c.hdr.type));
		remote_send_error(&s->c, "%s", s->c.error);
		stop_child(s, s->c.error);
		return -1;
	}
}

static int child_exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Stop the child (if not yet) and reap it: SIGKILL after the grace period. */
static int reap_child(struct session *s)
{
	uint64_t deadline = mono_now_ns() + (uint64_t)CHILD_STOP_GRACE_MS * 1000000;
	int status = 0;

	if (s->child <= 0)
		return -1;
	if (waitpid(s->child, &status, WNOHANG) == s->child) {
		s->child = 0;
		return child_exit_code(status);
	}
	stop_child(s, "the session ends");
	while (waitpid(s->child, &status, WNOHANG) == 0) {
		struct timespec t = { 0, 20 * 1000000 };

		if (mono_now_ns() > deadline) {
			kill(s->child, SIGKILL);
			waitpid(s->child, &status, 0);
			break;
		}
		nanosleep(&t, NULL);
	}
	s->child = 0;
	return child_exit_code(status);
}

/* The recording runs: until the child's pipes close and EXIT is sent, then until the host hangs up. */
static int run_session(struct session *s)
{
	s->last_heard_ns = mono_now_ns();
	for (;;) {
		struct pollfd p[3] = {
			{ .fd = s->c.fd, .events = POLLIN },
			{ .fd = s->out_fd, .events = POLLIN },
			{ .fd = s->err_fd, .events = POLLIN },
		};

		if (agent_exiting)
			stop_child(s, "the agent was told to exit");
		if (s->out_fd < 0 && s->err_fd < 0 && !s->exit_sent) {
			int32_t ex[2] = { reap_child(s), 0 };

			logf_agent(s, "recording ended (status %d)", ex[0]);
			if (remote_send(&s->c, REMOTE_EXIT, ex, sizeof(ex)))
				return -1;
			s->exit_sent = true;
		}
		if (poll(p, 3, 100) < 0 && errno != EINTR)
			return -1;
		if ((p[0].revents || s->c.have) && handle_host(s))
			return s->c.closed && s->exit_sent ? 0 : -1;
		if (p[1].revents && pump_pipe(s, &s->out_fd, true))
			return -1;
		if (p[2].revents)
			pump_pipe(s, &s->err_fd, false);
		if (mono_now_ns() - s->last_heard_ns > (uint64_t)s->o->timeout_ms * 1000000) {
			snprintf(s->c.error, sizeof(s->c.error), "%s: the host has been silent for %d ms",
				 s->c.peer, s->o->timeout_ms);
			stop_child(s, s->c.error);
			return -1;
		}
		if (agent_exiting && s->exit_sent)
			return 0;
	}
}

int agent_session(int fd, const char *peer, const struct agent_options *o)
{
	struct session *s = calloc(1, sizeof(*s));
	int ret = -1;

	if (!s || remote_chan_init(&s->c, fd, peer, o->timeout_ms)) {
		errorf("out of memory");
		close(fd);
		free(s);
		return -1;
	}
	s->o = o;
	s->out_fd = s->err_fd = -1;
	logf_agent(s, "connected");
	if (remote_handshake_agent(&s->c, o->token)) {
		errorf("agent: refused %s", s->c.error);
		goto out;
	}
	if (remote_expect(&s->c, REMOTE_START, o->timeout_ms) || parse_start(s)) {
		errorf("agent: refused %s", s->c.error);
		remote_send_error(&s->c, "%s", s->c.error);
		goto out;
	}
	if (spawn_record(s)) {
		errorf("agent: %s", s->c.error);
		remote_send_error(&s->c, "the agent cannot start the recording: %s", s->c.error);
		goto out;
	}
	if (!o->quiet) {
		fprintf(stderr, "%s agent: %s: authenticated; recording:", progname, s->c.peer);
		for (unsigned int i = 1; i < s->argc; i++)
			fprintf(stderr, " %s", s->argv[i]);
		fputc('\n', stderr);
	}
	ret = run_session(s);
	if (ret)
		errorf("agent: session ended early: %s", s->c.error);
	else
		logf_agent(s, "session done");
out:
	if (s->child > 0)
		reap_child(s);
	if (s->out_fd >= 0)
		close(s->out_fd);
	if (s->err_fd >= 0)
		close(s->err_fd);
	remote_chan_close(&s->c);
	free(s);
	return ret;
}
