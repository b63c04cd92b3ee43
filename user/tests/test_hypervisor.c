// SPDX-License-Identifier: GPL-2.0
/*
 * info's hypervisor and interrupt-delivery lines from a fake machine: a
 * sysfs root with (or without) hypervisor/{type,guest_type}, and the text
 * of /proc/interrupts as kernel/irq/proc.c show_interrupts() prints it
 * ("%*d: ", "%10u " per online CPU, " %8s" chip, " %*lu" hwirq or blanks,
 * "-%-8s" flow, "  action").  The lines are the ones the Xen testbed's
 * guests printed (Documentation/vmtest.rst) and this machine's virtio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hypervisor.h"
#include "testlib.h"
#include "tests.h"

/* a pvhvm guest, 1 vCPU: edu's MSI bound to an event channel */
static const char pvhvm[] =
	"           CPU0       \n"
	"   5:          0   xen-pirq    -ioapic-edge  ACPI:Ged\n"
	"  24:       1711  xen-percpu    -virq      timer0\n"
	"  28:          0   xen-dyn    -event     xenbus\n"
	"  55:         50   xen-pirq    -msi       gpuprobe_edu\n"
	" NMI:          0   Non-maskable interrupts\n"
	" HYP:       2398   Hypervisor callback interrupts\n";

/* a nopv guest: the same device as a plain MSI */
static const char nopv[] =
	"           CPU0       \n"
	"   4:        321   IO-APIC   4-edge      ttyS0\n"
	"  48:         50   PCI-MSI 49152-edge      gpuprobe_edu\n"
	" LOC:       9000   Local timer interrupts\n";

/* two CPUs, per-device MSI-X domains (6.x), interrupt remapping, irq 5 before 55 */
static const char host[] =
	"           CPU0       CPU1       \n"
	"   5:          1          0  IO-APIC   5-edge      ACPI:Ged\n"
	"  28:          0          7 PCI-MSIX-0000:00:01.0   0-edge      virtio0-config\n"
	"  29:          3          4 PCI-MSIX-0000:00:01.0   1-edge      virtio0-req.0\n"
	"  40:          9          0  IR-PCI-MSI 524288-edge      nvme0q0\n"
	"  55:          2          2  xen-pirq    -msi-x     nvme0q1\n"
	" ERR:          0\n";

void test_irq_chip_from_proc(void)
{
	struct irq_chip_info c;

	CHECK(!irq_chip_from_proc(pvhvm, 55, &c), "pvhvm: irq 55 found");
	CHECK(!strcmp(c.chip, "xen-pirq") && !strcmp(c.handler, "msi") &&
	      c.delivery == IRQ_DELIVERY_XEN_PIRQ, "pvhvm edu: xen-pirq -msi, got '%s' '%s' %s",
	      c.chip, c.handler, irq_delivery_name(c.delivery));
	CHECK(!irq_chip_from_proc(pvhvm, 28, &c) && c.delivery == IRQ_DELIVERY_XEN_EVTCHN &&
	      !strcmp(c.handler, "event"), "xenbus: an event channel, not a pirq");
	CHECK(!irq_chip_from_proc(pvhvm, 24, &c) && c.delivery == IRQ_DELIVERY_XEN_EVTCHN,
	      "xen-percpu: an event channel");
	CHECK(!irq_chip_from_proc(pvhvm, 5, &c) && c.delivery == IRQ_DELIVERY_XEN_PIRQ &&
	      !strcmp(c.handler, "ioapic-edge"), "a GSI as a pirq: ioapic-edge, got '%s'", c.handler);
	CHECK(irq_chip_from_proc(pvhvm, 56, &c) && c.delivery == IRQ_DELIVERY_UNKNOWN && !c.chip[0],
	      "an irq without a line: unknown");

	CHECK(!irq_chip_from_proc(nopv, 48, &c) && !strcmp(c.chip, "PCI-MSI") &&
	      !strcmp(c.handler, "edge") && c.delivery == IRQ_DELIVERY_MSI,
	      "nopv edu: PCI-MSI edge, got '%s' '%s' %s", c.chip, c.handler,
	      irq_delivery_name(c.delivery));
	CHECK(!irq_chip_from_proc(nopv, 4, &c) && c.delivery == IRQ_DELIVERY_OTHER,
	      "IO-APIC: neither");

	/* two count columns before the chip */
	CHECK(!irq_chip_from_proc(host, 29, &c) && !strcmp(c.chip, "PCI-MSIX-0000:00:01.0") &&
	      !strcmp(c.handler, "edge") && c.delivery == IRQ_DELIVERY_MSI,
	      "2 CPUs, per-device domain: got '%s' '%s'", c.chip, c.handler);
	CHECK(!irq_chip_from_proc(host, 40, &c) && !strcmp(c.chip, "IR-PCI-MSI") &&
	      c.delivery == IRQ_DELIVERY_MSI, "remapped MSI");
	CHECK(!irq_chip_from_proc(host, 55, &c) && !strcmp(c.handler, "msi-x") &&
	      c.delivery == IRQ_DELIVERY_XEN_PIRQ, "xen-pirq -msi-x on 2 CPUs, got '%s'", c.handler);
	CHECK(!irq_chip_from_proc(host, 5, &c) && !strcmp(c.chip, "IO-APIC"),
	      "irq 5 is not irq 55's line");
	CHECK(irq_chip_from_proc(host, 0, &c), "no irq 0 (ERR is not a number)");
	CHECK(irq_chip_from_proc("", 5, &c), "an empty file");
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f != NULL, "cannot write %s", path);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

