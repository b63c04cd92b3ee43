// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: the tracepoints we attach to and what the probes record.
 *
 * The irq and sched tracepoints are not exported to modules, so they are
 * found by name with for_each_kernel_tracepoint().  Each probe filters first
 * (a bounds check and one load for another device's interrupt) and writes
 * through gpuprobe_emit() only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-direction.h>
#include <linux/interrupt.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/tracepoint.h>
#include <net/genetlink.h>

#include "gpuprobe.h"
#include "probe_types.h"

enum gpuprobe_hook_id {
	GPUPROBE_HOOK_IRQ_ENTRY,
	GPUPROBE_HOOK_IRQ_EXIT,
	GPUPROBE_HOOK_SCHED_WAKEUP,
	GPUPROBE_HOOK_SCHED_SWITCH,
	GPUPROBE_HOOK_SCHED_FORK,
	GPUPROBE_HOOK_SCHED_EXIT,
	GPUPROBE_HOOK_SWIOTLB,
	GPUPROBE_HOOK_IO_PAGE_FAULT,
	GPUPROBE_HOOK_COUNT,
};

struct gpuprobe_hook {
	const char *name;
	void *probe;
	u32 evmask;		/* attached when START asks for these events */
	bool optional;		/* the events come from elsewhere too */
	struct tracepoint *tp;
	bool attached;
};

/* The handler running, per CPU: hard-irq handlers do not nest. */
struct gpuprobe_irq_pending {
	u64 ts;
	int irq;
	u32 bdf;
	u32 vector;
	const struct irqaction *action;
};

static DEFINE_PER_CPU(struct gpuprobe_irq_pending, gpuprobe_pending) = {
	.irq = -1,
};

/* Thread groups whose wake-ups and switches are recorded; 0 = free slot. */
#define GPUPROBE_MAX_TGIDS	64
static atomic_t gpuprobe_tgids[GPUPROBE_MAX_TGIDS];
static bool gpuprobe_summary;

/*
 * Summary mode: log2(ns) histograms of handler time per CPU and slot.  A
 * CPU sees the vectors whose affinity includes it, seldom 32; a sample
 * that finds the table full is counted in dropped (STATS summary-dropped).
 */
#define GPUPROBE_HIST_SLOTS	32	/* 16 KiB per CPU: per-CPU areas are small */
#define GPUPROBE_HIST_BUCKETS	64
struct gpuprobe_hist {
	u32 bdf[GPUPROBE_HIST_SLOTS];
	u32 vector[GPUPROBE_HIST_SLOTS];
	u64 count[GPUPROBE_HIST_SLOTS][GPUPROBE_HIST_BUCKETS];
	u64 dropped;
};

static unsigned int summary_slots = GPUPROBE_HIST_SLOTS;
module_param(summary_slots, uint, 0444);
MODULE_PARM_DESC(summary_slots,
		 "(bdf, vector) pairs each CPU's summary holds (1-32, default 32; fewer to test the drop count)");

static unsigned int gpuprobe_hist_slots(void)
{
	return clamp(summary_slots, 1U, (unsigned int)GPUPROBE_HIST_SLOTS);
}

static struct gpuprobe_hist __percpu *gpuprobe_hists;

static const struct gpuprobe_irq_entry *gpuprobe_irq_lookup(int irq)
{
	const struct gpuprobe_irqmap *map = rcu_dereference_sched(gpuprobe_irqmap);

	if (!map || (unsigned int)irq >= map->nr || !map->ent[irq].watched)
		return NULL;
	return &map->ent[irq];
}

/*
 * A shared INTx line runs every handler on it for each interrupt: only the
 * target's is its own.  Drivers pass the device, its struct device or their
 * driver data (pci_set_drvdata) as dev_id; vfio-pci passes its device,
 * which is its driver data.  A handler whose dev_id is none of these is
 * another device's.
 */
static bool gpuprobe_irq_action_ours(const struct gpuprobe_irq_entry *e,
				     const struct irqaction *action)
{
	struct pci_dev *pdev = e->intx;

	if (!pdev || !action)
		return true;
	return action->dev_id == pdev || action->dev_id == &pdev->dev ||
	       action->dev_id == pci_get_drvdata(pdev);
}

/*
 * A vector a VMM enabled since the last rescan (gpuprobe_targets_rescan, every
 * 500 ms) is a target's from its first interrupt: vfio-pci names its
 * handlers "vfio-msi[N](BDF)" and "vfio-msix[N](BDF)".  The rescan then
 * puts it in the map; until then each interrupt is matched here, by name.
 */
static bool gpuprobe_vfio_vector(const struct irqaction *action, u32 *bdf,
				 u32 *vector)
{
	const struct gpuprobe_irqmap *map = rcu_dereference_sched(gpuprobe_irqmap);
	const char *name = action ? action->name : NULL;
	const char *s, *close;
	unsigned int i, index = 0;
	char buf[16];

	if (likely(!name || name[0] != 'v') || strncmp(name, "vfio-msi", 8) ||
	    !map || !map->ndev)
		return false;
	s = name + 8 + (name[8] == 'x');
	if (*s++ != '[')
		return false;
	for (; *s >= '0' && *s <= '9'; s++)
		index = index * 10 + (*s - '0');
	if (s[0] != ']' || s[1] != '(')
		return false;
	s += 2;
	close = strchr(s, ')');
	if (!close || close - s >= sizeof(buf))
		return false;
	memcpy(buf, s, close - s);
	buf[close - s] = '\0';
	if (gpuprobe_parse_bdf(buf, bdf))
		return false;
	for (i = 0; i < map->ndev; i++)
		if (map->devs[i].bdf == *bdf) {
			*vector = index;
			return true;
		}
	return false;
}

static void gpuprobe_irq_entry(void *data, int irq, struct irqaction *action)
{
	const struct gpuprobe_irq_entry *e = gpuprobe_irq_lookup(irq);
	struct gpuprobe_irq_pending *p;
	u32 bdf, vector;

	if (likely(!e)) {
		/* a vector of a target not yet in the map (vectors.c) */
		if (likely(!gpuprobe_vfio_vector(action, &bdf, &vector)) &&
		    (likely(!gpuprobe_vectors_unsettled()) ||
		     !gpuprobe_irq_owner(irq, &bdf, &vector)))
			return;
	} else if (e->intx && gpuprobe_irq_action_ours(e, action)) {
		bdf = e->bdf;
		vector = e->vector;
	} else if (!gpuprobe_irq_owner(irq, &bdf, &vector)) {
		/*
		 * Not the entry's device: another handler on its INTx line,
		 * or a number it freed that no target has now.  One that a
		 * target has now went to that target just above.
		 */
		return;
	}
	p = this_cpu_ptr(&gpuprobe_pending);
	p->irq = irq;
	p->bdf = bdf;
	p->vector = vector;
	p->action = action;
	p->ts = ktime_get_mono_fast_ns();
}

static void gpuprobe_hist_add(const struct gpuprobe_irq_pending *e, u64 ns)
{
	struct gpuprobe_hist *h = this_cpu_ptr(gpuprobe_hists);
	unsigned int slot, nslots = gpuprobe_hist_slots();
	unsigned int bucket = ns ? fls64(ns) : 0;

	/* slots are claimed per CPU; a full table counts the sample dropped */
	for (slot = 0; slot < nslots; slot++) {
		if (h->bdf[slot] == e->bdf && h->vector[slot] == e->vector)
			break;
		if (h->bdf[slot] == GPUPROBE_BDF_NONE) {
			h->bdf[slot] = e->bdf;
			h->vector[slot] = e->vector;
			break;
		}
	}
	if (slot < nslots)
		h->count[slot][min(bucket, GPUPROBE_HIST_BUCKETS - 1U)]++;
	else
		WRITE_ONCE(h->dropped, h->dropped + 1);
}

/* This CPU's samples a full table lost; caller holds gpuprobe_lock. */
u64 gpuprobe_summary_dropped(int cpu)
{
	lockdep_assert_held(&gpuprobe_lock);
	return gpuprobe_hists ?
	       READ_ONCE(per_cpu_ptr(gpuprobe_hists, cpu)->dropped) : 0;
}

/* The exit of the handler whose entry was a target's (or attached after it). */
static void gpuprobe_irq_exit(void *data, int irq, struct irqaction *action,
			      int ret)
{
	struct gpuprobe_irq_pending *p = this_cpu_ptr(&gpuprobe_pending);
	struct gpuprobe_rec_irq rec;
	u64 now;

	if (likely(p->irq != irq) || p->action != action)
		return;
	now = ktime_get_mono_fast_ns();
	p->irq = -1;

	if (gpuprobe_summary) {
		unsigned long flags;

		local_irq_save(flags);
		gpuprobe_hist_add(p, now - p->ts);
		local_irq_restore(flags);
		return;
	}

	rec = (struct gpuprobe_rec_irq){
		.hdr.type = GPUPROBE_EV_IRQ,
		.hdr.size = sizeof(rec),
		.hdr.ts_ns = p->ts,
		.bdf = p->bdf,
		.irq = irq,
		.vector = p->vector,
		.duration_ns = now - p->ts,
	};
	if (ret & IRQ_HANDLED)
		rec.hdr.flags |= GPUPROBE_IRQ_HANDLED;
	if (action && action->name && !strncmp(action->name, "vfio-", 5))
		rec.hdr.flags |= GPUPROBE_IRQ_VFIO;
	gpuprobe_emit(&rec.hdr);
}

static bool gpuprobe_tgid_watched(pid_t tgid)
{
	int i;

	if (!tgid)	/* the idle tasks; also what marks a free slot */
		return false;
	for (i = 0; i < GPUPROBE_MAX_TGIDS; i++)
		if (atomic_read(&gpuprobe_tgids[i]) == tgid)
			return true;
	return false;
}

/* Ids as the session's owner sees them: watched by their global tgid. */
static void gpuprobe_sched_emit(u16 type, struct task_struct *p,
				struct task_struct *prev, u32 cpu)
{
	struct gpuprobe_rec_sched rec = {
		.hdr.type = type,
		.hdr.size = sizeof(rec),
		.hdr.ts_ns = ktime_get_mono_fast_ns(),
		.pid = gpuprobe_view_pid(p),
		.tgid = gpuprobe_view_tgid(p),
		.prev_pid = prev ? gpuprobe_view_pid(prev) : 0,
		.target_cpu = cpu,
	};

	gpuprobe_emit(&rec.hdr);
}

/* The workload's: a followed thread group, or in the followed cgroup. */
static bool gpuprobe_task_watched(struct task_struct *t)
{
	return gpuprobe_tgid_watched(t->tgid) || gpuprobe_cgroup_watched(t);
}

static void gpuprobe_sched_wakeup(void *data, struct task_struct *p)
{
	if (likely(!gpuprobe_task_watched(p)))
		return;
	gpuprobe_sched_emit(GPUPROBE_EV_WAKEUP, p, NULL, task_cpu(p));
}

static void gpuprobe_sched_switch(void *data, bool preempt,
				  struct task_struct *prev,
				  struct task_struct *next,
				  unsigned int prev_state)
{
	if (likely(!gpuprobe_task_watched(next) &&
		   !gpuprobe_task_watched(prev)))
		return;
	gpuprobe_sched_emit(GPUPROBE_EV_SWITCH, next, prev,
			    smp_processor_id());
}

/* The workload's, or every process when no workload is followed. */
bool gpuprobe_task_follows(struct task_struct *t)
{
	int i;

	if (gpuprobe_cgroup_following())
		return gpuprobe_task_watched(t);
	for (i = 0; i < GPUPROBE_MAX_TGIDS; i++)
		if (atomic_read(&gpuprobe_tgids[i]))
			return gpuprobe_tgid_watched(t->tgid);
	return true;
}

/*
 * The target irq whose handler runs on this CPU now, and its target in
 * *bdf; 0 when none.  What a probe sees meanwhile, it caused (kvm.c).
 */
unsigned int gpuprobe_irq_in_handler(u32 *bdf)
{
	const struct gpuprobe_irq_pending *p = this_cpu_ptr(&gpuprobe_pending);

	if (p->irq < 0)
		return 0;
	*bdf = p->bdf;
	return p->irq;
}

/* A new process forked by a watched one is watched too. */
static void gpuprobe_sched_fork(void *data, struct task_struct *parent,
				struct task_struct *child)
{
	if (child->tgid == parent->tgid || !gpuprobe_tgid_watched(parent->tgid))
		return;
	gpuprobe_tgid_add(child->tgid);
}

/*
 * A task exits.  The last thread of a watched group takes its tgid out of
 * the set: the number will be reused, and a stranger would be traced.  A
 * DMA call's claim the task left (dma_owner.c) goes too.
 */
static void gpuprobe_sched_exit(void *data, struct task_struct *p)
{
	gpuprobe_dma_owner_task_exit(p);
	/* signal->live was decremented before this tracepoint */
	if (!atomic_read(&p->signal->live) && gpuprobe_tgid_watched(p->tgid))
		gpuprobe_tgid_del(p->tgid);
}

/* Bounce-buffer copies: the hidden copy of IOMMU-less and confidential VMs. */
static void gpuprobe_swiotlb_bounced(void *data, struct device *dev,
				     dma_addr_t dev_addr, size_t size)
{
	const struct gpuprobe_irqmap *map = rcu_dereference_sched(gpuprobe_irqmap);
	struct gpuprobe_rec_swiotlb rec;
	unsigned int i;

	for (i = 0; map && i < map->ndev; i++)
		if (map->devs[i].dev == dev)
			break;
	if (likely(!map || i == map->ndev))
		return;
	rec = (struct gpuprobe_rec_swiotlb){
		.hdr.type = GPUPROBE_EV_SWIOTLB,
		.hdr.size = sizeof(rec),
		.hdr.ts_ns = ktime_get_mono_fast_ns(),
		.bdf = map->devs[i].bdf,
		.dir = DMA_NONE,	/* the trace point does not say */
		.bytes = size,
	};
	gpuprobe_emit(&rec.hdr);
}

/* IOMMU drivers that report faults through report_iommu_fault() (AMD, SMMU) */
static void gpuprobe_io_page_fault(void *data, struct device *dev,
				   unsigned long iova, int flags)
{
	const struct gpuprobe_irqmap *map = rcu_dereference_sched(gpuprobe_irqmap);
	struct gpuprobe_rec_iommu rec;
	unsigned int i;

	for (i = 0; map && i < map->ndev; i++)
		if (map->devs[i].dev == dev)
			break;
	if (!map || i == map->ndev)
		return;
	rec = (struct gpuprobe_rec_iommu){
		.hdr.type = GPUPROBE_EV_IOMMU,
		.hdr.size = sizeof(rec),
		.hdr.ts_ns = ktime_get_mono_fast_ns(),
		.bdf = map->devs[i].bdf,
		.op = GPUPROBE_IOMMU_FAULT,
		.iova = iova,
	};
	gpuprobe_emit(&rec.hdr);
}

/* a probe that does not take what its tracepoint passes fails the build */
GPUPROBE_TP_CHECK(irq_handler_entry, gpuprobe_irq_entry);
GPUPROBE_TP_CHECK(irq_handler_exit, gpuprobe_irq_exit);
GPUPROBE_TP_CHECK(sched_wakeup, gpuprobe_sched_wakeup);
GPUPROBE_TP_CHECK(sched_switch, gpuprobe_sched_switch);
GPUPROBE_TP_CHECK(sched_process_fork, gpuprobe_sched_fork);
GPUPROBE_TP_CHECK(sched_process_exit, gpuprobe_sched_exit);
GPUPROBE_TP_CHECK(swiotlb_bounced, gpuprobe_swiotlb_bounced);
GPUPROBE_TP_CHECK(io_page_fault, gpuprobe_io_page_fault);

static struct gpuprobe_hook gpuprobe_hooks[GPUPROBE_HOOK_COUNT] = {
	[GPUPROBE_HOOK_IRQ_ENTRY] = { "irq_handler_entry", gpuprobe_irq_entry,
			     GPUPROBE_EVMASK(GPUPROBE_EV_IRQ) },
	[GPUPROBE_HOOK_IRQ_EXIT] = { "irq_handler_exit", gpuprobe_irq_exit,
			    GPUPROBE_EVMASK(GPUPROBE_EV_IRQ) },
	[GPUPROBE_HOOK_SCHED_WAKEUP] = { "sched_wakeup", gpuprobe_sched_wakeup,
				GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP) },
	[GPUPROBE_HOOK_SCHED_SWITCH] = { "sched_switch", gpuprobe_sched_switch,
				GPUPROBE_EVMASK(GPUPROBE_EV_SWITCH) },
	[GPUPROBE_HOOK_SCHED_FORK] = { "sched_process_fork", gpuprobe_sched_fork,
			      GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP) |
			      GPUPROBE_EVMASK(GPUPROBE_EV_SWITCH) },
	/* also ends what an exiting task left of a DMA call (dma_tp.c) */
	[GPUPROBE_HOOK_SCHED_EXIT] = { "sched_process_exit", gpuprobe_sched_exit,
			      GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP) |
			      GPUPROBE_EVMASK(GPUPROBE_EV_SWITCH) |
			      GPUPROBE_EVMASK(GPUPROBE_EV_DMA), .optional = true },
	[GPUPROBE_HOOK_SWIOTLB] = { "swiotlb_bounced", gpuprobe_swiotlb_bounced,
			   GPUPROBE_EVMASK(GPUPROBE_EV_SWIOTLB) },
	/* IOMMU events come from the kretprobes in dma.c; faults add to them */
	[GPUPROBE_HOOK_IO_PAGE_FAULT] = { "io_page_fault", gpuprobe_io_page_fault,
					  GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU),
					  .optional = true },
};

