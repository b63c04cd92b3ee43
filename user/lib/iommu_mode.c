// SPDX-License-Identifier: GPL-2.0
/* A PCI function's IOMMU mode from sysfs; see iommu_mode.h. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iommu_mode.h"

static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	return 0;
}

/* VT-d's capability register: CM is bit 7, SLLPS (2 MiB, 1 GiB, ...) bits 34-37. */
static void read_vtd_cap(const char *root, const char *unit, struct tracefile_rec_iommu_mode *m)
{
	char path[PATH_MAX], line[64];
	uint64_t cap;

	int n = snprintf(path, sizeof(path), "%s/sys/class/iommu/%.64s/intel-iommu/cap", root, unit);

	if (n < 0 || (size_t)n >= sizeof(path) || read_line(path, line, sizeof(line)))
		return;
	cap = strtoull(line, NULL, 16);
	m->flags |= IOMMU_MODE_CM_KNOWN | ((cap >> 7) & 1 ? IOMMU_MODE_CM : 0);
	m->pgsizes = 1ull << 12;
	for (unsigned int i = 0; i < 4; i++)
		if ((cap >> (34 + i)) & 1)
			m->pgsizes |= 1ull << (21 + 9 * i);
}

static void read_swiotlb(const char *root, struct tracefile_rec_iommu_mode *m)
{
	char path[PATH_MAX], line[4096];

	snprintf(path, sizeof(path), "%s/sys/kernel/debug/swiotlb/io_tlb_nslabs", root);
	if (!read_line(path, line, sizeof(line)))
		m->flags |= IOMMU_MODE_SWIOTLB_KNOWN | (strtoull(line, NULL, 0) ? IOMMU_MODE_SWIOTLB : 0);
	else if (snprintf(path, sizeof(path), "%s/sys/kernel/debug", root) > 0 &&
		 access(path, R_OK) == 0)
		m->flags |= IOMMU_MODE_SWIOTLB_KNOWN;	/* debugfs, no swiotlb */
	snprintf(path, sizeof(path), "%s/proc/cmdline", root);
	if (!read_line(path, line, sizeof(line)) && strstr(line, "swiotlb=force"))
		m->flags |= IOMMU_MODE_SWIOTLB_FORCE;
}

void iommu_mode_read(const char *root, const char *bdf_name, uint32_t bdf,
		     struct tracefile_rec_iommu_mode *m)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *unit;
	ssize_t n;

	memset(m, 0, sizeof(*m));
	m->hdr.type = TRACEFILE_REC_IOMMU_MODE;
	m->hdr.size = sizeof(*m);
	m->bdf = bdf;
	read_swiotlb(root, m);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/iommu_group/type", root, bdf_name);
	if (read_line(path, m->domain_type, sizeof(m->domain_type)))
		m->domain_type[0] = '\0';
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/iommu", root, bdf_name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = '\0';
	unit = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	m->flags |= IOMMU_MODE_PRESENT;
	if (!strncmp(unit, "dmar", 4)) {
		snprintf(m->vendor, sizeof(m->vendor), "intel");
		read_vtd_cap(root, unit, m);
	} else if (!strncmp(unit, "ivhd", 4)) {
		snprintf(m->vendor, sizeof(m->vendor), "amd");
	} else {
		snprintf(m->vendor, sizeof(m->vendor), "other");
	}
}

const char *iommu_mode_strictness(const struct tracefile_rec_iommu_mode *m)
{
	if (!(m->flags & IOMMU_MODE_PRESENT))
		return "no IOMMU translates this device's DMA";
	if (!strcmp(m->domain_type, "DMA"))
		return "strict (an invalidation at every unmap)";
	if (!strcmp(m->domain_type, "DMA-FQ"))
		return "lazy (unmaps queued, invalidated in batches by the flush queue)";
	if (!strcmp(m->domain_type, "identity"))
		return "identity (passthrough: no translation, no invalidation)";
	if (!m->domain_type[0])
		return "domain type unknown";
	return "not the DMA API's domain (a VFIO or driver-owned domain)";
}

void iommu_mode_print(FILE *out, const char *indent, const struct tracefile_rec_iommu_mode *m)
{
	char vendor[sizeof(m->vendor) + 1] = "", type[sizeof(m->domain_type) + 1] = "";

	memcpy(vendor, m->vendor, sizeof(m->vendor));
	memcpy(type, m->domain_type, sizeof(m->domain_type));
	if (!(m->flags & IOMMU_MODE_PRESENT)) {
		fprintf(out, "%sIOMMU: none: %s\n", indent, iommu_mode_strictness(m));
	} else {
		fprintf(out, "%sIOMMU: %s, domain %s: %s\n", indent, vendor, type[0] ? type : "unknown",
			iommu_mode_strictness(m));
		if (m->flags & IOMMU_MODE_CM_KNOWN)
			fprintf(out, "%s  caching mode %s; page sizes%s%s%s%s%s\n", indent,
				m->flags & IOMMU_MODE_CM ?
				"on (an emulated IOMMU, a vIOMMU: every map invalidates too)" : "off",
				m->pgsizes & (1ull << 12) ? " 4K" : "", m->pgsizes & (1ull << 21) ? " 2M" : "",
				m->pgsizes & (1ull << 30) ? " 1G" : "", m->pgsizes & (1ull << 39) ? " 512G" : "",
				m->pgsizes ? "" : " unknown");
		if (m->flags & IOMMU_MODE_PARTS_LEFT_OUT)
			fprintf(out, "%s  parts of each map/unmap: not recorded (record --no-iommu-parts)\n",
				indent);
	}
	fprintf(out, "%s  swiotlb: %s%s\n", indent,
		!(m->flags & IOMMU_MODE_SWIOTLB_KNOWN) ? "unknown (debugfs not readable)" :
		m->flags & IOMMU_MODE_SWIOTLB ? "set up" : "not set up",
		m->flags & IOMMU_MODE_SWIOTLB_FORCE ? ", forced (swiotlb=force): every map bounces" : "");
}
