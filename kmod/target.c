// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: the set of PCI functions being watched, their interrupt vectors,
 * and the irq -> target map the interrupt probes read.
 *
 * Vectors come from the device's MSI descriptors, which may only be walked
 * with the device lock held (they are freed when the driver unbinds).  The
 * driver core holds that lock around the bus notifier's bind/unbind events;
 * everywhere else we take it ourselves, never while holding gpuprobe_lock.
 * The device lock stays held until the vectors read under it are published
 * under gpuprobe_lock: an unbind cannot slip in between and leave freed irq
 * numbers in the map.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/fault-inject.h>
#include <linux/iommu.h>
#include <linux/module.h>
#include <linux/msi.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "gpuprobe.h"

/* Control ops, target changes and start/stop never run concurrently. */
DEFINE_MUTEX(gpuprobe_lock);
LIST_HEAD(gpuprobe_targets);
/* from 1: a dump's cb->seq of 0 would not be checked */
unsigned int gpuprobe_targets_gen = 1;
struct gpuprobe_irqmap __rcu *gpuprobe_irqmap;

static unsigned int max_targets = 16;
module_param(max_targets, uint, 0444);
MODULE_PARM_DESC(max_targets,
		 "PCI functions that may be watched at once (1-64, default 16): every DMA-API and IOMMU call is checked against each");

/* The last publish failed: the map is empty until a publish succeeds. */
static bool gpuprobe_irqmap_stale;
static atomic64_t gpuprobe_irqmap_failures;	/* STATS irqmap-failed */

/*
 * The targets' devices as the bus notifier filters them, without a lock:
 * written under gpuprobe_lock, and for a device being added under its
 * device lock too, which the notifier holds.  A bind of another device
 * (64 SR-IOV VFs created during a STOP) never waits for gpuprobe_lock.
 */
static struct pci_dev *gpuprobe_target_devs[GPUPROBE_MAX_TARGETS];

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
/*
 * debugfs fail_gpuprobe (Documentation/fault-injection): fails this file's
 * allocations (TARGET_ADD, the bus notifier, rescans, the irq map) and no
 * one else's.  Each call counts 1 against "space", so space = k with
 * times = 1 fails exactly the k-th: a test can fail the notifier's
 * allocations in turn although the driver probe around them allocates a
 * different amount on every bind.
 */
static DECLARE_FAULT_ATTR(gpuprobe_fail_alloc);
static struct dentry *gpuprobe_fail_dir;

static bool gpuprobe_alloc_fails(void)
{
	return should_fail(&gpuprobe_fail_alloc, 1);
}

static void gpuprobe_fail_init(void)
{
	gpuprobe_fail_dir = fault_create_debugfs_attr("fail_gpuprobe", NULL,
						      &gpuprobe_fail_alloc);
}

static void gpuprobe_fail_exit(void)
{
	debugfs_remove_recursive(gpuprobe_fail_dir);
}
#else
static bool gpuprobe_alloc_fails(void)
{
	return false;
}

static void gpuprobe_fail_init(void)
{
}

static void gpuprobe_fail_exit(void)
{
}
#endif

static void *gpuprobe_kzalloc(size_t size)
{
	return gpuprobe_alloc_fails() ? NULL : kzalloc(size, GFP_KERNEL);
}

/* Set (pdev) or clear (NULL, old) a target's entry; under gpuprobe_lock. */
static void gpuprobe_target_devs_set(struct pci_dev *old, struct pci_dev *pdev)
{
	unsigned int i;

	lockdep_assert_held(&gpuprobe_lock);
	for (i = 0; i < GPUPROBE_MAX_TARGETS; i++)
		if (READ_ONCE(gpuprobe_target_devs[i]) == old) {
			WRITE_ONCE(gpuprobe_target_devs[i], pdev);
			return;
		}
	/* TARGET_ADD keeps the targets within GPUPROBE_MAX_TARGETS */
	WARN_ON_ONCE(pdev);
}

static bool gpuprobe_target_dev(const struct pci_dev *pdev)
{
	unsigned int i;

	for (i = 0; i < GPUPROBE_MAX_TARGETS; i++)
		if (READ_ONCE(gpuprobe_target_devs[i]) == pdev)
			return true;
	return false;
}

u64 gpuprobe_irqmap_failed(void)
{
	return atomic64_read(&gpuprobe_irqmap_failures);
}

static struct gpuprobe_vector *gpuprobe_vec_alloc(unsigned int n)
{
	return gpuprobe_alloc_fails() ? NULL :
	       kcalloc(n, sizeof(struct gpuprobe_vector), GFP_KERNEL);
}

