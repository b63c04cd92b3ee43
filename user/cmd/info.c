// SPDX-License-Identifier: GPL-2.0
/*
 * `gpuprobe-trace info`: which sources can be used here and why not, and the
 * targets with their vectors.
 */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "iommu_mode.h"
#include "cmds.h"
#include "file.h"
#include "hypervisor.h"
#include "json.h"
#include "source.h"
#include "tracefs_kprobe.h"
#include "util.h"

struct info_options {
	bool json;
	unsigned int ndevices;
	char *devices[TARGET_MAX];
};

struct module_status {
	int present;			/* 1 loaded, 0 absent, -1 unusable */
	char reason[512];
	struct module_info info;
	int control;			/* control ops: 1 permitted, 0 EPERM, -1 unknown */
	char control_reason[600];
	int events;			/* joining "events": 1 joined, 0 EPERM, -1 unknown */
	char events_reason[400];
	const char *addr_cap;		/* what permits DMA/IOMMU records, or NULL */
	char addr_reason[400];
	bool own_userns;		/* in a user namespace of its own */
};

static const char *const cap_names[] = {
	"irq", "sched", "dma", "iommu", "iommu_fault", "swiotlb", "summary", "mcast_priv", "kvm",
};

#define CAP_SYS_MODULE_BIT	16

/* Is CAP_SYS_MODULE in this process's bounding set (can anything here load)? */
static bool can_ever_load_modules(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	unsigned long long bnd = ~0ULL;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapBnd: %llx", &bnd) == 1)
			break;
	if (f)
		fclose(f);
	return bnd & (1ULL << CAP_SYS_MODULE_BIT);
}

/* Why the module cannot be used, most fundamental reason first. */
void explain_module_absent(char *buf, size_t size)
{
	char text[128] = "";
	struct stat st;

	/*
	 * Loaded (sysfs's modules are the kernel's, whatever the namespace)
	 * but not found: only a family without netnsok hides so, from a
	 * network namespace other than the host's.
	 */
	if (!stat("/sys/module/gpuprobe", &st)) {
		if (read_text_file("/sys/module/gpuprobe/version", text, sizeof(text)))
			snprintf(text, sizeof(text), "unknown");
		snprintf(buf, size, "gpuprobe.ko (version %.64s) is loaded, but its netlink family is not visible from this network namespace: that module predates network-namespace support and answers only in the host's; load the module of this release on the host, or run in the host's network namespace (Kubernetes hostNetwork: true, docker run --network host), or use --source tracefs",
			 text);
		return;
	}
	if (stat("/proc/modules", &st))
		snprintf(buf, size, "this kernel has no loadable module support");
	else if (!read_text_file("/proc/sys/kernel/modules_disabled", text, sizeof(text)) &&
		 text[0] == '1')
		snprintf(buf, size, "module loading is disabled until reboot (kernel.modules_disabled=1): use --source tracefs");
	else if (!can_ever_load_modules())
		snprintf(buf, size, "module not loaded, and this environment cannot load modules (CAP_SYS_MODULE is not in its capability bounding set, as in most containers, which share the host's kernel): load gpuprobe.ko on the host (insmod, or a privileged DaemonSet on each node), or use --source tracefs");
	else if (!read_text_file("/sys/module/module/parameters/sig_enforce", text, sizeof(text)) &&
		 text[0] == 'Y')
		snprintf(buf, size, "this kernel enforces module signatures: sign gpuprobe.ko with your MOK key, or use --source tracefs");
	else if (!read_text_file("/sys/kernel/security/lockdown", text, sizeof(text)) &&
		 !strstr(text, "[none]") && text[0])
		snprintf(buf, size, "kernel lockdown (%s) refuses unsigned modules: sign gpuprobe.ko with your MOK key, or use --source tracefs",
			 text);
	else
		snprintf(buf, size, "module not loaded: sudo insmod kmod/gpuprobe.ko [target=BDF]");
}

