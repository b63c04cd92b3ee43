// SPDX-License-Identifier: GPL-2.0
/* Thread id -> process id from /proc; see tgid_cache.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgid_cache.h"

static uint32_t read_tgid(const char *root, uint32_t tid)
{
	char path[256], line[128];
	uint32_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u/status", root ? root : "/proc", tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tgid:", 5)) {
			tgid = (uint32_t)strtoul(line + 5, NULL, 10);
			break;
		}
	fclose(f);
	return tgid;
}

uint32_t tgid_of(struct tgid_cache *c, uint32_t tid)
{
	uint32_t tgid;

	if (!tid)
		return 0;	/* the idle task */
	for (unsigned int i = 0; i < TGID_CACHE_SLOTS; i++)
		if (c->slot[i].tid == tid)
			return c->slot[i].tgid;
	tgid = read_tgid(c->proc_root, tid);
	if (tgid) {	/* a thread gone is asked again: its number may come back */
		c->slot[c->next].tid = tid;
		c->slot[c->next].tgid = tgid;
		c->next = (c->next + 1) % TGID_CACHE_SLOTS;
	}
	return tgid;
}
