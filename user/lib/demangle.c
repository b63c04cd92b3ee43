// SPDX-License-Identifier: GPL-2.0
/* Demangling through libiberty (demangle.h): no demangler of our own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "demangle.h"

bool name_is_mangled(const char *name)
{
	return name && name[0] == '_' && name[1] == 'Z';
}

char *demangle_whole(const char *name)
{
	if (!name_is_mangled(name))
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}

/* name with every bracketed part of open/close at depth 1 and below written as open...close */
static size_t collapse(const char *name, char *out, size_t size, char open, char close)
{
	size_t n = 0;
	int depth = 0;

	for (const char *p = name; *p && n + 5 < size; p++) {
		if (*p == open && depth++ == 0) {
			out[n++] = open;
			memcpy(out + n, "...", 3);
			n += 3;
			continue;
		}
		if (*p == close && depth > 0 && --depth == 0) {
			out[n++] = close;
			continue;
		}
		if (!depth)
			out[n++] = *p;
	}
	out[n] = '\0';
	return n;
}

const char *name_abbreviate(const char *name, char *buf, size_t width)
{
	char tmp[DEMANGLED_LEN], tmp2[DEMANGLED_LEN];

	if (width < 8 || width >= DEMANGLED_LEN)
		width = DEMANGLED_LEN - 1;
	if (strlen(name) <= width) {
		snprintf(buf, width + 1, "%s", name);
		return buf;
	}
	collapse(name, tmp, sizeof(tmp), '(', ')');
	if (strlen(tmp) > width)
		collapse(tmp, tmp2, sizeof(tmp2), '<', '>');
	else
		snprintf(tmp2, sizeof(tmp2), "%s", tmp);
	if (strlen(tmp2) > width)
		snprintf(buf, width + 1, "%.*s...", (int)(width - 3), tmp2);
	else
		snprintf(buf, width + 1, "%s", tmp2);
	return buf;
}
