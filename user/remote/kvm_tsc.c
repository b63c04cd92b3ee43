// SPDX-License-Identifier: GPL-2.0
/* KVM's TSC offsets of one VM, from debugfs and kvm:kvm_write_tsc_offset (kvm_tsc.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kvm_tsc.h"
#include "machine.h"
#include "tracefile.h"
#include "util.h"

/* tests point it at a directory of their own (a fake VM's vcpuN files) */
static const char *kvm_debugfs(void)
{
	const char *d = getenv("GPUPROBE_TEST_KVM_DEBUGFS");

	return d && *d ? d : "/sys/kernel/debug/kvm";
}
#define MAX_VCPUS	256

struct kvm_tsc {
	struct kvm_tsc_options o;
	char dir[300];		/* empty: the test offset, no KVM */
	int pid;
	uint32_t vcpu[MAX_VCPUS];
	uint64_t ratio[MAX_VCPUS];	/* as last read: the traced writes carry the offset only */
	uint32_t frac_bits[MAX_VCPUS];
	unsigned int nvcpu;
	char instance[120];	/* the tracefs instance following the writes; empty none */
	char trace_warning[400];
};

static int read_number(const char *dir, const char *name, bool is_signed, uint64_t *v)
{
	char path[400], buf[64];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	errno = 0;
	*v = is_signed ? (uint64_t)strtoll(buf, NULL, 10) : strtoull(buf, NULL, 10);
	return errno ? -1 : 0;
}

/* "1234-11": the VMM's pid, then the VM's fd. */
static int vm_dir_pid(const char *name)
{
	char *end;
	long pid = strtol(name, &end, 10);

	return end != name && *end == '-' && isdigit((unsigned char)end[1]) && pid > 0 ? (int)pid : 0;
}

static int find_vm(struct kvm_tsc *k, char *why, size_t whylen)
{
	const char *root = kvm_debugfs();
	DIR *d = opendir(root);
	struct dirent *e;
	unsigned int found = 0;

	if (!d) {
		snprintf(why, whylen, "%s: %s (debugfs mounted? root?)", root, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		int pid = vm_dir_pid(e->d_name);

		if (!pid || (k->o.vmm_pid && pid != k->o.vmm_pid))
			continue;
		if (!found++) {
			snprintf(k->dir, sizeof(k->dir), "%s/%s", root, e->d_name);
			k->pid = pid;
		}
	}
	closedir(d);
	if (found == 1)
		return 0;
	if (!found)
		snprintf(why, whylen, "no VM%s in %s", k->o.vmm_pid ? " of that pid" : "", root);
	else
		snprintf(why, whylen, "%u VMs in %s: name the guest's VMM with --guest-vmm PID", found, root);
	return -1;
}

static int find_vcpus(struct kvm_tsc *k, char *why, size_t whylen)
{
	DIR *d = opendir(k->dir);
	struct dirent *e;

	if (!d) {
		snprintf(why, whylen, "%s: %s", k->dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)) && k->nvcpu < MAX_VCPUS) {
		char *end;
		unsigned long n;

		if (strncmp(e->d_name, "vcpu", 4) || !isdigit((unsigned char)e->d_name[4]))
			continue;
		n = strtoul(e->d_name + 4, &end, 10);
		if (!*end)
			k->vcpu[k->nvcpu++] = (uint32_t)n;
	}
	closedir(d);
	if (!k->nvcpu)
		snprintf(why, whylen, "%s has no vcpuN", k->dir);
	return k->nvcpu ? 0 : -1;
}

static const char *tracefs_root(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct stat st;

	for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
		char p[64];

		snprintf(p, sizeof(p), "%s/instances", roots[i]);
		if (!stat(p, &st))
			return roots[i];
	}
	return NULL;
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[400];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ok = fputs(text, f) >= 0;
	return fclose(f) || !ok ? -1 : 0;
}

