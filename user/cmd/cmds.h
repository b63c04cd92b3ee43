/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommand entry points and shared report/export helpers. */
#ifndef GPUPROBE_CMDS_H
#define GPUPROBE_CMDS_H

#include <stdbool.h>
#include <stdio.h>

#include "version.h"	/* GPUPROBE_TRACE_VERSION, from kmod/gpuprobe.h */

int cmd_info(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_agent(int argc, char **argv);
int cmd_serve(int argc, char **argv);

/* Print a subcommand's --help text (main.c holds them all). */
void usage_of(const char *cmd, FILE *out);

/* report.c: the whole report for one file; 0 or an exit code. */
int report_file(const char *path, bool json, FILE *out);
/* verbose: every idle vector and all-zero row (report -v), else folded. */
int report_file_verbose(const char *path, bool json, bool verbose, FILE *out);
struct trace_cost_calib;
/* cost: the per-record costs of the tracing-cost line, NULL: GPUPROBE_TRACE_COST's */
int report_file_view(const char *path, bool json, bool verbose,
		     const struct trace_cost_calib *cost, FILE *out);

/* info.c: why the module cannot be used (it is not registered). */
void explain_module_absent(char *buf, size_t size);

/* compare_trace.c: compare of two traces (their IOMMU parts) */
bool compare_is_trace(const char *path);
int compare_traces(const char *base_path, const char *run_path, bool json);

#endif /* GPUPROBE_CMDS_H */
