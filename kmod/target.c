// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: the set of PCI functions being watched.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "gpuprobe.h"

/* Control ops, target changes and start/stop never run concurrently. */
DEFINE_MUTEX(gpuprobe_lock);
LIST_HEAD(gpuprobe_targets);

/*
 * Parses "DDDD:BB:DD.F" (domain optional) strictly: hex digits and
 * separators only (the kernel's %x would take "0x" prefixes), nothing after.
 */
int gpuprobe_parse_bdf(const char *s, u32 *bdf)
{
	unsigned int dom = 0, bus, dev, fn;
	int len = 0;

	if (strspn(s, "0123456789abcdefABCDEF:.") != strlen(s))
		return -EINVAL;
	if (sscanf(s, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &len) != 4 ||
	    s[len]) {
		dom = 0;
		len = 0;
		if (sscanf(s, "%x:%x.%x%n", &bus, &dev, &fn, &len) != 3 ||
		    s[len])
			return -EINVAL;
	}
	if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return -EINVAL;
	*bdf = GPUPROBE_BDF(dom, bus, PCI_DEVFN(dev, fn));
	return 0;
}

static struct gpuprobe_target *gpuprobe_target_find(u32 bdf)
{
	struct gpuprobe_target *t;

	list_for_each_entry(t, &gpuprobe_targets, node)
		if (t->bdf == bdf)
			return t;
	return NULL;
}

/* Caller holds gpuprobe_lock (or is module init). */
int gpuprobe_target_add(u32 bdf)
{
	struct gpuprobe_target *t;
	struct pci_dev *pdev;

	if (gpuprobe_target_find(bdf))
		return -EEXIST;

	pdev = pci_get_domain_bus_and_slot(GPUPROBE_BDF_DOMAIN(bdf),
					   GPUPROBE_BDF_BUS(bdf),
					   GPUPROBE_BDF_DEVFN(bdf));
	if (!pdev)
		return -ENODEV;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		pci_dev_put(pdev);
		return -ENOMEM;
	}
	t->pdev = pdev;
	t->bdf = bdf;
	list_add_tail(&t->node, &gpuprobe_targets);
	return 0;
}

void gpuprobe_targets_free(void)
{
	struct gpuprobe_target *t, *tmp;

	list_for_each_entry_safe(t, tmp, &gpuprobe_targets, node) {
		list_del(&t->node);
		pci_dev_put(t->pdev);
		kfree(t);
	}
}

static int gpuprobe_targets_default(void)
{
	struct pci_dev *pdev = NULL;
	int err;

	for_each_pci_dev(pdev) {
		if ((pdev->class >> 16) != PCI_BASE_CLASS_DISPLAY)
			continue;
		err = gpuprobe_target_add(GPUPROBE_BDF(pci_domain_nr(pdev->bus),
						       pdev->bus->number,
						       pdev->devfn));
		if (err && err != -EEXIST) {
			pci_dev_put(pdev);
			return err;
		}
	}
	return 0;
}

int gpuprobe_targets_from_param(const char *param)
{
	char *copy, *cur, *tok;
	int err = 0;
	u32 bdf;

	if (!param || !*param)
		return gpuprobe_targets_default();

	copy = kstrdup(param, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;

	cur = copy;
	while ((tok = strsep(&cur, ",")) != NULL) {
		tok = strim(tok);
		if (!*tok)
			continue;
		err = gpuprobe_parse_bdf(tok, &bdf);
		if (err) {
			pr_err("target=%s: not a PCI address (want DDDD:BB:DD.F)\n",
			       tok);
			break;
		}
		err = gpuprobe_target_add(bdf);
		if (err == -EEXIST) {
			err = 0;
		} else if (err) {
			pr_err("target=%s: no such PCI device\n", tok);
			break;
		}
	}
	kfree(copy);
	if (err)
		gpuprobe_targets_free();
	return err;
}