void test_hypervisor_sysfs(void)
{
	char root[] = "/tmp/gpuprobe-hv-XXXXXX", dir[64], text[400];
	struct hypervisor_info h;

	if (!mkdtemp(root)) {
		CHECK(0, "mkdtemp");
		return;
	}
	/* no /sys/hypervisor, no CPUID hypervisor: bare metal */
	hypervisor_read(root, false, "", 0, &h);
	CHECK(!h.xen && !h.xen_pv_interfaces && !strcmp(hypervisor_name(&h), "none"),
	      "bare metal: none, got %s", hypervisor_name(&h));
	/* nopv: CPUID says Xen, sysfs nothing */
	hypervisor_read(root, true, "XenVMMXenVMM", 0x40000000, &h);
	hypervisor_describe(&h, text, sizeof(text));
	CHECK(h.xen && !h.xen_pv_interfaces && !strcmp(hypervisor_name(&h), "xen") &&
	      strstr(text, "Xen HVM guest") && strstr(text, "not using Xen's PV interfaces"),
	      "nopv: Xen HVM without PV interfaces: %s", text);
	/* KVM's signature is 9 characters */
	hypervisor_read(root, true, "KVMKVMKVM", 0x40000000, &h);
	CHECK(!h.xen && !strcmp(hypervisor_name(&h), "kvm"), "KVM, got %s", hypervisor_name(&h));

	snprintf(dir, sizeof(dir), "%s/hypervisor", root);
	CHECK(!mkdir(dir, 0700), "mkdir %s", dir);
	put(dir, "type", "xen\n");
	put(dir, "guest_type", "HVM\n");
	/* pvhvm: sysfs says so; Xen's leaves moved past Viridian's */
	hypervisor_read(root, true, "XenVMMXenVMM", 0x40000100, &h);
	hypervisor_describe(&h, text, sizeof(text));
	CHECK(h.xen && h.xen_pv_interfaces && !strcmp(h.guest_type, "HVM") &&
	      !strcmp(h.sysfs_type, "xen") && strstr(text, "Xen HVM guest") &&
	      strstr(text, "using Xen's PV interfaces") && !strstr(text, "not using"),
	      "pvhvm: %s", text);
	/* a PV dom0: guest_type PV, whatever CPUID says */
	put(dir, "guest_type", "PV\n");
	hypervisor_read(root, false, "", 0, &h);
	hypervisor_describe(&h, text, sizeof(text));
	CHECK(h.xen && !strcmp(h.guest_type, "PV") && strstr(text, "Xen PV guest"), "PV: %s", text);
	put(dir, "guest_type", "PVH\n");
	hypervisor_read(root, true, "XenVMMXenVMM", 0x40000000, &h);
	CHECK(!strcmp(h.guest_type, "PVH"), "PVH, got %s", h.guest_type);
	/* another hypervisor's sysfs type is not Xen */
	put(dir, "type", "s390\n");
	unlink(strcat(strcpy(text, dir), "/guest_type"));
	hypervisor_read(root, false, "", 0, &h);
	CHECK(!h.xen && !strcmp(hypervisor_name(&h), "other"), "type s390: other, got %s",
	      hypervisor_name(&h));
	unlink(strcat(strcpy(text, dir), "/type"));
	rmdir(dir);
	rmdir(root);
}
