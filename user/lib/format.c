// SPDX-License-Identifier: GPL-2.0
/* Numbers for people; see format.h. */
#include <math.h>
#include <stdio.h>

#include "format.h"

#define KiB	1024ull
#define MiB	(1024ull * KiB)

const char *format_ns(char *buf, size_t size, double ns)
{
	double a = fabs(ns);

	if (a < 1e3)
		snprintf(buf, size, "%.0fns", ns);
	else if (a < 1e6)
		snprintf(buf, size, "%.2fus", ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, size, "%.2fms", ns / 1e6);
	else
		snprintf(buf, size, "%.3fs", ns / 1e9);
	return buf;
}

const char *format_size(char *buf, size_t size, uint64_t bytes)
{
	if (bytes >= MiB && bytes % MiB == 0)
		snprintf(buf, size, "%lluMiB", (unsigned long long)(bytes / MiB));
	else if (bytes >= KiB && bytes % KiB == 0)
		snprintf(buf, size, "%lluKiB", (unsigned long long)(bytes / KiB));
	else
		snprintf(buf, size, "%lluB", (unsigned long long)bytes);
	return buf;
}