/* Best effort: without it, a change is still seen at the end (then not used). */
static void follow_writes(struct kvm_tsc *k)
{
	const char *root = tracefs_root();

	if (!root) {
		snprintf(k->trace_warning, sizeof(k->trace_warning), "no tracefs instances");
		return;
	}
	snprintf(k->instance, sizeof(k->instance), "%s/instances/gpuprobe-tsc-%d", root, (int)getpid());
	if (mkdir(k->instance, 0700) && errno != EEXIST) {
		snprintf(k->trace_warning, sizeof(k->trace_warning), "%s: %s", k->instance, strerror(errno));
		k->instance[0] = 0;
		return;
	}
	if (write_file(k->instance, "trace_clock", "mono") ||
	    write_file(k->instance, "events/kvm/kvm_write_tsc_offset/enable", "1")) {
		snprintf(k->trace_warning, sizeof(k->trace_warning),
			 "kvm:kvm_write_tsc_offset cannot be traced: %s", strerror(errno));
		rmdir(k->instance);
		k->instance[0] = 0;
	}
}

struct kvm_tsc *kvm_tsc_open(const struct kvm_tsc_options *o, char *why, size_t whylen)
{
	struct kvm_tsc *k = calloc(1, sizeof(*k));

	if (!k) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	k->o = *o;
	if (o->have_test_offset) {
		k->vcpu[k->nvcpu++] = 0;
		return k;
	}
	if (find_vm(k, why, whylen) || find_vcpus(k, why, whylen)) {
		free(k);
		return NULL;
	}
	follow_writes(k);
	return k;
}

static void kvm_record(struct tracefile_rec_tsc *r, uint32_t vcpu, uint16_t flags, uint64_t ts)
{
	memset(r, 0, sizeof(*r));
	r->hdr.type = TRACEFILE_REC_TSC;
	r->hdr.size = sizeof(*r);
	r->hdr.ts_ns = ts;
	r->machine = MACHINE_GUEST;
	r->kind = TSC_REC_KVM;
	r->flags = flags;
	r->cpu = vcpu;
	r->apic_id = 0xffffffffu;
}

int kvm_tsc_put(struct kvm_tsc *k, uint16_t flags, const struct record_sink *sink)
{
	for (unsigned int i = 0; i < k->nvcpu; i++) {
		struct tracefile_rec_tsc r;
		char dir[400];
		uint64_t v = 0;

		kvm_record(&r, k->vcpu[i], flags, mono_now_ns());
		if (k->o.have_test_offset) {
			r.flags |= TSC_KVM_TEST;
			r.tsc_offset = k->o.test_offset;
		} else {
			snprintf(dir, sizeof(dir), "%s/vcpu%u", k->dir, k->vcpu[i]);
			if (read_number(dir, "tsc-offset", true, &v)) {
				warnf("%s/tsc-offset unreadable: %s", dir, strerror(errno));
				continue;
			}
			r.tsc_offset = (int64_t)v;
			if (!read_number(dir, "tsc-scaling-ratio-frac-bits", false, &v) && v < 64) {
				r.frac_bits = (uint32_t)v;
				if (!read_number(dir, "tsc-scaling-ratio", false, &v))
					r.ratio = v;
			}
			if (!read_number(dir, "guest_mode", false, &v) && v)
				r.flags |= TSC_KVM_GUEST_MODE;
		}
		if (k->o.test_error) {
			r.tsc_offset += k->o.test_error;
			r.flags |= TSC_KVM_TEST;
		}
		/* 1.0 in its fixed point is no scaling: said as 0, the same for every reader */
		if (r.frac_bits && r.ratio == 1ull << r.frac_bits)
			r.ratio = r.frac_bits = 0;
		k->ratio[i] = r.ratio;
		k->frac_bits[i] = r.frac_bits;
		if (sink_put(sink, &r.hdr))
			return -1;
	}
	return 0;
}

