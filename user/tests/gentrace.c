// SPDX-License-Identifier: GPL-2.0
/* gentrace: write a synthetic trace (known totals, or N mixed records). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

/* report.c wants it; gentrace never prints usage. */
void usage_of(const char *cmd, FILE *out)
{
	(void)cmd;
	(void)out;
}

int main(int argc, char **argv)
{
	/* GENTRACE_ZSTD=LEVEL: format version 2 (compressed chunks) */
	const char *level = getenv("GENTRACE_ZSTD");

	if (level)
		synth_set_compression(atoi(level), 0);
	if (argc == 3 && !strcmp(argv[1], "known"))
		return synth_write_known(argv[2]) ? 1 : 0;
	if (argc == 4 && !strcmp(argv[1], "mix"))
		return synth_write_mix(argv[3], strtoull(argv[2], NULL, 0), 42) ? 1 : 0;
	if (argc == 5 && !strcmp(argv[1], "app"))
		return synth_write_app(argv[4], strtoull(argv[2], NULL, 0),
				       strtoull(argv[3], NULL, 0), 42) ? 1 : 0;
	fprintf(stderr, "usage: gentrace known FILE | gentrace mix NRECORDS FILE | gentrace app NKERNEL NAPP FILE\n"
		"  GENTRACE_ZSTD=LEVEL: format version 2 (-1 compact, 1-19 compact and zstd)\n");
	return 2;
}
