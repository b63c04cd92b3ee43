// SPDX-License-Identifier: GPL-2.0
/*
 * gentrace: write a synthetic trace (known totals, N mixed records, every
 * record type with adversarial values), or dump one field by field.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

int tracedump_file(const char *path, FILE *out);

/* report.c wants it; gentrace never prints usage. */
void usage_of(const char *cmd, FILE *out)
{
	(void)cmd;
	(void)out;
}

/* gentrace merged FILE [n=N] [latency=NS] [drop=K] [offset_error=NS] [bound=NS] [drift_ppb=D] [maps=M] [inject] [cut] [app]
 *   [vary] [tsc] [tsc_samples=N] [host_path] */
static int merged(int argc, char **argv)
{
	struct synth_merged o;

	synth_merged_defaults(&o);
	for (int i = 3; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		long long v = eq ? strtoll(eq + 1, NULL, 0) : 0;

		if (!strncmp(a, "n=", 2))
			o.n = (uint32_t)v;
		else if (!strncmp(a, "latency=", 8))
			o.latency_ns = (uint64_t)v;
		else if (!strncmp(a, "drop=", 5))
			o.drop_guest = (uint32_t)v;
		else if (!strncmp(a, "offset_error=", 13))
			o.offset_error_ns = v;
		else if (!strncmp(a, "bound=", 6))
			o.bound_ns = (uint64_t)v;
		else if (!strncmp(a, "drift_ppb=", 10))
			o.drift_ppb = v;
		else if (!strncmp(a, "maps=", 5))
			o.maps = (uint32_t)v;
		else if (!strcmp(a, "inject"))
			o.injections = true;
		else if (!strcmp(a, "cut"))
			o.guest_cut = true;
		else if (!strcmp(a, "app"))
			o.guest_app = true;
		else if (!strcmp(a, "vary"))
			o.vary = true;
		else if (!strcmp(a, "host_path"))
			o.host_path = true;
		else if (!strcmp(a, "tsc"))
			o.tsc = true;
		else if (!strncmp(a, "tsc_samples=", 12))
			o.tsc_host_samples = (uint32_t)v;
		else
			return 2;
	}
	return synth_write_merged(argv[2], &o) ? 1 : 0;
}

int main(int argc, char **argv)
{
	/* GENTRACE_ZSTD=LEVEL: format version 3 (checksummed compressed chunks) */
	const char *level = getenv("GENTRACE_ZSTD");

	/* GENTRACE_CHUNK=N: a chunk every N records */
	const char *chunk = getenv("GENTRACE_CHUNK");

	if (level)
		synth_set_compression(atoi(level), chunk ? strtoull(chunk, NULL, 0) : 0);
	if (argc == 3 && !strcmp(argv[1], "dump"))
		return tracedump_file(argv[2], stdout);
	if (argc == 3 && !strcmp(argv[1], "fields"))
		return synth_write_fields(argv[2], 2, false) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "fields-all")) {	/* and the types the committed traces lack */
		synth_fields_set_newer(true);
		return synth_write_fields(argv[2], 2, false) ? 1 : 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "merged"))
		return merged(argc, argv);
	if (argc == 3 && !strcmp(argv[1], "known"))
		return synth_write_known(argv[2]) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "export"))
		return synth_write_export(argv[2]) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "verdict"))
		return synth_write_verdict(argv[2], false) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "verdict") && !strcmp(argv[3], "tracefs"))
		return synth_write_verdict(argv[2], true) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "flows"))
		return synth_write_flows(argv[2]) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "flows"))
		return synth_write_flows_n(argv[2], (unsigned int)strtoul(argv[3], NULL, 0)) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "mix"))
		return synth_write_mix(argv[3], strtoull(argv[2], NULL, 0), 42) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "parts"))
		return synth_write_parts(argv[2]) ? 1 : 0;
	if (argc == 3 && !strcmp(argv[1], "names"))
		return synth_write_names(argv[2]) ? 1 : 0;
	if (argc == 5 && !strcmp(argv[1], "app"))
		return synth_write_app(argv[4], strtoull(argv[2], NULL, 0),
				       strtoull(argv[3], NULL, 0), 42) ? 1 : 0;
	fprintf(stderr, "usage: gentrace known FILE | gentrace flows FILE [ROUNDS] | gentrace export FILE |\n"
		"       gentrace mix NRECORDS FILE | gentrace fields FILE | gentrace fields-all FILE |\n"
		"       gentrace dump FILE | gentrace parts FILE |\n"
		"       gentrace app NKERNEL NAPP FILE | gentrace verdict FILE [tracefs] | gentrace names FILE |\n"
		"       gentrace merged FILE [n=N] [latency=NS] [drop=K] [offset_error=NS] [bound=NS] [drift_ppb=D] [maps=M] [inject] [cut] [app]\n"
		"  GENTRACE_ZSTD=LEVEL: format version 3 (-1 compact, 1-19 compact and zstd)\n"
		"  GENTRACE_CHUNK=N: with it, a chunk every N records\n");
	return 2;
}
