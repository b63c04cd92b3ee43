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
 *
 * Rings exist for the CPUs online while a session runs: START allocates
 * them for the online CPUs, a CPU hotplug callback for each CPU that comes
 * online later, STOP frees them all.  A CPU going offline keeps its ring
 * until STOP (probes may run on it until it is dead; the drain empties it).
 * The batch buffer is allocated once per session.  The drain sleeps while
 * the rings are empty: a drain that found nothing arms gpuprobe_drain_idle
 * and does not requeue itself; the first record written after that kicks
 * it through an irq_work (safe from any context a probe runs in), which
 * queues the drain wake_ms later, so that records which trickle in share a
 * message.  While records keep coming the drain runs every drain_ms when a
 * ring filled an eighth or more since the last, every wake_ms otherwise.  A
 * ring that passes a quarter full hurries the drain: another irq_work
 * queues a drain on that CPU at once, on the high-priority workqueue, so
 * that a burst is drained before its ring fills whatever the timers and
 * whatever else that CPU runs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>

#include "gpuprobe.h"

#define GPUPROBE_SLOT_SIZE	64
/*
 * Records per message: as many as fill a 16 KiB skb head with the netlink,
 * genetlink and attribute headers and the shared info.  The head is a
 * 16 KiB allocation either way (8 KiB of records and the overhead round up
 * to it), and the listener's receive buffer is charged for all of it: the
 * full head holds twice the records in the same budget, in half the
 * messages to read.
 */
#define GPUPROBE_MSG_BYTES \
	round_down(SKB_WITH_OVERHEAD(SZ_16K) - NLMSG_HDRLEN - GENL_HDRLEN - NLA_HDRLEN, \
		   GPUPROBE_SLOT_SIZE)

static unsigned int ring_slots = 8192;
module_param(ring_slots, uint, 0444);
MODULE_PARM_DESC(ring_slots,
		 "records buffered per CPU between drains (power of 2, default 8192)");

static unsigned int drain_ms = 4;
module_param(drain_ms, uint, 0644);
MODULE_PARM_DESC(drain_ms, "milliseconds between drains of the buffers (default 4)");

static unsigned int wake_ms = 50;
module_param(wake_ms, uint, 0644);
MODULE_PARM_DESC(wake_ms,
		 "milliseconds from the first record after an idle spell to its drain (default 50)");

static bool hurry = true;
module_param(hurry, bool, 0644);
MODULE_PARM_DESC(hurry,
		 "drain at once when a ring passes a quarter full, from another CPU at half (default Y)");

struct gpuprobe_slot {
	u64 words[GPUPROBE_SLOT_SIZE / sizeof(u64)];
};

/* Every record the probes write, and the LOST record, fits one slot. */
static_assert(sizeof(struct gpuprobe_rec_irq) <= GPUPROBE_SLOT_SIZE);
static_assert(sizeof(struct gpuprobe_rec_lost) <= GPUPROBE_SLOT_SIZE);
static_assert(sizeof(struct gpuprobe_rec_target) <= GPUPROBE_SLOT_SIZE);
static_assert(sizeof(struct gpuprobe_rec_sched) <= GPUPROBE_SLOT_SIZE);
static_assert(sizeof(struct gpuprobe_rec_dma) <= GPUPROBE_SLOT_SIZE);
static_assert(sizeof(struct gpuprobe_rec_iommu) <= GPUPROBE_SLOT_SIZE);
static_assert(sizeof(struct gpuprobe_rec_swiotlb) <= GPUPROBE_SLOT_SIZE);
static_assert(sizeof(struct gpuprobe_rec_kvm) <= GPUPROBE_SLOT_SIZE);

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
	u64 overrun;		/* consumer: undelivered, a listener's socket full */
	u64 high_water;		/* consumer: most records a drain found */
	u64 wait_max;		/* consumer: ns the oldest record waited, at most */
	u64 no_ring;		/* producer: records a session lost, no slots */
	u8 hurried;		/* producer raises, consumer clears: enum gpuprobe_hurry */
};

struct gpuprobe_batch {
	u8 buf[GPUPROBE_MSG_BYTES];
	size_t len;
	unsigned int records;
};

