// SPDX-License-Identifier: GPL-2.0
/*
 * record/serve --cgroup PATH: which cgroup v2 a path names.  The module
 * follows it by id (the directory's inode number is the kernfs id that
 * cgroup_get_from_id() takes); v1 hierarchies have no such id and are
 * refused with the way to a unified one.  Relative paths start at
 * /sys/fs/cgroup, or at /sys/fs/cgroup/unified in systemd's hybrid layout
 * (v1 controllers at the top, v2 there).  So does an absolute path that
 * names no directory of a cgroup filesystem: the "0::/PATH" line of
 * /proc/PID/cgroup names a cgroup relative to the cgroup2 mount, not to
 * the filesystem's root.
 */
#include <limits.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cgroup.h"

#define CGROUP2_MAGIC	0x63677270	/* "cgrp": linux/magic.h CGROUP2_SUPER_MAGIC */
#define CGROUP1_MAGIC	0x27e0eb	/* CGROUP_SUPER_MAGIC */

static bool is_cgroup2(const char *dir)
{
	struct statfs fs;

	return !statfs(dir, &fs) && (unsigned long)fs.f_type == CGROUP2_MAGIC;
}

/* Where relative paths start: systemd's hybrid layout has v2 at unified/. */
static const char *v2_root(void)
{
	if (!is_cgroup2(CGROUP_V2_ROOT) && is_cgroup2(CGROUP_V2_ROOT "/unified"))
		return CGROUP_V2_ROOT "/unified";
	return CGROUP_V2_ROOT;
}

/*
 * An absolute PATH as the 0:: line of /proc/PID/cgroup gives it
 * ("0::/system.slice/x.scope"): the cgroup v2 directory ROOT/PATH, its id
 * and that path in abs; -1 (abs untouched) when there is none there.
 */
static int v2_relative(const char *path, const char *root, char *abs, size_t abslen,
		       uint64_t *id)
{
	char dir[PATH_MAX];
	struct stat st;
	int n = snprintf(dir, sizeof(dir), "%s%s", root, strcmp(path, "/") ? path : "");

	if (n < 0 || (size_t)n >= sizeof(dir) || (size_t)n >= abslen || stat(dir, &st) ||
	    !S_ISDIR(st.st_mode) || !is_cgroup2(dir))
		return -1;
	memcpy(abs, dir, (size_t)n + 1);
	*id = (uint64_t)st.st_ino;
	return 0;
}

int cgroup_resolve(const char *path, char *abs, size_t abslen, uint64_t *id,
		   char *err, size_t errlen)
{
	const char *root = v2_root();
	struct statfs fs;
	struct stat st;
	int n, err_no;

	if (!path[0]) {
		snprintf(err, errlen, "--cgroup: empty path: give a cgroup v2 directory, absolute or relative to %s",
			 CGROUP_V2_ROOT);
		return -1;
	}
	n = path[0] == '/' ? snprintf(abs, abslen, "%s", path)
			   : snprintf(abs, abslen, "%s/%s", root, path);
	if (n < 0 || (size_t)n >= abslen) {
		snprintf(err, errlen, "--cgroup %s: path too long", path);
		return -1;
	}
	err_no = stat(abs, &st) || statfs(abs, &fs) ? errno : 0;
	/* not a cgroup filesystem's: a 0:: line's path, if it names one */
	if (path[0] == '/' && (err_no == ENOENT ||
			       (!err_no && (unsigned long)fs.f_type != CGROUP2_MAGIC &&
				(unsigned long)fs.f_type != CGROUP1_MAGIC)) &&
	    !v2_relative(path, root, abs, abslen, id))
		return 0;
	if (err_no) {
		if (err_no == EACCES)
			snprintf(err, errlen, "--cgroup %s: permission denied: run as a user who may read the cgroup tree (root on the host)",
				 abs);
		else if (err_no == ENOENT && path[0] == '/')
			snprintf(err, errlen, "--cgroup %s: no such cgroup: no such directory, nor %s%s (an absolute path outside the cgroup filesystems is taken under %s, as the 0:: line of /proc/PID/cgroup names a process's cgroup)",
				 abs, root, path, root);
		else if (err_no == ENOENT)
			snprintf(err, errlen, "--cgroup %s: no such cgroup (a relative path is taken under %s; the 0:: line of /proc/PID/cgroup names a process's)",
				 abs, root);
		else
			snprintf(err, errlen, "--cgroup %s: %s", abs, strerror(err_no));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--cgroup %s: not a directory: a cgroup is the directory (not its cgroup.procs)",
			 abs);
		return -1;
	}
	if ((unsigned long)fs.f_type == CGROUP1_MAGIC) {
		snprintf(err, errlen, "--cgroup %s: a cgroup v1 hierarchy: only cgroup v2 can be followed (boot with systemd.unified_cgroup_hierarchy=1, or mkdir -p %s && mount -t cgroup2 none %s and give the cgroup under it)",
			 abs, CGROUP2_MOUNT_HINT, CGROUP2_MOUNT_HINT);
		return -1;
	}
	if ((unsigned long)fs.f_type != CGROUP2_MAGIC) {
		/* an absolute path was tried under root too; a relative one is root's already */
		snprintf(err, errlen, "--cgroup %s: not in a cgroup v2 filesystem (type 0x%lx)%s%s%s: give a directory of one (where none is mounted: mkdir -p %s && mount -t cgroup2 none %s, beside %s, not over it)",
			 abs, (unsigned long)fs.f_type, path[0] == '/' ? ", nor is " : "",
			 path[0] == '/' ? root : "", path[0] == '/' ? path : "", CGROUP2_MOUNT_HINT,
			 CGROUP2_MOUNT_HINT, CGROUP_V2_ROOT);
		return -1;
	}
	*id = (uint64_t)st.st_ino;
	return 0;
}
