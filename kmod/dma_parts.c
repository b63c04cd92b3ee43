// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: the parts of the IOMMU work inside a target's DMA call -- IOVA
 * allocation and free, the driver's page-table update (VT-d's or AMD-Vi's),
 * the invalidation and its wait (VT-d's queued invalidation; AMD-Vi's
 * range flush and completion wait), lazy mode's deferral -- and the flush
 * queue's later flush on a target's domain (Documentation/iommu.md).
 *
 * A part is charged to the DMA call its context (task and interrupt level)
 * has in progress, found in the owner table (dma_owner.c), whose count of
 * claims is the "inside a target's call" test every part probe makes
 * first: outside one (every other device's DMA) a probe reads that one
 * shared counter and its CPU's flush-queue timer key, and gives its
 * instance back (a whole-domain flush also looks at its domain: it may be
 * a target's flush on its own).  The counter is global, not
 * per CPU, because a call in task context may sleep and migrate between
 * its parts.  Parts nest (queue_iova() flushes a full queue and frees
 * IOVAs; a flush invalidates): each record carries its whole duration and
 * its own time without the parts inside it, so that the own times of one
 * call add up to no more than the call.
 *
 * The flush queue's timer is in no call.  It runs in softirq context on
 * one CPU, so its nesting is kept per CPU, keyed by the context; the
 * domain is learned from the flush inside it (the timer's argument is the
 * private cookie), and a timer of no target's domain records nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/iommu.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/string.h>

#include "dma.h"
#include "gpuprobe.h"

/* The flush-queue timer running on this CPU, while it runs. */
struct gpuprobe_part_timer {
	unsigned long key;		/* its context; 0: none */
	u32 bdf;			/* learned from its flush */
	u32 domain;
	u16 flags;
	struct gpuprobe_part_acc acc;
};

static DEFINE_PER_CPU(struct gpuprobe_part_timer, gpuprobe_part_timer);

struct gpuprobe_part_inst {
	struct gpuprobe_part_acc *acc;
	struct gpuprobe_part_timer *timer;	/* in a timer, not a call */
	struct gpuprobe_part_acc own;		/* a flush on its own */
	u64 ts, saved_child, call_ts;
	u32 bdf, domain, arg, slow0;
	u16 part, depth, flags;
};

#define GPUPROBE_PART_INST(ri) ((struct gpuprobe_part_inst *)(ri)->data)

/*
 * The key's interrupt level, not in_task(): a kprobe taken through int3
 * runs its handler under nmi_enter, which gpuprobe_dma_ctx_key() undoes
 * (its low bits: GPUPROBE_DMA_LEVEL_MASK in dma_owner.c, 0 for a task).
 */
static bool gpuprobe_part_ctx_task(unsigned long key)
{
	return !(key & 3UL);
}

static struct gpuprobe_dma_inst *gpuprobe_part_call(unsigned long key)
{
	return gpuprobe_dma_owner_call(gpuprobe_dma_owner_find(key));
}

/* A flush outside a call: the timer's, or one on its own (no nesting). */
static int gpuprobe_part_flush_ctx(struct gpuprobe_part_inst *in,
				   struct gpuprobe_part_timer *t,
				   struct iommu_domain *domain)
{
	bool shared;
	u32 bdf = gpuprobe_domain_bdf(domain, &shared);

	if (bdf == GPUPROBE_BDF_NONE)
		return 1;
	in->bdf = bdf;
	in->domain = gpuprobe_domain_id(domain);
	in->flags = shared ? GPUPROBE_PART_SHARED_DOMAIN : 0;
	if (t) {
		t->bdf = bdf;
		t->domain = in->domain;
		t->flags = in->flags;
	}
	return 0;
}

/*
 * Another device's part, decided with two loads: no target call anywhere
 * to charge it to, and no flush-queue timer running on this CPU (whose
 * parts are charged to its domain).
 */
static __always_inline bool gpuprobe_part_none(void)
{
	return gpuprobe_dma_owners_idle() &&
	       !this_cpu_read(gpuprobe_part_timer.key);
}

/*
 * Where a part's time goes: the call of its context, else the timer of its
 * context on this CPU.  1: neither (nothing is recorded).  Out of line so
 * that the entries' gpuprobe_part_none() test saves no register.
 */
static noinline int gpuprobe_part_charge(struct gpuprobe_part_inst *in,
					 u16 part, struct iommu_domain *domain,
					 u32 arg)
{
	unsigned long key = gpuprobe_dma_ctx_key();
	struct gpuprobe_dma_inst *call = gpuprobe_part_call(key);
	struct gpuprobe_part_timer *t;

	in->timer = NULL;
	if (call) {
		in->acc = &call->parts;
		in->bdf = call->bdf;
		in->domain = gpuprobe_domain_id(call->domain);
		in->call_ts = call->ts;
		in->flags = 0;
	} else {
		/* softirq and irq contexts do not migrate; tasks may */
		if (!key || gpuprobe_part_ctx_task(key))
			return 1;
		t = this_cpu_ptr(&gpuprobe_part_timer);
		if (t->key != key)
			return 1;
		if (part == GPUPROBE_PART_FLUSH &&
		    gpuprobe_part_flush_ctx(in, t, domain))
			return 1;
		if (t->bdf == GPUPROBE_BDF_NONE)
			return 1;
		in->timer = t;
		in->acc = &t->acc;
		in->bdf = t->bdf;
		in->domain = t->domain;
		in->flags = t->flags;
		in->call_ts = 0;
	}
	in->part = part;
	in->arg = arg;
	in->saved_child = in->acc->child_ns;
	in->acc->child_ns = 0;
	in->depth = in->acc->depth++;
	in->slow0 = in->acc->iova_slow;
	in->ts = ktime_get_mono_fast_ns();
	return 0;
}

/* Every part probe's entry: the test above, before any call is made. */
static __always_inline int gpuprobe_part_begin(struct gpuprobe_part_inst *in,
					       u16 part,
					       struct iommu_domain *domain,
					       u32 arg)
{
	if (gpuprobe_part_none())
		return 1;
	return gpuprobe_part_charge(in, part, domain, arg);
}

static int gpuprobe_part_ret(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct gpuprobe_part_inst *in = GPUPROBE_PART_INST(ri);
	struct gpuprobe_part_acc *acc = in->acc;
	u64 dur = ktime_get_mono_fast_ns() - in->ts;
	struct gpuprobe_rec_iommu_part rec = {
		.hdr.type = GPUPROBE_EV_IOMMU_PART,
		.hdr.size = sizeof(rec),
		.hdr.ts_ns = in->ts,
		.bdf = in->bdf,
		.part = in->part,
		.depth = in->depth,
		.duration_ns = dur,
		.self_ns = dur > acc->child_ns ? dur - acc->child_ns : 0,
		.call_ts = in->call_ts,
		.domain = in->domain,
		.arg = in->arg,
	};

	rec.hdr.flags = in->flags;
	if (acc->iova_slow != in->slow0 &&
	    (in->part == GPUPROBE_PART_IOVA_ALLOC ||
	     in->part == GPUPROBE_PART_IOVA_FREE))
		rec.hdr.flags |= GPUPROBE_PART_SLOW;
	acc->child_ns = in->saved_child + dur;
	acc->depth--;
	gpuprobe_emit(&rec.hdr);
	return 0;
}

static int iova_alloc_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return gpuprobe_part_begin(GPUPROBE_PART_INST(ri), GPUPROBE_PART_IOVA_ALLOC,
				   NULL, gpuprobe_arg(regs, 1));
}

static int iova_free_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return gpuprobe_part_begin(GPUPROBE_PART_INST(ri), GPUPROBE_PART_IOVA_FREE,
				   NULL, gpuprobe_arg(regs, 2));
}