static void gpuprobe_find_tp(struct tracepoint *tp, void *priv)
{
	int i;

	for (i = 0; i < GPUPROBE_HOOK_COUNT; i++)
		if (!strcmp(tp->name, gpuprobe_hooks[i].name))
			gpuprobe_hooks[i].tp = tp;
}

int gpuprobe_hooks_init(void)
{
	for_each_kernel_tracepoint(gpuprobe_find_tp, NULL);
	if (!gpuprobe_hooks[GPUPROBE_HOOK_IRQ_ENTRY].tp ||
	    !gpuprobe_hooks[GPUPROBE_HOOK_IRQ_EXIT].tp) {
		pr_err("irq_handler_entry/exit tracepoints not found\n");
		return -ENOENT;
	}
	return 0;
}

/*
 * Events START may ask for: those whose required hooks all exist.  An
 * optional hook neither makes its events available nor takes them away;
 * attaching skips it when its tracepoint is missing.
 */
static u32 gpuprobe_hooks_available(void)
{
	u32 mask = GPUPROBE_EVMASK(GPUPROBE_EV_LOST) |
		   GPUPROBE_EVMASK(GPUPROBE_EV_TARGET) |
		   gpuprobe_dma_available() | gpuprobe_kvm_available();
	int i;

	for (i = 0; i < GPUPROBE_HOOK_COUNT; i++)
		if (gpuprobe_hooks[i].tp && !gpuprobe_hooks[i].optional)
			mask |= gpuprobe_hooks[i].evmask;
	for (i = 0; i < GPUPROBE_HOOK_COUNT; i++)
		if (!gpuprobe_hooks[i].tp && !gpuprobe_hooks[i].optional)
			mask &= ~gpuprobe_hooks[i].evmask;
	return mask;
}

