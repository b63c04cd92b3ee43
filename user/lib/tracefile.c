// SPDX-License-Identifier: GPL-2.0
/*
 * Trace file writer and validating, streaming reader.  Every refusal names
 * the byte offset where the file stopped making sense.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracefile.h"
#include "iommu_mode.h"
#include "tracefile_chunk.h"
#include "util.h"

#define WRITER_BUF_SIZE		(1u << 20)
#define HDR_SIZE		sizeof(struct gpuprobe_rec_hdr)
#define TEMP_TAG		".gpuprobe-"

_Static_assert(sizeof(struct tracefile_header_fixed) % 8 == 0, "header alignment");
_Static_assert(sizeof(struct tracefile_target) % 8 == 0, "target alignment");
_Static_assert(sizeof(struct tracefile_vector) % 8 == 0, "vector alignment");
_Static_assert(sizeof(struct tracefile_rec_irq_count) % 8 == 0, "irq count alignment");
_Static_assert(sizeof(struct tracefile_rec_end) % 8 == 0, "end alignment");
_Static_assert(sizeof(struct tracefile_rec_app) % 8 == 0, "app alignment");
_Static_assert(sizeof(struct tracefile_rec_vector) == 32, "vector record size");
_Static_assert(sizeof(struct tracefile_rec_machine) == 280, "machine record size");
_Static_assert(sizeof(struct tracefile_rec_guest) == 24, "guest record size");
_Static_assert(sizeof(struct tracefile_rec_clock_sync) == 56, "clock sync record size");

const char *tracefile_source_name(uint32_t source)
{
	switch (source) {
	case TRACE_SOURCE_MODULE:	return "module";
	case TRACE_SOURCE_TRACEFS:	return "tracefs";
	case TRACE_SOURCE_SYNTHETIC:	return "synthetic";
	case TRACE_SOURCE_XENTRACE:	return "xentrace";
	default:			return "unknown";
	}
}

const char *tracefile_record_type_name(uint16_t type)
{
	switch (type) {
	case GPUPROBE_EV_IRQ:		return "irq";
	case GPUPROBE_EV_LOST:		return "lost";
	case GPUPROBE_EV_TARGET:	return "target";
	case GPUPROBE_EV_WAKEUP:	return "wakeup";
	case GPUPROBE_EV_SWITCH:	return "switch";
	case GPUPROBE_EV_DMA:		return "dma";
	case GPUPROBE_EV_IOMMU:		return "iommu";
	case GPUPROBE_EV_SWIOTLB:	return "swiotlb";
	case GPUPROBE_EV_IOMMU_PART:	return "iommu_part";
	case TRACEFILE_REC_IRQ_COUNT:	return "irq_count";
	case TRACEFILE_REC_APP:		return "app";
	case TRACEFILE_REC_VECTOR:	return "vector";
	case TRACEFILE_REC_MACHINE:	return "machine";
	case TRACEFILE_REC_GUEST:	return "guest";
	case TRACEFILE_REC_CLOCK_SYNC:	return "clock_sync";
	case TRACEFILE_REC_KVM:		return "kvm";
	case TRACEFILE_REC_COMMAND:	return "workload";
	case TRACEFILE_REC_DELIVERY:	return "delivery";
	case TRACEFILE_REC_STRING:	return "string";
	case TRACEFILE_REC_TSC:		return "tsc";
	case TRACEFILE_REC_IOMMU_MODE:	return "iommu_mode";
	case TRACEFILE_REC_XEN:		return "xen";
	default:			return "unknown";
	}
}

/* ---- writer ---- */

static size_t header_size_for(const struct trace_info *info)
{
	size_t size = sizeof(struct tracefile_header_fixed);

	for (unsigned int i = 0; i < info->targets.count; i++)
		size += sizeof(struct tracefile_target) +
			info->targets.t[i].nvec * sizeof(struct tracefile_vector);
	return size;
}