static void probe_module(struct module_status *m)
{
	char err[256];

	m->present = module_family_present(err, sizeof(err));
	if (m->present == 0) {
		explain_module_absent(m->reason, sizeof(m->reason));
	} else if (m->present < 0) {
		snprintf(m->reason, sizeof(m->reason), "%s", err);
	} else if (module_get_info(&m->info, err, sizeof(err))) {
		m->present = -1;
		snprintf(m->reason, sizeof(m->reason), "%s", err);
	}
	m->own_userns = module_own_user_namespace();
	m->control = m->events = -1;
	if (m->present != 1)
		return;
	m->control = module_control_permitted(m->control_reason, sizeof(m->control_reason));
	/* without a privileged group records go to START's socket: nothing to join */
	m->events = !(m->info.caps & GPUPROBE_CAP_MCAST_PRIV) ? 1 :
		module_events_permitted(m->events_reason, sizeof(m->events_reason));
	m->addr_cap = module_address_records_cap(m->addr_reason, sizeof(m->addr_reason));
}

/*
 * Which of the module's privilege checks this process passes, each by the
 * ops it guards (kmod/netlink.c; module.md, "Privileges").
 */
#define CONTROL_OPS	"control ops (START, STOP, TARGET_ADD/DEL, TGID_ADD/DEL: record, serve, --cgroup, targets)"
#define EVENTS_GROUP	"events group (the records of record and serve)"

static void print_privileges_text(const struct module_status *m)
{
	if (m->control == 1)
		printf("  " CONTROL_OPS ": permitted (CAP_NET_ADMIN in the host's user namespace)\n");
	else if (m->control == 0)
		printf("  " CONTROL_OPS ": not permitted: %s\n", m->control_reason);
	else
		printf("  " CONTROL_OPS ": unknown: %s\n", m->control_reason);
	if (!(m->info.caps & GPUPROBE_CAP_MCAST_PRIV))
		printf("  " EVENTS_GROUP ": unicast to the socket that sent START (this kernel has no privileged multicast group): what START needs\n");
	else if (m->events == 1)
		printf("  " EVENTS_GROUP ": permitted (joined: CAP_SYS_ADMIN)\n");
	else
		printf("  " EVENTS_GROUP ": %s: %s\n", m->events ? "unknown" : "not permitted",
		       m->events_reason);
	if (m->addr_cap)
		printf("  DMA/IOMMU records: permitted (%s)\n", m->addr_cap);
	else
		printf("  DMA/IOMMU records: not permitted: %s\n", m->addr_reason);
	printf("  queries (GET_INFO, TARGET_GET, STATS_GET, SUMMARY_GET: info, targets, counters): open to every user\n");
}

static void irq_action_name(uint32_t irq, char *buf, size_t size)
{
	char path[PATH_MAX];

	buf[0] = '\0';
	if (!format_into(path, sizeof(path), "/sys/kernel/irq/%u/actions", irq))
		read_text_file(path, buf, size);
}

/* ---- text ---- */

static void print_module_text(const struct module_status *m)
{
	const struct module_info *mi = &m->info;

	if (m->present != 1) {
		printf("module source: not available: %s\n", m->reason);
		return;
	}
	printf("module source: gpuprobe %s, kernel %s, clock %s, record version %u\n",
	       mi->version, mi->kernel_release,
	       mi->clock_id == CLOCK_MONOTONIC ? "CLOCK_MONOTONIC" : "other (unexpected)",
	       mi->record_version);
	printf("  caps 0x%llx:", (unsigned long long)mi->caps);
	for (size_t i = 0; i < ARRAY_SIZE(cap_names); i++)
		if (mi->caps & (1ull << i))
			printf(" %s", cap_names[i]);
	printf("\n");
	if (mi->record_version != GPUPROBE_RECORD_VERSION)
		printf("  WARNING: module records are version %u, this tool reads %u: rebuild one of them\n",
		       mi->record_version, GPUPROBE_RECORD_VERSION);
	print_privileges_text(m);
	for (unsigned int i = 0; i < mi->nhooks; i++)
		printf("  hook %-24s %s%s%s\n", mi->hooks[i].name,
		       mi->hooks[i].attached ? "attached" : "not attached",
		       mi->hooks[i].reason[0] ? ": " : "", mi->hooks[i].reason);
}

