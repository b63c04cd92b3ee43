// SPDX-License-Identifier: GPL-2.0
/*
 * The edu probes: QEMU's edu device (1234:11e8) driven from userspace
 * through the gpuprobe_edu test driver's debugfs controls
 * (selftests/gpuprobe/edu/gpuprobe_edu.c), every operation one write(2)
 * timed with CLOCK_MONOTONIC around it.  The workload is exact (every
 * interrupt waited for, every DMA checked), so the same run on the outer VM
 * and in a guest with edu passed through measures what passthrough adds:
 * the testbed's version of the bare-metal vs VM table
 * (Documentation/results/nested-testbed-2026-12-01).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "array.h"
#include "probe.h"
#include "target.h"
#include "util.h"

#define EDU_DRIVER		"gpuprobe_edu"
#define EDU_DEBUGFS_MAGIC	0x64626720	/* DEBUGFS_MAGIC, linux/magic.h */
/* mapbench pairs per sample: one write's syscall cost spread over several */
#define EDU_MAP_PAIRS		16
#define EDU_MAP_SIZE		4096
/*
 * QEMU's edu finishes every DMA transfer on a 100 ms timer of its own: a
 * verify of 2 KiB (RAM -> device -> RAM) takes 200 ms whatever the path, so
 * it gets a tenth of the samples, and its difference is read in absolute time.
 */
#define EDU_DMA_SIZE		2048
#define EDU_DMA_ROUNDS(rounds)	(((rounds) + 9) / 10)

/* The counters of the driver's stats file that the probes move. */
enum edu_counter {
	EDU_IRQ_RAISED, EDU_IRQ_HANDLED, EDU_DMA_IRQS, EDU_DMA_MAPS, EDU_DMA_UNMAPS,
	EDU_DMA_TRANSFERS, EDU_DMA_BYTES_TO_DEVICE, EDU_DMA_BYTES_FROM_DEVICE,
	EDU_VERIFY_FAILURES, EDU_NCOUNTERS
};

static const char *const edu_counter_names[EDU_NCOUNTERS] = {
	"irq_raised", "irq_handled", "dma_irqs", "dma_maps", "dma_unmaps", "dma_transfers",
	"dma_bytes_to_device", "dma_bytes_from_device", "verify_failures",
};

struct edu {
	struct probe_api *api;
	char dir[256];		/* DEBUGFS/gpuprobe_edu/BDF */
	int irq_fd, dma_fd, map_fd;
	uint64_t before[EDU_NCOUNTERS];
};

static const char *debugfs_root(void)
{
	const char *root = getenv("GPUPROBE_DEBUGFS");

	return root && *root ? root : "/sys/kernel/debug";
}

static bool edu_skip(struct edu *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool edu_skip(struct edu *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->api->reason, sizeof(e->api->reason), fmt, ap);
	va_end(ap);
	return false;
}

/* Why DEBUGFS/gpuprobe_edu cannot be reached (errno from stat). */
static bool explain_no_driver_dir(struct edu *e, const char *root, int err)
{
	struct statfs fs;

	if (err == EACCES || err == EPERM)
		return edu_skip(e, "cannot read %s: permission denied (debugfs is readable by root only): run as root",
				root);
	if (statfs(root, &fs) || fs.f_type != EDU_DEBUGFS_MAGIC)
		return edu_skip(e, "debugfs is not mounted at %s: mount -t debugfs none %s "
				"(or point GPUPROBE_DEBUGFS at where it is)", root, root);
	return edu_skip(e, "the %s driver is not loaded (no %s/%s): insmod gpuprobe_edu.ko "
			"(built in selftests/gpuprobe/edu/ by make)", EDU_DRIVER, root, EDU_DRIVER);
}

/* The named device has no control directory: say what it is bound to. */
static bool explain_not_bound(struct edu *e, uint32_t bdf)
{
	struct target t;
	char err[256];

	if (target_resolve("/sys", bdf, &t, err, sizeof(err)))
		return edu_skip(e, "%s", err);
	if (t.vendor != 0x1234 || t.device != 0x11e8)
		return edu_skip(e, "%s is %04x:%04x, not QEMU's edu device (1234:11e8)", t.name,
				t.vendor, t.device);
	if (!t.driver[0])
		return edu_skip(e, "%s is bound to no driver: echo %s > /sys/bus/pci/drivers/%s/bind",
				t.name, t.name, EDU_DRIVER);
	return edu_skip(e, "%s is bound to %s, not %s: echo %s > /sys/bus/pci/drivers/%s/unbind, "
			"echo %s > /sys/bus/pci/devices/%s/driver_override, "
			"echo %s > /sys/bus/pci/drivers/%s/bind",
			t.name, t.driver, EDU_DRIVER, t.name, t.driver, EDU_DRIVER, t.name, t.name,
			EDU_DRIVER);
}

