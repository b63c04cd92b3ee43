// SPDX-License-Identifier: GPL-2.0
/*
 * Targets from sysfs.  The MSI/MSI-X index of a vector is the hwirq of its
 * per-device MSI domain (chip "PCI-MSIX-<bdf>"); older kernels with one global
 * MSI domain encode hwirq differently, so there the index is the vector's rank.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/gpuprobe.h>

#include "target.h"
#include "util.h"

int bdf_parse(const char *s, uint32_t *bdf)
{
	unsigned int domain = 0, bus, dev, fn;
	char tail;

	if (!*s || s[strspn(s, "0123456789abcdefABCDEF:.")])
		return -1;
	if (sscanf(s, "%x:%x:%x.%x%c", &domain, &bus, &dev, &fn, &tail) != 4) {
		domain = 0;
		if (sscanf(s, "%x:%x.%x%c", &bus, &dev, &fn, &tail) != 3)
			return -1;
	}
	if (domain > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return -1;
	*bdf = GPUPROBE_BDF(domain, bus, (dev << 3) | fn);
	return 0;
}

const char *pci_id(uint16_t vendor, uint16_t device, char out[PCI_ID_STRLEN])
{
	snprintf(out, PCI_ID_STRLEN, "%04x:%04x", vendor, device);
	return out;
}

void bdf_format(uint32_t bdf, char out[BDF_STRLEN])
{
	snprintf(out, BDF_STRLEN, "%04x:%02x:%02x.%x",
		 GPUPROBE_BDF_DOMAIN(bdf) & 0xffff, GPUPROBE_BDF_BUS(bdf) & 0xff,
		 (GPUPROBE_BDF_DEVFN(bdf) >> 3) & 0x1f, GPUPROBE_BDF_DEVFN(bdf) & 7);
}

static int device_path(const char *root, const struct target *t,
		       const char *leaf, char *path, size_t size)
{
	return format_into(path, size, "%s/bus/pci/devices/%s/%s", root,
			   t->name, leaf);
}

static void read_driver(const char *root, struct target *t)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t n;

	t->driver[0] = '\0';
	if (device_path(root, t, "driver", path, sizeof(path)))
		return;
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = '\0';
	base = strrchr(link, '/');
	copy_string(t->driver, sizeof(t->driver), base ? base + 1 : link);
}

static int compare_vectors(const void *a, const void *b)
{
	const struct target_vector *x = a, *y = b;

	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return x->irq < y->irq ? -1 : x->irq > y->irq;
}

/* hwirq is the MSI index only when the chip belongs to this device alone. */
static bool vector_index_from_hwirq(const char *root, const struct target *t,
				    uint32_t irq, uint32_t *index)
{
	char path[PATH_MAX], chip[128];
	uint64_t hwirq;

	if (format_into(path, sizeof(path), "%s/kernel/irq/%u/chip_name", root, irq) ||
	    read_text_file(path, chip, sizeof(chip)) ||
	    strncmp(chip, "PCI-MSI", 7) || !strstr(chip, t->name))
		return false;
	if (format_into(path, sizeof(path), "%s/kernel/irq/%u/hwirq", root, irq) ||
	    read_u64_file(path, &hwirq) || hwirq > UINT32_MAX)
		return false;
	*index = (uint32_t)hwirq;
	return true;
}

static void add_vector(const char *root, struct target *t, const char *dir,
		       const char *entry, bool *all_indexed)
{
	char path[PATH_MAX], mode[16];
	struct target_vector *v;
	uint64_t irq;

	if (t->nvec >= TARGET_MAX_VECTORS || parse_u64(entry, &irq) || irq > UINT32_MAX)
		return;
	v = &t->vec[t->nvec++];
	v->irq = (uint32_t)irq;
	v->flags = 0;
	if (!format_into(path, sizeof(path), "%s/%s", dir, entry) &&
	    !read_text_file(path, mode, sizeof(mode)) && !strcmp(mode, "msix"))
		v->flags |= VECTOR_MSIX;
	if (!vector_index_from_hwirq(root, t, v->irq, &v->index)) {
		*all_indexed = false;
		v->index = v->irq;
	}
}

static void read_vectors(const char *root, struct target *t)
{
	bool all_indexed = true;
	char dir[PATH_MAX];
	struct dirent *de;
	DIR *d;

	t->nvec = 0;
	if (device_path(root, t, "msi_irqs", dir, sizeof(dir)))
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			add_vector(root, t, dir, de->d_name, &all_indexed);
	closedir(d);
	/* Sorting by irq first gives the rank fallback a stable meaning. */
	if (!all_indexed)
		for (uint32_t i = 0; i < t->nvec; i++)
			t->vec[i].index = t->vec[i].irq;
	qsort(t->vec, t->nvec, sizeof(t->vec[0]), compare_vectors);
	if (!all_indexed)
		for (uint32_t i = 0; i < t->nvec; i++)
			t->vec[i].index = i;
}

