// SPDX-License-Identifier: GPL-2.0
/* The probe signal's trace lines and the pid mapping; see pidns_parse.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pidns_parse.h"

/*
 * The sender's pid: the digits after the '-' just before the " [CPU]"
 * field ("comm-PID [001]"); a comm may hold '-' or ' ' itself.
 */
static long line_sender(const char *line, const char *end)
{
	for (const char *br = line; (br = memchr(br, '[', (size_t)(end - br))); br++) {
		const char *p = br;

		while (p > line && p[-1] == ' ')
			p--;
		if (p == br)
			continue;
		while (p > line && p[-1] >= '0' && p[-1] <= '9')
			p--;
		if (p > line && p[-1] == '-' && *p >= '0' && *p <= '9')
			return strtol(p, NULL, 10);
	}
	return 0;
}

bool pidns_next_signal(const char **pos, int sig, int nonce, long *sender, long *target)
{
	char needle[64];
	const char *line = *pos;

	snprintf(needle, sizeof(needle), "signal_generate: sig=%d errno=%d ", sig, nonce);
	while (*line) {
		const char *end = strchr(line, '\n');
		const char *hit, *p;

		if (!end)
			end = line + strlen(line);
		*pos = *end ? end + 1 : end;
		hit = strstr(line, needle);
		if (hit && hit < end && *line != '#') {
			p = strstr(hit, " pid=");
			if (p && p < end) {
				*sender = line_sender(line, hit);
				*target = strtol(p + 5, NULL, 10);
				if (*sender > 0 && *target > 0)
					return true;
			}
		}
		line = *pos;
	}
	return false;
}

uint32_t pidns_local_pid(uint32_t kpid, uint32_t kself, uint32_t self,
			 uint32_t kworkload, uint32_t workload)
{
	if (!kpid)
		return 0;
	if (kworkload && kpid == kworkload)
		return workload;
	if (kpid == kself)
		return self;
	return 0;
}
