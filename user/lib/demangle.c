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

const char *demangle_name(const char *name, char *buf, size_t size)
{
	char *d;

	if (!name_is_mangled(name) || !size)
		return name;
	d = cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
	if (!d)
		return name;
	snprintf(buf, size, "%s", d);
	free(d);
	return buf;
}