unsigned int gpuprobe_targets_max(void)
{
	return clamp(max_targets, 1U, (unsigned int)GPUPROBE_MAX_TARGETS);
}

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

void gpuprobe_format_bdf(u32 bdf, char *buf, size_t len)
{
	u32 devfn = GPUPROBE_BDF_DEVFN(bdf);

	snprintf(buf, len, "%04x:%02x:%02x.%x", GPUPROBE_BDF_DOMAIN(bdf),
		 GPUPROBE_BDF_BUS(bdf), PCI_SLOT(devfn), PCI_FUNC(devfn));
}

static u32 gpuprobe_pdev_bdf(struct pci_dev *pdev)
{
	return GPUPROBE_BDF(pci_domain_nr(pdev->bus), pdev->bus->number,
			    pdev->devfn);
}

static struct gpuprobe_target *gpuprobe_target_find(u32 bdf)
{
	struct gpuprobe_target *t;

	lockdep_assert_held(&gpuprobe_lock);
	list_for_each_entry(t, &gpuprobe_targets, node)
		if (t->bdf == bdf)
			return t;
	return NULL;
}

/*
 * The device's vectors while a driver is bound, every one of them (MSI-X
 * allows 2048), in a new array: *vecp, NULL when there are none.  Returns
 * their number or -ENOMEM.  Caller holds device_lock.
 */
static int gpuprobe_read_vectors(struct pci_dev *pdev,
				 struct gpuprobe_vector **vecp)
{
	struct gpuprobe_vector *vec = NULL;
	struct msi_desc *desc;
	unsigned int n = 0, total = 0, i;

	device_lock_assert(&pdev->dev);
	*vecp = NULL;
	if (!pdev->dev.driver)
		return 0;
	if (!pdev->msi_enabled && !pdev->msix_enabled) {
		if (!pdev->irq)
			return 0;
		vec = gpuprobe_vec_alloc(1);
		if (!vec)
			return -ENOMEM;
		/* fields, not a struct copy: memcmp() compares the padding */
		vec[0].irq = pdev->irq;
		*vecp = vec;
		return 1;
	}
	if (!pdev->dev.msi.data)
		return 0;

	/* counted and read under one hold: the set cannot change between */
	msi_lock_descs(&pdev->dev);
	msi_for_each_desc(desc, &pdev->dev, MSI_DESC_ASSOCIATED)
		total += desc->nvec_used;
	vec = total ? gpuprobe_vec_alloc(total) : NULL;
	if (vec) {
		msi_for_each_desc(desc, &pdev->dev, MSI_DESC_ASSOCIATED) {
			for (i = 0; i < desc->nvec_used && n < total; i++) {
				vec[n].irq = desc->irq + i;
				vec[n].index = desc->msi_index + i;
				vec[n].msix = pdev->msix_enabled;
				n++;
			}
		}
	}
	msi_unlock_descs(&pdev->dev);
	if (total && !vec)
		return -ENOMEM;
	*vecp = vec;
	return n;
}

/*
 * Rebuilds the irq map from the target list.  The probes see the old or the
 * new map, never a partial one; the old one is freed after a grace period.
 * Without memory for the new map the probes get no map at all rather than
 * the old one: it may name a device being removed (whose reference is about
 * to be put) or irqs being freed.  The next change or rescan retries.
 */
void gpuprobe_irqmap_publish(void)
{
	unsigned long gen = gpuprobe_domains_gen();
	struct gpuprobe_irqmap *map, *old;
	struct gpuprobe_target *t;
	unsigned int nr = 0, i;

	lockdep_assert_held(&gpuprobe_lock);
	list_for_each_entry(t, &gpuprobe_targets, node)
		for (i = 0; i < t->nvec; i++)
			nr = max(nr, t->vec[i].irq + 1);

	/* thousands of irqs: no high-order allocation needed */
	map = gpuprobe_alloc_fails() ? NULL :
	      kvzalloc(struct_size(map, ent, nr), GFP_KERNEL);
	gpuprobe_irqmap_stale = !map;
	if (!map) {
		atomic64_inc(&gpuprobe_irqmap_failures);
		pr_warn_ratelimited("no memory for the irq map (%u irqs): no target interrupt is recorded until a rescan succeeds\n",
				    nr);
	} else {
		map->nr = nr;
		list_for_each_entry(t, &gpuprobe_targets, node) {
			/* TARGET_ADD keeps the list within the limit */
			if (WARN_ON_ONCE(map->ndev == GPUPROBE_MAX_TARGETS))
				break;
			map->devs[map->ndev].dev = &t->pdev->dev;
			map->devs[map->ndev].bdf = t->bdf;
			map->devs[map->ndev].domain =
				iommu_get_domain_for_dev(&t->pdev->dev);
			map->ndev++;
			for (i = 0; i < t->nvec; i++) {
				struct gpuprobe_irq_entry *e = &map->ent[t->vec[i].irq];

				e->bdf = t->bdf;
				e->vector = t->vec[i].index;
				e->watched = 1;
				/* MSI vectors are the device's own */
				if (!t->pdev->msi_enabled && !t->pdev->msix_enabled)
					e->intx = t->pdev;
			}
		}
	}
	old = rcu_replace_pointer(gpuprobe_irqmap, map,
				  lockdep_is_held(&gpuprobe_lock));
	gpuprobe_domains_settle(gen);
	if (old)
		kvfree_rcu(old, rcu);
}

