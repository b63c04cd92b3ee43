// SPDX-License-Identifier: GPL-2.0
/*
 * `gpuprobe-trace explain PROBE.json TRACE`: its options and outputs; the
 * model is built in analysis/ (explain_run.c: the probe output and the
 * trace recorded around it, each wait attributed) and printed by output/
 * (explain_output.c, explain_json.c, explain_verdict.c).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "explain.h"
#include "outfile.h"
#include "target.h"
#include "util.h"

#define EXIT_CAUSALITY	3	/* a causality check failed */

int cmd_explain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static struct explain_result r;
	uint32_t bdf = GPUPROBE_BDF_NONE;
	const char *output = NULL;
	char err[PATH_MAX + 128];
	struct outfile out;
	bool json = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "d:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (bdf_parse(optarg, &bdf)) {
				errorf("-d %s: expected a PCI address like 0000:00:06.0", optarg);
				return 2;
			}
			break;
		case 'j':
			json = true;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			usage_of("explain", stdout);
			return 0;
		default:
			usage_of("explain", stderr);
			return 2;
		}
	}
	if (argc - optind != 2) {
		errorf("explain needs two files: PROBE.json (probe -o) and TRACE (record -o)");
		usage_of("explain", stderr);
		return 2;
	}
	/* Refused before the analysis: an output that is an input, or that cannot be created. */
	if (output && outfile_open(&out, output, (const char *const *)&argv[optind], 2, err,
				   sizeof(err))) {
		errorf("%s", err);
		return errno == EEXIST ? 2 : 1;
	}
	memset(&r, 0, sizeof(r));
	ret = explain_run(argv[optind], argv[optind + 1], bdf, &r);
	if (ret)
		goto out;
	if (json)
		explain_print_json(stdout, &r);
	else
		explain_print_text(stdout, &r);
	if (output) {
		ret = explain_write_merged(argv[optind], &out, output, &r) ? 1 : 0;
		output = NULL;	/* committed or dropped */
	}
	if (!ret && explain_violations(&r))
		ret = EXIT_CAUSALITY;
out:
	if (output)
		outfile_abort(&out);
	explain_free(&r);
	return ret;
}