static int map_pages_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return gpuprobe_part_begin(GPUPROBE_PART_INST(ri), GPUPROBE_PART_PGTABLE_MAP,
				   NULL, gpuprobe_arg(regs, 4));
}

static int unmap_pages_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	return gpuprobe_part_begin(GPUPROBE_PART_INST(ri),
				   GPUPROBE_PART_PGTABLE_UNMAP, NULL,
				   gpuprobe_arg(regs, 3));
}

static int qi_submit_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return gpuprobe_part_begin(GPUPROBE_PART_INST(ri), GPUPROBE_PART_INVALIDATE,
				   NULL, gpuprobe_arg(regs, 2));
}

/*
 * AMD-Vi's iotlb_sync: the range's INVALIDATE_IOMMU_PAGES commands and the
 * completion wait (no tracepoint; iommu_completion_wait() is static and
 * may be inlined).  arg: the pages of the range, not commands.
 */
static int amd_sync_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct iommu_iotlb_gather *g = (const void *)gpuprobe_arg(regs, 1);
	u32 pages = 0;

	if (gpuprobe_part_none())
		return 1;
	if (g && g->end >= g->start)
		pages = (g->end - g->start + 1) >> PAGE_SHIFT;
	return gpuprobe_part_charge(GPUPROBE_PART_INST(ri), GPUPROBE_PART_INVALIDATE,
				    NULL, pages);
}

static int queue_iova_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return gpuprobe_part_begin(GPUPROBE_PART_INST(ri), GPUPROBE_PART_DEFER,
				   NULL, gpuprobe_arg(regs, 2));
}

