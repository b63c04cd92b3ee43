// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: timestamps a PCI device's interrupts and DMA/IOMMU traffic and
 * exports them over generic netlink.  This file only orders init and exit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "gpuprobe.h"

static char *target;
module_param(target, charp, 0444);
MODULE_PARM_DESC(target,
		 "comma-separated PCI functions to watch (DDDD:BB:DD.F); default: every display-class device");

static int __init gpuprobe_init(void)
{
	int err;

	err = gpuprobe_hooks_init();
	if (err)
		return err;

	err = gpuprobe_rings_init();
	if (err)
		return err;

	err = gpuprobe_kvm_init();
	if (err)
		goto err_rings_exit;

	err = gpuprobe_notifier_init();
	if (err)
		goto err_kvm_exit;

	err = gpuprobe_targets_from_param(target);
	if (err)
		goto err_notifier_exit;

	err = gpuprobe_session_init();
	if (err)
		goto err_free_targets;

	err = gpuprobe_netlink_init();
	if (err)
		goto err_session_exit;

	pr_info("version %s loaded\n", GPUPROBE_VERSION);
	return 0;

err_session_exit:
	gpuprobe_shutdown();
err_free_targets:
	gpuprobe_targets_free();
err_notifier_exit:
	gpuprobe_notifier_exit();
err_kvm_exit:
	gpuprobe_kvm_exit();
err_rings_exit:
	gpuprobe_rings_exit();
	return err;
}

static void __exit gpuprobe_exit(void)
{
	gpuprobe_shutdown();
	gpuprobe_netlink_exit();
	gpuprobe_notifier_exit();
	gpuprobe_targets_free();
	gpuprobe_kvm_exit();
	gpuprobe_rings_exit();
}

module_init(gpuprobe_init);
module_exit(gpuprobe_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Interrupt, DMA and IOMMU timestamps for passed-through GPUs");
MODULE_VERSION(GPUPROBE_VERSION);
