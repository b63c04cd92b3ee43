/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Streaming views of a trace for other tools, one record at a time:
 * Chrome trace-event JSON for ui.perfetto.dev (perfetto.c), native Perfetto
 * protobuf (perfetto_proto.c, two passes: its flows need the whole file) and
 * flat CSV (csv.c).  cmd/export.c reads the trace and picks the writer.
 */
#ifndef GPUPROBE_EXPORT_H
#define GPUPROBE_EXPORT_H

#include <stdio.h>

#include "passthrough.h"
#include "tracefile.h"

struct export_writer {
	/*
	 * The writer's state, NULL when out of memory.  pt: host and guest
	 * lined up (a merged trace, read once before), else NULL.
	 */
	void *(*begin)(FILE *out, const struct trace_info *info, const struct passthrough *pt);
	/* Optional: a first pass over every record, then between() before the second. */
	bool (*wants_prepass)(void *state);	/* optional: NULL, always */
	void (*prepass)(void *state, const struct gpuprobe_rec_hdr *rec);
	void (*between)(void *state);
	void (*record)(void *state, const struct gpuprobe_rec_hdr *rec);
	/* Closes the document and frees the state; out stays open. */
	void (*end)(void *state);
};

extern const struct export_writer perfetto_writer;
extern const struct export_writer csv_writer;
extern const struct export_writer perfetto_proto_writer;

#endif /* GPUPROBE_EXPORT_H */
