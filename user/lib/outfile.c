// SPDX-License-Identifier: GPL-2.0
/* Output files written through a temporary name; see outfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "util.h"

bool same_file(const char *path, const char *other)
{
	struct stat a, b;

	if (!strcmp(path, "-") || !strcmp(other, "-"))
		return false;
	return !stat(path, &a) && !stat(other, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/*
 * A symlink is followed, so that the file it names is replaced and the link
 * kept (a dangling one: the file it names is created); a name that does not
 * exist yet is taken as it is.
 */
static int resolve_output(const char *path, char *out, size_t size)
{
	char target[PATH_MAX];
	const char *slash;
	struct stat st;
	ssize_t n;
	char *real;

	if (lstat(path, &st) || !S_ISLNK(st.st_mode))
		return format_into(out, size, "%s", path);
	real = realpath(path, NULL);
	if (real) {
		int ret = format_into(out, size, "%s", real);

		free(real);
		if (ret)
			errno = ENAMETOOLONG;
		return ret;
	}
	n = readlink(path, target, sizeof(target) - 1);
	if (errno != ENOENT || n <= 0)
		return -1;
	target[n] = 0;
	slash = strrchr(path, '/');
	if (target[0] == '/' || !slash)
		return format_into(out, size, "%s", target);
	return format_into(out, size, "%.*s/%s", (int)(slash - path), path, target);
}

/* The output's directory resolved and its name: two spellings of one output compare equal. */
int outfile_canonical(const char *path, char *out, size_t size)
{
	char dir[PATH_MAX], resolved[PATH_MAX], *real;
	const char *slash, *base;
	int ret;

	if (resolve_output(path, resolved, sizeof(resolved)))
		return format_into(out, size, "%s", path);
	slash = strrchr(resolved, '/');
	base = slash ? slash + 1 : resolved;
	if (format_into(dir, sizeof(dir), "%.*s", slash ? (int)(slash - resolved + 1) : 1,
			slash ? resolved : "."))
		return -1;
	real = realpath(dir, NULL);
	if (!real)
		return format_into(out, size, "%s", resolved);
	ret = format_into(out, size, "%s/%s", strcmp(real, "/") ? real : "", base);
	free(real);
	return ret;
}

int outfile_open(struct outfile *o, const char *path, const char *const *inputs,
		 size_t ninputs, char *err, size_t errlen)
{
	const char *slash;
	struct stat st;
	int fd;

	memset(o, 0, sizeof(*o));
	if (!strcmp(path, "-")) {
		o->f = stdout;
		o->is_stdout = true;
		return 0;
	}
	for (size_t i = 0; i < ninputs; i++) {
		if (inputs[i] && same_file(path, inputs[i])) {
			format_into(err, errlen, "%s is %s, an input of this command: give another output name",
				    path, strcmp(path, inputs[i]) ? inputs[i] : "the same file");
			errno = EEXIST;
			return -1;
		}
	}
	if (resolve_output(path, o->path, sizeof(o->path))) {
		format_into(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	if (!stat(o->path, &st) && S_ISDIR(st.st_mode)) {
		format_into(err, errlen, "cannot create %s: it is a directory", path);
		errno = EISDIR;
		return -1;
	}
	/*
	 * A FIFO, a device (/dev/null), a socket: written in place, never
	 * replaced by a regular file (renaming over /dev/null as root would
	 * break the system).
	 */
	if (!stat(o->path, &st) && !S_ISREG(st.st_mode)) {
		fd = open(o->path, O_WRONLY | O_CLOEXEC);
		o->in_place = true;
	} else {
		slash = strrchr(o->path, '/');
		if (format_into(o->temp, sizeof(o->temp), "%.*s.%s.gpuprobe-out.XXXXXX",
				slash ? (int)(slash - o->path + 1) : 0, o->path,
				slash ? slash + 1 : o->path)) {
			format_into(err, errlen, "cannot create %s: name too long", path);
			errno = ENAMETOOLONG;
			return -1;
		}
		/* 0600 whatever the file it replaces was: exports carry DMA and physical addresses */
		fd = mkostemp(o->temp, O_CLOEXEC);
	}
	if (fd < 0) {
		format_into(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		format_into(err, errlen, "cannot create %s: %s", path, strerror(errno));
		close(fd);
		if (!o->in_place)
			unlink(o->temp);
		return -1;
	}
	return 0;
}

int outfile_commit(struct outfile *o)
{
	int err, saved = 0;

	if (o->is_stdout)
		return fflush(o->f);
	errno = 0;
	err = ferror(o->f);
	if (fflush(o->f) || (!o->in_place && fsync(fileno(o->f))))
		err = 1, saved = errno;
	if (fclose(o->f) && !saved)
		err = 1, saved = errno;
	o->f = NULL;
	if (o->in_place) {
		errno = saved ? saved : EIO;
		return err ? -1 : 0;
	}
	if (err) {
		unlink(o->temp);
		errno = saved ? saved : EIO;
		return -1;
	}
	if (rename(o->temp, o->path)) {
		int saved = errno;

		unlink(o->temp);
		errno = saved;
		return -1;
	}
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->is_stdout) {
		fflush(o->f);
		return;
	}
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (!o->in_place)
		unlink(o->temp);
}
