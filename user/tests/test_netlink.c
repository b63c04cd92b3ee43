// SPDX-License-Identifier: GPL-2.0
/*
 * Requests to the module when it never answers: nl_do() must give up after
 * the connection's reply timeout and say so, not hang the recording.  No
 * module is needed: the "module" is a NETLINK_USERSOCK socket of this test
 * that receives the request and stays silent (or, as a control, ACKs it).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include "netlink_request.h"
#include "testlib.h"
#include "util.h"

#define TEST_TIMEOUT_MS		300
#define FAKE_FAMILY		0x7abc

struct pair {
	struct nl_sock *module;		/* the fake module's end */
	struct nl_conn conn;		/* the tool's control connection */
};

static int pair_open(struct pair *p)
{
	memset(p, 0, sizeof(*p));
	p->module = nl_socket_alloc();
	p->conn.sock = nl_socket_alloc();
	if (!p->module || !p->conn.sock || nl_connect(p->module, NETLINK_USERSOCK) ||
	    nl_connect(p->conn.sock, NETLINK_USERSOCK))
		return -1;
	nl_socket_set_peer_port(p->conn.sock, nl_socket_get_local_port(p->module));
	nl_socket_set_peer_port(p->module, nl_socket_get_local_port(p->conn.sock));
	nl_socket_set_nonblocking(p->conn.sock);
	p->conn.family = FAKE_FAMILY;
	p->conn.reply_timeout_ms = TEST_TIMEOUT_MS;
	return 0;
}

static void pair_close(struct pair *p)
{
	nl_socket_free(p->module);
	nl_socket_free(p->conn.sock);
}

/* The request as the fake module received it; 0 bytes if none came. */
static ssize_t received(struct pair *p, struct nlmsghdr *out, size_t size)
{
	return recv(nl_socket_get_fd(p->module), out, size, MSG_DONTWAIT);
}

static void test_no_answer_times_out(void)
{
	union { struct nlmsghdr h; char buf[256]; } got;
	struct request req = { 0 };
	char err[512] = "";
	struct pair p;
	uint64_t t0, ms;
	ssize_t n;
	int ret;

	CHECK(pair_open(&p) == 0, "cannot open two NETLINK_USERSOCK sockets");
	t0 = mono_now_ns();
	ret = nl_do(&p.conn, GPUPROBE_CMD_GET_INFO, NULL, NULL, &req, err, sizeof(err));
	ms = (mono_now_ns() - t0) / 1000000;
	CHECK(ret == -1, "nl_do returned %d without an answer", ret);
	CHECK(strstr(err, "did not answer") && strstr(err, "--source tracefs"),
	      "the error does not say the module did not answer, nor what to do: '%s'", err);
	CHECK(ms >= TEST_TIMEOUT_MS && ms < 10 * TEST_TIMEOUT_MS,
	      "gave up after %llu ms, timeout %d ms", (unsigned long long)ms, TEST_TIMEOUT_MS);
	n = received(&p, &got.h, sizeof(got));
	CHECK(n >= (ssize_t)NLMSG_HDRLEN && got.h.nlmsg_type == FAKE_FAMILY &&
	      (got.h.nlmsg_flags & NLM_F_ACK), "the request never reached the silent peer (%zd bytes)", n);
	pair_close(&p);
}

/* The control: the same setup with an ACK is answered at once. */
static void test_ack_is_an_answer(void)
{
	union { struct nlmsghdr h; char buf[256]; } got;
	struct request req = { 0 };
	struct nlmsgerr ack = { 0 };
	char err[512] = "";
	struct nl_msg *msg;
	struct pair p;
	uint64_t t0;
	pid_t answerer;
	int ret;

	CHECK(pair_open(&p) == 0, "cannot open two NETLINK_USERSOCK sockets");
	p.conn.reply_timeout_ms = 5000;
	answerer = fork();
	if (answerer == 0) {	/* the fake module answers from another process */
		alarm(5);
		while (recv(nl_socket_get_fd(p.module), &got, sizeof(got), 0) <= 0)
			;
		ack.msg = got.h;
		msg = nlmsg_alloc_simple(NLMSG_ERROR, 0);
		nlmsg_hdr(msg)->nlmsg_seq = got.h.nlmsg_seq;
		nlmsg_append(msg, &ack, sizeof(ack), NLMSG_ALIGNTO);
		_exit(nl_send_auto(p.module, msg) < 0);
	}
	t0 = mono_now_ns();
	ret = nl_do(&p.conn, GPUPROBE_CMD_GET_INFO, NULL, NULL, &req, err, sizeof(err));
	CHECK(ret == 0 && req.done, "an ACK was not taken as the answer: %d, '%s'", ret, err);
	CHECK((mono_now_ns() - t0) / 1000000 < 4000, "the ACK took the whole timeout");
	waitpid(answerer, NULL, 0);
	pair_close(&p);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "module request: no answer ends after the reply timeout, saying what to do",
		  test_no_answer_times_out },
		{ "module request: an ACK on the same setup is an answer (control)",
		  test_ack_is_an_answer },
	};
	int passed = 0, failed;

	alarm(30);	/* a request that hangs fails the suite instead of hanging it */
	failed = run_tests(cases, (int)(sizeof(cases) / sizeof(cases[0])), &passed);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