static DEFINE_PER_CPU(struct gpuprobe_ring, gpuprobe_rings);
/*
 * One drainer at a time, whichever asked (the timer, a ring's own CPU, the
 * unbound helper): each ring has one consumer (tail, dropped_reported, the
 * consumer's counters) and the batch buffer is one, so no ring is drained
 * twice at once and its records leave in order.  A drainer that waits
 * sleeps, and the holder drains its ring too (every ring, each once, up to
 * the head it read: the hold is bounded); the mutex's hand-off keeps a
 * waiter from being passed over for long.  Every drainer is one work item
 * (one per CPU, one helper, one timed), none queued twice while pending.
 */
static DEFINE_MUTEX(gpuprobe_drain_lock);
static bool gpuprobe_draining;
static void gpuprobe_drain_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(gpuprobe_drain_work, gpuprobe_drain_fn);
/* the drain found the rings empty and sleeps until a record kicks it */
static int gpuprobe_drain_idle;
static void gpuprobe_drain_kick_fn(struct irq_work *work);
static DEFINE_IRQ_WORK(gpuprobe_drain_kick, gpuprobe_drain_kick_fn);
/* How far a ring's drain has been hurried since the drain last went through it. */
enum gpuprobe_hurry {
	GPUPROBE_HURRY_NONE,
	GPUPROBE_HURRY_HERE,		/* a quarter full: a drain asked on its CPU */
	GPUPROBE_HURRY_ELSEWHERE,	/* half full, still not drained: on another */
};

/* a ring passed a quarter full: drain now, on its CPU */
static void gpuprobe_drain_hurry_fn(struct irq_work *work);
/* set up at load: a module's per-CPU initialisers are not relocated */
static DEFINE_PER_CPU(struct irq_work, gpuprobe_drain_hurry);
static void gpuprobe_drain_now_fn(struct work_struct *work);
static DEFINE_PER_CPU(struct work_struct, gpuprobe_drain_now);
/* half full and its CPU has not run the drain: a CPU the scheduler picks does */
static void gpuprobe_drain_elsewhere_fn(struct irq_work *work);
static DEFINE_PER_CPU(struct irq_work, gpuprobe_drain_elsewhere);
static DECLARE_WORK(gpuprobe_drain_elsewhere_work, gpuprobe_drain_now_fn);
static struct workqueue_struct *gpuprobe_drain_wq;	/* unbound, high priority */

/*
 * Under cpus_read_lock() or from the hotplug callback (which runs with the
 * hotplug lock held for writing): whether rings are wanted, which CPUs have
 * one.  The drain reads the mask under gpuprobe_drain_lock too.
 */
static bool gpuprobe_rings_wanted;
static struct cpumask gpuprobe_ring_cpus;
static struct gpuprobe_batch *gpuprobe_batch;	/* under gpuprobe_drain_lock */
static enum cpuhp_state gpuprobe_cpuhp_state;

static int gpuprobe_ring_alloc_cpu(unsigned int cpu)
{
	unsigned int n = roundup_pow_of_two(clamp(ring_slots, 64U, 1U << 20));
	struct gpuprobe_ring *r = per_cpu_ptr(&gpuprobe_rings, cpu);
	struct gpuprobe_slot *slots;

	if (r->slots)
		return 0;
	slots = kvzalloc_node(array_size(n, sizeof(*slots)), GFP_KERNEL,
			      cpu_to_node(cpu));
	if (!slots)
		return -ENOMEM;
	r->mask = n - 1;
	r->head = 0;
	r->tail = 0;
	r->dropped_reported = r->dropped;
	r->hurried = GPUPROBE_HURRY_NONE;
	/*
	 * In the drain's mask before the first record can be written: a
	 * record's kick must find its ring (the drain skips a ring without
	 * slots).
	 */
	mutex_lock(&gpuprobe_drain_lock);
	cpumask_set_cpu(cpu, &gpuprobe_ring_cpus);
	mutex_unlock(&gpuprobe_drain_lock);
	/* the CPU may be running probes already: the ring's fields before slots */
	smp_store_release(&r->slots, slots);
	return 0;
}

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
/*
 * debugfs fail_gpuprobe_ring: fails the ring of a CPU that comes online
 * during a session, so that a test can see its records counted as lost.
 * Apart from fail_gpuprobe (target.c), whose users count its calls.
 */
static DECLARE_FAULT_ATTR(gpuprobe_fail_ring);
static struct dentry *gpuprobe_fail_ring_dir;