int kvm_tsc_parse_line(const char *line, uint32_t *tid, uint64_t *ts_ns, uint32_t *vcpu,
		       uint64_t *next_offset)
{
	static const char ev[] = ": kvm_write_tsc_offset: ";
	const char *p = strstr(line, ev), *q, *br;
	unsigned long long prev, next, sec, frac = 0;
	unsigned int v, digits = 0;

	if (!p || sscanf(p + sizeof(ev) - 1, "vcpu=%u prev=%llu next=%llu", &v, &prev, &next) != 3)
		return 0;
	/* "   qemu-512  [001] d..1.  123.456789: kvm_write_tsc_offset: ..." */
	for (q = p; q > line && (isdigit((unsigned char)q[-1]) || q[-1] == '.'); q--)
		;
	if (sscanf(q, "%llu", &sec) != 1)
		return 0;
	for (const char *d = strchr(q, '.'); d && d < p && isdigit((unsigned char)d[1]); d++, digits++)
		frac = frac * 10 + (unsigned long long)(d[1] - '0');
	for (; digits < 9; digits++)
		frac *= 10;
	for (br = q; br > line && br[-1] != '['; br--)
		;
	if (br == line)
		return 0;
	for (br--; br > line && br[-1] == ' '; br--)
		;
	for (q = br; q > line && isdigit((unsigned char)q[-1]); q--)
		;
	*tid = (uint32_t)strtoul(q, NULL, 10);
	*ts_ns = sec * 1000000000ull + frac;
	*vcpu = v;
	*next_offset = next;
	return 1;
}

/* A thread of the VMM (the writes of other VMs are not ours). */
static bool vmm_thread(const struct kvm_tsc *k, uint32_t tid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/task/%u", k->pid, tid);
	return !stat(path, &st);
}

int kvm_tsc_put_traced(struct kvm_tsc *k, const struct record_sink *sink)
{
	char path[400], line[512];
	FILE *f;
	int ret = 0;

	if (k->trace_warning[0])
		warnf("the guest's TSC offset writes are not followed (%s): a change during the recording makes the exact clock unusable",
		      k->trace_warning);
	if (!k->instance[0])
		return 0;
	snprintf(path, sizeof(path), "%s/trace", k->instance);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f) && !ret) {
		struct tracefile_rec_tsc r;
		uint64_t ts, next;
		uint32_t tid, vcpu;

		if (!kvm_tsc_parse_line(line, &tid, &ts, &vcpu, &next) || !vmm_thread(k, tid))
			continue;
		kvm_record(&r, vcpu, TSC_KVM_TRACED, ts);
		r.tsc_offset = (int64_t)next + k->o.test_error;
		for (unsigned int i = 0; i < k->nvcpu; i++)
			if (k->vcpu[i] == vcpu) {
				r.ratio = k->ratio[i];
				r.frac_bits = k->frac_bits[i];
			}
		ret = sink_put(sink, &r.hdr);
	}
	if (f)
		fclose(f);
	return ret;
}

const char *kvm_tsc_dir(const struct kvm_tsc *k)
{
	return k->dir[0] ? k->dir : "the test offset";
}

void kvm_tsc_close(struct kvm_tsc *k)
{
	if (!k)
		return;
	if (k->instance[0]) {
		write_file(k->instance, "events/kvm/kvm_write_tsc_offset/enable", "0");
		rmdir(k->instance);
	}
	free(k);
}

/* A Y/N (or 1/0) module parameter: GPUPROBE_KVM_PARAM_*. */
static uint32_t read_param(const char *root, const char *module, const char *param)
{
	char path[512], v[8] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/module/%s/parameters/%s", root, module, param);
	f = fopen(path, "r");
	if (!f)
		return GPUPROBE_KVM_PARAM_ABSENT;
	if (!fgets(v, sizeof(v), f))
		v[0] = '\0';
	fclose(f);
	if (v[0] == 'Y' || v[0] == 'y' || v[0] == '1')
		return GPUPROBE_KVM_PARAM_ON;
	if (v[0] == 'N' || v[0] == 'n' || v[0] == '0')
		return GPUPROBE_KVM_PARAM_OFF;
	return GPUPROBE_KVM_PARAM_ABSENT;
}

int kvm_apic_mode_put(const char *root, const struct record_sink *sink)
{
	struct gpuprobe_rec_kvm rec = {
		.hdr = { .type = TRACEFILE_REC_KVM, .size = sizeof(rec), .ts_ns = mono_now_ns() },
		.bdf = GPUPROBE_BDF_NONE,
		.vcpu = GPUPROBE_KVM_VCPU_NONE,
		.stage = GPUPROBE_KVM_APIC_MODE,
		.vector = read_param(root, "kvm_amd", "avic"),
		.level = read_param(root, "kvm_intel", "enable_apicv"),
	};

	return sink_put(sink, &rec.hdr);
}
