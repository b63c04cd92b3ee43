// SPDX-License-Identifier: GPL-2.0
/*
 * Where host and agent meet: vsock (the hypervisor's host<->guest channel,
 * no network needed; the guest's CID is in its QEMU command line,
 * guest-cid=N) or TCP (any network, and localhost for tests).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/vm_sockets.h>

#include "protocol.h"
#include "util.h"

static int parse_port(const char *s, unsigned int *port)
{
	uint64_t v;

	if (parse_u64(s, &v) || v == 0 || v > 0xffffffffu)
		return -1;
	*port = (unsigned int)v;
	return 0;
}

static int parse_vsock(const char *rest, bool listening, struct remote_addr *a,
		       char *err, size_t errlen)
{
	char cid[32] = "", *colon;
	uint64_t v;

	a->family = AF_VSOCK;
	a->port = REMOTE_DEFAULT_PORT;
	a->cid = VMADDR_CID_ANY;
	if (!*rest)
		return listening ? 0 : -1;
	if (*rest++ != ':' || strlen(rest) >= sizeof(cid))
		return -1;
	copy_string(cid, sizeof(cid), rest);
	colon = strchr(cid, ':');
	if (colon) {
		*colon = '\0';
		if (parse_port(colon + 1, &a->port))
			return -1;
	}
	if (!cid[0])
		return listening ? 0 : -1;
	if (parse_u64(cid, &v) || v > 0xffffffffu)
		return -1;
	a->cid = (unsigned int)v;
	(void)err;
	(void)errlen;
	return 0;
}

static int parse_tcp(const char *rest, struct remote_addr *a)
{
	const char *colon = strrchr(rest, ':');
	size_t hlen;

	a->family = AF_INET;
	if (*rest++ != ':' || !colon || colon < rest)
		return -1;
	hlen = (size_t)(colon - rest);
	if (hlen >= sizeof(a->host) || parse_port(colon + 1, &a->port) || a->port > 65535)
		return -1;
	memcpy(a->host, rest, hlen);
	a->host[hlen] = '\0';
	/* [::1]:5999 */
	if (a->host[0] == '[' && hlen >= 2 && a->host[hlen - 1] == ']') {
		memmove(a->host, a->host + 1, hlen - 2);
		a->host[hlen - 2] = '\0';
	}
	return 0;
}

int remote_addr_parse(const char *s, bool listening, struct remote_addr *a,
		      char *err, size_t errlen)
{
	int bad = -1;

	memset(a, 0, sizeof(*a));
	if (!strncmp(s, "vsock", 5))
		bad = parse_vsock(s + 5, listening, a, err, errlen);
	else if (!strncmp(s, "tcp", 3))
		bad = parse_tcp(s + 3, a);
	if (bad)
		snprintf(err, errlen, "bad address '%s': use %s", s,
			 listening ? "vsock[:CID][:PORT] (default vsock::5999) or tcp:ADDR:PORT"
				   : "vsock:CID[:PORT] (the guest's CID, QEMU guest-cid=) or tcp:HOST:PORT");
	return bad;
}

void remote_addr_format(const struct remote_addr *a, char *out, size_t size)
{
	if (a->family == AF_VSOCK && a->cid == VMADDR_CID_ANY)
		snprintf(out, size, "vsock::%u (any CID)", a->port);
	else if (a->family == AF_VSOCK)
		snprintf(out, size, "vsock:%u:%u", a->cid, a->port);
	else
		snprintf(out, size, "tcp:%s:%u", a->host, a->port);
}

/* One socket per address family; TCP resolves the name (numeric or not). */
static int make_socket(const struct remote_addr *a, struct sockaddr_storage *ss,
		       socklen_t *len, bool listening, char *err, size_t errlen)
{
	int fd;

	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_VSOCK) {
		struct sockaddr_vm *vm = (struct sockaddr_vm *)ss;

		vm->svm_family = AF_VSOCK;
		vm->svm_cid = a->cid;
		vm->svm_port = a->port;
		*len = sizeof(*vm);
	} else {
		struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
					  .ai_flags = listening ? AI_PASSIVE : 0 };
		struct addrinfo *res;
		char port[16];
		int rc;

		snprintf(port, sizeof(port), "%u", a->port);
		rc = getaddrinfo(a->host[0] ? a->host : NULL, port, &hints, &res);
		if (rc) {
			snprintf(err, errlen, "tcp:%s:%u: %s", a->host, a->port, gai_strerror(rc));
			return -1;
		}
		memcpy(ss, res->ai_addr, res->ai_addrlen);
		*len = res->ai_addrlen;
		freeaddrinfo(res);
	}
	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "%s socket: %s%s", a->family == AF_VSOCK ? "vsock" : "tcp",
			 strerror(errno), a->family == AF_VSOCK && errno == EAFNOSUPPORT ?
			 " (no vsock in this kernel: load vmw_vsock_virtio_transport in the guest, vhost_vsock on the host, or use tcp:)" : "");
		return -1;
	}
	if (ss->ss_family != AF_VSOCK) {
		int one = 1;

		/* small SYNC messages must not wait for Nagle: the round trip is the bound */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	return fd;
}

int remote_connect(const struct remote_addr *a, int timeout_ms, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	struct pollfd p;
	char name[300];
	socklen_t len, elen = sizeof(int);
	int fd, soerr = 0, n;

	remote_addr_format(a, name, sizeof(name));
	fd = make_socket(a, &ss, &len, false, err, errlen);
	if (fd < 0)
		return -1;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if (connect(fd, (struct sockaddr *)&ss, len) && errno != EINPROGRESS) {
		soerr = errno;
	} else {
		p = (struct pollfd){ .fd = fd, .events = POLLOUT };
		do
			n = poll(&p, 1, timeout_ms);
		while (n < 0 && errno == EINTR);
		if (n == 0)
			soerr = ETIMEDOUT;
		else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &elen))
			soerr = errno;
	}
	if (soerr) {
		snprintf(err, errlen, "cannot connect to the agent at %s: %s (is `gpuprobe-trace agent` running in the guest, listening there?)",
			 name, strerror(soerr));
		close(fd);
		return -1;
	}
	return fd;
}

int remote_listen(const struct remote_addr *a, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char name[300];
	int fd, one = 1;

	remote_addr_format(a, name, sizeof(name));
	fd = make_socket(a, &ss, &len, true, err, errlen);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 4)) {
		snprintf(err, errlen, "cannot listen on %s: %s", name, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int remote_accept(int lfd, char *peer, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int fd = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ss.ss_family == AF_VSOCK) {
		const struct sockaddr_vm *vm = (const void *)&ss;

		snprintf(peer, size, "vsock:%u:%u", vm->svm_cid, vm->svm_port);
	} else {
		char host[INET6_ADDRSTRLEN] = "?";
		unsigned int port = 0;

		if (ss.ss_family == AF_INET) {
			const struct sockaddr_in *in = (const void *)&ss;

			inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
			port = ntohs(in->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			const struct sockaddr_in6 *in6 = (const void *)&ss;

			inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
			port = ntohs(in6->sin6_port);
		}
		snprintf(peer, size, "tcp:%s:%u", host, port);
	}
	return fd;
}
