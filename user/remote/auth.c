// SPDX-License-Identifier: GPL-2.0
/*
 * The handshake: both sides prove they hold the shared token without
 * sending it.  HMAC-SHA256 over both nonces, one label per direction so
 * that neither answer can be replayed as the other:
 *
 *   host  -> HELLO     nonce_h
 *   agent -> CHALLENGE nonce_a, HMAC(token, "gpuprobe-agent" nonce_h nonce_a)
 *   host  -> AUTH      HMAC(token, "gpuprobe-host" nonce_a nonce_h)
 *   agent -> READY
 *
 * The host checks the agent first, so a fake agent learns nothing it can use.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "protocol.h"
#include "util.h"

int remote_token_load(const char *token, const char *file, char *out, size_t size,
		      char *err, size_t errlen)
{
	if (file) {
		struct stat st;
		FILE *f = fopen(file, "r");

		if (!f) {
			snprintf(err, errlen, "cannot read the token file %s: %s", file, strerror(errno));
			return -1;
		}
		if (!fstat(fileno(f), &st) && (st.st_mode & 0077))
			warnf("token file %s is readable by others (mode %03o): chmod 600 it",
			      file, (unsigned int)(st.st_mode & 0777));
		if (!fgets(out, (int)size, f))
			out[0] = '\0';
		fclose(f);
		out[strcspn(out, "\r\n")] = '\0';
	} else if (token) {
		copy_string(out, size, token);
		if (strlen(token) >= size) {
			snprintf(err, errlen, "the token is longer than %zu characters", size - 1);
			return -1;
		}
	} else {
		snprintf(err, errlen, "no token: pass the same --token-file FILE (or --token STRING) to both sides; e.g. head -c 32 /dev/urandom | base64 > FILE");
		return -1;
	}
	if (strlen(out) < REMOTE_TOKEN_MIN) {
		snprintf(err, errlen, "the token%s%s is shorter than %d characters: use a longer secret",
			 file ? " in " : "", file ? file : "", REMOTE_TOKEN_MIN);
		return -1;
	}
	return 0;
}

static void mac_of(const char *token, const char *label, const unsigned char *n1,
		   const unsigned char *n2, unsigned char mac[REMOTE_MAC_SIZE])
{
	unsigned char msg[32 + 2 * REMOTE_NONCE_SIZE];
	size_t llen = strlen(label) + 1;
	unsigned int len = REMOTE_MAC_SIZE;

	memcpy(msg, label, llen);
	memcpy(msg + llen, n1, REMOTE_NONCE_SIZE);
	memcpy(msg + llen + REMOTE_NONCE_SIZE, n2, REMOTE_NONCE_SIZE);
	HMAC(EVP_sha256(), token, (int)strlen(token), msg, llen + 2 * REMOTE_NONCE_SIZE, mac, &len);
}

/* Constant time: how many bytes match must not show in how long it takes. */
static bool mac_equal(const unsigned char *a, const unsigned char *b)
{
	unsigned char diff = 0;

	for (int i = 0; i < REMOTE_MAC_SIZE; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}

static int fill_nonce(struct remote_chan *c, unsigned char nonce[REMOTE_NONCE_SIZE])
{
	if (getrandom(nonce, REMOTE_NONCE_SIZE, 0) != REMOTE_NONCE_SIZE) {
		snprintf(c->error, sizeof(c->error), "getrandom: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int remote_handshake_host(struct remote_chan *c, const char *token)
{
	unsigned char nonce_h[REMOTE_NONCE_SIZE], nonce_a[REMOTE_NONCE_SIZE];
	unsigned char mac[REMOTE_MAC_SIZE];

	if (fill_nonce(c, nonce_h) || remote_send(c, REMOTE_HELLO, nonce_h, sizeof(nonce_h)) ||
	    remote_expect(c, REMOTE_CHALLENGE, c->timeout_ms))
		return -1;
	memcpy(nonce_a, c->payload, REMOTE_NONCE_SIZE);
	mac_of(token, "gpuprobe-agent", nonce_h, nonce_a, mac);
	if (!mac_equal(mac, c->payload + REMOTE_NONCE_SIZE)) {
		remote_send_error(c, "authentication failed: the agent's token differs from the host's");
		snprintf(c->error, sizeof(c->error),
			 "%s: authentication failed: the agent does not hold this token (use the same --token-file on both sides)",
			 c->peer);
		return -1;
	}
	mac_of(token, "gpuprobe-host", nonce_a, nonce_h, mac);
	if (remote_send(c, REMOTE_AUTH, mac, sizeof(mac)))
		return -1;
	return remote_expect(c, REMOTE_READY, c->timeout_ms);
}

int remote_handshake_agent(struct remote_chan *c, const char *token)
{
	unsigned char nonce_h[REMOTE_NONCE_SIZE], reply[REMOTE_NONCE_SIZE + REMOTE_MAC_SIZE];
	unsigned char mac[REMOTE_MAC_SIZE];

	if (remote_expect(c, REMOTE_HELLO, c->timeout_ms))
		goto refuse;
	memcpy(nonce_h, c->payload, REMOTE_NONCE_SIZE);
	if (fill_nonce(c, reply))
		goto refuse;
	mac_of(token, "gpuprobe-agent", nonce_h, reply, reply + REMOTE_NONCE_SIZE);
	if (remote_send(c, REMOTE_CHALLENGE, reply, sizeof(reply)) ||
	    remote_expect(c, REMOTE_AUTH, c->timeout_ms))
		goto refuse;
	mac_of(token, "gpuprobe-host", reply, nonce_h, mac);
	if (!mac_equal(mac, c->payload)) {
		snprintf(c->error, sizeof(c->error),
			 "%s: authentication failed: the host does not hold this agent's token", c->peer);
		goto refuse;
	}
	return remote_send(c, REMOTE_READY, NULL, 0);
refuse:
	remote_send_error(c, "%s", c->error);
	return -1;
}
