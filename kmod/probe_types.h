/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gpuprobe: the probes' prototypes, checked by the compiler against the
 * kernel's tracepoint declarations (Documentation/module.md, "Probe
 * prototypes").
 *
 * The tracepoints are found by name and attached with
 * tracepoint_probe_register(), which takes a void *: nothing there checks
 * that a probe takes what the tracepoint passes, and on a kCFI kernel a
 * mismatch traps in the tracepoint's iterator.  So wherever the kernel's
 * trace header is available, it is included here, only to declare (no
 * CREATE_TRACE_POINTS), and each probe is asserted to have exactly the type
 * of check_trace_callback_type_<name>()'s argument, which is what
 * register_trace_<name>() takes.  That function is named only inside
 * typeof: nothing is called, no symbol is referenced (most of these
 * tracepoints are not exported), and the module links as before.
 *
 * GPUPROBE_TPH_<name> says the declaration is available, from the same
 * feature test the header itself uses; a hook without it cannot be checked
 * and is not attached.
 */
#ifndef _GPUPROBE_PROBE_TYPES_H
#define _GPUPROBE_PROBE_TYPES_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/kvm_host.h>

#include <trace/events/irq.h>
#include <trace/events/sched.h>
#include <trace/events/swiotlb.h>
#include <trace/events/iommu.h>
#include <trace/events/kvm.h>

/* Kbuild's feature test found the dma: events (6.12+) */
#ifdef GPUPROBE_HAVE_DMA_TP
#include <trace/events/dma.h>
#endif

/*
 * x86 KVM's own events are in arch/x86/kvm/trace.h, which the headers
 * packages do not install: checked where the kernel tree is a full source
 * tree (Kbuild finds the file), or a test names one.
 */
#ifdef GPUPROBE_KVM_X86_TRACE_H
#include GPUPROBE_KVM_X86_TRACE_H
#define GPUPROBE_TPH_kvm_apic_accept_irq
#define GPUPROBE_TPH_kvm_inj_virq
#endif

/*
 * kCFI (CONFIG_CFI_CLANG; CONFIG_CFI where it was renamed) traps a call
 * through a pointer of another type: there a probe whose prototype could
 * not be checked is not attached.  Elsewhere a prototype that differs costs
 * at most arguments read from registers the caller did not set (x86-64),
 * which the unchecked probes (kvm.c) only copy into records.
 */
#if defined(CONFIG_CFI_CLANG) || defined(CONFIG_CFI)
#define GPUPROBE_KCFI
#endif

/* the guards trace/events/kvm.h puts around these two */
#if defined(CONFIG_HAVE_KVM_IRQFD) || defined(CONFIG_HAVE_KVM_IRQCHIP)
#define GPUPROBE_TPH_kvm_set_irq
#endif
#ifdef __KVM_HAVE_IOAPIC
#define GPUPROBE_TPH_kvm_msi_set_irq
#endif

/*
 * A build error unless probe's type is exactly the one the tracepoint calls.
 * Compatible types are "exact" here: an enum and the integer type the
 * compiler gives it would pass, every other change of a parameter fails.
 */
#define GPUPROBE_TP_CHECK(name, probe) __GPUPROBE_TP_CHECK(name, probe)
/* the indirection expands a name given as a macro before ## pastes it */
#define __GPUPROBE_TP_CHECK(name, probe)				\
	static_assert(__same_type(&check_trace_callback_type_##name,	\
				  void (*)(typeof(probe) *)),		\
		      "gpuprobe: probe " #probe "() does not have the "	\
		      "prototype of tracepoint " #name " in this kernel")

#endif /* _GPUPROBE_PROBE_TYPES_H */
