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
#include "probe_types.h"

static void gpuprobe_kvm_emit(u16 stage, u32 vector, u32 vcpu, u64 msi_address,
			      u32 level, u16 flags)
{
	struct gpuprobe_rec_kvm rec = {
		.hdr.type = GPUPROBE_EV_KVM,
		.hdr.size = sizeof(rec),
		.hdr.flags = flags,
		.hdr.ts_ns = ktime_get_mono_fast_ns(),
		.bdf = GPUPROBE_BDF_NONE,
		.vcpu = vcpu,
		.vector = vector,
		.stage = stage,
		.level = level,
		.msi_address = msi_address,
	};

	if (stage == GPUPROBE_KVM_INJECT) {
		if (!gpuprobe_task_follows(current))
			return;
		rec.pid = gpuprobe_view_tgid(current);
		rec.tid = gpuprobe_view_pid(current);
	} else {
		/* irq context: the interrupted task is nobody's VMM */
		rec.host_irq = gpuprobe_irq_in_handler(&rec.bdf);
		if (likely(!rec.host_irq))
			return;
	}
	gpuprobe_emit(&rec.hdr);
}

#ifdef GPUPROBE_TPH_kvm_msi_set_irq
static void gpuprobe_kvm_msi(void *data, u64 address, u64 msi_data)
{
	gpuprobe_kvm_emit(GPUPROBE_KVM_MSI, msi_data & 0xff,
			  GPUPROBE_KVM_VCPU_NONE, address, 0, 0);
}

GPUPROBE_TP_CHECK(kvm_msi_set_irq, gpuprobe_kvm_msi);
#define GPUPROBE_KVM_MSI_PROBE		gpuprobe_kvm_msi
#else
#define GPUPROBE_KVM_MSI_PROBE		NULL
#endif

#ifdef GPUPROBE_TPH_kvm_set_irq
static void gpuprobe_kvm_set_irq(void *data, unsigned int gsi, int level,
				 int irq_source_id)
{
	gpuprobe_kvm_emit(GPUPROBE_KVM_SET_IRQ, gsi, GPUPROBE_KVM_VCPU_NONE, 0,
			  level, 0);
}

GPUPROBE_TP_CHECK(kvm_set_irq, gpuprobe_kvm_set_irq);
#define GPUPROBE_KVM_SET_IRQ_PROBE	gpuprobe_kvm_set_irq
#else
#define GPUPROBE_KVM_SET_IRQ_PROBE	NULL
#endif

/*
 * The next two are declared in arch/x86/kvm/trace.h, which modules get only
 * from a full source tree: elsewhere their prototypes are the ones of
 * Debian's 6.1 and 6.12 sources, written by hand (Documentation/module.md,
 * "Probe prototypes").
 */
static void __maybe_unused gpuprobe_kvm_accept(void *data, __u32 apicid,
					       __u16 dm, __u16 tm, __u8 vec)
{
	gpuprobe_kvm_emit(GPUPROBE_KVM_ACCEPT, vec, apicid, 0, 0, 0);
}

/*
 * (vector, soft, reinjected) in 6.1 and 6.12; older kernels had (irq)
 * alone.  Only where the prototype was checked against the kernel's header
 * (probe_types.h) is reinjected read: elsewhere it may be a register the
 * caller never set, and the REINJECTED flag is left off.
 */
#ifdef GPUPROBE_TPH_kvm_inj_virq
#define GPUPROBE_KVM_REINJECTED_KNOWN	true
#else
#define GPUPROBE_KVM_REINJECTED_KNOWN	false
#endif
static void __maybe_unused gpuprobe_kvm_inject(void *data, unsigned int vector,
					       bool soft, bool reinjected)
{
	gpuprobe_kvm_emit(GPUPROBE_KVM_INJECT, vector, GPUPROBE_KVM_VCPU_NONE, 0, 0,
			  GPUPROBE_KVM_REINJECTED_KNOWN && reinjected ?
			  GPUPROBE_KVM_REINJECTED : 0);
}

#ifdef GPUPROBE_TPH_kvm_inj_virq
GPUPROBE_TP_CHECK(kvm_apic_accept_irq, gpuprobe_kvm_accept);
GPUPROBE_TP_CHECK(kvm_inj_virq, gpuprobe_kvm_inject);
#endif
#if defined(GPUPROBE_TPH_kvm_inj_virq) || !defined(GPUPROBE_KCFI)
#define GPUPROBE_KVM_ACCEPT_PROBE	gpuprobe_kvm_accept
#define GPUPROBE_KVM_INJECT_PROBE	gpuprobe_kvm_inject
#else	/* unchecked, and a mismatch would trap */
#define GPUPROBE_KVM_ACCEPT_PROBE	NULL
#define GPUPROBE_KVM_INJECT_PROBE	NULL
#endif

enum gpuprobe_kvm_hook_id {
	GPUPROBE_KVM_HOOK_MSI,
	GPUPROBE_KVM_HOOK_SET_IRQ,
	GPUPROBE_KVM_HOOK_ACCEPT,
	GPUPROBE_KVM_HOOK_INJECT,
	GPUPROBE_KVM_HOOK_COUNT,
};

struct gpuprobe_kvm_hook {
	const char *name;
	void *probe;		/* NULL: its prototype could not be checked */
	struct tracepoint *tp;
	bool attached;
};

static struct gpuprobe_kvm_hook gpuprobe_kvm_hooks[GPUPROBE_KVM_HOOK_COUNT] = {
	[GPUPROBE_KVM_HOOK_MSI] = { "kvm_msi_set_irq", GPUPROBE_KVM_MSI_PROBE },
	[GPUPROBE_KVM_HOOK_SET_IRQ] = { "kvm_set_irq", GPUPROBE_KVM_SET_IRQ_PROBE },
	[GPUPROBE_KVM_HOOK_ACCEPT] = { "kvm_apic_accept_irq", GPUPROBE_KVM_ACCEPT_PROBE },
	[GPUPROBE_KVM_HOOK_INJECT] = { "kvm_inj_virq", GPUPROBE_KVM_INJECT_PROBE },
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

		/* a probe whose prototype was not checked is never attached */
		for (h = 0; h < ARRAY_SIZE(gpuprobe_kvm_hooks); h++)
			if (gpuprobe_kvm_hooks[h].probe &&
			    !strcmp(tp->name, gpuprobe_kvm_hooks[h].name))
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
		const char *why = NULL;

		if (!k->probe)
			why = "not in this kernel's headers: prototype unchecked, not attached";
		else if (!k->tp)
			why = "kvm.ko is not loaded (or has no such tracepoint)";
		err = fill(skb, k->name, k->attached, why);
	}
	mutex_unlock(&gpuprobe_kvm_lock);
	return err;
}
