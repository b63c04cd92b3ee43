/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Targets: PCI functions being traced, resolved from sysfs
 * (/sys/bus/pci/devices/BDF/{vendor,device,class,driver,msi_irqs/}).
 */
#ifndef GPUPROBE_TARGET_H
#define GPUPROBE_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TARGET_MAX		64
#define TARGET_MAX_VECTORS	256
#define BDF_STRLEN		16	/* "DDDD:BB:DD.F" + NUL, rounded */
#define PCI_CLASS_DISPLAY	0x03

#define VECTOR_MSIX		(1u << 0)

struct target_vector {
	uint32_t index;		/* MSI/MSI-X table index */
	uint32_t irq;		/* Linux irq number */
	uint32_t flags;		/* VECTOR_MSIX */
};

struct target {
	uint32_t bdf;		/* GPUPROBE_BDF() packed */
	uint16_t vendor;
	uint16_t device;
	uint32_t class;
	char name[BDF_STRLEN];	/* "DDDD:BB:DD.F" */
	char driver[32];	/* empty when unbound */
	uint32_t nvec;
	struct target_vector vec[TARGET_MAX_VECTORS];
};

struct target_set {
	unsigned int count;
	struct target t[TARGET_MAX];
};

int bdf_parse(const char *s, uint32_t *bdf);
void bdf_format(uint32_t bdf, char out[BDF_STRLEN]);

/* "10de:2335": vendor and device id as lspci -n and the PCI ID database write them. */
#define PCI_ID_STRLEN	10
const char *pci_id(uint16_t vendor, uint16_t device, char out[PCI_ID_STRLEN]);

/* sysfs_root is "/sys" except in tests. Errors are explained in err. */
int target_resolve(const char *sysfs_root, uint32_t bdf, struct target *t,
		   char *err, size_t errlen);
int targets_find_display(const char *sysfs_root, struct target_set *set);

/* The -d arguments, or every display-class device when there are none. */
int targets_from_args(const char *sysfs_root, char *const *bdfs, unsigned int n,
		      struct target_set *set);

/* One -d BDF option into devices[TARGET_MAX]; says so when there are too many. */
int device_arg_add(char **devices, unsigned int *n, char *bdf);

const struct target *target_set_find(const struct target_set *set, uint32_t bdf);
/* Vector of irq among all targets; NULL if none. */
const struct target_vector *target_set_vector(const struct target_set *set,
					      uint32_t irq, uint32_t *bdf);

/* Kernel's count of irq across CPUs (/sys/kernel/irq/N/per_cpu_count). */
int irq_kernel_count(const char *sysfs_root, uint32_t irq, uint64_t *count);

/*
 * Which irq is behind the number now: the inode of /sys/kernel/irq/N, made
 * anew (kernfs numbers are not reused at once) when the irq is freed and
 * allocated again, as a driver's MSI vectors are on unbind and bind.  -1
 * without that directory (no CONFIG_SPARSE_IRQ).
 */
int irq_desc_id(const char *sysfs_root, uint32_t irq, uint64_t *id);

#endif /* GPUPROBE_TARGET_H */
