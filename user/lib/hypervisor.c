// SPDX-License-Identifier: GPL-2.0
/*
 * The hypervisor under this kernel and the irq chip of a target's vectors
 * (hypervisor.h).  Where the kernel writes what is read here:
 * /sys/hypervisor/{type,guest_type} (drivers/xen/sys-hypervisor.c, only
 * when the kernel uses Xen's interfaces: absent with nopv), CPUID leaf
 * 0x40000000 (Xen's signature "XenVMMXenVMM", at 0x40000100 when Xen also
 * offers Hyper-V's leaves), /proc/interrupts (kernel/irq/proc.c,
 * show_interrupts(): the irq, one count per online CPU, the chip's name,
 * the hwirq when the irq has a domain, "-" and the flow's name, the
 * actions).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "hypervisor.h"
#include "util.h"

#define XEN_SIGNATURE	"XenVMMXenVMM"

void hypervisor_read(const char *root, bool cpuid_hypervisor, const char *signature,
		     uint32_t signature_leaf, struct hypervisor_info *h)
{
	char path[512];

	memset(h, 0, sizeof(*h));
	h->cpuid_hypervisor = cpuid_hypervisor;
	if (signature)
		snprintf(h->signature, sizeof(h->signature), "%s", signature);
	h->signature_leaf = signature_leaf;
	if (!format_into(path, sizeof(path), "%s/hypervisor/type", root) &&
	    read_text_file(path, h->sysfs_type, sizeof(h->sysfs_type)))
		h->sysfs_type[0] = '\0';
	if (!format_into(path, sizeof(path), "%s/hypervisor/guest_type", root) &&
	    read_text_file(path, h->guest_type, sizeof(h->guest_type)))
		h->guest_type[0] = '\0';
	h->xen_pv_interfaces = !strcmp(h->sysfs_type, "xen");
	h->xen = h->xen_pv_interfaces || !strcmp(h->signature, XEN_SIGNATURE);
}

uint32_t hypervisor_cpuid_signature(bool *cpuid_hypervisor, char sig[HV_SIGNATURE_LEN])
{
	sig[0] = '\0';
	*cpuid_hypervisor = false;
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;
	uint32_t first = 0;
	char first_sig[HV_SIGNATURE_LEN] = "";

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
		return 0;
	*cpuid_hypervisor = true;
	/* Linux's xen_cpuid_base() looks as far: 0x40000000 to 0x4000ff00 */
	for (uint32_t leaf = 0x40000000; leaf < 0x40010000; leaf += 0x100) {
		char s[HV_SIGNATURE_LEN];

		__cpuid(leaf, a, b, c, d);
		memcpy(s, &b, 4);
		memcpy(s + 4, &c, 4);
		memcpy(s + 8, &d, 4);
		s[12] = '\0';
		if (!strcmp(s, XEN_SIGNATURE) && a >= leaf + 2) {
			memcpy(sig, s, HV_SIGNATURE_LEN);
			return leaf;
		}
		if (leaf == 0x40000000) {
			first = leaf;
			memcpy(first_sig, s, sizeof(s));
		}
	}
	memcpy(sig, first_sig, HV_SIGNATURE_LEN);
	return first;
#else
	return 0;
#endif
}

const char *hypervisor_name(const struct hypervisor_info *h)
{
	static const struct {
		const char *sig, *name;
	} known[] = {
		{ "KVMKVMKVM", "kvm" }, { "Microsoft Hv", "hyperv" },
		{ "VMwareVMware", "vmware" }, { "TCGTCGTCGTCG", "tcg" },
		{ "bhyve bhyve ", "bhyve" }, { " lrpepyh  vr", "parallels" },
		{ "ACRNACRNACRN", "acrn" },
	};

	if (h->xen)
		return "xen";
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (!strcmp(h->signature, known[i].sig))
			return known[i].name;
	return h->cpuid_hypervisor || h->sysfs_type[0] ? "other" : "none";
}

void hypervisor_describe(const struct hypervisor_info *h, char *buf, size_t size)
{
	const char *name = hypervisor_name(h);

	if (!h->xen) {
		if (!strcmp(name, "none"))
			snprintf(buf, size, "no hypervisor (CPUID does not report one)");
		else
			snprintf(buf, size, "%s guest (CPUID signature \"%s\")", name, h->signature);
		return;
	}
	if (!h->xen_pv_interfaces) {
		/* /sys/hypervisor is the PV code's: nopv leaves it out */
		snprintf(buf, size,
			 "Xen HVM guest (CPUID signature at 0x%x), not using Xen's PV interfaces (no /sys/hypervisor/type: booted with nopv or without Xen support): devices' MSIs are injected into the virtual LAPIC",
			 h->signature_leaf);
		return;
	}
	if (!h->guest_type[0])
		snprintf(buf, size,
			 "Xen guest of unknown type (/sys/hypervisor/type xen, no guest_type: a kernel before 4.14?), using Xen's PV interfaces");
	else
		snprintf(buf, size,
			 "Xen %s guest (/sys/hypervisor/type xen, guest_type %s), using Xen's PV interfaces",
			 h->guest_type, h->guest_type);
}

