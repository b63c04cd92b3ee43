/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output files that never destroy an input: every command that writes a file
 * (export, explain -o, probe -o) opens it here before its long work, so that
 * an output it cannot create, or one that is one of its inputs, is refused
 * before anything runs; what it writes goes to a temporary name in the
 * output's directory and replaces the output only when complete.
 */
#ifndef GPUPROBE_OUTFILE_H
#define GPUPROBE_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

struct outfile {
	FILE *f;
	char path[PATH_MAX];		/* where it goes (a symlink's target) */
	char temp[PATH_MAX + 32];	/* where it is written until committed */
	bool is_stdout;
	bool in_place;			/* a FIFO or a device: written, never replaced */
};

/*
 * Opens path for writing ("-": stdout).  inputs[0..ninputs) are the files the
 * command reads: an output that is one of them (the same inode, whatever the
 * name) is refused.  0 on success; -1 with the reason in err (errno set).
 */
int outfile_open(struct outfile *o, const char *path, const char *const *inputs,
		 size_t ninputs, char *err, size_t errlen);

/* Flushes, closes and renames into place; -1 (errno set) removes the temporary file. */
int outfile_commit(struct outfile *o);

/* Drops what was written: the output, if it existed, is untouched. */
void outfile_abort(struct outfile *o);

/*
 * path with its directory resolved (symlinks, "./", ".."): two names of one
 * output, existing or not, give the same string.
 */
int outfile_canonical(const char *path, char *out, size_t size);

/*
 * Whether path and other name the same existing file; false when either
 * does not exist.
 */
bool same_file(const char *path, const char *other);

#endif /* GPUPROBE_OUTFILE_H */
