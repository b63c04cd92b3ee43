// SPDX-License-Identifier: GPL-2.0
/*
 * serve's HTTP endpoint through libmicrohttpd (the only file that includes
 * it): one internal polling thread, GET only, /metrics in the text
 * exposition format, a bounded number of connections and a timeout, so a
 * stuck or hostile client cannot pile up memory in a long-running server.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "prometheus.h"

#define HTTP_MAX_CONNECTIONS	16
#define HTTP_TIMEOUT_S		10
#define CONTENT_TYPE		"text/plain; version=0.0.4; charset=utf-8"

struct http_server {
	struct MHD_Daemon *daemon;
	http_render_fn render;
	void *ctx;
};

static const char index_page[] =
	"<html><head><title>gpuprobe-trace serve</title></head><body>"
	"<h1>gpuprobe-trace serve</h1><p><a href=\"/metrics\">/metrics</a></p></body></html>\n";

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned int status,
			     const char *type, void *body, size_t len,
			     enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_size, void **state)
{
	static const char not_allowed[] = "only GET\n";
	static const char failed[] = "metrics unavailable: see serve's stderr\n";
	struct http_server *s = cls;
	size_t len;
	char *text;

	(void)version;
	(void)upload_data;
	if (!*state) {		/* first call: headers only; answer on the second */
		*state = s;
		return MHD_YES;
	}
	if (*upload_size) {	/* a body: ignored, then refused */
		*upload_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", (void *)not_allowed,
			     sizeof(not_allowed) - 1, MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return reply(conn, strcmp(url, "/") ? MHD_HTTP_NOT_FOUND : MHD_HTTP_OK,
			     "text/html", (void *)index_page, sizeof(index_page) - 1,
			     MHD_RESPMEM_PERSISTENT);
	if (s->render(s->ctx, &text, &len))
		return reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain", (void *)failed,
			     sizeof(failed) - 1, MHD_RESPMEM_PERSISTENT);
	return reply(conn, MHD_HTTP_OK, CONTENT_TYPE, text, len, MHD_RESPMEM_MUST_FREE);
}

/* "ADDR:PORT", "[ADDR6]:PORT" or ":PORT" (loopback) into a socket address. */
static int parse_listen(const char *listen, struct sockaddr_storage *ss, char *err, size_t errlen)
{
	char host[64];
	const char *colon = strrchr(listen, ':');
	char *end;
	unsigned long port;

	memset(ss, 0, sizeof(*ss));
	if (!colon || (size_t)(colon - listen) >= sizeof(host))
		goto bad;
	port = strtoul(colon + 1, &end, 10);
	if (*end || end == colon + 1 || port > 65535)
		goto bad;
	memcpy(host, listen, (size_t)(colon - listen));
	host[colon - listen] = 0;
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

		host[strlen(host) - 1] = 0;
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host + 1, &a6->sin6_addr) != 1)
			goto bad;
		return 0;
	}
	((struct sockaddr_in *)ss)->sin_family = AF_INET;
	((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, host[0] ? host : "127.0.0.1",
		      &((struct sockaddr_in *)ss)->sin_addr) == 1)
		return 0;
bad:
	snprintf(err, errlen, "--listen %s: expected ADDR:PORT, e.g. 127.0.0.1:9477 or [::1]:9477", listen);
	return -1;
}

/*
 * Why the daemon could not listen, said by its cause: libmicrohttpd keeps
 * no errno, so the same bind is tried once more on a plain socket.
 */
static void bind_failure(const char *listen, const struct sockaddr_storage *ss, char *err,
			 size_t errlen)
{
	socklen_t len = ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
						   sizeof(struct sockaddr_in);
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), e = 0;

	if (fd >= 0 && bind(fd, (const struct sockaddr *)ss, len))
		e = errno;
	if (fd >= 0)
		close(fd);
	switch (e) {
	case EADDRINUSE:
		snprintf(err, errlen, "cannot listen on %s: %s: another program has the port; pick another with --listen",
			 listen, strerror(e));
		break;
	case EACCES:
		snprintf(err, errlen, "cannot listen on %s: %s: ports below 1024 need root (CAP_NET_BIND_SERVICE); pick a port above 1023 with --listen",
			 listen, strerror(e));
		break;
	case EADDRNOTAVAIL:
		snprintf(err, errlen, "cannot listen on %s: %s: no interface of this machine has that address",
			 listen, strerror(e));
		break;
	default:
		snprintf(err, errlen, "cannot listen on %s: %s", listen,
			 e ? strerror(e) : "the HTTP server did not start");
	}
}

struct http_server *http_start(const char *listen, http_render_fn render, void *ctx,
			       char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	struct http_server *s;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;

	if (parse_listen(listen, &ss, err, errlen))
		return NULL;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->render = render;
	s->ctx = ctx;
	s->daemon = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s,
				     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONNECTIONS,
				     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_TIMEOUT_S,
				     MHD_OPTION_END);
	if (!s->daemon) {
		bind_failure(listen, &ss, err, errlen);
		free(s);
		return NULL;
	}
	return s;
}

void http_stop(struct http_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->daemon);
	free(s);
}
