// SPDX-License-Identifier: GPL-2.0
/*
 * `gpuprobe-trace export`: a trace streamed, record by record, through the
 * Perfetto or the CSV writer of output/ (export.h), or both in turn.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "export.h"
#include "outfile.h"
#include "passthrough.h"
#include "tracefile.h"
#include "util.h"

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

/* One writer's pass over the trace into out (committed or dropped by the caller). */
static int export_file(const char *trace_path, struct outfile *out,
		       const struct export_writer *writer)
{
	struct passthrough *pt = NULL;
	const struct gpuprobe_rec_hdr *rec;
	struct trace_info *info = malloc(sizeof(*info));
	struct trace_reader r;
	void *state;
	int n = -1;

	if (!info) {
		errorf("out of memory");
		goto out_abort;
	}
	if (trace_reader_open(&r, trace_path, info)) {
		errorf("%s", r.error);
		goto out_abort;
	}
	if (writer == &perfetto_writer)
		pt = line_up(trace_path);
	state = writer->begin(out->f, info, pt);
	n = 0;
	if (state && writer->prepass && (!writer->wants_prepass || writer->wants_prepass(state))) {
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
	if (!state) {
		errorf("out of memory");
		n = -1;
	} else if (n < 0) {
		errorf("%s", r.error);
	} else {
		trace_reader_warn(&r);
	}
	trace_reader_close(&r);
out_abort:
	passthrough_free(pt);
	free(info);
	return n < 0 ? 1 : 0;
}

/*
 * Every output is opened before the first is written: one that cannot be
 * created, or that is the trace itself or another of the outputs (by any
 * spelling), is refused before any work; they are put in place together,
 * once all are written, so a failed export leaves every output as it was.
 */
static int export_all(const char *trace_path, const char *perfetto, const char *proto,
		      const char *csv)
{
	const char *names[] = { perfetto, proto, csv };
	const struct export_writer *writers[] = {
		&perfetto_writer, &perfetto_proto_writer, &csv_writer,
	};
	struct outfile out[ARRAY_SIZE(names)];
	const char *inputs[ARRAY_SIZE(names) + 1] = { trace_path };
	char canon[ARRAY_SIZE(names)][PATH_MAX];
	size_t ninputs = 1, i, opened = 0;
	char err[PATH_MAX + 128];
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!names[i])
			continue;
		outfile_canonical(names[i], canon[i], sizeof(canon[i]));
		for (size_t k = 0; k < i; k++) {
			if (names[k] && strcmp(names[i], "-") && !strcmp(canon[i], canon[k])) {
				errorf("%s and %s are one file given as two outputs: give each its own name",
				       names[k], names[i]);
				ret = 2;
				goto out_abort;
			}
		}
		if (outfile_open(&out[i], names[i], inputs, ninputs, err, sizeof(err))) {
			ret = errno == EEXIST ? 2 : 1;	/* before errorf: stdio may change errno */
			errorf("%s", err);
			goto out_abort;
		}
		opened = i + 1;
		inputs[ninputs++] = names[i];
	}
	for (i = 0; i < ARRAY_SIZE(names) && !ret; i++)
		if (names[i])
			ret = export_file(trace_path, &out[i], writers[i]);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!names[i])
			continue;
		if (ret) {
			outfile_abort(&out[i]);
		} else if (outfile_commit(&out[i])) {
			errorf("cannot write %s: %m", names[i]);
			ret = 1;
		}
	}
	return ret;
out_abort:
	for (i = 0; i < opened; i++)
		if (names[i])
			outfile_abort(&out[i]);
	return ret;
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
	int c;

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
	return export_all(argv[optind], perfetto, proto, csv);
}