/* A new generation for TARGET_GET's cb->seq, never 0 (not checked). */
static void gpuprobe_targets_changed(void)
{
	lockdep_assert_held(&gpuprobe_lock);
	if (!++gpuprobe_targets_gen)
		gpuprobe_targets_gen = 1;
}

static bool gpuprobe_vectors_equal(const struct gpuprobe_target *t,
				   const struct gpuprobe_vector *vec,
				   unsigned int nvec)
{
	return t->nvec == nvec &&
	       (!nvec || !memcmp(t->vec, vec, nvec * sizeof(*vec)));
}

/*
 * Stores freshly read vectors, taking the array; caller holds gpuprobe_lock.
 * The old array goes at once: the probes read the map, never t->vec.
 */
static void gpuprobe_target_set_vectors(struct gpuprobe_target *t,
					struct gpuprobe_vector *vec,
					unsigned int nvec, u32 event)
{
	if (event == GPUPROBE_TARGET_VECTORS &&
	    gpuprobe_vectors_equal(t, vec, nvec)) {
		kfree(vec);
		return;
	}
	kfree(t->vec);
	t->vec = vec;
	t->nvec = nvec;
	/* a TARGET_GET dump resuming within this target's list is flagged */
	gpuprobe_targets_changed();
	gpuprobe_emit_target(t->bdf, event, nvec, t->domain);
	gpuprobe_irqmap_publish();
}

static u32 gpuprobe_target_domain(const struct gpuprobe_target *t)
{
	return gpuprobe_dev_domain_id(&t->pdev->dev);
}

/* The session records IOMMU events: its readers need the targets' domains. */
static bool gpuprobe_domains_on;

/*
 * Which targets share a domain (a VFIO container) is what IOMMU records
 * cannot say: they name the domain and one target.  A DOMAIN record says
 * each target's domain, at START (all: changed is false) and when a rescan
 * finds it changed.  Caller holds gpuprobe_lock.
 */
static void gpuprobe_targets_domains(bool changed)
{
	struct gpuprobe_target *t;
	u32 domain;

	lockdep_assert_held(&gpuprobe_lock);
	if (!gpuprobe_domains_on)
		return;
	list_for_each_entry(t, &gpuprobe_targets, node) {
		domain = gpuprobe_target_domain(t);
		if (changed && domain == t->domain)
			continue;
		t->domain = domain;
		gpuprobe_emit_target(t->bdf, GPUPROBE_TARGET_DOMAIN, t->nvec,
				     domain);
	}
}

/* At START, once records can be written; only for IOMMU events (mask). */
void gpuprobe_targets_emit_domains(u32 mask)
{
	gpuprobe_domains_on = mask & GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU);
	gpuprobe_targets_domains(false);
}

/* After unlink and publish: no probe may still see the device. */
static void gpuprobe_target_release(struct gpuprobe_target *t)
{
	synchronize_rcu();
	pci_dev_put(t->pdev);
	kfree(t->vec);
	kfree(t);
}

static unsigned int gpuprobe_targets_count(void)
{
	struct gpuprobe_target *t;
	unsigned int n = 0;

	lockdep_assert_held(&gpuprobe_lock);
	list_for_each_entry(t, &gpuprobe_targets, node)
		n++;
	return n;
}

/*
 * Called without gpuprobe_lock: takes the device lock to read vectors, then
 * gpuprobe_lock to publish them.  -ENOSPC beyond max_targets.
 */