static bool gpuprobe_ring_online_fails(void)
{
	return should_fail(&gpuprobe_fail_ring, 1);
}

static void gpuprobe_ring_fail_init(void)
{
	gpuprobe_fail_ring_dir = fault_create_debugfs_attr("fail_gpuprobe_ring",
							   NULL, &gpuprobe_fail_ring);
}

static void gpuprobe_ring_fail_exit(void)
{
	debugfs_remove_recursive(gpuprobe_fail_ring_dir);
}
#else
static bool gpuprobe_ring_online_fails(void)
{
	return false;
}

static void gpuprobe_ring_fail_init(void)
{
}

static void gpuprobe_ring_fail_exit(void)
{
}
#endif

/* CPU hotplug: a CPU that comes online during a session gets its ring. */
static int gpuprobe_ring_cpu_online(unsigned int cpu)
{
	if (!READ_ONCE(gpuprobe_rings_wanted))
		return 0;
	/* failing would stop the CPU coming up: count its records lost */
	if (gpuprobe_ring_online_fails() || gpuprobe_ring_alloc_cpu(cpu))
		pr_warn_ratelimited("no memory for CPU %u's ring: its records are lost (STATS no-ring)\n",
				    cpu);
	return 0;
}

int gpuprobe_rings_init(void)
{
	int ret, cpu;

	for_each_possible_cpu(cpu) {
		init_irq_work(per_cpu_ptr(&gpuprobe_drain_hurry, cpu),
			      gpuprobe_drain_hurry_fn);
		init_irq_work(per_cpu_ptr(&gpuprobe_drain_elsewhere, cpu),
			      gpuprobe_drain_elsewhere_fn);
		INIT_WORK(per_cpu_ptr(&gpuprobe_drain_now, cpu),
			  gpuprobe_drain_now_fn);
	}

	/* unbound: honours wq_unbound_cpumask (isolated CPUs stay alone) */
	gpuprobe_drain_wq = alloc_workqueue("gpuprobe_drain", WQ_UNBOUND | WQ_HIGHPRI, 0);
	if (!gpuprobe_drain_wq)
		return -ENOMEM;
	gpuprobe_ring_fail_init();
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "gpuprobe:ring",
					gpuprobe_ring_cpu_online, NULL);
	if (ret < 0) {
		gpuprobe_ring_fail_exit();
		destroy_workqueue(gpuprobe_drain_wq);
		return ret;
	}
	gpuprobe_cpuhp_state = ret;
	return 0;
}

void gpuprobe_rings_exit(void)
{
	cpuhp_remove_state_nocalls(gpuprobe_cpuhp_state);
	gpuprobe_ring_fail_exit();
	destroy_workqueue(gpuprobe_drain_wq);
}

int gpuprobe_rings_alloc(void)
{
	unsigned int cpu;
	int err = 0;

	gpuprobe_batch = kmalloc(sizeof(*gpuprobe_batch), GFP_KERNEL);
	if (!gpuprobe_batch)
		return -ENOMEM;
	gpuprobe_batch->len = 0;
	gpuprobe_batch->records = 0;
	cpus_read_lock();
	WRITE_ONCE(gpuprobe_rings_wanted, true);
	for_each_online_cpu(cpu) {
		err = gpuprobe_ring_alloc_cpu(cpu);
		if (err)
			break;
	}
	cpus_read_unlock();
	if (err)
		gpuprobe_rings_free();
	return err;
}

/* Only after the probes are detached and synchronised. */
void gpuprobe_rings_free(void)
{
	unsigned int cpu;

	cpus_read_lock();
	WRITE_ONCE(gpuprobe_rings_wanted, false);
	mutex_lock(&gpuprobe_drain_lock);
	for_each_cpu(cpu, &gpuprobe_ring_cpus) {
		struct gpuprobe_ring *r = per_cpu_ptr(&gpuprobe_rings, cpu);

		kvfree(r->slots);
		r->slots = NULL;
	}
	cpumask_clear(&gpuprobe_ring_cpus);
	kfree(gpuprobe_batch);
	gpuprobe_batch = NULL;
	mutex_unlock(&gpuprobe_drain_lock);
	cpus_read_unlock();
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
		r->overrun = 0;
		r->high_water = 0;
		r->wait_max = 0;
		r->no_ring = 0;
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
	st->overrun = READ_ONCE(r->overrun);
	st->high_water = READ_ONCE(r->high_water);
	st->wait_max_ns = READ_ONCE(r->wait_max);
	st->no_ring = READ_ONCE(r->no_ring);
	st->slots = roundup_pow_of_two(clamp(ring_slots, 64U, 1U << 20));
}

