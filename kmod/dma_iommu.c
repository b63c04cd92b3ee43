// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: IOMMU map/unmap, timed with kretprobes on the exported
 * iommu_map*()/iommu_unmap*().
 *
 * They carry no device.  A call is charged to the DMA call its own context
 * (task and interrupt level, dma_owner.c) has in progress, when that call's
 * device is in the domain being changed; else to the target whose IOMMU
 * domain it is -- which is how VFIO's mapping of guest memory is seen on a
 * host.  Records name the domain by a keyed hash, never by its address.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/iommu.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/siphash.h>

#include "dma.h"
#include "gpuprobe.h"

/*
 * IOMMU calls made under an interrupt while a target's DMA call was in
 * progress on the CPU, on a domain that is no target's: not the target's.
 */
static DEFINE_PER_CPU(u64, gpuprobe_iommu_unattributed);

/*
 * IOMMU calls on a target's domain: seen by the counting kprobes, and
 * taken by the kretprobes' entry handlers; the difference found no free
 * instance (missed).
 */
static DEFINE_PER_CPU(u64, gpuprobe_iommu_target_entries);
static DEFINE_PER_CPU(u64, gpuprobe_iommu_target_timed);

/* Names a domain in records without giving its kernel address away. */
static siphash_key_t gpuprobe_domain_key;

u32 gpuprobe_domain_id(struct iommu_domain *domain)
{
	u32 id = siphash_1u64((u64)(unsigned long)domain, &gpuprobe_domain_key);

	return domain ? (id ? id : 1) : 0;
}

/*
 * Before the first record names a domain; under gpuprobe_lock.  (Not
 * get_random_once(): its deferred work holds a module reference, and an
 * unload right after START would fail with EBUSY.)
 */
static void gpuprobe_domain_key_init(void)
{
	lockdep_assert_held(&gpuprobe_lock);
	if (!gpuprobe_domain_key.key[0] && !gpuprobe_domain_key.key[1])
		get_random_bytes(&gpuprobe_domain_key, sizeof(gpuprobe_domain_key));
}

/* A device's domain as IOMMU records name it: TARGET records (target.c). */
u32 gpuprobe_dev_domain_id(struct device *dev)
{
	gpuprobe_domain_key_init();
	return gpuprobe_domain_id(iommu_get_domain_for_dev(dev));
}

/*
 * The targets' domains are cached in the map when it is published, so that
 * another device's IOMMU call is told apart by comparing pointers, with no
 * iommu_get_domain_for_dev() per target (on 6.1 a reference taken and put
 * on the target's group: two atomics on a line every CPU's IOMMU calls
 * would share).  A cached domain is stale once a group moves to another
 * one: kretprobes on the exported calls that move groups (VFIO's and
 * iommufd's attach and detach, DMA ownership) say when.  From the entry of
 * such a call until a publish after its return has read the domains again
 * (the next rescan, or any target change), calls are matched against the
 * live domains, as before the cache.
 *
 * unsettled: read by every IOMMU call, written by the rare calls above and
 * by publish.  changing: those calls in progress; gen: those completed.
 */
static bool gpuprobe_domains_unsettled = true;
static atomic_t gpuprobe_domains_changing = ATOMIC_INIT(0);
static atomic_long_t gpuprobe_domains_changed = ATOMIC_LONG_INIT(0);
/* every domain-change kretprobe is on, and none has missed a call */
static bool gpuprobe_domain_hooks_ok;

static int domain_change_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	atomic_inc(&gpuprobe_domains_changing);
	smp_mb__after_atomic();		/* pairs with gpuprobe_domains_settle() */
	WRITE_ONCE(gpuprobe_domains_unsettled, true);
	return 0;
}

static int domain_change_ret(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	/* after the call's own stores: a publish that sees gen moved re-reads */
	smp_mb__before_atomic();
	atomic_long_inc(&gpuprobe_domains_changed);
	atomic_dec(&gpuprobe_domains_changing);
	return 0;
}

/* local to the table below */
#define KRP(sym) { .kp.symbol_name = sym, .entry_handler = domain_change_entry, \
		   .handler = domain_change_ret }

