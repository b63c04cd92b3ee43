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
 * kept; a name that does not exist yet is taken as it is.
 */
static int resolve_output(const char *path, char *out, size_t size)
{
	struct stat st;
	char *real;

	if (lstat(path, &st) || !S_ISLNK(st.st_mode))
		return format_into(out, size, "%s", path);
	real = realpath(path, NULL);
	if (!real)
		return -1;
	if (format_into(out, size, "%s", real)) {
		free(real);
		errno = ENAMETOOLONG;
		return -1;
	}
	free(real);
	return 0;
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
	slash = strrchr(o->path, '/');
	format_into(o->temp, sizeof(o->temp), "%.*s.%s.gpuprobe-out.XXXXXX",
		    slash ? (int)(slash - o->path + 1) : 0, o->path, slash ? slash + 1 : o->path);
	fd = mkostemp(o->temp, O_CLOEXEC);	/* 0600: exports carry DMA addresses */
	if (fd < 0) {
		format_into(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	/* An output replaced keeps the permissions its owner gave it. */
	if (!stat(o->path, &st) && S_ISREG(st.st_mode))
		fchmod(fd, st.st_mode & 07777);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		format_into(err, errlen, "cannot create %s: %s", path, strerror(errno));
		close(fd);
		unlink(o->temp);
		return -1;
	}
	return 0;
}

int outfile_commit(struct outfile *o)
{
	int err;

	if (o->is_stdout)
		return fflush(o->f);
	err = ferror(o->f);
	if (fflush(o->f) || fsync(fileno(o->f)))
		err = 1;
	if (fclose(o->f))
		err = 1;
	o->f = NULL;
	if (err) {
		if (!errno)
			errno = EIO;
		unlink(o->temp);
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
	unlink(o->temp);
}
