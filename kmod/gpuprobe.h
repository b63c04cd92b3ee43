/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpuprobe: internal declarations shared by the module's files.
 */
#ifndef _GPUPROBE_H
#define _GPUPROBE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/types.h>
#include <uapi/linux/gpuprobe.h>

#define GPUPROBE_VERSION "0.1.0"

/* One PCI function being watched. */
struct gpuprobe_target {
	struct list_head node;
	struct pci_dev *pdev;		/* reference held */
	u32 bdf;
};

/* Serialises every control operation and the target list. */
extern struct mutex gpuprobe_lock;
extern struct list_head gpuprobe_targets;

int gpuprobe_parse_bdf(const char *s, u32 *bdf);
int gpuprobe_target_add(u32 bdf);
void gpuprobe_targets_free(void);
int gpuprobe_targets_from_param(const char *param);

int gpuprobe_netlink_init(void);
void gpuprobe_netlink_exit(void);

#endif /* _GPUPROBE_H */