static struct kretprobe gpuprobe_domain_krps[] = {
	KRP("iommu_attach_device"), KRP("iommu_detach_device"),
	KRP("iommu_attach_group"), KRP("iommu_detach_group"),
	KRP("iommu_group_replace_domain"),		/* 6.6+: iommufd */
	KRP("iommu_group_claim_dma_owner"), KRP("iommu_group_release_dma_owner"),
	KRP("iommu_device_claim_dma_owner"),		/* 6.2+ */
	KRP("iommu_device_release_dma_owner"),
};

#undef KRP

static bool gpuprobe_domain_krp_on[ARRAY_SIZE(gpuprobe_domain_krps)];

/* Any call the domain-change probes could not see: the cache is not used. */
static void gpuprobe_domain_hooks_check(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpuprobe_domain_krps); i++)
		if (gpuprobe_domain_krp_on[i] && gpuprobe_domain_krps[i].nmissed)
			WRITE_ONCE(gpuprobe_domain_hooks_ok, false);
}

/* Publish, before it reads the domains: what settle compares with. */
unsigned long gpuprobe_domains_gen(void)
{
	unsigned long gen = atomic_long_read(&gpuprobe_domains_changed);

	smp_mb();	/* the count before the domains read after it */
	return gen;
}

/*
 * Publish, after the new map (its domains read after gen) is in place:
 * the cache may be used from now on unless a domain change ran meanwhile
 * or is running.  A reader that sees unsettled cleared sees the new map
 * (gpuprobe_domain_bdf reads them in that order).
 */
void gpuprobe_domains_settle(unsigned long gen)
{
	lockdep_assert_held(&gpuprobe_lock);
	gpuprobe_domain_hooks_check();
	smp_mb();	/* the map published before unsettled is cleared */
	WRITE_ONCE(gpuprobe_domains_unsettled, false);
	smp_mb();	/* pairs with domain_change_entry() */
	if (!READ_ONCE(gpuprobe_domain_hooks_ok) ||
	    atomic_read(&gpuprobe_domains_changing) ||
	    atomic_long_read(&gpuprobe_domains_changed) != gen)
		WRITE_ONCE(gpuprobe_domains_unsettled, true);
}

/* The rescan publishes again while the cache cannot be used. */
bool gpuprobe_domains_stale(void)
{
	bool ok = READ_ONCE(gpuprobe_domain_hooks_ok);

	/*
	 * A call the probes missed since the last publish: publish once more,
	 * so that settle turns the cache off (nothing else would notice).
	 */
	gpuprobe_domain_hooks_check();
	if (ok && !READ_ONCE(gpuprobe_domain_hooks_ok))
		return true;
	return READ_ONCE(gpuprobe_domains_unsettled) && ok;
}

/*
 * The target whose IOMMU domain this is; with *shared set when more
 * targets are in it (a VFIO container): the record then names the domain,
 * and its bdf is only the first of them.
 */
u32 gpuprobe_domain_bdf(struct iommu_domain *domain, bool *shared)
{
	bool live = READ_ONCE(gpuprobe_domains_unsettled);
	const struct gpuprobe_irqmap *map;
	u32 bdf = GPUPROBE_BDF_NONE;
	struct iommu_domain *d;
	unsigned int i;

	smp_rmb();	/* unsettled, then the map: gpuprobe_domains_settle() */
	map = rcu_dereference_sched(gpuprobe_irqmap);
	*shared = false;
	if (!map || !domain)
		return GPUPROBE_BDF_NONE;
	for (i = 0; i < map->ndev; i++) {
		d = unlikely(live) ? iommu_get_domain_for_dev(map->devs[i].dev) :
			map->devs[i].domain;
		if (d != domain)
			continue;
		if (bdf != GPUPROBE_BDF_NONE) {
			*shared = true;
			break;
		}
		bdf = map->devs[i].bdf;
	}
	return bdf;
}

/*
 * Another device's IOMMU call, decided with no call made and no register
 * saved (every device's maps and unmaps reach these probes): no target
 * call anywhere to charge it to, the targets' domains settled, and none of
 * them this one.  false: gpuprobe_iommu_charge() decides.
 */
static __always_inline bool gpuprobe_iommu_other(struct iommu_domain *domain)
{
	const struct gpuprobe_irqmap *map;
	unsigned int i;

	if (!gpuprobe_dma_owners_idle() ||
	    READ_ONCE(gpuprobe_domains_unsettled))
		return false;
	smp_rmb();	/* pairs with gpuprobe_domains_settle()'s smp_mb() */
	map = rcu_dereference_sched(gpuprobe_irqmap);
	if (!map)
		return true;
	for (i = 0; i < map->ndev; i++)
		if (map->devs[i].domain == domain)
			return false;
	return true;
}

