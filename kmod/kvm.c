// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: KVM turning a target's interrupts into guest interrupts, on a
 * host that passes the target through with VFIO.
 *
 * vfio-pci's handler signals an eventfd; KVM's irqfd wake-up routes the MSI
 * (kvm_msi_set_irq) and a vCPU's APIC accepts it (kvm_apic_accept_irq),
 * both inside that handler; at its next VM entry the vCPU thread injects it
 * (kvm_inj_virq).  The first two are recorded only inside a target's
 * handler and carry its irq; injections carry the VMM's tgid.
 *
 * These tracepoints live in kvm.ko, which for_each_kernel_tracepoint() does
 * not walk: the tracepoint module notifier finds them when kvm.ko loads (or
 * at once, when it is loaded), and a session holds a reference on kvm.ko
 * while its probes are attached.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>
#include <net/genetlink.h>

#include "gpuprobe.h"

static void gpuprobe_kvm_emit(u16 stage, u32 vector, u32 vcpu, u64 msi_address,
			      u32 level)
{
	struct gpuprobe_rec_kvm rec = {
		.hdr.type = GPUPROBE_EV_KVM,
		.hdr.size = sizeof(rec),
		.hdr.ts_ns = ktime_get_mono_fast_ns(),
		.bdf = GPUPROBE_BDF_NONE,
		.vcpu = vcpu,
		.vector = vector,
		.stage = stage,
		.level = level,
		.msi_address = msi_address,
	};

	if (stage == GPUPROBE_KVM_INJECT) {
		if (!gpuprobe_tgid_follows(current->tgid))
			return;
		rec.pid = current->tgid;
		rec.tid = current->pid;
	} else {
		/* irq context: the interrupted task is nobody's VMM */
		rec.host_irq = gpuprobe_irq_in_handler(&rec.bdf);
		if (likely(!rec.host_irq))
			return;
	}
	gpuprobe_emit(&rec.hdr);
}

static void gpuprobe_kvm_msi(void *data, u64 address, u64 msi_data)
{
	gpuprobe_kvm_emit(GPUPROBE_KVM_MSI, msi_data & 0xff,
			  GPUPROBE_KVM_VCPU_NONE, address, 0);
}

static void gpuprobe_kvm_set_irq(void *data, unsigned int gsi, int level,
				 int irq_source_id)
{
	gpuprobe_kvm_emit(GPUPROBE_KVM_SET_IRQ, gsi, GPUPROBE_KVM_VCPU_NONE, 0,
			  level);
}

static void gpuprobe_kvm_accept(void *data, u32 apicid, u16 dm, u16 tm, u8 vec)
{
	gpuprobe_kvm_emit(GPUPROBE_KVM_ACCEPT, vec, apicid, 0, 0);
}

/*
 * kvm_inj_virq is (irq) upstream before 6.2 and (vector, soft, reinjected)
 * since (and in Debian's 6.1 with its backports): the first argument is the
 * vector either way, and x86-64 passes the rest in registers this probe
 * does not read, so it serves both (and sets no REINJECTED flag).
 */
static void gpuprobe_kvm_inject(void *data, unsigned int vector)
{
	gpuprobe_kvm_emit(GPUPROBE_KVM_INJECT, vector, GPUPROBE_KVM_VCPU_NONE, 0, 0);
}

enum gpuprobe_kvm_hook_id {
	GPUPROBE_KVM_HOOK_MSI,
	GPUPROBE_KVM_HOOK_SET_IRQ,
	GPUPROBE_KVM_HOOK_ACCEPT,
	GPUPROBE_KVM_HOOK_INJECT,
	GPUPROBE_KVM_HOOK_COUNT,
};

struct gpuprobe_kvm_hook {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	bool attached;
};

static struct gpuprobe_kvm_hook gpuprobe_kvm_hooks[GPUPROBE_KVM_HOOK_COUNT] = {
	[GPUPROBE_KVM_HOOK_MSI] = { "kvm_msi_set_irq", gpuprobe_kvm_msi },
	[GPUPROBE_KVM_HOOK_SET_IRQ] = { "kvm_set_irq", gpuprobe_kvm_set_irq },
	[GPUPROBE_KVM_HOOK_ACCEPT] = { "kvm_apic_accept_irq", gpuprobe_kvm_accept },
	[GPUPROBE_KVM_HOOK_INJECT] = { "kvm_inj_virq", gpuprobe_kvm_inject },
};

/* kvm.ko while its tracepoints are known; the hooks' tp under this lock */
static DEFINE_MUTEX(gpuprobe_kvm_lock);
static struct module *gpuprobe_kvm_mod;
static bool gpuprobe_kvm_held;		/* a session's reference on it */

static void gpuprobe_kvm_find(struct module *mod)
{
	tracepoint_ptr_t *tps = mod->tracepoints_ptrs;
	unsigned int i, h;

	for (i = 0; i < mod->num_tracepoints; i++) {
		struct tracepoint *tp = tracepoint_ptr_deref(&tps[i]);

		for (h = 0; h < ARRAY_SIZE(gpuprobe_kvm_hooks); h++)
			if (!strcmp(tp->name, gpuprobe_kvm_hooks[h].name))
				gpuprobe_kvm_hooks[h].tp = tp;
	}
	gpuprobe_kvm_mod = mod;
}

