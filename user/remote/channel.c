// SPDX-License-Identifier: GPL-2.0
/*
 * Framed messages over a stream socket, with per-type length limits checked
 * before any payload is read, and deadlines on every wait: a peer that
 * stalls inside a message, sends garbage or too much is refused with a
 * sentence saying which, never waited for forever.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "protocol.h"
#include "util.h"

#define HDR_SIZE	sizeof(struct remote_hdr)

static const char *const msg_names[] = {
	[REMOTE_HELLO] = "HELLO", [REMOTE_CHALLENGE] = "CHALLENGE", [REMOTE_AUTH] = "AUTH",
	[REMOTE_READY] = "READY", [REMOTE_START] = "START", [REMOTE_DATA] = "DATA",
	[REMOTE_LOG] = "LOG", [REMOTE_SYNC] = "SYNC", [REMOTE_SYNC_REPLY] = "SYNC_REPLY",
	[REMOTE_STOP] = "STOP", [REMOTE_EXIT] = "EXIT", [REMOTE_ERROR] = "ERROR",
};

const char *remote_msg_name(uint16_t type)
{
	return type && type <= REMOTE_MSG_MAX ? msg_names[type] : "unknown";
}

void remote_msg_limits(uint16_t type, uint32_t *min, uint32_t *max)
{
	*min = 0;
	*max = 0;
	switch (type) {
	case REMOTE_HELLO:
		*min = *max = REMOTE_NONCE_SIZE;
		break;
	case REMOTE_CHALLENGE:
		*min = *max = REMOTE_NONCE_SIZE + REMOTE_MAC_SIZE;
		break;
	case REMOTE_AUTH:
		*min = *max = REMOTE_MAC_SIZE;
		break;
	case REMOTE_START:
		*max = 16u << 10;
		break;
	case REMOTE_DATA:
		*min = 1;
		*max = REMOTE_DATA_MAX;
		break;
	case REMOTE_LOG:
	case REMOTE_ERROR:
		*max = 4096;
		break;
	case REMOTE_SYNC:
		*min = *max = sizeof(uint64_t);
		break;
	case REMOTE_SYNC_REPLY:
		*min = REMOTE_SYNC_REPLY_SHORT;
		*max = sizeof(struct remote_sync_reply);
		break;
	case REMOTE_EXIT:
		*min = *max = 2 * sizeof(int32_t);
		break;
	}
}

static int chan_fail(struct remote_chan *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int chan_fail(struct remote_chan *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(c->error, sizeof(c->error), "%s: ", c->peer);
	va_start(ap, fmt);
	vsnprintf(c->error + n, sizeof(c->error) - n, fmt, ap);
	va_end(ap);
	return -1;
}

int remote_chan_init(struct remote_chan *c, int fd, const char *peer, int timeout_ms)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	c->timeout_ms = timeout_ms;
	copy_string(c->peer, sizeof(c->peer), peer);
	c->payload = malloc(REMOTE_PAYLOAD_MAX + 1);
	return c->payload ? 0 : -1;
}

void remote_chan_close(struct remote_chan *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->payload);
	c->payload = NULL;
}

static int wait_fd(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int n;

	do
		n = poll(&p, 1, ms);
	while (n < 0 && errno == EINTR);
	return n;
}

static int send_all(struct remote_chan *c, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (wait_fd(c->fd, POLLOUT, c->timeout_ms) <= 0)
				return chan_fail(c, "the peer has not read for %d ms: giving up",
						 c->timeout_ms);
			continue;
		}
		return chan_fail(c, "send: %s", strerror(n < 0 ? errno : EPIPE));
	}
	return 0;
}

int remote_send(struct remote_chan *c, uint16_t type, const void *payload, uint32_t len)
{
	struct remote_hdr h = {
		.magic = REMOTE_MAGIC, .version = REMOTE_VERSION, .type = type, .length = len,
	};

	if (c->fd < 0)
		return chan_fail(c, "not connected");
	if (send_all(c, &h, sizeof(h)))
		return -1;
	return len ? send_all(c, payload, len) : 0;
}

void remote_send_error(struct remote_chan *c, const char *fmt, ...)
{
	char text[512];
	int saved = c->timeout_ms;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	c->timeout_ms = 200;	/* a refusal must not wait on a peer that does not read */
	remote_send(c, REMOTE_ERROR, text, (uint32_t)strlen(text));
	c->timeout_ms = saved;
}