static void fill_fixed_header(struct tracefile_header_fixed *h,
			      const struct trace_info *info, uint32_t version)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, TRACEFILE_MAGIC, sizeof(h->magic));
	h->format_version = version;
	h->header_size = (uint32_t)header_size_for(info);
	h->record_version = info->record_version;
	h->clock_id = info->clock_id;
	h->source = info->source;
	h->ntargets = info->targets.count;
	h->start_ns = info->start_ns;
	h->start_realtime_ns = info->start_realtime_ns;
	h->app_events = info->app_events;
	copy_string(h->host, sizeof(h->host), info->host);
	copy_string(h->kernel_release, sizeof(h->kernel_release), info->kernel_release);
	copy_string(h->tool_version, sizeof(h->tool_version), info->tool_version);
}

static int write_target(FILE *f, const struct target *t)
{
	struct tracefile_target ft = {
		.bdf = t->bdf, .vendor = t->vendor, .device = t->device,
		.class = t->class, .nvec = t->nvec,
	};

	copy_string(ft.driver, sizeof(ft.driver), t->driver);
	if (fwrite(&ft, sizeof(ft), 1, f) != 1)
		return -1;
	for (uint32_t i = 0; i < t->nvec; i++) {
		struct tracefile_vector fv = {
			.index = t->vec[i].index, .irq = t->vec[i].irq,
			.flags = t->vec[i].flags,
		};

		if (fwrite(&fv, sizeof(fv), 1, f) != 1)
			return -1;
	}
	return 0;
}

/*
 * Owner-only: records carry IOMMU physical addresses and DMA addresses,
 * which the kernel only gives to privileged readers.
 */
static FILE *create_private(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	FILE *f;

	if (fd < 0)
		return NULL;
	f = fdopen(fd, "wb");
	if (!f)
		close(fd);
	return f;
}

int trace_writer_create(struct trace_writer *w, const char *path)
{
	memset(w, 0, sizeof(*w));
	w->path = path;
	w->file = strcmp(path, "-") ? create_private(path) : stdout;
	if (!w->file)
		return -1;
	setvbuf(w->file, NULL, _IOFBF, WRITER_BUF_SIZE);
	return 0;
}

/*
 * ".NAME.gpuprobe-PID.XXXXXX" in NAME's directory: rename() within one file
 * system is atomic; the pid says whose it is once its recorder is killed.
 */
static int temp_name_for(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;

	return format_into(out, size, "%.*s.%s" TEMP_TAG "%d.XXXXXX", dirlen, path,
			   slash ? slash + 1 : path, (int)getpid());
}

/* The recorder pid in a temporary file's name; 0: not a name temp_name_for() makes. */
static long temp_owner(const char *name)
{
	const char *tag = NULL, *p = name;
	char *end;
	long pid;

	while ((p = strstr(p, TEMP_TAG)))
		tag = p++;
	if (name[0] != '.' || !tag || tag == name)
		return 0;
	errno = 0;
	pid = strtol(tag + strlen(TEMP_TAG), &end, 10);
	if (errno || end == tag + strlen(TEMP_TAG) || *end != '.' || strlen(end + 1) != 6)
		return 0;
	return pid;
}

/*
 * A record killed before its source started (SIGKILL, OOM) leaves its
 * temporary file behind: remove those of recorders that no longer exist,
 * if ours (same owner) and not locked, as every live recorder's is.
 */
void trace_writer_remove_stale_temps(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (format_into(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path + 1) : 1,
			slash ? path : "."))
		return;
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		long pid = temp_owner(de->d_name);
		struct stat st;
		int fd;

		if (!pid_gone(pid))
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    !flock(fd, LOCK_EX | LOCK_NB) && !unlinkat(dirfd(d), de->d_name, 0))
			warnf("removed %s%s, the temporary file of a record that was killed (pid %ld)",
			      slash ? dir : "", de->d_name, pid);
		close(fd);
	}
	if (d)
		closedir(d);
}

