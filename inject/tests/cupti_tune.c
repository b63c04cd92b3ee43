// SPDX-License-Identifier: GPL-2.0
/*
 * GPUPROBE_CUDA_TUNE's parser (inject/cuptitune.c), without CUDA: each key
 * in its range is taken, each value outside it, an unknown key, a missing
 * '=' or value is refused with the item named and the items before it
 * kept, and a key not given stays unset (CUPTI's default left alone).  The
 * expected values are written out here by hand.  Run by user/tests/inject.sh.
 */
#include <stdio.h>
#include <string.h>

#include "cuptitune.h"

static int failures;

#define EXPECT(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); failures++; } } while (0)

static void all_unset_but(const struct cupti_tune *t, int a, int b)
{
	for (int k = 0; k < CUPTI_TUNE_KEYS; k++)
		if (k != a && k != b)
			EXPECT(t->value[k] == CUPTI_TUNE_UNSET);
}

int main(void)
{
	struct cupti_tune t;
	char bad[64];

	EXPECT(cupti_tune_parse(NULL, &t, bad, sizeof(bad)) == 0);
	all_unset_but(&t, -1, -1);
	EXPECT(cupti_tune_parse("", &t, bad, sizeof(bad)) == 0);
	all_unset_but(&t, -1, -1);

	EXPECT(cupti_tune_parse("pinned=1,devbuf=32", &t, bad, sizeof(bad)) == 0);
	EXPECT(t.value[CUPTI_TUNE_PINNED] == 1 && t.value[CUPTI_TUNE_DEVBUF] == 32);
	all_unset_but(&t, CUPTI_TUNE_PINNED, CUPTI_TUNE_DEVBUF);

	EXPECT(cupti_tune_parse("kernel=serial", &t, bad, sizeof(bad)) == 0);
	EXPECT(t.value[CUPTI_TUNE_KERNEL] == 1);
	EXPECT(cupti_tune_parse("kernel=concurrent,,flush=0", &t, bad, sizeof(bad)) == 0);
	EXPECT(t.value[CUPTI_TUNE_KERNEL] == 0 && t.value[CUPTI_TUNE_FLUSH] == 0);
	EXPECT(cupti_tune_parse("hostbuf=64,hostbuf=262144", &t, bad, sizeof(bad)) == 0);
	EXPECT(t.value[CUPTI_TUNE_HOSTBUF] == 262144);	/* the last one given */

	/* refused: the item named, those before it kept */
	EXPECT(cupti_tune_parse("latency=1,pinned=2,devbuf=8", &t, bad, sizeof(bad)) == -1);
	EXPECT(!strcmp(bad, "pinned=2"));
	EXPECT(t.value[CUPTI_TUNE_LATENCY] == 1 && t.value[CUPTI_TUNE_DEVBUF] == CUPTI_TUNE_UNSET);
	EXPECT(cupti_tune_parse("hostbuf=63", &t, bad, sizeof(bad)) == -1 && !strcmp(bad, "hostbuf=63"));
	EXPECT(cupti_tune_parse("devbuf=0", &t, bad, sizeof(bad)) == -1);
	EXPECT(cupti_tune_parse("devbuf=8x", &t, bad, sizeof(bad)) == -1);
	EXPECT(cupti_tune_parse("devbuf=", &t, bad, sizeof(bad)) == -1 && !strcmp(bad, "devbuf="));
	EXPECT(cupti_tune_parse("devbuf", &t, bad, sizeof(bad)) == -1 && !strcmp(bad, "devbuf"));
	EXPECT(cupti_tune_parse("kernel=1", &t, bad, sizeof(bad)) == -1);
	EXPECT(cupti_tune_parse("pin=1", &t, bad, sizeof(bad)) == -1 && !strcmp(bad, "pin=1"));
	EXPECT(cupti_tune_parse("pinnedx=1", &t, bad, sizeof(bad)) == -1);
	EXPECT(cupti_tune_parse("flush=-1", &t, bad, sizeof(bad)) == -1);

	EXPECT(!strcmp(cupti_tune_name(CUPTI_TUNE_SEMAPOOL), "semapool"));
	EXPECT(!strcmp(cupti_tune_name(CUPTI_TUNE_KEYS), "?"));
	if (failures)
		return 1;
	printf("cupti_tune: ok\n");
	return 0;
}