/* The one edu device the driver has, when none is named. */
static bool edu_pick_only(struct edu *e, const char *drvdir, char *name, size_t size)
{
	char seen[256] = "";
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(drvdir);

	if (!d)
		return edu_skip(e, "cannot list %s: %m", drvdir);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n++ == 0)
			copy_string(name, size, de->d_name);
		if (strlen(seen) + strlen(de->d_name) + 3 < sizeof(seen))
			snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s%s",
				 n > 1 ? ", " : "", de->d_name);
	}
	closedir(d);
	if (n == 0)
		return edu_skip(e, "%s is loaded but drives no edu device (%s is empty): bind one "
				"(echo BDF > /sys/bus/pci/drivers/%s/bind)", EDU_DRIVER, drvdir, EDU_DRIVER);
	if (n > 1)
		return edu_skip(e, "%zu edu devices are bound to %s (%s): name one with -d", n,
				EDU_DRIVER, seen);
	return true;
}

static bool edu_find(struct edu *e, const char *device)
{
	const char *root = debugfs_root();
	char drvdir[256], name[BDF_STRLEN];
	struct stat st;
	uint32_t bdf;

	if (format_into(drvdir, sizeof(drvdir), "%s/%s", root, EDU_DRIVER))
		return edu_skip(e, "GPUPROBE_DEBUGFS is too long");
	if (stat(drvdir, &st))
		return explain_no_driver_dir(e, root, errno);
	if (device) {
		if (bdf_parse(device, &bdf))
			return edu_skip(e, "-d %s: not a PCI address (DDDD:BB:DD.F)", device);
		bdf_format(bdf, name);
		if (format_into(e->dir, sizeof(e->dir), "%s/%s", drvdir, name))
			return edu_skip(e, "GPUPROBE_DEBUGFS is too long");
		if (stat(e->dir, &st))
			return explain_not_bound(e, bdf);
	} else {
		if (!edu_pick_only(e, drvdir, name, sizeof(name)))
			return false;
		if (format_into(e->dir, sizeof(e->dir), "%s/%s", drvdir, name))
			return edu_skip(e, "GPUPROBE_DEBUGFS is too long");
	}
	snprintf(e->api->device, sizeof(e->api->device), "QEMU edu %s (1234:11e8)", name);
	snprintf(e->api->driver, sizeof(e->api->driver), "%s, controls in %.200s", EDU_DRIVER, e->dir);
	return true;
}

static bool edu_open(struct edu *e, const char *ctl, int *fd)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", e->dir, ctl);
	*fd = open(path, O_WRONLY | O_CLOEXEC);
	if (*fd < 0)
		return edu_skip(e, "cannot open %s: %m (a gpuprobe_edu older than this tool?)", path);
	return true;
}

/* Deltas need the counters before and after; a missing one reads 0. */
static bool edu_read_counters(struct edu *e, uint64_t *v)
{
	char path[600], buf[1024], *line, *save = NULL;

	snprintf(path, sizeof(path), "%s/stats", e->dir);
	if (read_text_file(path, buf, sizeof(buf)))
		return edu_skip(e, "cannot read %s: %m", path);
	memset(v, 0, EDU_NCOUNTERS * sizeof(*v));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');

		if (!sp)
			continue;
		*sp = '\0';
		for (size_t i = 0; i < EDU_NCOUNTERS; i++)
			if (!strcmp(line, edu_counter_names[i]))
				parse_u64(sp + 1, &v[i]);
	}
	return true;
}

/* One control write, timed; a failed write stops the probes (and says why). */
static bool edu_timed_write(struct edu *e, int fd, const char *ctl, const char *cmd,
			    uint64_t *ns)
{
	size_t len = strlen(cmd);
	uint64_t t0 = mono_now_ns();
	ssize_t n = write(fd, cmd, len);
	uint64_t t1 = mono_now_ns();

	if (n != (ssize_t)len)
		return edu_skip(e, "writing '%s' to %s/%s failed: %s; the probes after it were not run",
				cmd, e->dir, ctl, n < 0 ? strerror(errno) : "short write");
	*ns = t1 - t0;
	return true;
}

/* rounds samples of one control write, each divided over per_sample operations. */
static bool edu_probe(struct edu *e, struct probe_dist *d, int fd, const char *ctl,
		      const char *cmd, unsigned int per_sample, size_t rounds)
{
	uint64_t ns = 0;

	probe_phase_begin(e->api, d->name);
	for (size_t i = 0; i < rounds; i++) {
		if (!edu_timed_write(e, fd, ctl, cmd, &ns)) {
			probe_phase_end(e->api);
			return false;
		}
		probe_dist_add(d, (double)ns / per_sample);
	}
	probe_phase_end(e->api);
	return true;
}