u64 gpuprobe_hooks_caps(void)
{
	u32 avail = gpuprobe_hooks_available();
	u64 caps = GPUPROBE_CAP_SUMMARY;

	if (avail & GPUPROBE_EVMASK(GPUPROBE_EV_IRQ))
		caps |= GPUPROBE_CAP_IRQ;
	if (avail & GPUPROBE_EVMASK(GPUPROBE_EV_WAKEUP))
		caps |= GPUPROBE_CAP_SCHED;
	if (avail & GPUPROBE_EVMASK(GPUPROBE_EV_DMA))
		caps |= GPUPROBE_CAP_DMA;
	if (avail & GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU))
		caps |= GPUPROBE_CAP_IOMMU | GPUPROBE_CAP_IOMMU_FAULT;
	if (avail & GPUPROBE_EVMASK(GPUPROBE_EV_SWIOTLB))
		caps |= GPUPROBE_CAP_SWIOTLB;
	if (avail & GPUPROBE_EVMASK(GPUPROBE_EV_KVM))
		caps |= GPUPROBE_CAP_KVM;
	return caps;
}

static void gpuprobe_hooks_detach_locked(void)
{
	int i;

	gpuprobe_kvm_detach();
	gpuprobe_dma_detach();
	gpuprobe_swiotlb_detach();
	gpuprobe_vectors_detach();
	for (i = GPUPROBE_HOOK_COUNT - 1; i >= 0; i--) {
		struct gpuprobe_hook *h = &gpuprobe_hooks[i];

		if (h->attached)
			tracepoint_probe_unregister(h->tp, h->probe, NULL);
		h->attached = false;
	}
	/* no probe runs, or will run, past this point */
	tracepoint_synchronize_unregister();
	/* sched_process_exit gave claims back until now */
	gpuprobe_dma_owners_reset();
}