/* IOMMU side: one instance per iommu_map*() / iommu_unmap*() call. */
enum gpuprobe_iommu_ret {
	GPUPROBE_IOMMU_RET_MAP,		/* int: 0 or -errno */
	GPUPROBE_IOMMU_RET_UNMAP,	/* size_t: bytes unmapped */
	GPUPROBE_IOMMU_RET_MAP_SG,	/* ssize_t: bytes mapped or -errno */
};

struct gpuprobe_iommu_inst {
	struct gpuprobe_dma_inst *call;	/* the DMA call it belongs to */
	u64 ts, iova, paddr, size;
	u32 bdf;
	u32 domain;
	u16 op;
	u16 flags;
	u8 ret;			/* enum gpuprobe_iommu_ret */
};

#define GPUPROBE_IOMMU_INST(ri) ((struct gpuprobe_iommu_inst *)(ri)->data)

/*
 * Who a call on this domain from this context is charged to: the DMA call
 * the context has in progress (*call), if that call's device is in the
 * domain; else the target whose domain it is.  GPUPROBE_BDF_NONE: nobody;
 * then *interrupted (where asked) says whether the context interrupted a
 * target's call.  With no target call anywhere, the domain alone decides,
 * and the context's key is never computed.
 */
static u32 gpuprobe_iommu_charge(struct iommu_domain *domain,
				 struct gpuprobe_dma_inst **call, bool *shared,
				 bool *interrupted)
{
	unsigned long key;
	u32 bdf;

	*call = NULL;
	if (interrupted)
		*interrupted = false;
	if (gpuprobe_dma_owners_idle())
		return gpuprobe_domain_bdf(domain, shared);
	key = gpuprobe_dma_ctx_key();
	*call = gpuprobe_dma_owner_call(gpuprobe_dma_owner_find(key));
	if (*call && (*call)->domain == domain) {
		*shared = false;
		return (*call)->bdf;
	}
	*call = NULL;
	bdf = gpuprobe_domain_bdf(domain, shared);
	if (bdf == GPUPROBE_BDF_NONE && interrupted)
		*interrupted = gpuprobe_dma_owner_interrupted(key);
	return bdf;
}

/*
 * Work under an interrupt that landed in a target's call, on no target's
 * domain, is counted as unattributed and not recorded.
 */
/*
 * Out of line so that the entries' test above saves no register: every
 * device's IOMMU calls run that test, only a target's come here.
 */
static noinline int
gpuprobe_iommu_start(struct gpuprobe_iommu_inst *in, struct iommu_domain *domain,
		     u32 op, u8 ret, u64 iova, u64 paddr, u64 size)
{
	bool shared, interrupted;

	in->bdf = gpuprobe_iommu_charge(domain, &in->call, &shared,
					&interrupted);
	if (in->bdf == GPUPROBE_BDF_NONE) {
		if (interrupted)
			this_cpu_inc(gpuprobe_iommu_unattributed);
		return 1;
	}
	this_cpu_inc(gpuprobe_iommu_target_timed);
	in->flags = shared ? GPUPROBE_IOMMU_SHARED_DOMAIN : 0;
	in->domain = gpuprobe_domain_id(domain);
	in->op = op;
	in->ret = ret;
	in->iova = iova;
	in->paddr = paddr;
	in->size = size;
	in->ts = ktime_get_mono_fast_ns();
	return 0;
}

/* Every IOMMU probe's entry: another device's call declined first. */
static __always_inline int
gpuprobe_iommu_begin(struct gpuprobe_iommu_inst *in, struct iommu_domain *domain,
		     u32 op, u8 ret, u64 iova, u64 paddr, u64 size)
{
	if (gpuprobe_iommu_other(domain))
		return 1;
	return gpuprobe_iommu_start(in, domain, op, ret, iova, paddr, size);
}

static int iommu_map_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return gpuprobe_iommu_begin(GPUPROBE_IOMMU_INST(ri), (void *)gpuprobe_arg(regs, 0),
				    GPUPROBE_IOMMU_MAP, GPUPROBE_IOMMU_RET_MAP,
				    gpuprobe_arg(regs, 1), gpuprobe_arg(regs, 2),
				    gpuprobe_arg(regs, 3));
}

