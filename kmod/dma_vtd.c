// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe: Intel VT-d faults, read from the fault recording registers.
 *
 * VT-d reports faults in its own interrupt handler, not through
 * report_iommu_fault(), and dmar_fault_do_one() is inlined into
 * dmar_fault(irq, iommu) on Debian's 6.1.  So a kprobe on dmar_fault()
 * reads the primary fault recording registers (VT-d spec, section 10.4.14)
 * before the handler clears them.
 *
 * struct intel_iommu is private to the driver.  Nothing is read through a
 * pointer it holds: the register blocks come from the ACPI DMAR table and
 * are mapped here at attach time.  The handler's argument only chooses
 * among them, and only when, read without faulting, it starts as the
 * driver's has always started (reg, reg_phys, reg_size, cap) with a reg_phys
 * that is a DMAR unit's base and a cap equal to that unit's capability
 * register.  Anything else records nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/acpi.h>
#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "dma.h"
#include "gpuprobe.h"

#define GPUPROBE_VTD_CAP_REG		0x08
#define GPUPROBE_VTD_ECAP_REG		0x10
#define GPUPROBE_VTD_FSTS_REG		0x34
#define GPUPROBE_VTD_FSTS_PPF		BIT(1)
#define GPUPROBE_VTD_FSTS_FRI(s)	(((s) >> 8) & 0xff)
#define GPUPROBE_VTD_CAP_FRO(c)		((((c) >> 24) & 0x3ff) * 16)
#define GPUPROBE_VTD_CAP_NFR(c)		((((c) >> 40) & 0xff) + 1)
#define GPUPROBE_VTD_FRCD_F		BIT(31)

/* The start of struct intel_iommu as the driver has laid it out. */
struct gpuprobe_vtd_head {
	void __iomem *reg;
	u64 reg_phys;
	u64 reg_size;
	u64 cap;
};

struct gpuprobe_vtd_unit {
	u64 phys;
	u64 cap;
	void __iomem *regs;	/* our own mapping */
	u32 size;
	u16 segment;
};

/* every DRHD of the DMAR table, however many: a large host has dozens */
static struct gpuprobe_vtd_unit *gpuprobe_vtd_units;
static unsigned int gpuprobe_vtd_nunits;
static bool gpuprobe_vtd_on;
static const char *gpuprobe_vtd_reason;

static void gpuprobe_vtd_fault_emit(u32 bdf, u64 addr)
{
	const struct gpuprobe_irqmap *map = rcu_dereference_sched(gpuprobe_irqmap);
	struct gpuprobe_rec_iommu rec = {
		.hdr.type = GPUPROBE_EV_IOMMU,
		.hdr.size = sizeof(rec),
		.hdr.ts_ns = ktime_get_mono_fast_ns(),
		.bdf = bdf,
		.op = GPUPROBE_IOMMU_FAULT,
		.iova = addr,
	};
	unsigned int i;

	for (i = 0; map && i < map->ndev; i++) {
		if (map->devs[i].bdf == bdf) {
			gpuprobe_emit(&rec.hdr);
			return;
		}
	}
}

/* The unit the handler's argument names, or NULL if it is not one we know. */
static const struct gpuprobe_vtd_unit *gpuprobe_vtd_lookup(const void *arg)
{
	const struct gpuprobe_vtd_head *h = arg;
	u64 phys, cap;
	unsigned int i;

	if (!h || copy_from_kernel_nofault(&phys, &h->reg_phys, sizeof(phys)) ||
	    copy_from_kernel_nofault(&cap, &h->cap, sizeof(cap)))
		return NULL;
	for (i = 0; i < gpuprobe_vtd_nunits; i++)
		if (gpuprobe_vtd_units[i].phys == phys &&
		    gpuprobe_vtd_units[i].cap == cap)
			return &gpuprobe_vtd_units[i];
	return NULL;
}

static int gpuprobe_dmar_fault_pre(struct kprobe *kp, struct pt_regs *regs)
{
	const struct gpuprobe_vtd_unit *u =
		gpuprobe_vtd_lookup((void *)regs_get_kernel_argument(regs, 1));
	u32 fsts, idx, n, i, sid;
	void __iomem *frcd;

	if (!u)
		return 0;
	fsts = readl(u->regs + GPUPROBE_VTD_FSTS_REG);
	if (!(fsts & GPUPROBE_VTD_FSTS_PPF))
		return 0;
	n = GPUPROBE_VTD_CAP_NFR(u->cap);
	idx = GPUPROBE_VTD_FSTS_FRI(fsts) % n;
	for (i = 0; i < n; i++, idx = (idx + 1) % n) {
		frcd = u->regs + GPUPROBE_VTD_CAP_FRO(u->cap) + idx * 16;
		if (!(readl(frcd + 12) & GPUPROBE_VTD_FRCD_F))
			break;
		sid = readl(frcd + 8) & 0xffff;
		gpuprobe_vtd_fault_emit(GPUPROBE_BDF(u->segment, sid >> 8,
						     sid & 0xff),
					readq(frcd) & PAGE_MASK);
	}
	return 0;
}

static struct kprobe gpuprobe_dmar_fault_kp = {
	.symbol_name = "dmar_fault",
	.pre_handler = gpuprobe_dmar_fault_pre,
};

/*
 * Maps a unit's registers far enough to cover its fault recording ones.
 * -ENODEV for a unit the IOMMU driver would refuse too (as
 * dmar_validate_one_drhd does: no address, or registers reading all ones).
 */