int trace_writer_create_temp(struct trace_writer *w, const char *path)
{
	struct stat st;
	int fd;

	memset(w, 0, sizeof(*w));
	w->path = path;
	if (!strcmp(path, "-")) {
		w->file = stdout;
		w->published = true;
		setvbuf(w->file, NULL, _IOFBF, WRITER_BUF_SIZE);
		return 0;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		return -1;
	}
	/* a FIFO or a device is written in place (as "-"), never renamed over */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
		w->file = fd < 0 ? NULL : fdopen(fd, "wb");
		if (!w->file) {
			if (fd >= 0)
				close(fd);
			return -1;
		}
		w->published = true;
		setvbuf(w->file, NULL, _IOFBF, WRITER_BUF_SIZE);
		return 0;
	}
	if (temp_name_for(path, w->temp_path, sizeof(w->temp_path))) {
		errno = ENAMETOOLONG;
		return -1;
	}
	trace_writer_remove_stale_temps(path);
	fd = mkostemp(w->temp_path, O_CLOEXEC);	/* 0600, as create_private */
	if (fd < 0)
		return -1;
	flock(fd, LOCK_EX | LOCK_NB);	/* held until exit: tells a live file from a stale one */
	w->file = fdopen(fd, "wb");
	if (!w->file) {
		close(fd);
		unlink(w->temp_path);
		return -1;
	}
	setvbuf(w->file, NULL, _IOFBF, WRITER_BUF_SIZE);
	return 0;
}

int trace_writer_publish(struct trace_writer *w)
{
	if (w->published)
		return 0;
	if (trace_writer_flush(w) || rename(w->temp_path, w->path))
		return -1;
	w->published = true;
	return 0;
}

int trace_writer_header(struct trace_writer *w, const struct trace_info *info)
{
	struct tracefile_header_fixed h;

	fill_fixed_header(&h, info, w->chunk ? w->chunk_version : TRACEFILE_VERSION_RAW);
	if (fwrite(&h, sizeof(h), 1, w->file) != 1)
		return -1;
	for (unsigned int i = 0; i < info->targets.count; i++)
		if (write_target(w->file, &info->targets.t[i]))
			return -1;
	w->bytes = h.header_size;
	return 0;
}

int trace_writer_open(struct trace_writer *w, const char *path,
		      const struct trace_info *info)
{
	if (trace_writer_create(w, path))
		return -1;
	if (trace_writer_header(w, info)) {
		trace_writer_abort(w);
		return -1;
	}
	return 0;
}

int trace_writer_compress_version(struct trace_writer *w, int level, uint32_t version)
{
	if (!level)
		return 0;
	if (version != TRACEFILE_VERSION && version != TRACEFILE_VERSION_UNCHECKED) {
		errno = EINVAL;
		return -1;
	}
	w->chunk_version = version;
	w->chunk = chunk_encoder_new(level);
	return w->chunk ? 0 : -1;
}

int trace_writer_compress(struct trace_writer *w, int level)
{
	return trace_writer_compress_version(w, level, TRACEFILE_VERSION);
}

/* The chunk filled so far onto the stdio buffer. */
static int write_chunk(struct trace_writer *w)
{
	struct tracefile_chunk hdr;
	const unsigned char *data;
	size_t len, hsize;

	if (!w->chunk->records)
		return 0;
	if (chunk_encoder_seal(w->chunk, &hdr, &data, &len))
		return -1;
	if (w->chunk_version == TRACEFILE_VERSION)
		chunk_check_fill(&hdr, data);
	hsize = w->chunk_version == TRACEFILE_VERSION ? TRACEFILE_CHUNK_HDR_V3 : TRACEFILE_CHUNK_HDR_V2;
	if (fwrite(&hdr, hsize, 1, w->file) != 1 ||
	    (len && fwrite(data, len, 1, w->file) != 1))
		return -1;
	w->bytes += hsize + len;
	return 0;
}

