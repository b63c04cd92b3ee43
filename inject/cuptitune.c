// SPDX-License-Identifier: GPL-2.0
/* GPUPROBE_CUDA_TUNE parsed (cuptitune.h); cupti_inject.c applies it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuptitune.h"

static const struct {
	const char *name;
	long min, max;
} keys[CUPTI_TUNE_KEYS] = {
	[CUPTI_TUNE_KERNEL]	= { "kernel", 0, 1 },	/* by word: concurrent, serial */
	[CUPTI_TUNE_PINNED]	= { "pinned", 0, 1 },
	[CUPTI_TUNE_DEVBUF]	= { "devbuf", 1, 1024 },
	[CUPTI_TUNE_POOL]	= { "pool", 1, 1024 },
	[CUPTI_TUNE_PREALLOC]	= { "prealloc", 0, 1024 },
	[CUPTI_TUNE_SEMAPOOL]	= { "semapool", 1, 1 << 20 },
	[CUPTI_TUNE_FLUSH]	= { "flush", 0, 60000 },
	[CUPTI_TUNE_PERTHREAD]	= { "perthread", 0, 1 },
	[CUPTI_TUNE_LATENCY]	= { "latency", 0, 1 },
	[CUPTI_TUNE_LAUNCHATTR]	= { "launchattr", 0, 1 },
	[CUPTI_TUNE_HWTRACE]	= { "hwtrace", 0, 1 },
	[CUPTI_TUNE_HOSTBUF]	= { "hostbuf", 64, 256 << 10 },
};

const char *cupti_tune_name(enum cupti_tune_key key)
{
	return key < CUPTI_TUNE_KEYS ? keys[key].name : "?";
}

/* The value of one item "key=value"; -1 when the key or value is not known. */
static int parse_item(const char *item, size_t len, struct cupti_tune *tune)
{
	const char *eq = memchr(item, '=', len);
	char value[32], *end;
	size_t klen, vlen;
	long v;

	if (!eq)
		return -1;
	klen = (size_t)(eq - item);
	vlen = len - klen - 1;
	if (!vlen || vlen >= sizeof(value))
		return -1;
	memcpy(value, eq + 1, vlen);
	value[vlen] = '\0';
	for (unsigned int k = 0; k < CUPTI_TUNE_KEYS; k++) {
		if (strlen(keys[k].name) != klen || strncmp(keys[k].name, item, klen))
			continue;
		if (k == CUPTI_TUNE_KERNEL) {
			if (strcmp(value, "concurrent") && strcmp(value, "serial"))
				return -1;
			tune->value[k] = !strcmp(value, "serial");
			return 0;
		}
		v = strtol(value, &end, 10);
		if (*end || v < keys[k].min || v > keys[k].max)
			return -1;
		tune->value[k] = v;
		return 0;
	}
	return -1;
}

int cupti_tune_parse(const char *value, struct cupti_tune *tune, char *bad, size_t size)
{
	for (unsigned int k = 0; k < CUPTI_TUNE_KEYS; k++)
		tune->value[k] = CUPTI_TUNE_UNSET;
	if (size)
		bad[0] = '\0';
	for (const char *p = value; p && *p;) {
		size_t len = strcspn(p, ",");

		if (len && parse_item(p, len, tune)) {
			snprintf(bad, size, "%.*s", (int)len, p);
			return -1;
		}
		p += len + (p[len] == ',');
	}
	return 0;
}