/* Where the tracefs source gets DMA-API calls from on this kernel. */
static void print_dma_support_text(void)
{
	char why[300];

	switch (tracefs_dma_support(why, sizeof(why))) {
	case 1:
		printf("  DMA-API calls: dma: tracepoints; %s\n", why);
		break;
	case 2:
		printf("  DMA-API calls: kprobe events on dma_map_page_attrs & co. (no dma: tracepoints; sg calls without bytes)\n");
		break;
	case -1:
		printf("  DMA-API calls: unknown: %s\n", why);
		break;
	default:
		printf("  DMA-API calls: not recorded: no dma: tracepoints (kernel before 6.12) and %s\n", why);
		break;
	}
}

/* this user namespace's root is the host's ("0 0 N" in uid_map) */
static bool own_root_is_host_root(void)
{
	char map[1024];
	FILE *f = fopen("/proc/self/uid_map", "re");
	size_t n = f ? fread(map, 1, sizeof(map) - 1, f) : 0;

	if (f)
		fclose(f);
	map[n] = '\0';
	return uid_map_root_is_host_root(map);
}

static void print_tracefs_text(const struct tracefs_state *t)
{
	if (!t->mounted) {
		printf("tracefs source: not available: " TRACEFS_NOT_MOUNTED "\n");
		return;
	}
	if (!t->readable && module_own_user_namespace() && !own_root_is_host_root()) {
		printf("tracefs source: not usable: %s/events is not readable here: tracefs's files belong to the host's root, and this process is in a user namespace of its own whose root is another uid of the host (a remapped or rootless container): run the container in the host's user namespace (Docker --userns=host; Kubernetes hostUsers: true), or trace from the host\n",
		       t->dir);
		return;
	}
	if (!t->readable) {
		printf("tracefs source: not usable: %s/events is not readable by this user: run as root\n",
		       t->dir);
		return;
	}
	printf("tracefs source: %s\n", t->dir);
	for (unsigned int i = 0; i < t->nevents; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%s/%s", t->events[i].system, t->events[i].name);
		printf("  %-28s %s\n", name, t->events[i].present ? "yes" : "no");
	}
	print_dma_support_text();
}

/* The chip of each vector's irq; how the target's interrupts arrive (one way, or "mixed"). */
static const char *target_delivery(const struct target *t, const char *proc_interrupts,
				   struct irq_chip_info *chips)
{
	const char *how = NULL;

	for (uint32_t j = 0; j < t->nvec; j++) {
		const char *d;

		if (!proc_interrupts || irq_chip_from_proc(proc_interrupts, t->vec[j].irq, &chips[j]))
			memset(&chips[j], 0, sizeof(chips[j]));
		d = irq_delivery_name(chips[j].delivery);
		if (how && strcmp(how, d))
			return "mixed";
		how = d;
	}
	return how ? how : "none";
}

static void print_hypervisor_text(const struct hypervisor_info *h)
{
	char line[400];

	hypervisor_describe(h, line, sizeof(line));
	printf("hypervisor: %s\n", line);
}

static void print_targets_text(const struct target_set *set, bool defaulted,
			       const char *proc_interrupts, bool xen)
{
	static struct irq_chip_info chips[TARGET_MAX_VECTORS];

	if (!set->count) {
		printf("targets: none: no PCI display-class device here; pass -d BDF (see lspci -D)\n");
		return;
	}
	printf("targets%s:\n", defaulted ? " (display-class devices)" : "");
	for (unsigned int i = 0; i < set->count; i++) {
		const struct target *t = &set->t[i];
		struct tracefile_rec_iommu_mode mode;
		const char *how;

		printf("  %s  %04x:%04x class 0x%06x driver %s, %u vector%s\n", t->name,
		       t->vendor, t->device, t->class, t->driver[0] ? t->driver : "(none)",
		       t->nvec, t->nvec == 1 ? "" : "s");
		iommu_mode_read("", t->name, t->bdf, &mode);
		iommu_mode_print(stdout, "    ", &mode);
		how = target_delivery(t, proc_interrupts, chips);
		if (t->nvec && strcmp(how, "mixed"))
			printf("    interrupts: %s\n", irq_delivery_explain(chips[0].delivery, xen));
		else if (t->nvec)
			printf("    interrupts: its vectors arrive in different ways (below)\n");
		for (uint32_t j = 0; j < t->nvec; j++) {
			char action[128];

			irq_action_name(t->vec[j].irq, action, sizeof(action));
			printf("    vector %-3u irq %-5u %-6s %s (chip %s%s%s: %s)\n", t->vec[j].index,
			       t->vec[j].irq, t->vec[j].flags & VECTOR_MSIX ? "MSI-X" : "MSI", action,
			       chips[j].chip[0] ? chips[j].chip : "?", chips[j].handler[0] ? ", flow " : "",
			       chips[j].handler, irq_delivery_name(chips[j].delivery));
		}
	}
}

