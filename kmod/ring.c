// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: per-CPU record buffers and their delivery.
 *
 * Probes write fixed 64-byte slots into their own CPU's ring with local
 * interrupts off (a probe in process context can be interrupted by one in
 * hard-irq context on the same CPU).  Nothing is shared across CPUs, nothing
 * allocates, nothing sleeps.  A full ring counts the record as dropped.
 *
 * A delayed work item drains every ring into batched netlink messages.  The
 * drop count reaches userspace in-band (a LOST record ahead of the records
 * that follow the gap) and through the stats op.  Records in a message that
 * could not be delivered (no listener, or a listener's socket full) are
 * counted as undelivered.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "gpuprobe.h"

#define GPUPROBE_SLOT_SIZE	64
#define GPUPROBE_MSG_BYTES	8192

static unsigned int ring_slots = 8192;
module_param(ring_slots, uint, 0444);
MODULE_PARM_DESC(ring_slots,
		 "records buffered per CPU between drains (power of 2, default 8192)");

static unsigned int drain_ms = 4;
module_param(drain_ms, uint, 0644);
MODULE_PARM_DESC(drain_ms, "milliseconds between drains of the buffers (default 4)");

struct gpuprobe_slot {
	u64 words[GPUPROBE_SLOT_SIZE / sizeof(u64)];
};

struct gpuprobe_ring {
	struct gpuprobe_slot *slots;
	u64 mask;
	u64 head;		/* producer: this CPU, irqs off */
	u64 tail;		/* consumer: the drain work */
	u64 captured;		/* producer */
	u64 dropped;		/* producer */
	u64 dropped_reported;	/* consumer */
	u64 messages;		/* consumer */
	u64 bytes;		/* consumer */
	u64 undelivered;	/* consumer */
};

static DEFINE_PER_CPU(struct gpuprobe_ring, gpuprobe_rings);
static DEFINE_MUTEX(gpuprobe_drain_lock);	/* one drainer at a time */
static bool gpuprobe_draining;
static void gpuprobe_drain_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(gpuprobe_drain_work, gpuprobe_drain_fn);

int gpuprobe_rings_alloc(void)
{
	unsigned int n = roundup_pow_of_two(clamp(ring_slots, 64U, 1U << 20));
	int cpu;

	for_each_possible_cpu(cpu) {
		struct gpuprobe_ring *r = per_cpu_ptr(&gpuprobe_rings, cpu);

		r->slots = kvzalloc_node(array_size(n, sizeof(*r->slots)), GFP_KERNEL,
					 cpu_to_node(cpu));
		if (!r->slots) {
			gpuprobe_rings_free();
			return -ENOMEM;
		}
		r->mask = n - 1;
		r->head = 0;
		r->tail = 0;
		r->dropped_reported = r->dropped;
	}
	return 0;
}

/* Only after the probes are detached and synchronised. */
void gpuprobe_rings_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct gpuprobe_ring *r = per_cpu_ptr(&gpuprobe_rings, cpu);

		kvfree(r->slots);
		r->slots = NULL;
	}
}

void gpuprobe_stats_reset(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct gpuprobe_ring *r = per_cpu_ptr(&gpuprobe_rings, cpu);

		r->captured = 0;
		r->dropped = 0;
		r->dropped_reported = 0;
		r->messages = 0;
		r->bytes = 0;
		r->undelivered = 0;
	}
}

void gpuprobe_stats(int cpu, struct gpuprobe_cpu_stats *st)
{
	struct gpuprobe_ring *r = per_cpu_ptr(&gpuprobe_rings, cpu);

	st->captured = READ_ONCE(r->captured);
	st->dropped = READ_ONCE(r->dropped);
	st->messages = READ_ONCE(r->messages);
	st->bytes = READ_ONCE(r->bytes);
	st->undelivered = READ_ONCE(r->undelivered);
}

/* Probe context: any context but NMI.  rec->size must be <= 64. */
void gpuprobe_emit(struct gpuprobe_rec_hdr *rec)
{
	struct gpuprobe_ring *r;
	unsigned long flags;
	u64 head;

	local_irq_save(flags);
	r = this_cpu_ptr(&gpuprobe_rings);
	if (unlikely(!r->slots))
		goto out;
	rec->cpu = smp_processor_id();
	head = r->head;
	/* pairs with the drainer's release: the slot is free to reuse */
	if (head - smp_load_acquire(&r->tail) > r->mask) {
		WRITE_ONCE(r->dropped, r->dropped + 1);
		goto out;
	}
	memcpy(&r->slots[head & r->mask], rec, rec->size);
	WRITE_ONCE(r->captured, r->captured + 1);
	/* publish the record before the head that covers it */
	smp_store_release(&r->head, head + 1);
out:
	local_irq_restore(flags);
}