/*
 * This CPU's ring holds fill records the drain has not taken: a quarter
 * full asks for a drain here, half full (still not drained) asks the next
 * CPU.  Here is where the records were made and the drain costs that CPU,
 * but a CPU that does not reach a scheduling point cannot run it: a driver
 * looping in the kernel on a PREEMPT_NONE kernel, whose interrupts land on
 * its own CPU (the debug kernel: edu's loop raising 5000 interrupts, each
 * handled before the loop waits for it, lost 2952 of 5000 with a 2048-slot
 * ring, as many as without the hurry).
 */
static void gpuprobe_hurry(struct gpuprobe_ring *r, u64 fill)
{
	u8 asked = READ_ONCE(r->hurried);

	if (asked == GPUPROBE_HURRY_NONE) {
		WRITE_ONCE(r->hurried, GPUPROBE_HURRY_HERE);
		irq_work_queue(this_cpu_ptr(&gpuprobe_drain_hurry));
	} else if (asked == GPUPROBE_HURRY_HERE && fill > r->mask / 2) {
		WRITE_ONCE(r->hurried, GPUPROBE_HURRY_ELSEWHERE);
		irq_work_queue(this_cpu_ptr(&gpuprobe_drain_elsewhere));
	}
}

/*
 * Probe context: any, the int3 handlers of kprobes included (in_nmi() is
 * true there on x86: local_irq_save(), irq_work_queue() and the fast clock
 * are safe); what it needs is that it is not re-entered on one CPU, which
 * irqs off here ensure for every probe but a real NMI's (none of ours).
 * rec->size must be <= 64.
 */
void gpuprobe_emit(struct gpuprobe_rec_hdr *rec)
{
	struct gpuprobe_ring *r;
	u64 tail;
	unsigned long flags;
	u64 head;

	local_irq_save(flags);
	r = this_cpu_ptr(&gpuprobe_rings);
	if (unlikely(!r->slots)) {
		/* no memory when the CPU came up: lost, and counted so */
		if (READ_ONCE(gpuprobe_rings_wanted))
			WRITE_ONCE(r->no_ring, r->no_ring + 1);
		goto out;	/* else no session */
	}
	rec->cpu = smp_processor_id();
	head = r->head;
	/* pairs with the drainer's release: the slot is free to reuse */
	tail = smp_load_acquire(&r->tail);
	if (head - tail > r->mask) {
		WRITE_ONCE(r->dropped, r->dropped + 1);
		goto out;
	}
	memcpy(&r->slots[head & r->mask], rec, rec->size);
	WRITE_ONCE(r->captured, r->captured + 1);
	/* publish the record before the head that covers it */
	smp_store_release(&r->head, head + 1);
	smp_mb();	/* the head before the idle flag; pairs with gpuprobe_drain_sleep() */
	if (unlikely(READ_ONCE(gpuprobe_drain_idle)) &&
	    cmpxchg(&gpuprobe_drain_idle, 1, 0) == 1)
		irq_work_queue(&gpuprobe_drain_kick);
	else if (unlikely(head + 1 - tail > r->mask / 4) && READ_ONCE(hurry))
		gpuprobe_hurry(r, head + 1 - tail);
out:
	local_irq_restore(flags);
}

/* Target life-cycle events, from process context under gpuprobe_lock. */
void gpuprobe_emit_target(u32 bdf, u32 event, u32 nvec, u32 domain)
{
	struct gpuprobe_rec_target rec = {
		.hdr.type = GPUPROBE_EV_TARGET,
		.hdr.size = sizeof(rec),
		.hdr.ts_ns = ktime_get_mono_fast_ns(),
		.bdf = bdf,
		.event = event,
		.nvec = nvec,
		.domain = domain,
	};

	lockdep_assert_held(&gpuprobe_lock);
	if (gpuprobe_running)
		gpuprobe_emit(&rec.hdr);
}

static void gpuprobe_batch_flush(struct gpuprobe_ring *r,
				 struct gpuprobe_batch *b)
{
	int err;

