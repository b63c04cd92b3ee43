/* SPDX-License-Identifier: GPL-2.0 */
/* Prometheus text exposition of serve's metrics (prometheus.c), and its HTTP server (http.c). */
#ifndef GPUPROBE_PROMETHEUS_H
#define GPUPROBE_PROMETHEUS_H

#include <stdio.h>

struct metrics;

void prometheus_write(FILE *out, const struct metrics *m, const char *version);

/*
 * http.c (libmicrohttpd, its only user): GET /metrics calls render, which
 * fills *text (malloc'd, freed here) and *len; 0 or -1.  Other paths: a
 * short page pointing at /metrics.
 */
typedef int (*http_render_fn)(void *ctx, char **text, size_t *len);
struct http_server;

struct http_server *http_start(const char *listen, http_render_fn render, void *ctx,
			       char *err, size_t errlen);
void http_stop(struct http_server *s);

#endif /* GPUPROBE_PROMETHEUS_H */