/*
 * The histograms outlive STOP so SUMMARY_GET can read them; the next START
 * and module exit free them, under gpuprobe_lock as SUMMARY_GET reads them.
 */
void gpuprobe_hooks_free_summary(void)
{
	lockdep_assert_held(&gpuprobe_lock);
	free_percpu(gpuprobe_hists);
	gpuprobe_hists = NULL;
}

/* Caller holds gpuprobe_lock; no probe is attached. */
int gpuprobe_hooks_attach(u32 mask, bool summary)
{
	int i, err, cpu;

	if (mask & ~gpuprobe_hooks_available())
		return -EOPNOTSUPP;
	gpuprobe_summary = summary;
	gpuprobe_hooks_free_summary();
	if (summary) {
		gpuprobe_hists = alloc_percpu(struct gpuprobe_hist);
		if (!gpuprobe_hists)
			return -ENOMEM;
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(gpuprobe_hists, cpu)->bdf, 0xff,
			       sizeof(gpuprobe_hists->bdf));
	}
	for (i = 0; i < GPUPROBE_HOOK_COUNT; i++) {
		struct gpuprobe_hook *h = &gpuprobe_hooks[i];

		if (!(mask & h->evmask))
			continue;
		if (!h->tp) {
			/* hooks_available() let only optional ones through */
			WARN_ON_ONCE(!h->optional);
			continue;
		}
		err = tracepoint_probe_register(h->tp, h->probe, NULL);
		if (err) {
			pr_err("cannot attach to %s: %d\n", h->name, err);
			gpuprobe_hooks_detach_locked();
			return err;
		}
		h->attached = true;
	}
	if (mask & GPUPROBE_EVMASK(GPUPROBE_EV_IRQ))
		gpuprobe_vectors_attach();
	if (mask & GPUPROBE_EVMASK(GPUPROBE_EV_SWIOTLB))
		gpuprobe_swiotlb_attach();
	err = gpuprobe_dma_attach(mask);
	if (err) {
		pr_err("cannot attach the DMA/IOMMU kretprobes: %d\n", err);
		gpuprobe_hooks_detach_locked();
		return err;
	}
	err = gpuprobe_kvm_attach(mask);
	if (err)
		gpuprobe_hooks_detach_locked();
	return err;
}