/* ---- JSON ---- */

static void json_module(struct json *j, const struct module_status *m)
{
	const struct module_info *mi = &m->info;

	json_key(j, "module");
	json_object_begin(j);
	json_kv_bool(j, "available", m->present == 1);
	if (m->present != 1) {
		json_kv_string(j, "reason", m->reason);
		json_object_end(j);
		return;
	}
	json_kv_string(j, "version", mi->version);
	json_kv_string(j, "kernel_release", mi->kernel_release);
	json_kv_u64(j, "clock_id", mi->clock_id);
	json_kv_u64(j, "record_version", mi->record_version);
	json_kv_u64(j, "caps_mask", mi->caps);
	json_key(j, "control");
	json_object_begin(j);
	json_kv_bool(j, "permitted", m->control == 1);
	json_kv_string(j, "reason", m->control == 1 ? "" : m->control_reason);
	json_object_end(j);
	json_key(j, "events");
	json_object_begin(j);
	json_kv_bool(j, "permitted", m->events == 1);
	json_kv_bool(j, "privileged_group", m->info.caps & GPUPROBE_CAP_MCAST_PRIV);
	json_kv_string(j, "reason", m->events == 1 ? "" : m->events_reason);
	json_object_end(j);
	json_key(j, "address_records");
	json_object_begin(j);
	json_kv_bool(j, "permitted", m->addr_cap != NULL);
	json_kv_string(j, "by", m->addr_cap ? m->addr_cap : "");
	json_kv_string(j, "reason", m->addr_cap ? "" : m->addr_reason);
	json_object_end(j);
	json_kv_bool(j, "own_user_namespace", m->own_userns);
	json_key(j, "caps");
	json_array_begin(j);
	for (size_t i = 0; i < ARRAY_SIZE(cap_names); i++)
		if (mi->caps & (1ull << i))
			json_put_string(j, cap_names[i]);
	json_array_end(j);
	json_key(j, "hooks");
	json_array_begin(j);
	for (unsigned int i = 0; i < mi->nhooks; i++) {
		json_object_begin(j);
		json_kv_string(j, "name", mi->hooks[i].name);
		json_kv_bool(j, "attached", mi->hooks[i].attached);
		json_kv_string(j, "reason", mi->hooks[i].reason);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void json_dma_support(struct json *j)
{
	static const char *const via[] = { "unknown", "none", "tracepoints", "kprobes" };
	char why[300];
	int mode = tracefs_dma_support(why, sizeof(why));

	json_kv_string(j, "dma_source", via[mode + 1]);
	json_kv_string(j, "kprobe_events", why);
}

static void json_tracefs(struct json *j, const struct tracefs_state *t)
{
	json_key(j, "tracefs");
	json_object_begin(j);
	json_kv_bool(j, "available", t->mounted && t->readable);
	json_kv_bool(j, "mounted", t->mounted);
	json_kv_string(j, "dir", t->dir);
	json_key(j, "events");
	json_object_begin(j);
	for (unsigned int i = 0; i < t->nevents; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%s/%s", t->events[i].system, t->events[i].name);
		json_kv_bool(j, name, t->events[i].present);
	}
	json_object_end(j);
	json_dma_support(j);
	json_object_end(j);
}

static void json_hypervisor(struct json *j, const struct hypervisor_info *h)
{
	char line[400];

	hypervisor_describe(h, line, sizeof(line));
	json_key(j, "hypervisor");
	json_object_begin(j);
	json_kv_string(j, "name", hypervisor_name(h));
	json_kv_bool(j, "cpuid_hypervisor", h->cpuid_hypervisor);
	json_kv_string(j, "cpuid_signature", h->signature);
	json_kv_string(j, "sysfs_type", h->sysfs_type);
	json_kv_string(j, "guest_type", h->guest_type);
	json_kv_bool(j, "xen_pv_interfaces", h->xen_pv_interfaces);
	json_kv_string(j, "text", line);
	json_object_end(j);
}

static void json_targets(struct json *j, const struct target_set *set, const char *proc_interrupts)
{
	static struct irq_chip_info chips[TARGET_MAX_VECTORS];
	char idbuf[PCI_ID_STRLEN];

	json_key(j, "targets");
	json_array_begin(j);
	for (unsigned int i = 0; i < set->count; i++) {
		const struct target *t = &set->t[i];

		json_object_begin(j);
		json_kv_string(j, "bdf", t->name);
		json_kv_u64(j, "vendor", t->vendor);
		json_kv_u64(j, "device", t->device);
		json_kv_u64(j, "class", t->class);
		json_kv_string(j, "pci_id", pci_id(t->vendor, t->device, idbuf));
		json_kv_string(j, "driver", t->driver);
		json_kv_string(j, "delivery", target_delivery(t, proc_interrupts, chips));
		json_key(j, "vectors");
		json_array_begin(j);
		for (uint32_t k = 0; k < t->nvec; k++) {
			char action[128];

			irq_action_name(t->vec[k].irq, action, sizeof(action));
			json_object_begin(j);
			json_kv_u64(j, "index", t->vec[k].index);
			json_kv_u64(j, "irq", t->vec[k].irq);
			json_kv_bool(j, "msix", t->vec[k].flags & VECTOR_MSIX);
			json_kv_string(j, "action", action);
			json_kv_string(j, "chip", chips[k].chip);
			json_kv_string(j, "flow", chips[k].handler);
			json_kv_string(j, "delivery", irq_delivery_name(chips[k].delivery));
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
}

static void print_json(const struct module_status *m, const struct tracefs_state *t,
		       const struct target_set *set, const struct utsname *u,
		       const struct hypervisor_info *h, const char *proc_interrupts)
{
	struct json j;

	json_init(&j, stdout, true);
	json_object_begin(&j);
	json_kv_string(&j, "tool_version", GPUPROBE_TRACE_VERSION);
	json_kv_string(&j, "host", u->nodename);
	json_kv_string(&j, "kernel_release", u->release);
	json_hypervisor(&j, h);
	json_module(&j, m);
	json_tracefs(&j, t);
	json_targets(&j, set, proc_interrupts);
	json_object_end(&j);
}

static int parse_info_options(int argc, char **argv, struct info_options *o)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "d:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (device_arg_add(o->devices, &o->ndevices, optarg))
				return 2;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			usage_of("info", stdout);
			return 0;
		default:
			usage_of("info", stderr);
			return 2;
		}
	}
	if (optind < argc) {
		errorf("unexpected argument '%s': see gpuprobe-trace info --help", argv[optind]);
		return 2;
	}
	return -1;
}

int cmd_info(int argc, char **argv)
{
	struct info_options opts = { 0 };
	struct module_status module;
	struct tracefs_state tracefs;
	struct target_set *set;
	struct hypervisor_info hv;
	char signature[HV_SIGNATURE_LEN];
	char *proc_interrupts;
	uint32_t leaf;
	bool cpuid_hv;
	size_t len;
	struct utsname u;
	int ret = parse_info_options(argc, argv, &opts);

	if (ret >= 0)
		return ret;
	set = malloc(sizeof(*set));
	if (!set) {
		errorf("out of memory");
		return 1;
	}
	ret = 1;
	if (targets_from_args("/sys", opts.devices, opts.ndevices, set))
		goto out;
	uname(&u);
	probe_module(&module);
	tracefs_probe_state(&tracefs);
	leaf = hypervisor_cpuid_signature(&cpuid_hv, signature);
	hypervisor_read("/sys", cpuid_hv, signature, leaf, &hv);
	/* NULL: each vector's chip is then "unknown" */
	proc_interrupts = read_whole_file("/proc/interrupts", &len);
	if (opts.json) {
		print_json(&module, &tracefs, set, &u, &hv, proc_interrupts);
	} else {
		printf("gpuprobe-trace %s on %s, kernel %s\n", GPUPROBE_TRACE_VERSION,
		       u.nodename, u.release);
		print_hypervisor_text(&hv);
		print_module_text(&module);
		print_tracefs_text(&tracefs);
		print_targets_text(set, opts.ndevices == 0, proc_interrupts, hv.xen);
	}
	free(proc_interrupts);
	ret = 0;
out:
	free(set);
	return ret;
}
