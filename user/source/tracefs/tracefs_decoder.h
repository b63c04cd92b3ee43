/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracefs source's decoder without tracefs instances: raw events in,
 * uapi records out.  tracefs_decode.c implements it and the source uses
 * it; the tests feed it crafted events parsed against stored format files.
 */
#ifndef GPUPROBE_TRACEFS_DECODER_H
#define GPUPROBE_TRACEFS_DECODER_H

#include "source.h"

struct tep_handle;
struct tep_record;
struct tracefs_source;
struct vector_tracker;

struct tracefs_source *tracefs_decoder_new(struct tep_handle *tep,
					   const struct source_config *cfg);
int tracefs_decoder_feed(struct tracefs_source *ts, struct tep_record *r, int cpu,
			 const struct record_sink *sink);
/* Entries still waiting for their exit, as records flagged NO_EXIT. */
int tracefs_decoder_flush(struct tracefs_source *ts, const struct record_sink *sink);
/* Its targets' vectors as they change (tracefs_vectors.h). */
struct vector_tracker *tracefs_decoder_vectors(struct tracefs_source *ts);
void tracefs_decoder_free(struct tracefs_source *ts);

#endif /* GPUPROBE_TRACEFS_DECODER_H */
