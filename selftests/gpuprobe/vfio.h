/* SPDX-License-Identifier: GPL-2.0 */
/* Driving a device through VFIO from the selftests, as a VMM does. */
#ifndef GPUPROBE_SELFTEST_VFIO_H
#define GPUPROBE_SELFTEST_VFIO_H

#include <linux/vfio.h>
#include <sys/ioctl.h>

#include "vmutil.h"

static inline int sysfs_write(const char *bdf, const char *file, const char *val)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, file);
	return write_file(path, val);
}

static inline int iommu_group(const char *bdf)
{
	char path[160], link[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group", bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -1;
	link[n] = '\0';
	return atoi(strrchr(link, '/') + 1);
}

/* Binds bdf to vfio-pci (the edu driver, holding every edu, goes first). */
static inline int vfio_bind(const char *bdf)
{
	if (mod_loaded("gpuprobe_edu"))
		mod_unload("gpuprobe_edu");
	if (sysfs_write(bdf, "driver_override", "vfio-pci"))
		return -1;
	return write_file("/sys/bus/pci/drivers_probe", bdf);
}

static inline void vfio_unbind(const char *bdf)
{
	sysfs_write(bdf, "driver/unbind", bdf);
	sysfs_write(bdf, "driver_override", "\n");
}

/*
 * Opens bdf's IOMMU group and puts it into the container: the group fd,
 * or -1 (no group), -2 (not viable), -3 (refused).
 */
static inline int vfio_group_join(int container, const char *bdf)
{
	struct vfio_group_status gs = { .argsz = sizeof(gs) };
	char path[64];
	int group;

	snprintf(path, sizeof(path), "/dev/vfio/%d", iommu_group(bdf));
	group = open(path, O_RDWR);
	if (group < 0)
		return -1;
	if (ioctl(group, VFIO_GROUP_GET_STATUS, &gs) ||
	    !(gs.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		close(group);
		return -2;
	}
	if (ioctl(group, VFIO_GROUP_SET_CONTAINER, &container)) {
		close(group);
		return -3;
	}
	return group;
}

#endif /* GPUPROBE_SELFTEST_VFIO_H */
