/* SPDX-License-Identifier: GPL-2.0 */
/* The JSON view of a report (Documentation/report-json.md). */
#ifndef GPUPROBE_REPORT_H
#define GPUPROBE_REPORT_H

#include <stdio.h>

#include "agg.h"
#include "attribute.h"

#define REPORT_JSON_VERSION	1

/* at: the attribution, NULL when the trace holds no application events. */
void report_print_json(FILE *out, const char *path, const struct agg *a,
		       const struct attribution *at);
void report_print_text(FILE *out, const char *path, const struct agg *a,
		       const struct attribution *at);

#endif /* GPUPROBE_REPORT_H */