static enum irq_delivery classify_chip(const char *chip)
{
	if (!strncmp(chip, "xen-pirq", 8))
		return IRQ_DELIVERY_XEN_PIRQ;
	if (!strncmp(chip, "xen-", 4))
		return IRQ_DELIVERY_XEN_EVTCHN;
	if (strstr(chip, "MSI"))
		return IRQ_DELIVERY_MSI;
	return IRQ_DELIVERY_OTHER;
}

/* The number of CPU columns: the header line's words ("CPU0 CPU1 ..."). */
static unsigned int proc_cpu_columns(const char *text)
{
	unsigned int n = 0;

	for (const char *p = text; *p && *p != '\n';) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			break;
		n++;
		while (*p && !isspace((unsigned char)*p))
			p++;
	}
	return n;
}

/* The next word of the line at *p into out (size); false at the line's end. */
static bool next_word(const char **p, char *out, size_t size)
{
	const char *s = *p;
	size_t n = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || *s == '\n')
		return false;
	while (s[n] && !isspace((unsigned char)s[n]))
		n++;
	snprintf(out, size, "%.*s", (int)n, s);
	*p = s + n;
	return true;
}

/* The chip and flow name after the CPU counts of one line. */
static void parse_chip(const char *p, unsigned int ncpu, struct irq_chip_info *info)
{
	char word[64];
	const char *dash;

	for (unsigned int i = 0; i < ncpu; i++)
		if (!next_word(&p, word, sizeof(word)))
			return;
	if (!next_word(&p, info->chip, sizeof(info->chip)))
		return;
	info->delivery = classify_chip(info->chip);
	/* then "65536-edge" (hwirq and flow), or "-msi" (no domain, no hwirq) */
	if (!next_word(&p, word, sizeof(word)))
		return;
	dash = word;
	while (isdigit((unsigned char)*dash))
		dash++;
	if (*dash == '-')
		snprintf(info->handler, sizeof(info->handler), "%s", dash + 1);
}

int irq_chip_from_proc(const char *text, uint32_t irq, struct irq_chip_info *info)
{
	unsigned int ncpu = proc_cpu_columns(text);

	memset(info, 0, sizeof(*info));
	for (const char *line = strchr(text, '\n'); line; line = strchr(line, '\n')) {
		char *end;
		unsigned long n;

		line++;
		while (*line == ' ')
			line++;
		if (!isdigit((unsigned char)*line))
			continue;
		n = strtoul(line, &end, 10);
		if (*end != ':' || n != irq)
			continue;
		parse_chip(end + 1, ncpu, info);
		if (!info->chip[0])
			info->delivery = IRQ_DELIVERY_OTHER;
		return 0;
	}
	return -1;
}

const char *irq_delivery_name(enum irq_delivery d)
{
	switch (d) {
	case IRQ_DELIVERY_MSI:		return "msi";
	case IRQ_DELIVERY_XEN_PIRQ:	return "xen-pirq";
	case IRQ_DELIVERY_XEN_EVTCHN:	return "xen-evtchn";
	case IRQ_DELIVERY_OTHER:	return "other";
	case IRQ_DELIVERY_UNKNOWN:	break;
	}
	return "unknown";
}

const char *irq_delivery_explain(enum irq_delivery d, bool xen)
{
	switch (d) {
	case IRQ_DELIVERY_MSI:
		return xen ? "MSI/MSI-X: the device's own vector, which Xen takes and injects into the virtual LAPIC" :
			"MSI/MSI-X: the device's own vector";
	case IRQ_DELIVERY_XEN_PIRQ:
		return "Xen event channel bound to the device's pirq: Xen takes the MSI and signals the channel, the handler runs from the event-channel upcall (the HYP row of /proc/interrupts)";
	case IRQ_DELIVERY_XEN_EVTCHN:
		return "Xen event channel (not bound to a physical irq)";
	case IRQ_DELIVERY_OTHER:
		return "neither MSI nor a Xen event channel";
	case IRQ_DELIVERY_UNKNOWN:
		break;
	}
	return "not in /proc/interrupts";
}
