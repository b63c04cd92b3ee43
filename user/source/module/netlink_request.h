/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Requests to the gpuprobe module over generic netlink (netlink_request.c),
 * for netlink.c and the tests.
 */
#ifndef GPUPROBE_NETLINK_REQUEST_H
#define GPUPROBE_NETLINK_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/gpuprobe.h>

struct nl_msg;
struct nl_sock;

#define REPLY_TIMEOUT_MS	5000

struct nl_conn {
	struct nl_sock *sock;
	int family;
	int reply_timeout_ms;		/* conn_open: REPLY_TIMEOUT_MS */
};

struct request {
	int (*on_msg)(struct nl_msg *msg, void *arg);	/* each reply message */
	void *arg;
	bool done;
	int error;		/* negative errno from the kernel */
	char extack[160];
};

/* A non-blocking socket with the gpuprobe family resolved; -1 with err. */
int conn_open(struct nl_conn *c, char *err, size_t errlen);
void conn_close(struct nl_conn *c);

/*
 * Send command cmd (put_attrs adds its attributes) and wait for its ACK or
 * error, at most c->reply_timeout_ms between replies; req->on_msg sees each
 * reply message.  0, or -1 with err saying why.
 */
int nl_do(struct nl_conn *c, uint8_t cmd,
	  int (*put_attrs)(struct nl_msg *msg, const void *arg), const void *put_arg,
	  struct request *req, char *err, size_t errlen);

/* poll() for input on sock. */
int wait_readable(struct nl_sock *sock, int timeout_ms);
/* A sequence-number check that accepts all: unicast records carry seq 0. */
int skip_seq_check(struct nl_msg *msg, void *arg);

#endif /* GPUPROBE_NETLINK_REQUEST_H */