	if (!b->len)
		return;
	err = gpuprobe_send_events(b->buf, b->len);
	if (err)
		WRITE_ONCE(r->undelivered, r->undelivered + b->records);
	/* a full socket (multicast with NETLINK_BROADCAST_ERROR, or unicast) */
	if (err == -ENOBUFS || err == -EAGAIN)
		WRITE_ONCE(r->overrun, r->overrun + b->records);
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

/* What a drain found in a ring, or in the fullest of them. */
enum gpuprobe_drained {
	GPUPROBE_DRAINED_NOTHING,
	GPUPROBE_DRAINED_SOME,
	GPUPROBE_DRAINED_BUSY,	/* an eighth of the ring or more: come back soon */
};

static enum gpuprobe_drained gpuprobe_drain_cpu(int cpu, struct gpuprobe_batch *b)
{
	struct gpuprobe_ring *r = per_cpu_ptr(&gpuprobe_rings, cpu);
	u64 head, tail, dropped;
	enum gpuprobe_drained found;

	if (!r->slots)
		return GPUPROBE_DRAINED_NOTHING;
	WRITE_ONCE(r->hurried, GPUPROBE_HURRY_NONE);
	/*
	 * The clear before the head is read: a producer that sees the old
	 * value skips one hurry, which its next record above a quarter
	 * asks again (and a raise racing this clear only queues one drain
	 * more); the timed drain is the backstop either way.
	 */
	smp_mb();
	/* pairs with gpuprobe_emit()'s release: records up to head are whole */
	head = smp_load_acquire(&r->head);
	tail = r->tail;
	dropped = READ_ONCE(r->dropped);
	if (head == tail && dropped == r->dropped_reported)
		return GPUPROBE_DRAINED_NOTHING;
	/*
	 * Only the drain empties a ring, so it is at its fullest since the
	 * last drain now: the high water costs the probes nothing.
	 */
	if (head - tail > r->high_water)
		WRITE_ONCE(r->high_water, head - tail);
	if (head != tail) {
		const struct gpuprobe_rec_hdr *oldest = (void *)&r->slots[tail & r->mask];
		u64 now = ktime_get_mono_fast_ns();

		/* how long the drain left the oldest record waiting */
		if (now > oldest->ts_ns && now - oldest->ts_ns > r->wait_max)
			WRITE_ONCE(r->wait_max, now - oldest->ts_ns);
	}
	found = head - tail > r->mask / 8 || dropped != r->dropped_reported ?
		GPUPROBE_DRAINED_BUSY : GPUPROBE_DRAINED_SOME;
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
	return found;
}

/* Whether any ring holds records or unreported drops; under the drain lock. */
static bool gpuprobe_rings_busy(void)
{
	int cpu;

	for_each_cpu(cpu, &gpuprobe_ring_cpus) {
		struct gpuprobe_ring *r = per_cpu_ptr(&gpuprobe_rings, cpu);

		/* pairs with gpuprobe_emit()'s release of the head */
		if (r->slots && (smp_load_acquire(&r->head) != r->tail ||
				 READ_ONCE(r->dropped) != r->dropped_reported))
			return true;
	}
	return false;
}

/* Drains every ring; returns what the fullest held. */
static enum gpuprobe_drained gpuprobe_drain_all(void)
{
	enum gpuprobe_drained found = GPUPROBE_DRAINED_NOTHING;
	int cpu;

