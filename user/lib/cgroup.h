/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GPUPROBE_CGROUP_H
#define GPUPROBE_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#define CGROUP_V2_ROOT	"/sys/fs/cgroup"

/*
 * PATH (absolute, or relative to CGROUP_V2_ROOT) as a cgroup v2 directory:
 * its id (the inode number, which the kernel calls the cgroup id) and the
 * absolute path in abs.  -1 with what is wrong and what to do in err.
 */
int cgroup_resolve(const char *path, char *abs, size_t abslen, uint64_t *id,
		   char *err, size_t errlen);

#endif
