/* SPDX-License-Identifier: GPL-2.0 */
/* Growable arrays: the one place that doubles a buffer with realloc. */
#ifndef GPUPROBE_ARRAY_H
#define GPUPROBE_ARRAY_H

#include <stdbool.h>
#include <stddef.h>

/* Room for n elements of elem bytes in *array (capacity *cap, doubled); -1 on ENOMEM. */
int array_reserve(void **array, size_t *cap, size_t n, size_t elem);
/* The same; out of memory ends the program with a message. */
void array_reserve_or_die(void **array, size_t *cap, size_t n, size_t elem);

/*
 * Append *value to an array whose capacity is implied by its count (a power
 * of two): no capacity field needed.  false when out of memory.
 */
bool array_push(void **array, size_t *n, size_t elem, const void *value);
#define ARRAY_PUSH(arr, n, value) array_push((void **)&(arr), &(n), sizeof(*(arr)), &(value))
/* The same; out of memory ends the program with a message. */
void array_push_or_die(void **array, size_t *n, size_t elem, const void *value);
#define ARRAY_PUSH_OR_DIE(arr, n, value) \
	array_push_or_die((void **)&(arr), &(n), sizeof(*(arr)), &(value))

#endif /* GPUPROBE_ARRAY_H */