static int iommu_unmap_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return gpuprobe_iommu_begin(GPUPROBE_IOMMU_INST(ri), (void *)gpuprobe_arg(regs, 0),
				    GPUPROBE_IOMMU_UNMAP, GPUPROBE_IOMMU_RET_UNMAP,
				    gpuprobe_arg(regs, 1), 0, gpuprobe_arg(regs, 2));
}

static int iommu_map_sg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct iommu_domain *domain = (void *)gpuprobe_arg(regs, 0);
	struct scatterlist *sg = (void *)gpuprobe_arg(regs, 2);

	/* before another device's scatterlist is read */
	if (gpuprobe_iommu_other(domain))
		return 1;
	return gpuprobe_iommu_start(GPUPROBE_IOMMU_INST(ri), domain,
				    GPUPROBE_IOMMU_MAP, GPUPROBE_IOMMU_RET_MAP_SG,
				    gpuprobe_arg(regs, 1), sg ? sg_phys(sg) : 0, 0);
}

static int iommu_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_iommu_inst *in = GPUPROBE_IOMMU_INST(ri);
	unsigned long ret = regs_return_value(regs);
	u64 now = ktime_get_mono_fast_ns();
	struct gpuprobe_rec_iommu rec = {
		.hdr.type = GPUPROBE_EV_IOMMU,
		.hdr.size = sizeof(rec),
		.hdr.flags = in->flags,
		.hdr.ts_ns = in->ts,
		.bdf = in->bdf,
		.op = in->op,
		.iova = in->iova,
		.paddr = in->paddr,
		.size = in->size,
		.duration_ns = now - in->ts,
		.domain = in->domain,
		/* whose work: a VMM's, for VFIO's maps of guest memory */
		.pid = in_task() ? gpuprobe_view_tgid(current) : 0,
	};

	switch (in->ret) {
	case GPUPROBE_IOMMU_RET_MAP:
		if ((int)ret)
			rec.size = 0;			/* map failed */
		break;
	case GPUPROBE_IOMMU_RET_UNMAP:
		rec.size = ret;				/* bytes unmapped */
		break;
	case GPUPROBE_IOMMU_RET_MAP_SG:
		rec.size = (long)ret > 0 ? ret : 0;	/* bytes mapped */
		break;
	}

	/* the call is this context's and cannot end before its IOMMU work */
	if (in->call) {
		in->call->iommu_ns += rec.duration_ns;
		in->call->iommu_calls++;
	}
	gpuprobe_emit(&rec.hdr);
	return 0;
}

/* local to the table below */
#define KRP(sym, entry) {						\
	.kp.symbol_name = sym, .entry_handler = entry,			\
	.handler = iommu_ret, .data_size = sizeof(struct gpuprobe_iommu_inst) }

static struct kretprobe gpuprobe_iommu_krps[] = {
	KRP("iommu_map", iommu_map_entry),
	KRP("iommu_map_atomic", iommu_map_entry),
	KRP("iommu_unmap", iommu_unmap_entry),
	KRP("iommu_unmap_fast", iommu_unmap_entry),
	KRP("iommu_map_sg", iommu_map_sg_entry),
	KRP("iommu_map_sg_atomic", iommu_map_sg_entry),
};

#undef KRP

static bool gpuprobe_iommu_krp_on[ARRAY_SIZE(gpuprobe_iommu_krps)];

/*
 * Whether the entry handler would record a call on this domain; out of
 * line for the same reason as gpuprobe_iommu_start().
 */
static noinline bool gpuprobe_iommu_charged(struct iommu_domain *domain)
{
	struct gpuprobe_dma_inst *call;
	bool shared;

	return gpuprobe_iommu_charge(domain, &call, &shared, NULL) !=
	       GPUPROBE_BDF_NONE;
}

/*
 * Counts the calls the entry handler would record (the same decision, from
 * the same context, just before it): a target's domain, or a target call's.
 */
static int gpuprobe_iommu_count_entry(struct kprobe *kp, struct pt_regs *regs)
{
	struct iommu_domain *domain = (void *)gpuprobe_arg(regs, 0);

	if (!gpuprobe_iommu_other(domain) && gpuprobe_iommu_charged(domain))
		this_cpu_inc(gpuprobe_iommu_target_entries);
	return 0;
}

static struct gpuprobe_krp_counter gpuprobe_iommu_counter;