static int flush_all_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_part_inst *in = GPUPROBE_PART_INST(ri);
	struct iommu_domain *domain = (void *)gpuprobe_arg(regs, 0);
	unsigned long key = gpuprobe_dma_ctx_key();

	if (gpuprobe_part_call(key) || this_cpu_read(gpuprobe_part_timer.key) == key)
		return gpuprobe_part_charge(in, GPUPROBE_PART_FLUSH, domain, 0);
	/* a flush on its own (an attach, VFIO): timed, nothing inside it */
	if (gpuprobe_part_flush_ctx(in, NULL, domain))
		return 1;
	in->timer = NULL;
	in->acc = &in->own;
	memset(in->acc, 0, sizeof(*in->acc));
	in->call_ts = 0;
	in->part = GPUPROBE_PART_FLUSH;
	in->arg = 0;
	in->saved_child = 0;
	in->depth = 0;
	in->slow0 = 0;
	in->ts = ktime_get_mono_fast_ns();
	return 0;
}

/*
 * The timer opens this CPU's nesting; its own record, written at its
 * return, has the domain its flush named.
 */
static int fq_timer_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_part_timer *t = this_cpu_ptr(&gpuprobe_part_timer);
	unsigned long key = gpuprobe_dma_ctx_key();

	if (!key || gpuprobe_part_ctx_task(key) || t->key ||
	    !rcu_dereference_sched(gpuprobe_irqmap))
		return 1;
	memset(t, 0, sizeof(*t));
	/* read without a lock by this CPU's interrupts (gpuprobe_part_none) */
	WRITE_ONCE(t->key, key);
	t->bdf = GPUPROBE_BDF_NONE;
	GPUPROBE_PART_INST(ri)->ts = ktime_get_mono_fast_ns();
	return 0;
}

static int fq_timer_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct gpuprobe_part_timer *t = this_cpu_ptr(&gpuprobe_part_timer);
	u64 ts = GPUPROBE_PART_INST(ri)->ts;
	u64 dur = ktime_get_mono_fast_ns() - ts;
	struct gpuprobe_rec_iommu_part rec = {
		.hdr.type = GPUPROBE_EV_IOMMU_PART,
		.hdr.size = sizeof(rec),
		.hdr.flags = t->flags,
		.hdr.ts_ns = ts,
		.bdf = t->bdf,
		.part = GPUPROBE_PART_FQ_TIMER,
		.duration_ns = dur,
		.self_ns = dur > t->acc.child_ns ? dur - t->acc.child_ns : 0,
		.domain = t->domain,
	};

	WRITE_ONCE(t->key, 0);
	if (rec.bdf != GPUPROBE_BDF_NONE)
		gpuprobe_emit(&rec.hdr);
	return 0;
}

/* The rbtree allocator under alloc_iova_fast()/free_iova_fast(): a miss. */
static int iova_slow_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct gpuprobe_dma_inst *call;
	struct gpuprobe_part_timer *t;
	unsigned long key;

	if (gpuprobe_part_none())
		return 0;
	key = gpuprobe_dma_ctx_key();
	call = gpuprobe_part_call(key);

	if (call) {
		call->parts.iova_slow++;
		return 0;
	}
	if (!key || gpuprobe_part_ctx_task(key))
		return 0;
	t = this_cpu_ptr(&gpuprobe_part_timer);
	if (t->key == key)
		t->acc.iova_slow++;
	return 0;
}

/* local to the table below */
#define KRP(sym, entry, ret) {						\
	.kp.symbol_name = sym, .entry_handler = entry, .handler = ret,	\
	.data_size = sizeof(struct gpuprobe_part_inst) }

static struct kretprobe gpuprobe_part_krps[] = {
	KRP("alloc_iova_fast", iova_alloc_entry, gpuprobe_part_ret),
	KRP("free_iova_fast", iova_free_entry, gpuprobe_part_ret),
	KRP("intel_iommu_map_pages", map_pages_entry, gpuprobe_part_ret),
	KRP("intel_iommu_unmap_pages", unmap_pages_entry, gpuprobe_part_ret),
	KRP("qi_submit_sync", qi_submit_entry, gpuprobe_part_ret),
	KRP("queue_iova", queue_iova_entry, gpuprobe_part_ret),
	KRP("intel_flush_iotlb_all", flush_all_entry, gpuprobe_part_ret),
	KRP("fq_flush_timeout", fq_timer_entry, fq_timer_ret),
	/* AMD-Vi: the same iommu_ops callbacks */
	KRP("amd_iommu_map_pages", map_pages_entry, gpuprobe_part_ret),
	KRP("amd_iommu_unmap_pages", unmap_pages_entry, gpuprobe_part_ret),
	KRP("amd_iommu_iotlb_sync", amd_sync_entry, gpuprobe_part_ret),
	KRP("amd_iommu_flush_iotlb_all", flush_all_entry, gpuprobe_part_ret),
};

#undef KRP

