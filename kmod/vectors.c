// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: which target an MSI/MSI-X interrupt belongs to, and noticing at
 * once when a target's vectors change without an unbind.
 *
 * Drivers free and allocate their vectors while bound: NVMe at every
 * controller reset, NVIDIA's driver at first open and last close, vfio-pci
 * whenever the guest toggles MSI.  The irq map (target.c) is rebuilt from
 * the device's MSI descriptors, so for a while after such a change it may
 * name irq numbers the target no longer owns and miss the ones it now has.
 * Two things keep records right meanwhile:
 *
 *  - ownership: an MSI irq found in the map is the target's only while its
 *    msi_desc names the target's struct device.  A stale number, handed to
 *    another device, is charged to that device if it is a target, to nobody
 *    otherwise.
 *  - the unsettled window: a kprobe at request_threaded_irq() (every
 *    request_irq(), devm_ and pci_ variant, vfio-pci's) sees a target's
 *    device request a handler before the handler is installed, so before
 *    its first interrupt.  From then until a rescan has published the
 *    device's new vectors, interrupts the map does not know are matched by
 *    their msi_desc, at the cost of one descriptor lookup each.  A kprobe
 *    at free_irq() of a mapped irq asks for the same rescan, so the map
 *    drops freed numbers within a rescan, not the 500 ms timer.
 *
 * Both functions are exported and declared: their prototypes are checked
 * below, and the probes read only their first argument, the irq number.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/msi.h>
#include <net/genetlink.h>

#include "gpuprobe.h"
#include "dma.h"

/*
 * The probes read argument 0 as the irq number: a change of these
 * prototypes must break the build, not the attribution.
 */
static_assert(__same_type(&request_threaded_irq,
			  int (*)(unsigned int, irq_handler_t, irq_handler_t,
				  unsigned long, const char *, void *)),
	      "gpuprobe: request_threaded_irq() changed its prototype");
static_assert(__same_type(&free_irq, const void *(*)(unsigned int, void *)),
	      "gpuprobe: free_irq() changed its prototype");

/*
 * Vector changes of targets seen (events) and the count the last complete
 * rescan started from (resolved): the window is open while they differ.
 */
static atomic_t gpuprobe_vec_events = ATOMIC_INIT(0);
static int gpuprobe_vec_resolved;

bool gpuprobe_vectors_unsettled(void)
{
	int resolved;

	/* pairs with the release in resolve: closed means the map is new */
	resolved = smp_load_acquire(&gpuprobe_vec_resolved);
	return atomic_read(&gpuprobe_vec_events) != resolved;
}

/*
 * The target whose device owns irq by its MSI descriptor, and the vector's
 * MSI/MSI-X index.  Called where irq cannot be freed under us: from its
 * handler's tracepoint (free_irq() waits for running handlers, and the
 * descriptors go only after free_irq()) and from request/free_irq() of it.
 */
bool gpuprobe_irq_owner(unsigned int irq, u32 *bdf, u32 *vector)
{
	const struct gpuprobe_irqmap *map = rcu_dereference_sched(gpuprobe_irqmap);
	struct msi_desc *desc;
	unsigned int i;

	if (!map || !map->ndev)
		return false;
	desc = irq_get_msi_desc(irq);
	if (!desc || !desc->dev)
		return false;
	for (i = 0; i < map->ndev; i++) {
		if (map->devs[i].dev != desc->dev)
			continue;
		*bdf = map->devs[i].bdf;
		/* multi-MSI: one descriptor for nvec_used consecutive irqs */
		*vector = desc->msi_index + (irq - desc->irq);
		return true;
	}
	return false;
}

static void gpuprobe_vec_work_fn(struct irq_work *work)
{
	gpuprobe_rescan_now();
}

/*
 * The rescan is asked for from an irq_work: a kprobe's pre-handler may run
 * from int3, in NMI context, where mod_delayed_work()'s locks may not be
 * taken (lockdep on the debug kernel: {INITIAL USE} -> {IN-NMI} on the
 * timer's debug-object lock); irq_work_queue() is NMI-safe.
 */
static struct irq_work gpuprobe_vec_work = IRQ_WORK_INIT(gpuprobe_vec_work_fn);

/* Opens the window before anything is installed, then asks for a rescan. */
static void gpuprobe_vectors_changed(void)
{
	atomic_inc(&gpuprobe_vec_events);
	irq_work_queue(&gpuprobe_vec_work);
}

static int gpuprobe_request_irq_pre(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned int irq = regs_get_kernel_argument(regs, 0);
	u32 bdf, vector;

	if (gpuprobe_irq_owner(irq, &bdf, &vector))
		gpuprobe_vectors_changed();
	return 0;
}

static int gpuprobe_free_irq_pre(struct kprobe *kp, struct pt_regs *regs)
{
	const struct gpuprobe_irqmap *map = rcu_dereference_sched(gpuprobe_irqmap);
	unsigned int irq = regs_get_kernel_argument(regs, 0);

	if (map && irq < map->nr && map->ent[irq].watched)
		gpuprobe_vectors_changed();
	return 0;
}

static struct kprobe gpuprobe_vec_kps[] = {
	{ .symbol_name = "request_threaded_irq",
	  .pre_handler = gpuprobe_request_irq_pre },
	{ .symbol_name = "free_irq", .pre_handler = gpuprobe_free_irq_pre },
};

static bool gpuprobe_vec_kp_on[ARRAY_SIZE(gpuprobe_vec_kps)];
static int gpuprobe_vec_kp_err;

/*
 * Best effort: without the kprobes (no CONFIG_KPROBES) vectors are
 * re-resolved by the timer alone, and HOOK says so.  The window opens at
 * attach: what changed while no session ran is resolved by START's rescan.
 */
void gpuprobe_vectors_attach(void)
{
	size_t i;
	int err;

	atomic_inc(&gpuprobe_vec_events);
	gpuprobe_vec_kp_err = 0;
	for (i = 0; i < ARRAY_SIZE(gpuprobe_vec_kps); i++) {
		/* a kprobe may be registered again only from a clean state */
		gpuprobe_vec_kps[i] = (struct kprobe){
			.symbol_name = gpuprobe_vec_kps[i].symbol_name,
			.pre_handler = gpuprobe_vec_kps[i].pre_handler,
		};
		err = register_kprobe(&gpuprobe_vec_kps[i]);
		gpuprobe_vec_kp_on[i] = !err;
		if (err) {
			pr_warn("kprobe %s: %d: vector changes found by the rescan timer only\n",
				gpuprobe_vec_kps[i].symbol_name, err);
			gpuprobe_vec_kp_err = err;
		}
	}
}

void gpuprobe_vectors_detach(void)
{
	/* one grace period for the table, not one per probe (STOP's time) */
	gpuprobe_kps_unregister(gpuprobe_vec_kps, gpuprobe_vec_kp_on,
				ARRAY_SIZE(gpuprobe_vec_kps));
	/* the probes are gone: no rescan asked for after this */
	irq_work_sync(&gpuprobe_vec_work);
}

/*
 * One rescan; the window closes when it read every target and no change
 * came after it began.  False: a target was skipped, try again soon.
 */
bool gpuprobe_vectors_resolve(void)
{
	int seen = atomic_read(&gpuprobe_vec_events);

	if (!gpuprobe_targets_rescan())
		return false;
	/* after the publish: whoever sees it closed finds the new map */
	smp_store_release(&gpuprobe_vec_resolved, seen);
	return true;
}

int gpuprobe_vectors_hooks_fill(struct sk_buff *skb,
				int (*fill)(struct sk_buff *, const char *,
					    bool, const char *))
{
	size_t i;
	bool on = true;

	for (i = 0; i < ARRAY_SIZE(gpuprobe_vec_kps); i++)
		on &= gpuprobe_vec_kp_on[i];
	return fill(skb, "kprobe:request_threaded_irq/free_irq (vector changes)",
		    on, !IS_ENABLED(CONFIG_KPROBES) ? "no kprobes: rescan timer only" :
		    gpuprobe_vec_kp_err ? "kprobe refused: rescan timer only" :
		    NULL);
}