void gpuprobe_hooks_detach(void)
{
	int cpu;

	gpuprobe_hooks_detach_locked();
	for_each_possible_cpu(cpu)
		per_cpu_ptr(&gpuprobe_pending, cpu)->irq = -1;
}

static int gpuprobe_hook_fill_one(struct sk_buff *skb, const char *name,
				  bool attached, const char *reason)
{
	struct nlattr *nest = nla_nest_start(skb, GPUPROBE_A_HOOK);

	if (!nest ||
	    nla_put_string(skb, GPUPROBE_A_HOOK_NAME, name) ||
	    nla_put_u8(skb, GPUPROBE_A_HOOK_ATTACHED, attached) ||
	    (reason && nla_put_string(skb, GPUPROBE_A_HOOK_REASON, reason)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* One HOOK nest per hook: attached now?  If it cannot be, why not. */
int gpuprobe_hooks_fill(struct sk_buff *skb)
{
	int i;

	for (i = 0; i < GPUPROBE_HOOK_COUNT; i++) {
		const struct gpuprobe_hook *h = &gpuprobe_hooks[i];

		if (gpuprobe_hook_fill_one(skb, h->name, h->attached,
					   h->tp ? NULL :
					   "tracepoint not in this kernel"))
			return -EMSGSIZE;
	}
	if (gpuprobe_hook_fill_one(skb, "kprobe:swiotlb unmap/sync (copy back)",
				   gpuprobe_swiotlb_attached() > 0,
				   IS_ENABLED(CONFIG_KPROBES) ? NULL :
				   "no kprobes: only the map-time bounce"))
		return -EMSGSIZE;
	if (gpuprobe_dma_hooks_fill(skb, gpuprobe_hook_fill_one) ||
	    gpuprobe_vectors_hooks_fill(skb, gpuprobe_hook_fill_one))
		return -EMSGSIZE;
	return gpuprobe_kvm_hooks_fill(skb, gpuprobe_hook_fill_one);
}

int gpuprobe_tgid_add(u32 tgid)
{
	int i;

	if (gpuprobe_tgid_watched(tgid))
		return -EEXIST;
	for (i = 0; i < GPUPROBE_MAX_TGIDS; i++)
		if (atomic_cmpxchg(&gpuprobe_tgids[i], 0, tgid) == 0)
			return 0;
	return -ENOSPC;
}

int gpuprobe_tgid_del(u32 tgid)
{
	int i;

	for (i = 0; i < GPUPROBE_MAX_TGIDS; i++)
		if (atomic_cmpxchg(&gpuprobe_tgids[i], tgid, 0) == tgid)
			return 0;
	return -ENOENT;
}

void gpuprobe_tgid_clear(void)
{
	int i;

	for (i = 0; i < GPUPROBE_MAX_TGIDS; i++)
		atomic_set(&gpuprobe_tgids[i], 0);
}

static int gpuprobe_hist_fill_slot(struct sk_buff *skb, u32 bdf, u32 vector,
				   const u64 *buckets)
{
	struct nlattr *nest = nla_nest_start(skb, GPUPROBE_A_HIST);
	u64 total = 0;
	int b;

	for (b = 0; b < GPUPROBE_HIST_BUCKETS; b++)
		total += buckets[b];
	if (!nest ||
	    nla_put_u32(skb, GPUPROBE_A_HIST_BDF, bdf) ||
	    nla_put_u32(skb, GPUPROBE_A_HIST_VECTOR, vector) ||
	    nla_put_u64_64bit(skb, GPUPROBE_A_HIST_COUNT, total,
			      GPUPROBE_A_HIST_PAD) ||
	    nla_put(skb, GPUPROBE_A_HIST_BUCKETS,
		    GPUPROBE_HIST_BUCKETS * sizeof(u64), buckets))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* Sums the per-CPU histograms by (bdf, vector); caller holds gpuprobe_lock. */
int gpuprobe_summary_fill(struct sk_buff *skb)
{
	struct gpuprobe_hist *sum;
	int cpu, s, t, b, err = 0;
	u64 n;

	if (!gpuprobe_hists)
		return -ENODATA;
	sum = kzalloc(sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	memset(sum->bdf, 0xff, sizeof(sum->bdf));
	for_each_possible_cpu(cpu) {
		const struct gpuprobe_hist *h = per_cpu_ptr(gpuprobe_hists, cpu);

		sum->dropped += READ_ONCE(h->dropped);
		for (s = 0; s < GPUPROBE_HIST_SLOTS; s++) {
			if (READ_ONCE(h->bdf[s]) == GPUPROBE_BDF_NONE)
				break;
			for (t = 0; t < GPUPROBE_HIST_SLOTS; t++) {
				if (sum->bdf[t] == GPUPROBE_BDF_NONE) {
					sum->bdf[t] = h->bdf[s];
					sum->vector[t] = h->vector[s];
				}
				if (sum->bdf[t] == h->bdf[s] &&
				    sum->vector[t] == h->vector[s])
					break;
			}
			for (b = 0; b < GPUPROBE_HIST_BUCKETS; b++) {
				n = READ_ONCE(h->count[s][b]);
				/* CPUs with different pairs: the reply is full */
				if (t == GPUPROBE_HIST_SLOTS)
					sum->dropped += n;
				else
					sum->count[t][b] += n;
			}
		}
	}
	for (t = 0; t < GPUPROBE_HIST_SLOTS && !err; t++) {
		if (sum->bdf[t] == GPUPROBE_BDF_NONE)
			break;
		err = gpuprobe_hist_fill_slot(skb, sum->bdf[t], sum->vector[t],
					      sum->count[t]);
	}
	if (!err && nla_put_u64_64bit(skb, GPUPROBE_A_SUMMARY_DROPPED,
				      sum->dropped, GPUPROBE_A_PAD))
		err = -EMSGSIZE;
	kfree(sum);
	return err;
}
