/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host <-> guest agent protocol (Documentation/passthrough.md): framed
 * messages over one stream socket (vsock or TCP), a versioned handshake
 * with mutual HMAC-SHA256 challenge-response on a shared token, then the
 * guest's trace as a byte stream (DATA), its stderr (LOG), and two-way
 * clock exchanges (SYNC) at any time.  Every length is checked against a
 * per-type limit before a byte of payload is read; every wait has a deadline.
 */
#ifndef GPUPROBE_REMOTE_PROTOCOL_H
#define GPUPROBE_REMOTE_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REMOTE_MAGIC		0x4d525047u	/* "GPRM" */
#define REMOTE_VERSION		1
#define REMOTE_DEFAULT_PORT	5999
#define REMOTE_NONCE_SIZE	32
#define REMOTE_MAC_SIZE		32
#define REMOTE_TOKEN_MAX	256
#define REMOTE_TOKEN_MIN	8
#define REMOTE_DATA_MAX		(64u << 10)
#define REMOTE_PAYLOAD_MAX	(64u << 10)	/* the largest any type allows */
#define REMOTE_DEFAULT_TIMEOUT_MS 10000

enum remote_msg_type {
	REMOTE_HELLO = 1,	/* host: nonce */
	REMOTE_CHALLENGE,	/* agent: nonce, mac("agent", host nonce, agent nonce) */
	REMOTE_AUTH,		/* host: mac("host", agent nonce, host nonce) */
	REMOTE_READY,		/* agent: authenticated, waiting for START */
	REMOTE_START,		/* host: key=value\0 ... (source, target, command, duration) */
	REMOTE_DATA,		/* agent: the next bytes of the guest's trace file */
	REMOTE_LOG,		/* agent: a line the guest's recording wrote on stderr */
	REMOTE_SYNC,		/* host: u64 sequence */
	REMOTE_SYNC_REPLY,	/* agent: u64 sequence, u64 guest CLOCK_MONOTONIC[, its TSC read] */
	REMOTE_STOP,		/* host: stop the recording */
	REMOTE_EXIT,		/* agent: the recording ended, i32 status; no DATA follows */
	REMOTE_ERROR,		/* either: why it gives up; the connection closes */
	REMOTE_MSG_MAX = REMOTE_ERROR,
};

struct remote_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;		/* enum remote_msg_type */
	uint32_t length;	/* payload bytes that follow */
	uint32_t reserved;	/* zero */
};

struct remote_sync_reply {
	uint64_t seq;
	uint64_t guest_ns;
	/*
	 * The exact clock's guest half (lib/tscclock.h), where the guest has a
	 * TSC: its CLOCK_MONOTONIC around an rdtscp, the CPU and its APIC id.
	 * An agent without it sends the first 16 bytes only.
	 */
	uint64_t tsc_mono_lo, tsc, tsc_mono_hi;
	uint32_t cpu, apic_id;
};
#define REMOTE_SYNC_REPLY_SHORT	(2 * sizeof(uint64_t))

/* One end of a connection: a buffer for the message being received. */
struct remote_chan {
	int fd;
	int timeout_ms;		/* for the rest of a message once it began, and for sends */
	char peer[96];		/* for messages: "tcp:127.0.0.1:5999" */
	struct remote_hdr hdr;	/* of the message received */
	unsigned char *payload;	/* REMOTE_PAYLOAD_MAX + 1 bytes (NUL after the payload) */
	size_t have;		/* bytes of header + payload received */
	uint64_t started_ns;	/* when the message in progress began arriving */
	bool closed;		/* the peer closed between messages */
	char error[256];
};

const char *remote_msg_name(uint16_t type);
/* Payload limits per type: [min, max] bytes. */
void remote_msg_limits(uint16_t type, uint32_t *min, uint32_t *max);

int remote_chan_init(struct remote_chan *c, int fd, const char *peer, int timeout_ms);
void remote_chan_close(struct remote_chan *c);

/* The whole message, or -1 with c->error (peer gone, stalled, write error). */
int remote_send(struct remote_chan *c, uint16_t type, const void *payload, uint32_t len);
/* Best effort, for refusals: ERROR with text, never blocks long. */
void remote_send_error(struct remote_chan *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Receive: 1 a whole message is in c->hdr / c->payload; 0 none within
 * wait_ms (a message begun stays buffered, but one stalled for
 * timeout_ms is an error); -1 c->error: malformed, oversized, stalled,
 * or the peer closed (c->closed when it closed between messages).
 */
int remote_recv(struct remote_chan *c, int wait_ms);
/* The payload of a LOG or ERROR as printable text (in place). */
const char *remote_text(struct remote_chan *c);
/* Receive one message of type want within timeout_ms; an ERROR from the peer fails with its text. */
int remote_expect(struct remote_chan *c, uint16_t want, int timeout_ms);

/* ---- auth.c: the shared token and the handshake ---- */

/* The token from --token or --token-file (first line); -1 with err. */
int remote_token_load(const char *token, const char *file, char *out, size_t size,
		      char *err, size_t errlen);
/* Host side: HELLO, check the agent's CHALLENGE, AUTH, wait for READY. */
int remote_handshake_host(struct remote_chan *c, const char *token);
/* Agent side: the mirror image; on refusal sends ERROR and fails with c->error. */
int remote_handshake_agent(struct remote_chan *c, const char *token);

/* ---- transport.c: vsock and TCP addresses ---- */

struct remote_addr {
	int family;		/* AF_VSOCK or AF_INET/AF_INET6 (resolved at connect/listen) */
	unsigned int cid;	/* vsock */
	char host[256];		/* tcp */
	unsigned int port;
};

/* "vsock:CID[:PORT]", "vsock::PORT" / "vsock" (listen: any CID), "tcp:HOST:PORT". */
int remote_addr_parse(const char *s, bool listening, struct remote_addr *a,
		      char *err, size_t errlen);
void remote_addr_format(const struct remote_addr *a, char *out, size_t size);
/* A connected stream socket, within timeout_ms; -1 with err. */
int remote_connect(const struct remote_addr *a, int timeout_ms, char *err, size_t errlen);
int remote_listen(const struct remote_addr *a, char *err, size_t errlen);
/* Accept one connection, its peer's address in peer; -1 with errno. */
int remote_accept(int lfd, char *peer, size_t size);

#endif /* GPUPROBE_REMOTE_PROTOCOL_H */