int trace_writer_put(struct trace_writer *w, const struct gpuprobe_rec_hdr *rec)
{
	if (rec->size < HDR_SIZE || rec->size % 8) {
		errno = EINVAL;
		return -1;
	}
	if (w->chunk) {
		if (!chunk_encoder_fits(w->chunk, rec, rec->size) && write_chunk(w))
			return -1;
		chunk_encoder_add(w->chunk, rec, rec->size);
		w->records++;
		return 0;
	}
	if (fwrite(rec, rec->size, 1, w->file) != 1)
		return -1;
	w->records++;
	w->bytes += rec->size;
	return 0;
}

int trace_writer_flush(struct trace_writer *w)
{
	if (w->chunk && write_chunk(w))
		return -1;
	return fflush(w->file) ? -1 : 0;
}

int trace_writer_finish(struct trace_writer *w, uint64_t stop_ns, int exit_status)
{
	struct tracefile_rec_end end = {
		.hdr = { .type = TRACEFILE_REC_END, .size = sizeof(end), .ts_ns = stop_ns },
		.records = w->records,
		.exit_status = exit_status,
	};
	int err = trace_writer_put(w, &end.hdr);

	return trace_writer_close_incomplete(w) || err ? -1 : 0;
}

int trace_writer_close_incomplete(struct trace_writer *w)
{
	int err = 0;

	if (!w->file)
		return 0;
	/* the records put so far are whole: they make a readable last chunk */
	if (w->chunk && write_chunk(w))
		err = -1;
	chunk_encoder_free(w->chunk);
	w->chunk = NULL;
	if (fflush(w->file))
		err = -1;
	if (w->file != stdout && fclose(w->file))
		err = -1;
	w->file = NULL;
	return err;
}

void trace_writer_abort(struct trace_writer *w)
{
	chunk_encoder_free(w->chunk);
	w->chunk = NULL;
	if (w->file && w->file != stdout)
		fclose(w->file);
	w->file = NULL;
	if (w->temp_path[0] && !w->published)
		unlink(w->temp_path);
	w->temp_path[0] = '\0';
}

int tracefile_target_decode(const unsigned char *p, size_t len, size_t *pos, struct target *t)
{
	struct tracefile_target ft;

	if (*pos > len || len - *pos < sizeof(ft))
		return TRACEFILE_TARGET_TRUNCATED;
	memcpy(&ft, p + *pos, sizeof(ft));
	memset(t, 0, sizeof(*t));
	t->nvec = ft.nvec;
	if (ft.nvec > TARGET_MAX_VECTORS ||
	    (len - *pos - sizeof(ft)) / sizeof(struct tracefile_vector) < ft.nvec)
		return TRACEFILE_TARGET_BAD_NVEC;
	t->bdf = ft.bdf;
	t->vendor = ft.vendor;
	t->device = ft.device;
	t->class = ft.class;
	bdf_format(t->bdf, t->name);
	copy_string(t->driver, sizeof(t->driver), ft.driver);
	*pos += sizeof(ft);
	for (uint32_t i = 0; i < ft.nvec; i++, *pos += sizeof(struct tracefile_vector)) {
		struct tracefile_vector fv;

		memcpy(&fv, p + *pos, sizeof(fv));
		t->vec[i] = (struct target_vector){ fv.index, fv.irq, fv.flags };
	}
	return 0;
}

/* The sizes Documentation/trace-format.md and tests/tracedump.py give these records. */
_Static_assert(sizeof(struct tracefile_rec_string) == 32, "string record: 32 bytes + the text");
_Static_assert(sizeof(struct tracefile_rec_tsc) == 96, "TSC record: 96 bytes");
_Static_assert(sizeof(struct tracefile_rec_iommu_mode) == 64, "IOMMU mode record: 64 bytes");
