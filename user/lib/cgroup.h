/* SPDX-License-Identifier: GPL-2.0 */
#ifndef GPUPROBE_CGROUP_H
#define GPUPROBE_CGROUP_H

#include <stddef.h>
#include <stdint.h>

#define CGROUP_V2_ROOT	"/sys/fs/cgroup"
/* where to mount one when none is: beside the system's, never over it */
#define CGROUP2_MOUNT_HINT	"/mnt/cgroup2"

/*
 * PATH (absolute, or relative to CGROUP_V2_ROOT, as is an absolute path
 * outside any cgroup filesystem: a 0:: line's) as a cgroup v2 directory:
 * its id (the inode number, which the kernel calls the cgroup id) and the
 * absolute path in abs.  -1 with what is wrong and what to do in err.
 */
int cgroup_resolve(const char *path, char *abs, size_t abslen, uint64_t *id,
		   char *err, size_t errlen);

#endif