int gpuprobe_target_add(u32 bdf)
{
	struct gpuprobe_target *t;
	struct pci_dev *pdev;
	int err = 0, nvec;

	pdev = pci_get_domain_bus_and_slot(GPUPROBE_BDF_DOMAIN(bdf),
					   GPUPROBE_BDF_BUS(bdf),
					   GPUPROBE_BDF_DEVFN(bdf));
	if (!pdev)
		return -ENODEV;

	t = gpuprobe_kzalloc(sizeof(*t));
	if (!t) {
		pci_dev_put(pdev);
		return -ENOMEM;
	}
	t->pdev = pdev;
	t->bdf = bdf;
	device_lock(&pdev->dev);
	nvec = gpuprobe_read_vectors(pdev, &t->vec);
	mutex_lock(&gpuprobe_lock);
	/*
	 * Found just before its removal: its DEL_DEVICE notification may be
	 * past, and a target on it would hold the BDF, never bound again.
	 */
	if (!device_is_registered(&pdev->dev))
		err = -ENODEV;
	else if (nvec < 0)
		err = nvec;
	else if (gpuprobe_target_find(bdf))
		err = -EEXIST;
	else if (gpuprobe_targets_count() >= gpuprobe_targets_max())
		err = -ENOSPC;
	if (!err) {
		t->nvec = nvec;
		t->domain = gpuprobe_target_domain(t);
		list_add_tail(&t->node, &gpuprobe_targets);
		gpuprobe_targets_changed();
		gpuprobe_target_devs_set(NULL, pdev);
		gpuprobe_emit_target(bdf, GPUPROBE_TARGET_ADDED, t->nvec,
				     t->domain);
		gpuprobe_irqmap_publish();
	}
	mutex_unlock(&gpuprobe_lock);
	device_unlock(&pdev->dev);
	if (err) {
		pci_dev_put(pdev);
		kfree(t->vec);
		kfree(t);
	}
	return err;
}

static void gpuprobe_target_unlink(struct gpuprobe_target *t)
{
	list_del(&t->node);
	gpuprobe_targets_changed();
	gpuprobe_target_devs_set(t->pdev, NULL);
	gpuprobe_emit_target(t->bdf, GPUPROBE_TARGET_REMOVED, 0, t->domain);
	gpuprobe_irqmap_publish();
}

int gpuprobe_target_del(u32 bdf)
{
	struct gpuprobe_target *t;

	mutex_lock(&gpuprobe_lock);
	t = gpuprobe_target_find(bdf);
	if (t)
		gpuprobe_target_unlink(t);
	mutex_unlock(&gpuprobe_lock);
	if (!t)
		return -ENOENT;
	gpuprobe_target_release(t);
	return 0;
}

void gpuprobe_targets_free(void)
{
	struct gpuprobe_target *t, *tmp;
	struct gpuprobe_irqmap *map;

	LIST_HEAD(gone);

	mutex_lock(&gpuprobe_lock);
	list_splice_init(&gpuprobe_targets, &gone);
	list_for_each_entry(t, &gone, node)
		gpuprobe_target_devs_set(t->pdev, NULL);
	map = rcu_replace_pointer(gpuprobe_irqmap, NULL,
				  lockdep_is_held(&gpuprobe_lock));
	mutex_unlock(&gpuprobe_lock);
	synchronize_rcu();
	kvfree(map);
	list_for_each_entry_safe(t, tmp, &gone, node) {
		list_del(&t->node);
		pci_dev_put(t->pdev);
		kfree(t->vec);
		kfree(t);
	}
}

/* Every display-class function, up to max_targets; the rest are named. */
static int gpuprobe_targets_default(void)
{
	struct pci_dev *pdev = NULL;
	char name[16];
	int err;

	for_each_pci_dev(pdev) {
		if ((pdev->class >> 16) != PCI_BASE_CLASS_DISPLAY)
			continue;
		err = gpuprobe_target_add(gpuprobe_pdev_bdf(pdev));
		if (err == -ENOSPC) {
			gpuprobe_format_bdf(gpuprobe_pdev_bdf(pdev), name,
					    sizeof(name));
			pr_warn("%s not watched: already %u targets (raise max_targets)\n",
				name, gpuprobe_targets_max());
			continue;
		}
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

	if (!param || !*param) {
		err = gpuprobe_targets_default();
		goto out_free_targets;
	}

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
		} else if (err == -ENOSPC) {
			pr_err("target=%s: more than %u targets (raise max_targets)\n",
			       tok, gpuprobe_targets_max());
			break;
		} else if (err) {
			pr_err("target=%s: no such PCI device\n", tok);
			break;
		}
	}
	kfree(copy);
out_free_targets:
	if (err)
		gpuprobe_targets_free();
	return err;
}

/*
 * Re-reads every target's vectors: catches drivers that free and request
 * vectors again without unbinding, and VFIO users enabling MSI at run time.
 * Skips a device whose lock is busy (it is mid-probe; the notifier follows)
 * or whose vectors there is no memory for: false when it skipped one.
 */
