/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few parts of Xen's trace format the xentrace source reads, in our own
 * words.  Their authority is Xen's public header, xen/trace.h, as Debian 12
 * ships it in libxen-dev 4.17 (/usr/include/xen/trace.h); the file layout
 * (a CPU-change record before each per-CPU window) is xentrace's
 * (tools/xentrace/xentrace.c, write_buffer()), and the payloads are those
 * Xen 4.17 writes (xen/common/trace.c insert_lost_records(), xen/arch/x86/
 * irq.c do_IRQ(), hvm/{svm,vmx}/intr.c).  libxen-dev is not a build
 * dependency: only these numbers are needed, and they are part of Xen's ABI
 * (xenalyze and xentrace_format read old files with them).
 *
 * A record is host-endian 32-bit words:
 *   word 0: event (bits 0-27), number of extra words (28-30), TSC present (31)
 *   words 1-2 if TSC present: the TSC, low word first
 *   then the extra words (at most 7)
 */
#ifndef GPUPROBE_XENTRACE_FORMAT_H
#define GPUPROBE_XENTRACE_FORMAT_H

#define XT_EVENT_MASK		0x0fffffffu	/* TRC_HD_TO_EVENT */
#define XT_EXTRA_SHIFT		28		/* TRACE_EXTRA_SHIFT */
#define XT_EXTRA_MAX		7		/* TRACE_EXTRA_MAX */
#define XT_CYCLES_FLAG		0x80000000u	/* TRC_HD_CYCLE_FLAG */

/* classes (a -e mask for xentrace) */
#define XT_CLASS_GEN		0x0001f000u	/* TRC_GEN */
#define XT_CLASS_HVM		0x0008f000u	/* TRC_HVM */
#define XT_CLASS_HW		0x0080f000u	/* TRC_HW */

/* TRC_GEN */
/* TRC_GEN + n: the class value is 0x0001f000, not 0x00010000 (xenalyze refuses the latter) */
#define XT_LOST_RECORDS		0x0001f001u	/* TRC_LOST_RECORDS: u32 lost, u16 dom, u16 vcpu, u64 first_tsc */
#define XT_WRAP_BUFFER		0x0001f002u	/* TRC_TRACE_WRAP_BUFFER: padding to the buffer's end */
#define XT_CPU_CHANGE		0x0001f003u	/* TRC_TRACE_CPU_CHANGE: u32 cpu, u32 window bytes */

/* TRC_HVM: the subclass TRC_HVM_ENTRYEXIT and TRC_HVM_HANDLER */
#define XT_HVM_NESTED		0x00000400u	/* TRC_HVM_NESTEDFLAG: taken in a nested guest */
#define XT_HVM_64		0x00000100u	/* TRC_64_FLAG: addresses of 64 bits */
#define XT_HVM_VMENTRY		0x00081001u	/* TRC_HVM_VMENTRY */
#define XT_HVM_VMEXIT		0x00081002u	/* TRC_HVM_VMEXIT: reason, rip (32) */
#define XT_HVM_VMEXIT64		0x00081102u	/* TRC_HVM_VMEXIT64: reason, rip lo, rip hi */
#define XT_HVM_INJ_VIRQ		0x00082004u	/* TRC_HVM_INJ_VIRQ: vector, fake */
#define XT_HVM_REINJ_VIRQ	0x00082005u	/* TRC_HVM_REINJ_VIRQ: vector */
#define XT_HVM_INTR		0x0008200fu	/* TRC_HVM_INTR: an external interrupt's exit */

/* TRC_HW_IRQ */
#define XT_HW_IRQ_HANDLED	0x00802008u	/* TRC_HW_IRQ_HANDLED: irq, tsc_in lo, tsc_out lo */

#endif /* GPUPROBE_XENTRACE_FORMAT_H */
