// SPDX-License-Identifier: GPL-2.0
/*
 * `gpuprobe-trace agent`: the guest half of a host + guest recording.  It
 * listens (vsock by default, TCP as a fallback), authenticates the host by
 * the shared token, records as `record` would when the host says START,
 * and sends the trace back (remote/agent_session.c).  One session at a
 * time; with --once it exits after the first.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "cmds.h"
#include "protocol.h"
#include "util.h"

static void on_exit_signal(int sig)
{
	(void)sig;
	agent_exiting = 1;
}

static void install_agent_signals(void)
{
	struct sigaction sa = { 0 };

	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_exit_signal;	/* no SA_RESTART: accept() returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

static int parse_agent_options(int argc, char **argv, struct agent_options *o,
			       const char **token, const char **token_file)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "token", required_argument, NULL, 't' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "timeout", required_argument, NULL, 'w' },
		{ "once", no_argument, NULL, '1' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "test-clock-offset", required_argument, NULL, 'O' },
		{ "test-clock-drift", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	double secs;
	int c;

	o->listen = "vsock";
	o->timeout_ms = REMOTE_DEFAULT_TIMEOUT_MS;
	while ((c = getopt_long(argc, argv, "l:t:T:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			o->listen = optarg;
			break;
		case 't':
			*token = optarg;
			break;
		case 'T':
			*token_file = optarg;
			break;
		case 'w':
			if (parse_seconds(optarg, &secs) || secs > 3600) {
				errorf("--timeout wants seconds (0 < SEC <= 3600), not '%s'", optarg);
				return 2;
			}
			o->timeout_ms = (int)(secs * 1000);
			break;
		case '1':
			o->once = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'O':
			o->test_offset_ns = strtoll(optarg, NULL, 0);
			break;
		case 'R':	/* parts per million */
			o->test_drift_ppb = (int64_t)(strtod(optarg, NULL) * 1000);
			break;
		case 'h':
			usage_of("agent", stdout);
			return 0;
		default:
			usage_of("agent", stderr);
			return 2;
		}
	}
	if (optind < argc) {
		errorf("agent takes no arguments ('%s'): see gpuprobe-trace agent --help", argv[optind]);
		return 2;
	}
	return -1;
}

int cmd_agent(int argc, char **argv)
{
	struct agent_options *o = calloc(1, sizeof(*o));
	const char *token = NULL, *token_file = NULL;
	struct remote_addr addr;
	char err[512], where[300];
	int lfd = -1, ret;
	ssize_t n;

	if (!o) {
		errorf("out of memory");
		return 1;
	}
	ret = parse_agent_options(argc, argv, o, &token, &token_file);
	if (ret >= 0)
		goto out;
	/* usage errors first, exit 2: an address that cannot be one, no token given */
	ret = 2;
	if (remote_addr_parse(o->listen, true, &addr, err, sizeof(err))) {
		errorf("agent: --listen: %s", err);
		goto out;
	}
	if (remote_token_load(token, token_file, o->token, sizeof(o->token), err, sizeof(err))) {
		errorf("agent: %s", err);
		if (token || token_file)
			ret = 1;	/* given, but unreadable or too short */
		goto out;
	}
	ret = 1;
	/* the recording it runs needs it; say so now, not when the host connects */
	if (geteuid() != 0) {
		errorf("agent needs root: it records this machine's interrupts and DMA as `record` does (CAP_SYS_ADMIN); run it with sudo");
		goto out;
	}
	n = readlink("/proc/self/exe", o->self_exe, sizeof(o->self_exe) - 1);
	if (n <= 0) {
		errorf("agent: cannot find its own binary (/proc/self/exe): %s", strerror(errno));
		goto out;
	}
	o->self_exe[n] = '\0';
	lfd = remote_listen(&addr, err, sizeof(err));
	if (lfd < 0) {
		errorf("agent: %s", err);
		goto out;
	}
	install_agent_signals();
	remote_addr_format(&addr, where, sizeof(where));
	if (!o->quiet)
		fprintf(stderr, "%s agent: listening on %s\n", progname, where);
	ret = 0;
	while (!agent_exiting) {
		char peer[96];
		int fd = remote_accept(lfd, peer, sizeof(peer));

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			errorf("agent: accept: %s", strerror(errno));
			ret = 1;
			break;
		}
		ret = agent_session(fd, peer, o) ? 1 : 0;
		if (o->once)
			break;
	}
out:
	if (lfd >= 0)
		close(lfd);
	free(o);
	return ret;
}