/* Target life-cycle events, from process context under gpuprobe_lock. */
void gpuprobe_emit_target(u32 bdf, u32 event, u32 nvec)
{
	struct gpuprobe_rec_target rec = {
		.hdr.type = GPUPROBE_EV_TARGET,
		.hdr.size = sizeof(rec),
		.hdr.ts_ns = ktime_get_mono_fast_ns(),
		.bdf = bdf,
		.event = event,
		.nvec = nvec,
	};

	lockdep_assert_held(&gpuprobe_lock);
	if (gpuprobe_running)
		gpuprobe_emit(&rec.hdr);
}

struct gpuprobe_batch {
	u8 buf[GPUPROBE_MSG_BYTES];
	size_t len;
	unsigned int records;
};

static void gpuprobe_batch_flush(struct gpuprobe_ring *r,
				 struct gpuprobe_batch *b)
{
	if (!b->len)
		return;
	if (gpuprobe_send_events(b->buf, b->len))
		WRITE_ONCE(r->undelivered, r->undelivered + b->records);
	WRITE_ONCE(r->messages, r->messages + 1);
	WRITE_ONCE(r->bytes, r->bytes + b->len);
	b->len = 0;
	b->records = 0;
}

static void gpuprobe_batch_add(struct gpuprobe_ring *r,
			       struct gpuprobe_batch *b, const void *rec)
{
	const struct gpuprobe_rec_hdr *hdr = rec;

	if (b->len + hdr->size > sizeof(b->buf))
		gpuprobe_batch_flush(r, b);
	memcpy(b->buf + b->len, rec, hdr->size);
	b->len += hdr->size;
	/* LOST records are bookkeeping, not counted as records themselves */
	if (hdr->type != GPUPROBE_EV_LOST)
		b->records++;
}

static void gpuprobe_drain_cpu(int cpu, struct gpuprobe_batch *b)
{
	struct gpuprobe_ring *r = per_cpu_ptr(&gpuprobe_rings, cpu);
	u64 head, tail, dropped;

	if (!r->slots)
		return;
	/* pairs with gpuprobe_emit()'s release: records up to head are whole */
	head = smp_load_acquire(&r->head);
	tail = r->tail;
	dropped = READ_ONCE(r->dropped);
	/* the gap comes before the records written after it */
	if (dropped != r->dropped_reported) {
		struct gpuprobe_rec_lost lost = {
			.hdr.type = GPUPROBE_EV_LOST,
			.hdr.size = sizeof(lost),
			.hdr.cpu = cpu,
			.hdr.ts_ns = ktime_get_mono_fast_ns(),
			.count = dropped - r->dropped_reported,
		};

		gpuprobe_batch_add(r, b, &lost);
		r->dropped_reported = dropped;
	}
	for (; tail != head; tail++) {
		gpuprobe_batch_add(r, b, &r->slots[tail & r->mask]);
		/* hand the slot back once it is copied */
		smp_store_release(&r->tail, tail + 1);
	}
	gpuprobe_batch_flush(r, b);
}

static void gpuprobe_drain_all(void)
{
	struct gpuprobe_batch *b;
	int cpu;

	b = kmalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return;
	b->len = 0;
	b->records = 0;
	mutex_lock(&gpuprobe_drain_lock);
	for_each_possible_cpu(cpu)
		gpuprobe_drain_cpu(cpu, b);
	mutex_unlock(&gpuprobe_drain_lock);
	kfree(b);
}

static void gpuprobe_drain_fn(struct work_struct *work)
{
	gpuprobe_drain_all();
	if (READ_ONCE(gpuprobe_draining))
		queue_delayed_work(system_unbound_wq, &gpuprobe_drain_work,
				   msecs_to_jiffies(max(drain_ms, 1U)));
}

void gpuprobe_drain_start(void)
{
	WRITE_ONCE(gpuprobe_draining, true);
	queue_delayed_work(system_unbound_wq, &gpuprobe_drain_work, 0);
}

/* After the probes are detached: stops the work and sends what is left. */
void gpuprobe_drain_stop(void)
{
	WRITE_ONCE(gpuprobe_draining, false);
	cancel_delayed_work_sync(&gpuprobe_drain_work);
	gpuprobe_drain_all();
}