	mutex_lock(&gpuprobe_drain_lock);
	if (gpuprobe_batch) {
		for_each_cpu(cpu, &gpuprobe_ring_cpus)
			found = max(found, gpuprobe_drain_cpu(cpu, gpuprobe_batch));
	}
	mutex_unlock(&gpuprobe_drain_lock);
	return found;
}

/*
 * Nothing was drained: sleep until a record kicks.  The flag goes up
 * before the rings are looked at again, and an emitter publishes its head
 * before it reads the flag, so a record written meanwhile is either seen
 * here or kicks.  A drop needs no kick: a ring drops only when full, and a
 * full ring has records that keep the drain awake until the drop is sent.
 */
static bool gpuprobe_drain_sleep(void)
{
	bool busy;

	WRITE_ONCE(gpuprobe_drain_idle, 1);
	smp_mb();	/* the flag before the heads; pairs with gpuprobe_emit() */
	mutex_lock(&gpuprobe_drain_lock);
	busy = gpuprobe_rings_busy();
	mutex_unlock(&gpuprobe_drain_lock);
	/* a record came: stay awake, unless its emitter already kicked */
	return busy && cmpxchg(&gpuprobe_drain_idle, 1, 0) == 1;
}

static void gpuprobe_drain_queue(unsigned int ms)
{
	if (READ_ONCE(gpuprobe_draining))
		queue_delayed_work(system_unbound_wq, &gpuprobe_drain_work,
				   msecs_to_jiffies(max(ms, 1U)));
}

static void gpuprobe_drain_kick_fn(struct irq_work *work)
{
	gpuprobe_drain_queue(READ_ONCE(wake_ms));
}

/*
 * Sooner than the timer, and on the CPU whose ring filled.  The timed
 * drain (nice 0, any CPU) waited up to 90 ms while a burst of DMA maps on
 * CPU 0 beside two disk readers there filled its 8192 slots (issue 30): a
 * worker woken on another CPU waits for that CPU, one woken on the busy
 * CPU waits behind its tasks.  A high-priority worker on the busy CPU
 * runs at that CPU's next scheduling point; the drain costs the CPU that
 * made the records, as it would with one CPU.  A CPU that reaches none
 * soon gets another's help at half full (gpuprobe_hurry()).  The timed
 * drain keeps its own schedule; all share the drain lock.
 */
static void gpuprobe_drain_hurry_fn(struct irq_work *work)
{
	if (READ_ONCE(gpuprobe_draining))
		queue_work_on(smp_processor_id(), system_highpri_wq,
			      this_cpu_ptr(&gpuprobe_drain_now));
}

/*
 * From hard-irq context on the CPU whose ring is half full: any CPU will do
 * (the drain takes every ring), and an unbound worker goes where the
 * scheduler finds room, an idle CPU first, not this busy one (a CPU
 * picked by number could be stuck too).  One work item: while it is
 * pending it will drain this ring as well, for every CPU that asked.
 * With one CPU there is nowhere else, and the drain asked here waits for
 * this CPU.
 */
static void gpuprobe_drain_elsewhere_fn(struct irq_work *work)
{
	if (num_online_cpus() > 1 && READ_ONCE(gpuprobe_draining))
		queue_work(gpuprobe_drain_wq, &gpuprobe_drain_elsewhere_work);
}

static void gpuprobe_drain_now_fn(struct work_struct *work)
{
	gpuprobe_drain_all();
}

/*
 * Records coming fast (a ring an eighth full or more since the last drain)
 * bring the drain back drain_ms later (wake_ms if that is sooner); fewer,
 * wake_ms later, so that they share a message; none put it to sleep.  A
 * ring passing a quarter full hurries a drain either way (gpuprobe_hurry()).
 */
static void gpuprobe_drain_fn(struct work_struct *work)
{
	enum gpuprobe_drained found = gpuprobe_drain_all();

	if (found == GPUPROBE_DRAINED_BUSY)
		gpuprobe_drain_queue(min(READ_ONCE(drain_ms), READ_ONCE(wake_ms)));
	else if (found == GPUPROBE_DRAINED_SOME || gpuprobe_drain_sleep())
		gpuprobe_drain_queue(READ_ONCE(wake_ms));
}

void gpuprobe_drain_start(void)
{
	WRITE_ONCE(gpuprobe_drain_idle, 0);
	WRITE_ONCE(gpuprobe_draining, true);
	queue_delayed_work(system_unbound_wq, &gpuprobe_drain_work, 0);
}

/* After the probes are detached: stops the work and sends what is left. */
void gpuprobe_drain_stop(void)
{
	int cpu;

	WRITE_ONCE(gpuprobe_draining, false);
	irq_work_sync(&gpuprobe_drain_kick);
	for_each_possible_cpu(cpu) {
		irq_work_sync(per_cpu_ptr(&gpuprobe_drain_hurry, cpu));
		irq_work_sync(per_cpu_ptr(&gpuprobe_drain_elsewhere, cpu));
		cancel_work_sync(per_cpu_ptr(&gpuprobe_drain_now, cpu));
	}
	cancel_work_sync(&gpuprobe_drain_elsewhere_work);
	cancel_delayed_work_sync(&gpuprobe_drain_work);
	WRITE_ONCE(gpuprobe_drain_idle, 0);
	gpuprobe_drain_all();
}