static bool gpuprobe_part_krp_on[ARRAY_SIZE(gpuprobe_part_krps)];

static struct kprobe gpuprobe_part_kps[] = {
	{ .symbol_name = "alloc_iova", .pre_handler = iova_slow_pre },
	{ .symbol_name = "free_iova", .pre_handler = iova_slow_pre },
};

static bool gpuprobe_part_kp_on[ARRAY_SIZE(gpuprobe_part_kps)];
/* this session's: cleared at its STOP, so a reason is given only while it runs */
static bool gpuprobe_parts_tried;
static bool gpuprobe_parts_left_out;	/* it did not ask */

/*
 * Best effort, one by one: the drivers' functions are static (probed where
 * kallsyms has them, i.e. not inlined); both drivers' where both are built
 * in (a domain's calls go through one driver's ops only).  Only when the
 * session asks (GPUPROBE_EV_IOMMU_PART in its mask): nothing is attached
 * otherwise.
 */
void gpuprobe_parts_attach(bool wanted)
{
	size_t i;
	int cpu;

	BUILD_BUG_ON(ARRAY_SIZE(gpuprobe_part_krps) > GPUPROBE_KRP_TABLE_MAX);
	gpuprobe_parts_tried = wanted;
	gpuprobe_parts_left_out = !wanted;
	if (!wanted) {
		/* no earlier session's misses in this one's recursion count */
		for (i = 0; i < ARRAY_SIZE(gpuprobe_part_krps); i++) {
			gpuprobe_part_krps[i].kp.nmissed = 0;
			gpuprobe_part_krps[i].nmissed = 0;
		}
		for (i = 0; i < ARRAY_SIZE(gpuprobe_part_kps); i++)
			gpuprobe_part_kps[i].nmissed = 0;
		return;
	}
	for_each_possible_cpu(cpu)
		per_cpu(gpuprobe_part_timer, cpu).key = 0;
	gpuprobe_krps_register(gpuprobe_part_krps, gpuprobe_part_krp_on,
			       ARRAY_SIZE(gpuprobe_part_krps));
	for (i = 0; i < ARRAY_SIZE(gpuprobe_part_kps); i++) {
		gpuprobe_part_kps[i].addr = NULL;
		gpuprobe_part_kps[i].flags = 0;
		gpuprobe_part_kps[i].nmissed = 0;
		gpuprobe_part_kp_on[i] = !register_kprobe(&gpuprobe_part_kps[i]);
	}
}

void gpuprobe_parts_detach(void)
{
	gpuprobe_parts_tried = false;
	gpuprobe_parts_left_out = false;
	gpuprobe_kps_unregister(gpuprobe_part_kps, gpuprobe_part_kp_on,
				ARRAY_SIZE(gpuprobe_part_kps));
	gpuprobe_krps_unregister(gpuprobe_part_krps, gpuprobe_part_krp_on,
				 ARRAY_SIZE(gpuprobe_part_krps));
}

/*
 * Every device's calls that found no free instance, or another kprobe
 * handler running: a part probe has no counting kprobe beside it.
 */
u64 gpuprobe_parts_recursion(void)
{
	u64 n = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpuprobe_part_krps); i++)
		n += gpuprobe_part_krps[i].kp.nmissed +
		     gpuprobe_part_krps[i].nmissed;
	for (i = 0; i < ARRAY_SIZE(gpuprobe_part_kps); i++)
		n += gpuprobe_part_kps[i].nmissed;
	return n;
}

/* One hook per function: which this kernel let us probe. */
int gpuprobe_parts_hooks_fill(struct sk_buff *skb,
			      int (*fill)(struct sk_buff *, const char *, bool,
					  const char *))
{
	static const char unprobeable[] =
		"not probeable in this kernel (inlined, or not this IOMMU's driver)";
	static const char left_out[] =
		"left out: the session did not ask for IOMMU parts";
	const char *why = gpuprobe_parts_left_out ? left_out : unprobeable;
	bool told = gpuprobe_parts_tried || gpuprobe_parts_left_out;
	char name[48];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(gpuprobe_part_krps); i++) {
		snprintf(name, sizeof(name), "kretprobe:%s",
			 gpuprobe_part_krps[i].kp.symbol_name);
		if (fill(skb, name, gpuprobe_part_krp_on[i],
			 told && !gpuprobe_part_krp_on[i] ? why : NULL))
			return -EMSGSIZE;
	}
	for (i = 0; i < ARRAY_SIZE(gpuprobe_part_kps); i++) {
		snprintf(name, sizeof(name), "kprobe:%s",
			 gpuprobe_part_kps[i].symbol_name);
		if (fill(skb, name, gpuprobe_part_kp_on[i],
			 told && !gpuprobe_part_kp_on[i] ? why : NULL))
			return -EMSGSIZE;
	}
	return 0;
}
