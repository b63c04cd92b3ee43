// SPDX-License-Identifier: GPL-2.0
/* Whole files into memory; see file.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "array.h"
#include "file.h"

char *read_whole_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0, cap = 0, got;
	char *text = NULL;

	if (!f)
		return NULL;
	do {
		if (array_reserve((void **)&text, &cap, n + 8192 + 1, 1)) {
			free(text);
			fclose(f);
			errno = ENOMEM;
			return NULL;
		}
		got = fread(text + n, 1, cap - n - 1, f);
		n += got;
	} while (got);
	if (ferror(f)) {
		free(text);
		fclose(f);
		errno = errno ? errno : EIO;
		return NULL;
	}
	fclose(f);
	text[n] = '\0';
	*len = n;
	return text;
}