static bool edu_run_probes(struct edu *e, size_t rounds)
{
	struct probe_api *a = e->api;
	char map_cmd[32], dma_cmd[32];

	snprintf(map_cmd, sizeof(map_cmd), "%u %u", EDU_MAP_PAIRS, EDU_MAP_SIZE);
	snprintf(dma_cmd, sizeof(dma_cmd), "verify %u", EDU_DMA_SIZE);
	return edu_probe(e, probe_dist_new(a, "write.noop", 0,
					   "write 0 to irq: the syscall and the driver's lock, no device (the control)"),
			 e->irq_fd, "irq", "0", 1, rounds) &&
	       edu_probe(e, probe_dist_new(a, "irq.round_trip", 0,
					   "write 1 to irq: raise MSI -> handler -> waiter woken -> write returns"),
			 e->irq_fd, "irq", "1", 1, rounds) &&
	       edu_probe(e, probe_dist_new(a, "dma.verify.2KiB", 2 * EDU_DMA_SIZE,
					   "dma verify 2048: map 2, RAM -> device -> RAM (2 transfers, each "
					   "100 ms in QEMU and waited by MSI), unmap 2, compare"),
			 e->dma_fd, "dma", dma_cmd, 1, EDU_DMA_ROUNDS(rounds)) &&
	       edu_probe(e, probe_dist_new(a, "map_unmap.4KiB", 0,
					   "one dma_map_single + dma_unmap_single of 4 KiB (mapbench, %u pairs per sample)",
					   EDU_MAP_PAIRS),
			 e->map_fd, "mapbench", map_cmd, EDU_MAP_PAIRS, rounds);
}

/* The driver's counters moved by exactly the workload, or the reason says not. */
static void edu_check_counters(struct edu *e, size_t rounds, bool completed)
{
	struct probe_api *a = e->api;
	uint64_t after[EDU_NCOUNTERS];
	uint64_t maps_expected = rounds * EDU_MAP_PAIRS + 2 * EDU_DMA_ROUNDS(rounds);

	if (!edu_read_counters(e, after))
		return;
	for (size_t i = 0; i < EDU_NCOUNTERS; i++) {
		struct probe_counter c = { .value = after[i] - e->before[i] };

		copy_string(c.name, sizeof(c.name), edu_counter_names[i]);
		ARRAY_PUSH_OR_DIE(a->counters, a->ncounters, c);
	}
	if (!completed || a->reason[0])
		return;
	if (after[EDU_IRQ_RAISED] - e->before[EDU_IRQ_RAISED] != rounds ||
	    after[EDU_DMA_MAPS] - e->before[EDU_DMA_MAPS] != maps_expected ||
	    after[EDU_DMA_UNMAPS] - e->before[EDU_DMA_UNMAPS] != maps_expected ||
	    after[EDU_VERIFY_FAILURES] != e->before[EDU_VERIFY_FAILURES])
		snprintf(a->reason, sizeof(a->reason),
			 "the driver's counters do not match the workload: irq_raised +%llu (expected %zu), "
			 "dma_maps +%llu and dma_unmaps +%llu (expected %llu), verify_failures +%llu; "
			 "did something else use the device during the run?",
			 (unsigned long long)(after[EDU_IRQ_RAISED] - e->before[EDU_IRQ_RAISED]), rounds,
			 (unsigned long long)(after[EDU_DMA_MAPS] - e->before[EDU_DMA_MAPS]),
			 (unsigned long long)(after[EDU_DMA_UNMAPS] - e->before[EDU_DMA_UNMAPS]),
			 (unsigned long long)maps_expected,
			 (unsigned long long)(after[EDU_VERIFY_FAILURES] - e->before[EDU_VERIFY_FAILURES]));
}

bool probe_edu_run(struct probe_api *a, const struct probe_opts *o)
{
	struct edu e = { .api = a, .irq_fd = -1, .dma_fd = -1, .map_fd = -1 };
	size_t rounds = o->rounds ? o->rounds : o->quick ? 20 : 200;
	bool completed;

	if (!edu_find(&e, o->device) || !edu_open(&e, "irq", &e.irq_fd) ||
	    !edu_open(&e, "dma", &e.dma_fd) || !edu_open(&e, "mapbench", &e.map_fd) ||
	    !edu_read_counters(&e, e.before))
		goto out;
	a->ran = true;
	completed = edu_run_probes(&e, rounds);
	edu_check_counters(&e, rounds, completed);
out:
	if (e.irq_fd >= 0)
		close(e.irq_fd);
	if (e.dma_fd >= 0)
		close(e.dma_fd);
	if (e.map_fd >= 0)
		close(e.map_fd);
	return a->ran;
}
