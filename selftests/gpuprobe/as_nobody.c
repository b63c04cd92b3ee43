// SPDX-License-Identifier: GPL-2.0
/*
 * as_nobody CMD [ARGS...]: runs CMD as uid and gid 65534, with no
 * supplementary groups and so no capabilities.  A helper of the VM's shell
 * tests (serve_module.sh scrapes as nobody): the VM's busybox setpriv
 * cannot change ids and its initramfs has no passwd file for su.
 */
#include <grp.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: as_nobody CMD [ARGS...]\n");
		return 2;
	}
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
		perror("as_nobody: dropping to uid 65534");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
