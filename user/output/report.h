/* SPDX-License-Identifier: GPL-2.0 */
/* The JSON view of a report (Documentation/report-json.md). */
#ifndef GPUPROBE_REPORT_H
#define GPUPROBE_REPORT_H

#include <stdio.h>

#include "agg.h"
#include "attribute.h"
#include "json.h"

#define REPORT_JSON_VERSION	1

/* at: the attribution, NULL when the trace holds no application events. */
void report_print_json(FILE *out, const char *path, const struct agg *a,
		       const struct attribution *at);
void report_print_text(FILE *out, const char *path, const struct agg *a,
		       const struct attribution *at);
/* A histogram as report --json writes every one: count, min ... p99, log2. */
void report_json_hist(struct json *j, const char *key, const struct hist *h);

/* kvm_report.c: the host side (NULL: no KVM records; JSON: null). */
void kvm_print_text(FILE *out, const struct kvm_host *k);
void kvm_print_json(struct json *j, const struct kvm_host *k);

#endif /* GPUPROBE_REPORT_H */
