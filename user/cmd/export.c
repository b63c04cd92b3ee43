// SPDX-License-Identifier: GPL-2.0
/*
 * `gpuprobe-trace export`: a trace streamed, record by record, through the
 * Perfetto or the CSV writer of output/ (export.h), or both in turn.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "export.h"
#include "passthrough.h"
#include "tracefile.h"
#include "util.h"

static int finish_output(FILE *out)
{
	if (out == stdout)
		return fflush(out);
	return fclose(out);
}

/* A merged trace's host and guest lined up (a first read of the file); NULL otherwise. */
static struct passthrough *line_up(const char *trace_path)
{
	const struct gpuprobe_rec_hdr *rec;
	struct trace_info *info = malloc(sizeof(*info));
	struct passthrough *pt = passthrough_new();
	struct trace_reader r;

	if (!info || !pt || trace_reader_open(&r, trace_path, info)) {
		if (info && pt)
			trace_reader_close(&r);
		free(info);
		passthrough_free(pt);
		return NULL;
	}
	while (trace_reader_next(&r, &rec) > 0) {
		passthrough_add(pt, rec);
		if (!pt->merged)	/* the first record says: single machine, nothing to do */
			break;
	}
	trace_reader_close(&r);
	free(info);
	if (!pt->merged) {
		passthrough_free(pt);
		return NULL;
	}
	passthrough_finish(pt);
	return pt;
}

static int export_file(const char *trace_path, const char *out_path,
		       const struct export_writer *writer)
{
	struct passthrough *pt = NULL;
	const struct gpuprobe_rec_hdr *rec;
	struct trace_info *info = malloc(sizeof(*info));
	struct trace_reader r;
	void *state;
	FILE *out;
	int n = 0, ret = 1;

	if (!info) {
		errorf("out of memory");
		goto out_free;
	}
	if (trace_reader_open(&r, trace_path, info)) {
		errorf("%s", r.error);
		goto out_free;
	}
	out = strcmp(out_path, "-") ? fopen(out_path, "w") : stdout;
	if (!out) {
		errorf("cannot create %s: %m", out_path);
		goto out_close;
	}
	if (writer == &perfetto_writer)
		pt = line_up(trace_path);
	state = writer->begin(out, info, pt);
	if (state && writer->prepass) {
		while ((n = trace_reader_next(&r, &rec)) > 0)
			writer->prepass(state, rec);
		trace_reader_close(&r);
		if (n < 0 || trace_reader_open(&r, trace_path, info))
			n = -1;
		writer->between(state);
	}
	if (state) {
		while (n >= 0 && (n = trace_reader_next(&r, &rec)) > 0)
			writer->record(state, rec);
		writer->end(state);
	}
	if (!state)
		errorf("out of memory");
	else if (n < 0)
		errorf("%s", r.error);
	else if (r.truncated)
		warnf("%s", r.warning);
	if (finish_output(out)) {
		errorf("cannot write %s: %m", out_path);
		n = -1;
	}
	if (n < 0 && strcmp(out_path, "-"))
		unlink(out_path);
	ret = n < 0 ? 1 : 0;
out_close:
	trace_reader_close(&r);
out_free:
	passthrough_free(pt);
	free(info);
	return ret;
}

int export_perfetto(const char *trace_path, const char *out_path)
{
	return export_file(trace_path, out_path, &perfetto_writer);
}

int export_perfetto_proto(const char *trace_path, const char *out_path)
{
	return export_file(trace_path, out_path, &perfetto_proto_writer);
}

int export_csv(const char *trace_path, const char *out_path)
{
	return export_file(trace_path, out_path, &csv_writer);
}

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "perfetto", required_argument, NULL, 'p' },
		{ "csv", required_argument, NULL, 'c' },
		{ "perfetto-proto", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *perfetto = NULL, *csv = NULL, *proto = NULL;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "p:c:P:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			perfetto = optarg;
			break;
		case 'c':
			csv = optarg;
			break;
		case 'P':
			proto = optarg;
			break;
		case 'h':
			usage_of("export", stdout);
			return 0;
		default:
			usage_of("export", stderr);
			return 2;
		}
	}
	if (argc - optind != 1 || (!perfetto && !csv && !proto)) {
		errorf("export needs one trace file and --perfetto OUT.json, --perfetto-proto OUT.pftrace and/or --csv OUT.csv: see gpuprobe-trace export --help");
		return 2;
	}
	if (perfetto)
		ret = export_perfetto(argv[optind], perfetto);
	if (!ret && proto)
		ret = export_perfetto_proto(argv[optind], proto);
	if (!ret && csv)
		ret = export_csv(argv[optind], csv);
	return ret;
}

