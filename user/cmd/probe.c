// SPDX-License-Identifier: GPL-2.0
/*
 * `gpuprobe-trace probe`: run the CUDA and OpenCL probe suites that are
 * available, skip (and say why) the ones that are not.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmds.h"
#include "probe.h"
#include "util.h"

struct probe_cli {
	bool cuda, opencl, json;
	const char *output;
	struct probe_opts opts;
};

static int parse_probe_options(int argc, char **argv, struct probe_cli *cli)
{
	static const struct option opts[] = {
		{ "api", required_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "quick", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	cli->cuda = cli->opencl = true;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			cli->cuda = !strcmp(optarg, "cuda") || !strcmp(optarg, "all");
			cli->opencl = !strcmp(optarg, "opencl") || !strcmp(optarg, "all");
			if (!cli->cuda && !cli->opencl) {
				errorf("--api %s: expected cuda, opencl or all", optarg);
				return 2;
			}
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
	return -1;
}

static int write_json_file(const char *path, struct probe_api *apis, size_t napis,
			   const struct probe_opts *o, uint64_t start, uint64_t end)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		errorf("cannot write %s: %m", path);
		return 1;
	}
	probe_print_json(f, apis, napis, o, start, end);
	if (fclose(f)) {
		errorf("writing %s failed: %m", path);
		return 1;
	}
	return 0;
}

int cmd_probe(int argc, char **argv)
{
	struct probe_cli cli = { 0 };
	struct probe_api apis[2];
	size_t napis = 0, ran = 0;
	uint64_t start, end;
	int ret = parse_probe_options(argc, argv, &cli);

	if (ret >= 0)
		return ret;
	memset(apis, 0, sizeof(apis));
	/* Every probe runs, and every blocking wait sleeps, on this thread. */
	apis[0].tid = apis[1].tid = (uint32_t)syscall(SYS_gettid);
	start = mono_now_ns();
	if (cli.cuda) {
		apis[napis].api = "cuda";
		ran += probe_cuda_run(&apis[napis++], &cli.opts);
	}
	if (cli.opencl) {
		apis[napis].api = "opencl";
		ran += probe_opencl_run(&apis[napis++], &cli.opts);
	}
	end = mono_now_ns();

	ret = 0;
	if (cli.output)
		ret = write_json_file(cli.output, apis, napis, &cli.opts, start, end);
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
