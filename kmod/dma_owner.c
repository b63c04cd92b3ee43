// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: which target DMA call each context has in progress.
 *
 * IOMMU map/unmap carry no device: they belong to the DMA call their own
 * context is making.  A context is a task at one interrupt nesting level
 * (task, softirq, hard irq): a hard irq that lands while a task is inside
 * a target's dma_map_page() runs with that task as current, but its IOMMU
 * work (another device's completion unmapping its pages) is not the task's.
 * So calls are keyed by (current, interrupt_context_level()), in a small
 * open-addressed table claimed with cmpxchg.  Only the claiming context
 * looks up or releases its own key (or the task's exit, for level 0), so a
 * call that sleeps or migrates keeps its claim and blocks no other task.
 *
 * task_struct is at least cache-line aligned, so the level fits in the low
 * bits of the key.  A full probe window means the call is timed but its
 * IOMMU work is attributed by domain only.
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "dma.h"
#include "gpuprobe.h"

#define GPUPROBE_DMA_OWNERS_PROBE	8
#define GPUPROBE_DMA_LEVEL_MASK		3UL

static struct gpuprobe_dma_owner gpuprobe_dma_owners[GPUPROBE_DMA_OWNERS];
atomic_t gpuprobe_dma_owners_used = ATOMIC_INIT(0);

/*
 * The probed code's context, seen from a kprobe handler.  A kprobe on
 * ftrace runs the handler in the probed context; one on an int3 (a kernel
 * without ftrace-based kprobes, such as the debug kernel) runs it in the
 * breakpoint's NMI-like entry, which adds one NMI and one hard irq level
 * (irqentry_nmi_enter): those are taken off.  DMA-API and IOMMU calls are
 * never made in a real NMI; anything still in NMI gets 0, no attribution.
 */
unsigned long gpuprobe_dma_ctx_key(void)
{
	unsigned long pc = preempt_count(), level;

	if (pc & NMI_MASK)
		pc -= NMI_OFFSET + HARDIRQ_OFFSET;
	if (pc & NMI_MASK)
		return 0;
	level = pc & HARDIRQ_MASK ? 2 : pc & SOFTIRQ_OFFSET ? 1 : 0;
	return (unsigned long)current | level;
}

static unsigned int gpuprobe_dma_owner_slot(unsigned long key, unsigned int i)
{
	return (hash_long(key & ~GPUPROBE_DMA_LEVEL_MASK,
			  GPUPROBE_DMA_OWNERS_BITS) + i) &
	       (GPUPROBE_DMA_OWNERS - 1);
}

int gpuprobe_dma_owner_find(unsigned long key)
{
	unsigned int i, idx;

	if (!key || !atomic_read(&gpuprobe_dma_owners_used))
		return -1;
	for (i = 0; i < GPUPROBE_DMA_OWNERS_PROBE; i++) {
		idx = gpuprobe_dma_owner_slot(key, i);
		if (READ_ONCE(gpuprobe_dma_owners[idx].key) == key)
			return idx;
	}
	return -1;
}

int gpuprobe_dma_owner_claim(unsigned long key, struct gpuprobe_dma_inst *call)
{
	struct gpuprobe_dma_owner *o;
	unsigned int i, idx;

	if (!key)
		return -1;
	for (i = 0; i < GPUPROBE_DMA_OWNERS_PROBE; i++) {
		idx = gpuprobe_dma_owner_slot(key, i);
		o = &gpuprobe_dma_owners[idx];
		if (READ_ONCE(o->key) || cmpxchg(&o->key, 0, key))
			continue;
		WRITE_ONCE(o->call, call);
		atomic_inc(&gpuprobe_dma_owners_used);
		return idx;
	}
	return -1;
}

void gpuprobe_dma_owner_set(int idx, struct gpuprobe_dma_inst *call)
{
	WRITE_ONCE(gpuprobe_dma_owners[idx].call, call);
}

struct gpuprobe_dma_inst *gpuprobe_dma_owner_call(int idx)
{
	return idx < 0 ? NULL : READ_ONCE(gpuprobe_dma_owners[idx].call);
}

void gpuprobe_dma_owner_release(int idx)
{
	struct gpuprobe_dma_owner *o = &gpuprobe_dma_owners[idx];

	WRITE_ONCE(o->call, NULL);
	atomic_dec(&gpuprobe_dma_owners_used);
	/* a claimer that sees the slot free also sees call cleared */
	smp_store_release(&o->key, 0);
}

/*
 * Is a target DMA call in progress under this interrupt (the task or a
 * lower level it interrupted)?  Its IOMMU work then could have been, and
 * before this table was, charged to that call.
 */
bool gpuprobe_dma_owner_interrupted(unsigned long key)
{
	unsigned long level;

	if (!key)
		return false;
	for (level = 0; level < (key & GPUPROBE_DMA_LEVEL_MASK); level++)
		if (gpuprobe_dma_owner_find((key & ~GPUPROBE_DMA_LEVEL_MASK) |
					    level) >= 0)
			return true;
	return false;
}

/*
 * A task exits: a claim it left (a call whose end was never seen, such as
 * a failed map_sg on the tracepoint path) must not be found by a new task
 * that gets the same task_struct.
 */
void gpuprobe_dma_owner_task_exit(struct task_struct *p)
{
	unsigned long key = (unsigned long)p;
	unsigned int i, idx;

	if (!atomic_read(&gpuprobe_dma_owners_used))
		return;
	for (i = 0; i < GPUPROBE_DMA_OWNERS_PROBE; i++) {
		idx = gpuprobe_dma_owner_slot(key, i);
		if (READ_ONCE(gpuprobe_dma_owners[idx].key) == key)
			gpuprobe_dma_owner_release(idx);
	}
}

/* No probe runs: forget every claim. */
void gpuprobe_dma_owners_reset(void)
{
	memset(gpuprobe_dma_owners, 0, sizeof(gpuprobe_dma_owners));
	atomic_set(&gpuprobe_dma_owners_used, 0);
}
