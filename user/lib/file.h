/* SPDX-License-Identifier: GPL-2.0 */
/* Whole files into memory: the one reader of a file of unknown size. */
#ifndef GPUPROBE_FILE_H
#define GPUPROBE_FILE_H

#include <stddef.h>

/*
 * The whole of path, NUL-terminated (*len excludes the NUL); NULL with errno
 * set.  Works on pipes and /proc files too (it reads until EOF).
 */
char *read_whole_file(const char *path, size_t *len);

#endif /* GPUPROBE_FILE_H */
