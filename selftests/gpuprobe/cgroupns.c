// SPDX-License-Identifier: GPL-2.0
/*
 * cgroupns CMD [ARGS...]: runs CMD in a cgroup namespace of its own, rooted
 * at the cgroup it is in.  A helper of the VM's container tests
 * (container_table.sh): the VM's busybox unshare has no -C.
 */
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: cgroupns CMD [ARGS...]\n");
		return 2;
	}
	if (unshare(CLONE_NEWCGROUP)) {
		perror("cgroupns: unshare(CLONE_NEWCGROUP)");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
