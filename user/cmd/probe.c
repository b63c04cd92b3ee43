// SPDX-License-Identifier: GPL-2.0
/*
 * `gpuprobe-trace probe`: run the CUDA and OpenCL probe suites that are
 * available, skip (and say why) the ones that are not; or, with --api edu,
 * the edu device's through its test driver.
 */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmds.h"
#include "outfile.h"
#include "probe.h"
#include "util.h"

struct probe_cli {
	bool cuda, opencl, edu, json;
	const char *output;
	struct probe_opts opts;
};

static int parse_probe_options(int argc, char **argv, struct probe_cli *cli)
{
	static const struct option opts[] = {
		{ "api", required_argument, NULL, 'a' },
		{ "device", required_argument, NULL, 'd' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "quick", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	uint64_t rounds;
	int c;

	cli->cuda = cli->opencl = true;
	while ((c = getopt_long(argc, argv, "d:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			cli->cuda = !strcmp(optarg, "cuda") || !strcmp(optarg, "all");
			cli->opencl = !strcmp(optarg, "opencl") || !strcmp(optarg, "all");
			cli->edu = !strcmp(optarg, "edu");
			if (!cli->cuda && !cli->opencl && !cli->edu) {
				errorf("--api %s: expected cuda, opencl, all or edu", optarg);
				return 2;
			}
			break;
		case 'd':
			cli->opts.device = optarg;
			break;
		case 'r':
			if (parse_u64(optarg, &rounds) || rounds < 1 || rounds > 1000000) {
				errorf("--rounds %s: expected a number of samples, 1 to 1000000", optarg);
				return 2;
			}
			cli->opts.rounds = rounds;
			break;
		case 'j':
			cli->json = true;
			break;
		case 'o':
			cli->output = optarg;
			break;
		case 'q':
			cli->opts.quick = true;
			break;
		case 'h':
			usage_of("probe", stdout);
			return 0;
		default:
			usage_of("probe", stderr);
			return 2;
		}
	}
	if (optind < argc) {
		errorf("probe: unexpected argument '%s'", argv[optind]);
		usage_of("probe", stderr);
		return 2;
	}
	if (!cli->edu && (cli->opts.device || cli->opts.rounds)) {
		errorf("probe: %s applies to --api edu only (the CUDA and OpenCL probes pick their device "
		       "and sample counts themselves)", cli->opts.device ? "-d" : "--rounds");
		return 2;
	}
	return -1;
}

static int write_json_file(struct outfile *out, const char *path, struct probe_api *apis,
			   size_t napis, const struct probe_opts *o, uint64_t start, uint64_t end)
{
	probe_print_json(out->f, apis, napis, o, start, end);
	if (outfile_commit(out)) {
		errorf("writing %s failed: %m", path);
		return 1;
	}
	return 0;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_cli cli = { 0 };
	struct probe_api apis[3];
	size_t napis = 0, ran = 0;
	char err[PATH_MAX + 128];
	struct outfile out;
	uint64_t start, end;
	int ret = parse_probe_options(argc, argv, &cli);

	if (ret >= 0)
		return ret;
	/* Before the probes (minutes on a GPU): an output that cannot be created is said now. */
	if (cli.output && outfile_open(&out, cli.output, NULL, 0, err, sizeof(err))) {
		errorf("%s", err);
		return 1;
	}
	memset(apis, 0, sizeof(apis));
	/* Every probe runs, and every blocking wait sleeps, on this thread. */
	for (size_t i = 0; i < ARRAY_SIZE(apis); i++)
		apis[i].tid = (uint32_t)syscall(SYS_gettid);
	start = mono_now_ns();
	if (cli.cuda) {
		apis[napis].api = "cuda";
		ran += probe_cuda_run(&apis[napis++], &cli.opts);
	}
	if (cli.opencl) {
		apis[napis].api = "opencl";
		ran += probe_opencl_run(&apis[napis++], &cli.opts);
	}
	if (cli.edu) {
		apis[napis].api = "edu";
		ran += probe_edu_run(&apis[napis++], &cli.opts);
	}
	end = mono_now_ns();

	ret = 0;
	if (cli.output)
		ret = write_json_file(&out, cli.output, apis, napis, &cli.opts, start, end);
	if (cli.json && !cli.output) {
		probe_print_json(stdout, apis, napis, &cli.opts, start, end);
		for (size_t i = 0; i < napis; i++)	/* stdout is for the JSON */
			if (!apis[i].ran)
				warnf("%s: skipped: %s", apis[i].api, apis[i].reason);
	} else {
		probe_print_text(stdout, apis, napis);
	}
	if (!ran && !ret) {
		errorf("no API could run: nothing was measured");
		ret = 1;
	}
	for (size_t i = 0; i < napis; i++)
		probe_api_free(&apis[i]);
	return ret;
}