int target_resolve(const char *root, uint32_t bdf, struct target *t,
		   char *err, size_t errlen)
{
	char path[PATH_MAX];
	uint64_t v;

	memset(t, 0, sizeof(*t));
	t->bdf = bdf;
	bdf_format(bdf, t->name);
	if (device_path(root, t, "vendor", path, sizeof(path)) ||
	    read_hex_file(path, &v)) {
		snprintf(err, errlen, "no PCI device %s in %s/bus/pci/devices: check the address with lspci -D",
			 t->name, root);
		return -1;
	}
	t->vendor = (uint16_t)v;
	if (!device_path(root, t, "device", path, sizeof(path)) && !read_hex_file(path, &v))
		t->device = (uint16_t)v;
	if (!device_path(root, t, "class", path, sizeof(path)) && !read_hex_file(path, &v))
		t->class = (uint32_t)v;
	read_driver(root, t);
	read_vectors(root, t);
	return 0;
}

int targets_find_display(const char *root, struct target_set *set)
{
	char dir[PATH_MAX], err[256];
	struct dirent *de;
	uint32_t bdf;
	DIR *d;

	set->count = 0;
	if (format_into(dir, sizeof(dir), "%s/bus/pci/devices", root))
		return -1;
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d)) && set->count < TARGET_MAX) {
		struct target *t = &set->t[set->count];

		if (de->d_name[0] == '.' || bdf_parse(de->d_name, &bdf))
			continue;
		if (target_resolve(root, bdf, t, err, sizeof(err)))
			continue;
		if ((t->class >> 16) == PCI_CLASS_DISPLAY)
			set->count++;
	}
	closedir(d);
	return 0;
}

const struct target *target_set_find(const struct target_set *set, uint32_t bdf)
{
	for (unsigned int i = 0; i < set->count; i++)
		if (set->t[i].bdf == bdf)
			return &set->t[i];
	return NULL;
}

const struct target_vector *target_set_vector(const struct target_set *set,
					      uint32_t irq, uint32_t *bdf)
{
	for (unsigned int i = 0; i < set->count; i++) {
		const struct target *t = &set->t[i];

		for (uint32_t j = 0; j < t->nvec; j++) {
			if (t->vec[j].irq == irq) {
				*bdf = t->bdf;
				return &t->vec[j];
			}
		}
	}
	return NULL;
}

/* The irq's row of /proc/interrupts: "  36:  0  76067  PCI-MSIX-...". */
static int proc_interrupts_count(uint32_t irq, uint64_t *count)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096], *p, *end;
	int ret = -1;

	if (!f)
		return -1;
	while (ret && fgets(line, sizeof(line), f)) {
		if (strtoul(line, &p, 10) != irq || *p != ':' || p == line ||
		    !strchr("0123456789 ", line[0]))
			continue;
		*count = 0;
		for (p++; ; p = end) {
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			*count += v;
		}
		ret = 0;
	}
	fclose(f);
	return ret;
}

int irq_kernel_count(const char *root, uint32_t irq, uint64_t *count)
{
	char path[PATH_MAX], buf[16384], *p, *end;
	uint64_t sum = 0;

	/* per_cpu_count needs CONFIG_SPARSE_IRQ; /proc/interrupts is always there */
	if (format_into(path, sizeof(path), "%s/kernel/irq/%u/per_cpu_count", root, irq) ||
	    read_text_file(path, buf, sizeof(buf)))
		return strcmp(root, "/sys") ? -1 : proc_interrupts_count(irq, count);
	for (p = buf; *p; p = end) {
		errno = 0;
		sum += strtoull(p, &end, 10);
		if (errno || end == p)
			return -1;
		if (*end == ',')
			end++;
	}
	*count = sum;
	return 0;
}

int irq_desc_id(const char *root, uint32_t irq, uint64_t *id)
{
	char path[PATH_MAX];
	struct stat st;

	if (format_into(path, sizeof(path), "%s/kernel/irq/%u", root, irq) || stat(path, &st))
		return -1;
	*id = (uint64_t)st.st_ino;
	return 0;
}

int device_arg_add(char **devices, unsigned int *n, char *bdf)
{
	if (*n >= TARGET_MAX) {
		errorf("too many -d options: at most %d", TARGET_MAX);
		return -1;
	}
	devices[(*n)++] = bdf;
	return 0;
}

int targets_from_args(const char *root, char *const *bdfs, unsigned int n,
		      struct target_set *set)
{
	char err[256];
	uint32_t bdf;

	set->count = 0;
	if (n == 0) {
		if (targets_find_display(root, set)) {
			errorf("cannot list PCI devices under %s/bus/pci/devices: is sysfs mounted?", root);
			return -1;
		}
		return 0;
	}
	for (unsigned int i = 0; i < n; i++) {
		if (set->count >= TARGET_MAX) {
			errorf("too many targets: at most %d", TARGET_MAX);
			return -1;
		}
		if (bdf_parse(bdfs[i], &bdf)) {
			errorf("'%s' is not a PCI address: use DDDD:BB:DD.F as lspci -D prints it", bdfs[i]);
			return -1;
		}
		if (target_set_find(set, bdf))
			continue;
		if (target_resolve(root, bdf, &set->t[set->count], err, sizeof(err))) {
			errorf("%s", err);
			return -1;
		}
		set->count++;
	}
	return 0;
}