bool gpuprobe_targets_rescan(void)
{
	struct gpuprobe_vector *vec;
	struct gpuprobe_target *t;
	struct pci_dev *pdev;
	bool complete = true;
	u32 bdf = 0;
	int nvec;

	for (;;) {
		/* next target after bdf, by reference so the lock can drop */
		pdev = NULL;
		mutex_lock(&gpuprobe_lock);
		list_for_each_entry(t, &gpuprobe_targets, node) {
			if (t->bdf >= bdf && (!pdev || t->bdf <
					      gpuprobe_pdev_bdf(pdev)))
				pdev = t->pdev;
		}
		if (pdev)
			pci_dev_get(pdev);
		mutex_unlock(&gpuprobe_lock);
		if (!pdev)
			break;
		bdf = gpuprobe_pdev_bdf(pdev);

		if (device_trylock(&pdev->dev)) {
			nvec = gpuprobe_read_vectors(pdev, &vec);
			mutex_lock(&gpuprobe_lock);
			t = gpuprobe_target_find(bdf);
			if (nvec >= 0 && t && t->pdev == pdev) {
				gpuprobe_target_set_vectors(t, vec, nvec,
							    GPUPROBE_TARGET_VECTORS);
				vec = NULL;
			}
			mutex_unlock(&gpuprobe_lock);
			device_unlock(&pdev->dev);
			kfree(vec);
			complete &= nvec >= 0;
		} else {
			complete = false;
		}
		pci_dev_put(pdev);
		if (bdf == U32_MAX)
			break;
		bdf++;
	}
	mutex_lock(&gpuprobe_lock);
	/* and the domains it caches, after a group moved to another one */
	if (gpuprobe_irqmap_stale || gpuprobe_domains_stale())
		gpuprobe_irqmap_publish();
	complete &= !gpuprobe_irqmap_stale;
	gpuprobe_targets_domains(true);
	mutex_unlock(&gpuprobe_lock);
	return complete;
}

/* Driver core calls this with the device lock held for bind and unbind. */
static int gpuprobe_bus_notify(struct notifier_block *nb,
			       unsigned long action, void *data)
{
	struct pci_dev *pdev = to_pci_dev(data);
	u32 bdf = gpuprobe_pdev_bdf(pdev);
	struct gpuprobe_vector *vec = NULL;
	struct gpuprobe_target *t;
	int nvec = 0;

	/* another device: no allocation, no lock (a STOP may hold ours) */
	if (likely(!gpuprobe_target_dev(pdev)))
		return NOTIFY_DONE;
	if (action == BUS_NOTIFY_BOUND_DRIVER) {
		/* no memory: the rescan (retrying soon) reads them */
		nvec = gpuprobe_read_vectors(pdev, &vec);
		if (nvec < 0)
			return NOTIFY_DONE;
	}

	mutex_lock(&gpuprobe_lock);
	t = gpuprobe_target_find(bdf);
	if (t && t->pdev == pdev) {
		switch (action) {
		case BUS_NOTIFY_BOUND_DRIVER:
			gpuprobe_target_set_vectors(t, vec, nvec,
						    GPUPROBE_TARGET_VECTORS);
			vec = NULL;
			break;
		case BUS_NOTIFY_UNBIND_DRIVER:
			/* before remove(): the vectors are about to be freed */
			gpuprobe_target_set_vectors(t, NULL, 0,
						    GPUPROBE_TARGET_UNBOUND);
			break;
		case BUS_NOTIFY_DEL_DEVICE:
		/* added between DEL_DEVICE and the end of device_del() */
		case BUS_NOTIFY_REMOVED_DEVICE:
			gpuprobe_target_unlink(t);
			break;
		default:
			t = NULL;
		}
	} else {
		t = NULL;
	}
	mutex_unlock(&gpuprobe_lock);

	if (t && (action == BUS_NOTIFY_DEL_DEVICE ||
		  action == BUS_NOTIFY_REMOVED_DEVICE))
		gpuprobe_target_release(t);
	kfree(vec);
	return NOTIFY_OK;
}

static struct notifier_block gpuprobe_pci_nb = {
	.notifier_call = gpuprobe_bus_notify,
};

int gpuprobe_notifier_init(void)
{
	int err;

	gpuprobe_fail_init();
	err = bus_register_notifier(&pci_bus_type, &gpuprobe_pci_nb);
	if (err)
		gpuprobe_fail_exit();
	return err;
}

void gpuprobe_notifier_exit(void)
{
	bus_unregister_notifier(&pci_bus_type, &gpuprobe_pci_nb);
	gpuprobe_fail_exit();
}
