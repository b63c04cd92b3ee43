/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the selftests that run inside the test VM: loading modules,
 * finding the edu device, reading the kernel's own interrupt accounting.
 */
#ifndef GPUPROBE_SELFTEST_VMUTIL_H
#define GPUPROBE_SELFTEST_VMUTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* GPUPROBE_KO in the environment: another build (session_owner_unicast) */
#define GPUPROBE_KO	(getenv("GPUPROBE_KO") ? getenv("GPUPROBE_KO") : "/gpuprobe/gpuprobe.ko")
#define EDU_KO		"/gpuprobe/gpuprobe_edu.ko"
#define EDU_DEBUGFS	"/sys/kernel/debug/gpuprobe_edu"

static inline int mod_load(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int ret, saved;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params ? params : "", 0);
	saved = errno;
	close(fd);
	return ret ? -saved : 0;
}

static inline int mod_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

static inline int mod_loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return access(path, F_OK) == 0;
}

static inline int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

static inline int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	if (n < 0)
		return -errno;
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* First PCI function with this vendor:device, as "DDDD:BB:DD.F". */
/* The nth (from 0) PCI function with this vendor and device id. */
static inline int pci_find_nth(unsigned int vendor, unsigned int device,
			       int nth, char *bdf, size_t len)
{
	struct dirent **names;
	char path[512], v[16], dv[16];
	int n, i, err = -ENODEV;

	n = scandir("/sys/bus/pci/devices", &names, NULL, alphasort);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (name[0] == '.' || err != -ENODEV)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor",
			 name);
		if (read_file(path, v, sizeof(v)))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device",
			 name);
		if (read_file(path, dv, sizeof(dv)))
			continue;
		if (strtoul(v, NULL, 16) != vendor ||
		    strtoul(dv, NULL, 16) != device || nth--)
			continue;
		if (strlen(name) >= len) {
			err = -ENAMETOOLONG;
			continue;
		}
		memcpy(bdf, name, strlen(name) + 1);
		err = 0;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

static inline int pci_find(unsigned int vendor, unsigned int device,
			   char *bdf, size_t len)
{
	return pci_find_nth(vendor, device, 0, bdf, len);
}

static inline int edu_find(char *bdf, size_t len)
{
	return pci_find(0x1234, 0x11e8, bdf, len);
}

/* CLOCK_MONOTONIC in seconds: the tests' bounds and logged durations. */
static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The NVMe namespace's block device ("/dev/nvmeXnY"), waiting up to wait_s
 * seconds for it.  Found in /sys/block, not by a fixed name: the driver's
 * bind returns before the controller's scan work adds the disk, and a
 * controller bound again while the old one is still being released comes
 * back under another instance number (nvme1n1).  The VM has one NVMe drive.
 * 0 with path filled, -1 when none appeared in time.
 */
static inline int nvme_disk(char *path, size_t len, double wait_s)
{
	double t0 = now_s();
	unsigned int ctrl, ns;
	char tail;
	glob_t g;
	size_t i;

	for (;;) {
		int found = 0;

		if (!glob("/sys/block/nvme*", 0, NULL, &g)) {
			for (i = 0; i < g.gl_pathc && !found; i++) {
				const char *name = strrchr(g.gl_pathv[i], '/') + 1;

				/* nvme0n1, not a multipath path (nvme0c0n1) */
				if (sscanf(name, "nvme%un%u%c", &ctrl, &ns,
					   &tail) != 2)
					continue;
				snprintf(path, len, "/dev/%s", name);
				found = !access(path, F_OK);
			}
			globfree(&g);
		}
		if (found)
			return 0;
		if (now_s() - t0 > wait_s)
			return -1;
		usleep(50000);
	}
}

/* nvme_disk() opened with flags (a few seconds' wait); -1 if none */
static inline int nvme_disk_open(int flags)
{
	char path[64];

	if (nvme_disk(path, sizeof(path), 5.0))
		return -1;
	return open(path, flags);
}

/* Sum over CPUs of one irq's row in /proc/interrupts; -1 if absent. */
static inline long long proc_irq_count(int irq)
{
	FILE *f = fopen("/proc/interrupts", "re");
	char line[4096], *p, *end;
	long long sum = -1;
	int ncpu = 0;

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		for (p = strtok(line, " \t\n"); p; p = strtok(NULL, " \t\n"))
			ncpu++;
	while (fgets(line, sizeof(line), f)) {
		if (strtol(line, &end, 10) != irq || *end != ':')
			continue;
		sum = 0;
		p = end + 1;
		for (int i = 0; i < ncpu; i++)
			sum += strtoll(p, &p, 10);
		break;
	}
	fclose(f);
	return sum;
}

/* The Linux irqs of a device's MSI/MSI-X vectors, from sysfs msi_irqs/. */
static inline int pci_msi_irqs(const char *bdf, int *irqs, int max)
{
	char path[128];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/msi_irqs", bdf);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d)) && n < max)
		if (e->d_name[0] != '.')
			irqs[n++] = atoi(e->d_name);
	closedir(d);
	return n;
}

/* One "key value" line of the edu driver's stats file; -1 if absent. */
static inline long long edu_stat(const char *bdf, const char *key)
{
	char path[256], buf[1024], *line;
	size_t klen = strlen(key);

	snprintf(path, sizeof(path), EDU_DEBUGFS "/%s/stats", bdf);
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			return strtoll(line + klen + 1, NULL, 10);
	return -1;
}

static inline int edu_ctl(const char *bdf, const char *file, const char *cmd)
{
	char path[256];

	snprintf(path, sizeof(path), EDU_DEBUGFS "/%s/%s", bdf, file);
	return write_file(path, cmd);
}

#endif /* GPUPROBE_SELFTEST_VMUTIL_H */