static int gpuprobe_vtd_map_unit(struct gpuprobe_vtd_unit *u)
{
	u32 need;

	if (!u->phys)
		return -ENODEV;
	u->size = PAGE_SIZE;
	u->regs = ioremap(u->phys, u->size);
	if (!u->regs)
		return -ENOMEM;
	u->cap = readq(u->regs + GPUPROBE_VTD_CAP_REG);
	if (u->cap == ~0ULL ||
	    readq(u->regs + GPUPROBE_VTD_ECAP_REG) == ~0ULL) {
		iounmap(u->regs);
		u->regs = NULL;
		return -ENODEV;
	}
	need = GPUPROBE_VTD_CAP_FRO(u->cap) + GPUPROBE_VTD_CAP_NFR(u->cap) * 16;
	if (need <= u->size)
		return 0;
	iounmap(u->regs);
	u->size = PAGE_ALIGN(need);
	u->regs = ioremap(u->phys, u->size);
	return u->regs ? 0 : -ENOMEM;
}

static void gpuprobe_vtd_unmap(void)
{
	unsigned int i;

	for (i = 0; i < gpuprobe_vtd_nunits; i++)
		iounmap(gpuprobe_vtd_units[i].regs);
	gpuprobe_vtd_nunits = 0;
	kfree(gpuprobe_vtd_units);
	gpuprobe_vtd_units = NULL;
}

#ifdef CONFIG_ACPI
/* The table's DRHDs in turn (max 0: count them), or a negative errno. */
static int gpuprobe_vtd_walk(struct acpi_table_header *hdr, unsigned int max)
{
	struct acpi_dmar_header *e;
	unsigned int n = 0;
	void *p, *end;
	int err = 0;

	p = (void *)hdr + sizeof(struct acpi_table_dmar);
	end = (void *)hdr + hdr->length;
	for (; p + sizeof(*e) <= end; p += e->length) {
		struct acpi_dmar_hardware_unit *drhd = p;
		struct gpuprobe_vtd_unit *u;

		e = p;
		if (e->length < sizeof(*e) || p + e->length > end)
			break;
		if (e->type != ACPI_DMAR_TYPE_HARDWARE_UNIT ||
		    e->length < sizeof(*drhd))
			continue;
		if (!max) {
			n++;
			continue;
		}
		if (WARN_ON_ONCE(gpuprobe_vtd_nunits == max))
			break;	/* the table changed between the walks */
		u = &gpuprobe_vtd_units[gpuprobe_vtd_nunits];
		u->phys = drhd->address;
		u->segment = drhd->segment;
		err = gpuprobe_vtd_map_unit(u);
		if (err == -ENODEV) {
			err = 0;	/* a broken unit: the driver skips it too */
			continue;
		}
		if (err)
			break;
		gpuprobe_vtd_nunits++;
	}
	return err ? err : n;
}

/* The DMAR table's hardware units (DRHD): their segment and register base. */
static int gpuprobe_vtd_find_units(void)
{
	struct acpi_table_header *hdr;
	int n, err = -ENODEV;

	if (ACPI_FAILURE(acpi_get_table(ACPI_SIG_DMAR, 0, &hdr)))
		return -ENODEV;
	n = gpuprobe_vtd_walk(hdr, 0);
	if (n > 0) {
		gpuprobe_vtd_units = kcalloc(n, sizeof(*gpuprobe_vtd_units),
					     GFP_KERNEL);
		err = gpuprobe_vtd_units ? gpuprobe_vtd_walk(hdr, n) : -ENOMEM;
		if (err == -ENOMEM)
			pr_warn("no memory for %d VT-d units: IOMMU faults are not read\n",
				n);
	}
	acpi_put_table(hdr);
	if (!err && !gpuprobe_vtd_nunits)
		err = -ENODEV;
	if (err)
		gpuprobe_vtd_unmap();
	return err;
}
#else
static int gpuprobe_vtd_find_units(void)
{
	return -ENODEV;
}
#endif

/* Best effort: without it, VT-d faults are only in the kernel log. */
void gpuprobe_vtd_attach(void)
{
	gpuprobe_vtd_reason = "no ACPI DMAR table (no Intel IOMMU)";
	if (gpuprobe_vtd_find_units())
		return;
	gpuprobe_dmar_fault_kp.addr = NULL;
	gpuprobe_dmar_fault_kp.flags = 0;
	if (register_kprobe(&gpuprobe_dmar_fault_kp)) {
		gpuprobe_vtd_reason = "dmar_fault not probeable (Intel IOMMU driver not in use)";
		gpuprobe_vtd_unmap();
		return;
	}
	gpuprobe_vtd_reason = NULL;
	gpuprobe_vtd_on = true;
}

void gpuprobe_vtd_detach(void)
{
	if (gpuprobe_vtd_on)
		unregister_kprobe(&gpuprobe_dmar_fault_kp);
	gpuprobe_vtd_on = false;
	/* unregister_kprobe() waited for handlers in flight */
	gpuprobe_vtd_unmap();
}

bool gpuprobe_vtd_attached(void)
{
	return gpuprobe_vtd_on;
}

/* The units whose faults are read while attached (STATS dmar-units). */
u32 gpuprobe_dmar_units(void)
{
	return gpuprobe_vtd_on ? gpuprobe_vtd_nunits : 0;
}

/* Why faults are not read, once an attach was tried; else NULL. */
const char *gpuprobe_vtd_why(void)
{
	return gpuprobe_vtd_on ? NULL : gpuprobe_vtd_reason;
}