/*
 * Where a kernel lacks one of them (none is in every version) the others
 * still cover their callers: the cache is used when every one this kernel
 * has is on, else never (the live domains, as before it).  Until the first
 * publish after this, the live domains are used.
 */
static void gpuprobe_domain_hooks_attach(void)
{
	struct kretprobe *krp;
	bool any = false, ok = true;
	size_t i;
	int err;

	BUILD_BUG_ON(ARRAY_SIZE(gpuprobe_domain_krps) > GPUPROBE_KRP_TABLE_MAX);
	WRITE_ONCE(gpuprobe_domains_unsettled, true);
	/* a call in flight at the last STOP never returns through its probe */
	atomic_set(&gpuprobe_domains_changing, 0);
	for (i = 0; i < ARRAY_SIZE(gpuprobe_domain_krps); i++) {
		krp = &gpuprobe_domain_krps[i];
		krp->kp.addr = NULL;
		krp->kp.flags = 0;
		krp->nmissed = 0;
		krp->maxactive = max_t(int, GPUPROBE_KRP_MAXACTIVE,
				       2 * num_possible_cpus());
		err = register_kretprobe(krp);
		gpuprobe_domain_krp_on[i] = !err;
		any |= !err;
		/* -ENOENT: not in this kernel, so none of its callers either */
		ok &= !err || err == -ENOENT;
	}
	WRITE_ONCE(gpuprobe_domain_hooks_ok, any && ok);
}

static void gpuprobe_domain_hooks_detach(void)
{
	WRITE_ONCE(gpuprobe_domain_hooks_ok, false);
	gpuprobe_krps_unregister(gpuprobe_domain_krps, gpuprobe_domain_krp_on,
				 ARRAY_SIZE(gpuprobe_domain_krps));
	WRITE_ONCE(gpuprobe_domains_unsettled, true);
}

/* Registers what this kernel has (iommu_map_atomic went in 6.3). */
int gpuprobe_iommu_attach(void)
{
	int cpu, err;

	BUILD_BUG_ON(ARRAY_SIZE(gpuprobe_iommu_krps) > GPUPROBE_KRP_TABLE_MAX);
	gpuprobe_domain_key_init();
	for_each_possible_cpu(cpu) {
		per_cpu(gpuprobe_iommu_unattributed, cpu) = 0;
		per_cpu(gpuprobe_iommu_target_entries, cpu) = 0;
		per_cpu(gpuprobe_iommu_target_timed, cpu) = 0;
	}
	gpuprobe_domain_hooks_attach();
	err = gpuprobe_krps_register(gpuprobe_iommu_krps, gpuprobe_iommu_krp_on,
				     ARRAY_SIZE(gpuprobe_iommu_krps));
	if (err) {
		gpuprobe_domain_hooks_detach();
		return err;
	}
	gpuprobe_krp_count_attach(&gpuprobe_iommu_counter, gpuprobe_iommu_krps,
				  gpuprobe_iommu_krp_on,
				  ARRAY_SIZE(gpuprobe_iommu_krps),
				  gpuprobe_iommu_count_entry);
	/* the domains as they are now, read with the change probes on */
	gpuprobe_irqmap_publish();
	return 0;
}

void gpuprobe_iommu_detach(void)
{
	gpuprobe_domain_hooks_detach();
	gpuprobe_krp_count_detach(&gpuprobe_iommu_counter,
				  ARRAY_SIZE(gpuprobe_iommu_krps));
	gpuprobe_krps_unregister(gpuprobe_iommu_krps, gpuprobe_iommu_krp_on,
				 ARRAY_SIZE(gpuprobe_iommu_krps));
}

/*
 * Calls on a target's domain that found every instance busy (every
 * domain's where a counting kprobe could not be registered).
 */
u64 gpuprobe_iommu_missed(void)
{
	return gpuprobe_krp_missed(&gpuprobe_iommu_counter, gpuprobe_iommu_krps,
				   ARRAY_SIZE(gpuprobe_iommu_krps),
				   &gpuprobe_iommu_target_entries,
				   &gpuprobe_iommu_target_timed);
}

/* Hits skipped because another kprobe handler was running. */
u64 gpuprobe_iommu_recursion(void)
{
	u64 n = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpuprobe_iommu_krps); i++)
		n += gpuprobe_iommu_krps[i].kp.nmissed;
	return n;
}

u64 gpuprobe_iommu_unattributed_count(void)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(gpuprobe_iommu_unattributed, cpu);
	return n;
}
