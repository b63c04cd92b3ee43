// SPDX-License-Identifier: GPL-2.0
/*
 * Fallback entry point for machines that cannot build the whole
 * gpuprobe-trace (no libnl/libtracefs development files): `probe` and
 * `compare` only, from user/'s sources (`probe` alone, -DGPUPROBE_NO_COMPARE,
 * where jansson is missing). Used by h200-run.sh; the normal build is
 * user/gpuprobe-trace.
 */
#include <stdio.h>
#include <string.h>

#include "probe.h"

void usage_of(const char *cmd, FILE *out);

void usage_of(const char *cmd, FILE *out)
{
	fputs(strcmp(cmd, "compare") ? PROBE_USAGE : COMPARE_USAGE, out);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "probe"))
		return cmd_probe(argc - 1, argv + 1);
#ifndef GPUPROBE_NO_COMPARE
	if (argc > 1 && !strcmp(argv[1], "compare"))
		return cmd_compare(argc - 1, argv + 1);
	fprintf(stderr, "usage: %s probe|compare [options]   (probe-only build)\n", argv[0]);
#else
	fprintf(stderr, "usage: %s probe [options]   (probe-only build, without compare: no jansson)\n",
		argv[0]);
#endif
	return 2;
}