/* The header is whole: is it one we accept? */
static int check_header(struct remote_chan *c)
{
	uint32_t min, max;

	if (c->hdr.magic != REMOTE_MAGIC)
		return chan_fail(c, "malformed message: bad magic 0x%08x (not a gpuprobe-trace peer, or a different protocol)",
				 c->hdr.magic);
	if (c->hdr.version != REMOTE_VERSION)
		return chan_fail(c, "protocol version %u, this side speaks %u: use the same gpuprobe-trace version on host and guest",
				 c->hdr.version, REMOTE_VERSION);
	if (!c->hdr.type || c->hdr.type > REMOTE_MSG_MAX || c->hdr.reserved)
		return chan_fail(c, "malformed message: type %u", c->hdr.type);
	remote_msg_limits(c->hdr.type, &min, &max);
	if (c->hdr.length > max || c->hdr.length < min)
		return chan_fail(c, "malformed message: %s of %u bytes (allowed: %u to %u): refused before reading it",
				 remote_msg_name(c->hdr.type), c->hdr.length, min, max);
	return 0;
}

/* Read what is there without blocking; 1 whole message, 0 not yet, -1 error. */
static int read_some(struct remote_chan *c)
{
	for (;;) {
		size_t want = c->have < HDR_SIZE ? HDR_SIZE - c->have :
			      HDR_SIZE + c->hdr.length - c->have;
		unsigned char *dst = c->have < HDR_SIZE ? (unsigned char *)&c->hdr + c->have :
				     c->payload + (c->have - HDR_SIZE);
		ssize_t n;

		if (c->have >= HDR_SIZE && want == 0) {
			c->payload[c->hdr.length] = '\0';
			return 1;
		}
		n = recv(c->fd, dst, want, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			c->closed = n == 0 && c->have == 0;
			if (c->closed)
				return chan_fail(c, "the peer closed the connection");
			return chan_fail(c, n == 0 ? "the peer closed the connection inside a message (%zu bytes of it received)"
					 : "receive error after %zu bytes of a message", c->have);
		}
		if (c->have == 0)
			c->started_ns = mono_now_ns();
		c->have += (size_t)n;
		if (c->have == HDR_SIZE && check_header(c))
			return -1;
	}
}

int remote_recv(struct remote_chan *c, int wait_ms)
{
	uint64_t deadline = mono_now_ns() + (uint64_t)(wait_ms > 0 ? wait_ms : 0) * 1000000;

	if (c->have >= HDR_SIZE && c->have == HDR_SIZE + c->hdr.length)
		c->have = 0;	/* the previous message was consumed */
	for (;;) {
		uint64_t now;
		int64_t left;
		int n = read_some(c);

		if (n)
			return n;
		now = mono_now_ns();
		if (c->have && now - c->started_ns >= (uint64_t)c->timeout_ms * 1000000)
			return chan_fail(c, "the peer stalled inside a message (%zu bytes received, nothing more for %d ms)",
					 c->have, c->timeout_ms);
		left = (int64_t)(deadline - now);
		/* a caller that waits gets a message begun in time whole, or a stall */
		if (left <= 0 && (!c->have || wait_ms <= 0))
			return 0;
		if (left <= 0)
			left = INT64_MAX;	/* until the stall deadline below */
		if (c->have) {	/* wake up in time to call a stall a stall */
			int64_t stall = (int64_t)(c->started_ns + (uint64_t)c->timeout_ms * 1000000 - now);

			if (stall < left)
				left = stall > 0 ? stall : 1;
		}
		if (wait_fd(c->fd, POLLIN, (int)((left + 999999) / 1000000)) < 0)
			return chan_fail(c, "poll: %s", strerror(errno));
	}
}

const char *remote_text(struct remote_chan *c)
{
	for (uint32_t i = 0; i < c->hdr.length; i++)
		if (c->payload[i] < 0x20 || c->payload[i] > 0x7e)
			c->payload[i] = c->payload[i] == '\n' && i + 1 == c->hdr.length ? '\0' : '?';
	return (const char *)c->payload;
}

int remote_expect(struct remote_chan *c, uint16_t want, int timeout_ms)
{
	int n = remote_recv(c, timeout_ms);

	if (n < 0)
		return -1;
	if (n == 0)
		return chan_fail(c, "no %s within %d ms: the peer stalls", remote_msg_name(want),
				 timeout_ms);
	if (c->hdr.type == REMOTE_ERROR)
		return chan_fail(c, "refused: %s", remote_text(c));
	if (c->hdr.type != want)
		return chan_fail(c, "malformed exchange: %s where %s was due",
				 remote_msg_name(c->hdr.type), remote_msg_name(want));
	return 0;
}
