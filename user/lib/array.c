// SPDX-License-Identifier: GPL-2.0
/* Growable arrays; see array.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "util.h"

int array_reserve(void **array, size_t *cap, size_t n, size_t elem)
{
	size_t cap2 = *cap ? *cap : 64;
	void *grown;

	if (n <= *cap)
		return 0;
	while (cap2 < n)
		cap2 *= 2;
	if (cap2 > SIZE_MAX / elem) {
		errno = ENOMEM;
		return -1;
	}
	grown = realloc(*array, cap2 * elem);
	if (!grown)
		return -1;
	*array = grown;
	*cap = cap2;
	return 0;
}

static void out_of_memory(void)
{
	errorf("out of memory");
	exit(1);
}

void array_reserve_or_die(void **array, size_t *cap, size_t n, size_t elem)
{
	if (array_reserve(array, cap, n, elem))
		out_of_memory();
}

bool array_push(void **array, size_t *n, size_t elem, const void *value)
{
	if ((*n & (*n - 1)) == 0) {	/* 0, 1, 2, 4...: full, double */
		size_t cap = *n ? 2 * *n : 1;
		void *grown;

		if (cap > SIZE_MAX / elem)
			return false;
		grown = realloc(*array, cap * elem);
		if (!grown)
			return false;
		*array = grown;
	}
	memcpy((char *)*array + *n * elem, value, elem);
	(*n)++;
	return true;
}

void array_push_or_die(void **array, size_t *n, size_t elem, const void *value)
{
	if (!array_push(array, n, elem, value))
		out_of_memory();
}
