/* SPDX-License-Identifier: GPL-2.0 */
/* Numbers for people: the one duration formatter and the one size formatter. */
#ifndef GPUPROBE_FORMAT_H
#define GPUPROBE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define FORMAT_NS_LEN	32

/* "812ns", "-3.02us", "1.50ms", "2.000s"; returns buf. */
const char *format_ns(char *buf, size_t size, double ns);
/* "4KiB", "1MiB", "1000B": exact binary units only. */
const char *format_size(char *buf, size_t size, uint64_t bytes);

#endif /* GPUPROBE_FORMAT_H */