static int gpuprobe_kvm_notify(struct notifier_block *nb, unsigned long state,
			       void *data)
{
	struct tp_module *tp_mod = data;
	unsigned int h;

	if (strcmp(tp_mod->mod->name, "kvm"))
		return NOTIFY_OK;
	mutex_lock(&gpuprobe_kvm_lock);
	if (state == MODULE_STATE_COMING) {
		gpuprobe_kvm_find(tp_mod->mod);
	} else if (state == MODULE_STATE_GOING &&
		   tp_mod->mod == gpuprobe_kvm_mod) {
		/* a session's reference keeps it: attached probes never go here */
		WARN_ON_ONCE(gpuprobe_kvm_held);
		for (h = 0; h < ARRAY_SIZE(gpuprobe_kvm_hooks); h++)
			gpuprobe_kvm_hooks[h].tp = NULL;
		gpuprobe_kvm_mod = NULL;
	}
	mutex_unlock(&gpuprobe_kvm_lock);
	return NOTIFY_OK;
}

static struct notifier_block gpuprobe_kvm_nb = {
	.notifier_call = gpuprobe_kvm_notify,
};

int gpuprobe_kvm_init(void)
{
	return register_tracepoint_module_notifier(&gpuprobe_kvm_nb);
}

void gpuprobe_kvm_exit(void)
{
	unregister_tracepoint_module_notifier(&gpuprobe_kvm_nb);
}

/* KVM records need the injection and one step inside the host handler. */
u32 gpuprobe_kvm_available(void)
{
	u32 mask = 0;

	mutex_lock(&gpuprobe_kvm_lock);
	if (gpuprobe_kvm_hooks[GPUPROBE_KVM_HOOK_INJECT].tp &&
	    (gpuprobe_kvm_hooks[GPUPROBE_KVM_HOOK_MSI].tp ||
	     gpuprobe_kvm_hooks[GPUPROBE_KVM_HOOK_ACCEPT].tp))
		mask = GPUPROBE_EVMASK(GPUPROBE_EV_KVM);
	mutex_unlock(&gpuprobe_kvm_lock);
	return mask;
}

static void gpuprobe_kvm_detach_locked(void)
{
	unsigned int h;

	for (h = 0; h < ARRAY_SIZE(gpuprobe_kvm_hooks); h++) {
		struct gpuprobe_kvm_hook *k = &gpuprobe_kvm_hooks[h];

		if (k->attached)
			tracepoint_probe_unregister(k->tp, k->probe, NULL);
		k->attached = false;
	}
	if (!gpuprobe_kvm_held)
		return;
	/* no probe runs in kvm.ko's tracepoints before it may go */
	tracepoint_synchronize_unregister();
	module_put(gpuprobe_kvm_mod);
	gpuprobe_kvm_held = false;
}

void gpuprobe_kvm_detach(void)
{
	mutex_lock(&gpuprobe_kvm_lock);
	gpuprobe_kvm_detach_locked();
	mutex_unlock(&gpuprobe_kvm_lock);
}

int gpuprobe_kvm_attach(u32 mask)
{
	unsigned int h;
	int err = 0;

	if (!(mask & GPUPROBE_EVMASK(GPUPROBE_EV_KVM)))
		return 0;
	mutex_lock(&gpuprobe_kvm_lock);
	if (!gpuprobe_kvm_mod || !try_module_get(gpuprobe_kvm_mod)) {
		err = -ENOENT;	/* kvm.ko went since START checked */
		goto out_unlock;
	}
	gpuprobe_kvm_held = true;
	for (h = 0; h < ARRAY_SIZE(gpuprobe_kvm_hooks); h++) {
		struct gpuprobe_kvm_hook *k = &gpuprobe_kvm_hooks[h];

		if (!k->tp)
			continue;
		err = tracepoint_probe_register(k->tp, k->probe, NULL);
		if (err) {
			pr_err("cannot attach to %s: %d\n", k->name, err);
			gpuprobe_kvm_detach_locked();
			break;
		}
		k->attached = true;
	}
out_unlock:
	mutex_unlock(&gpuprobe_kvm_lock);
	return err;
}

int gpuprobe_kvm_hooks_fill(struct sk_buff *skb,
			    int (*fill)(struct sk_buff *, const char *, bool,
					const char *))
{
	unsigned int h;
	int err = 0;

	mutex_lock(&gpuprobe_kvm_lock);
	for (h = 0; h < ARRAY_SIZE(gpuprobe_kvm_hooks) && !err; h++) {
		const struct gpuprobe_kvm_hook *k = &gpuprobe_kvm_hooks[h];

		err = fill(skb, k->name, k->attached,
			   k->tp ? NULL : "kvm.ko is not loaded (or has no such tracepoint)");
	}
	mutex_unlock(&gpuprobe_kvm_lock);
	return err;
}
