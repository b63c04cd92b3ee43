// SPDX-License-Identifier: GPL-2.0
/*
 * `gpuprobe-trace record`: drive a source (module or tracefs) into a trace
 * file while a workload runs, until Ctrl-C, or for --duration.
 *
 * The kernel's own per-irq counts are read right after tracing is switched
 * on and right before it is switched off, and stored with their timestamps,
 * so `report` can check the recorded interrupts against /proc/interrupts
 * over exactly the same window.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "iommu_mode.h"
#include "appinject.h"
#include "cgroup.h"
#include "cmds.h"
#include "command.h"
#include "cuptiselect.h"
#include "guest_link.h"
#include "protocol.h"
#include "source.h"
#include "tracefile.h"
#include "util.h"
#include "workload.h"

#define POLL_MS			100
#define WORKLOAD_GRACE_MS	5000

enum source_choice { SOURCE_AUTO, SOURCE_MODULE, SOURCE_TRACEFS, SOURCE_XENTRACE };

struct record_options {
	unsigned int ndevices;
	char *devices[TARGET_MAX];
	const char *output;
	enum source_choice source;
	double duration_s;
	bool quiet;
	bool no_inject;
	bool no_iommu_parts;	/* --no-iommu-parts: the module attaches no parts probes */
	int compress;		/* trace_writer_compress()'s level */
	const char *inject_dir;
	const char *api_calls;	/* GPUPROBE_CUDA_API for CMD, NULL: as the environment says */
	char **command;		/* NULL-terminated, or NULL */
	const char *cgroup;	/* --cgroup PATH, or NULL */
	uint64_t cgroup_id;	/* its id */
	char cgroup_dir[PATH_MAX];	/* and its directory, absolute */
	struct guest_options guest;	/* --guest: address set */
	const char *xentrace_input;	/* --xentrace-input FILE */
	const char *xentrace_file;	/* --xentrace-file FILE */
};

struct recorder {
	struct record_options opts;
	const struct trace_source *src_ops;
	void *src;
	struct trace_writer writer;
	int write_errno;
	struct trace_info info;
	struct source_config cfg;
	struct workload workload;
	bool have_workload;
	bool status_line;
	bool source_stopped;
	struct app_inject app;
	struct guest_link *guest;	/* record --guest */
	bool guest_incomplete;		/* its trace was cut: no end record for ours */
};

static volatile sig_atomic_t stop_signal;

/* The first Ctrl-C stops the recording; a second one cuts the workload's grace period short. */
static void on_stop_signal(int sig)
{
	if (stop_signal)
		workload_hurry = 1;
	stop_signal = sig;
}

static void on_child(int sig)
{
	(void)sig;	/* only here to cut the poll sleep short */
}

static void install_signals(void)
{
	struct sigaction sa = { 0 };

	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sigaction(SIGCHLD, &sa, NULL);
	/* A closed pipe (-o -) is a write error like a full disk, not our death. */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* Disk full, pipe closed: stop recording, keep the file, let the workload run on. */
static void write_failed(struct recorder *r)
{
	r->write_errno = errno ? errno : EIO;
	errorf("cannot write %s: %s: recording stopped after %llu records; what reached the file is kept (readable, marked incomplete)%s",
	       r->opts.output, strerror(r->write_errno), (unsigned long long)r->writer.records,
	       r->have_workload ? "; the workload runs on" : "");
}

static int sink_to_file(void *ctx, const struct gpuprobe_rec_hdr *rec)
{
	struct recorder *r = ctx;

	if (r->write_errno)
		return -1;
	if (trace_writer_put(&r->writer, rec)) {
		write_failed(r);
		return -1;
	}
	return 0;
}

static int parse_source(const char *s, enum source_choice *out)
{
	if (!strcmp(s, "auto"))
		*out = SOURCE_AUTO;
	else if (!strcmp(s, "module"))
		*out = SOURCE_MODULE;
	else if (!strcmp(s, "tracefs"))
		*out = SOURCE_TRACEFS;
	else
		return -1;
	return 0;
}

static int parse_record_options(int argc, char **argv, struct record_options *o)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "source", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'D' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-inject", no_argument, NULL, 'N' },
		{ "no-iommu-parts", no_argument, NULL, 'P' },
		{ "inject-dir", required_argument, NULL, 'I' },
		{ "api-calls", required_argument, NULL, 'A' },
		{ "guest", required_argument, NULL, 'G' },
		{ "guest-target", required_argument, NULL, 'g' },
		{ "guest-source", required_argument, NULL, 'S' },
		{ "guest-command", required_argument, NULL, 'C' },
		{ "guest-timeout", required_argument, NULL, 'W' },
		{ "guest-vmm", required_argument, NULL, 'V' },
		{ "test-tsc-offset", required_argument, NULL, 'X' },
		{ "test-tsc-error", required_argument, NULL, 'E' },
		{ "token", required_argument, NULL, 't' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "uncompressed", no_argument, NULL, 'U' },
		{ "zstd", optional_argument, NULL, 'Z' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "xentrace-input", required_argument, NULL, 'x' },
		{ "xentrace-file", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	enum source_choice guest_source;
	bool uncompressed = false, zstd = false;
	double secs;
	int c;

	o->output = "gpuprobe.trace";
	o->guest.timeout_ms = REMOTE_DEFAULT_TIMEOUT_MS;
	o->compress = TRACEFILE_COMPACT;
	while ((c = getopt_long(argc, argv, "+d:o:s:D:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (device_arg_add(o->devices, &o->ndevices, optarg))
				return 2;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 's':
			if (!strcmp(optarg, "xentrace")) {
				o->source = SOURCE_XENTRACE;
			} else if (parse_source(optarg, &o->source)) {
				errorf("unknown source '%s': use auto, module, tracefs or xentrace (in Xen's dom0)",
				       optarg);
				return 2;
			}
			break;
		case 'x':
			o->xentrace_input = optarg;
			break;
		case 'F':
			o->xentrace_file = optarg;
			break;
		case 'D':
			if (parse_seconds(optarg, &o->duration_s)) {
				errorf("--duration wants a positive number of seconds, not '%s'", optarg);
				return 2;
			}
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'N':
			o->no_inject = true;
			break;
		case 'P':
			o->no_iommu_parts = true;
			break;
		case 'I':
			o->inject_dir = optarg;
			break;
		case 'A':
			if (strcmp(optarg, "attribution") && strcmp(optarg, "all")) {
				errorf("--api-calls wants attribution or all, not '%s'", optarg);
				return 2;
			}
			o->api_calls = optarg;
			break;
		case 'G':
			o->guest.address = optarg;
			break;
		case 'g':
			if (device_arg_add(o->guest.targets, &o->guest.ntargets, optarg))
				return 2;
			break;
		case 'S':
			if (parse_source(optarg, &guest_source)) {
				errorf("unknown --guest-source '%s': use auto, module or tracefs", optarg);
				return 2;
			}
			o->guest.source = optarg;
			break;
		case 'C':
			o->guest.command = optarg;
			break;
		case 'W':
			if (parse_seconds(optarg, &secs) || secs > 3600) {
				errorf("--guest-timeout wants seconds (0 < SEC <= 3600), not '%s'", optarg);
				return 2;
			}
			o->guest.timeout_ms = (int)(secs * 1000);
			break;
		case 'V':
		{
			char *end;
			long pid;

			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || pid <= 0 || pid > INT32_MAX) {
				errorf("--guest-vmm wants the VMM's pid, not '%s'", optarg);
				return 2;
			}
			o->guest.kvm.vmm_pid = (int)pid;
			break;
		}
		case 'X':
		case 'E': {
			char *end;
			long long v;

			errno = 0;
			v = strtoll(optarg, &end, 0);
			if (errno || end == optarg || *end) {
				errorf("--test-tsc-%s wants TSC ticks, not '%s'", c == 'X' ? "offset" : "error", optarg);
				return 2;
			}
			if (c == 'X') {
				o->guest.kvm.have_test_offset = true;
				o->guest.kvm.test_offset = v;
			} else {
				o->guest.kvm.test_error = v;
			}
			break;
		}
		case 't':
			o->guest.token = optarg;
			break;
		case 'T':
			o->guest.token_file = optarg;
			break;
		case 'U':
			o->compress = 0;
			uncompressed = true;
			break;
		case 'Z':
			zstd = true;
			o->compress = optarg ? atoi(optarg) : TRACEFILE_ZSTD_LEVEL;
			if (o->compress < 1 || o->compress > 19) {
				errorf("--zstd wants a level from 1 to 19, not '%s'", optarg);
				return 2;
			}
			break;
		case 'c':
			o->cgroup = optarg;
			break;
		case 'h':
			usage_of("record", stdout);
			return 0;
		default:
			usage_of("record", stderr);
			return 2;
		}
	}
	o->command = optind < argc ? argv + optind : NULL;
	if (o->guest.address) {
		struct remote_addr addr;
		char err[256];

		if (remote_addr_parse(o->guest.address, false, &addr, err, sizeof(err))) {
			errorf("--guest: %s", err);
			return 2;
		}
	}
	if (o->cgroup) {
		char err[PATH_MAX + 256];

		if (cgroup_resolve(o->cgroup, o->cgroup_dir, sizeof(o->cgroup_dir), &o->cgroup_id,
				   err, sizeof(err))) {
			errorf("%s", err);
			return 2;
		}
	}
	if (uncompressed && zstd) {
		errorf("--zstd and --uncompressed contradict each other: give one (the default is the compact encoding)");
		return 2;
	}
	if (!o->guest.address && (o->guest.ntargets || o->guest.source || o->guest.command ||
				  o->guest.token || o->guest.token_file)) {
		errorf("--guest-target, --guest-source, --guest-command and --token need --guest ADDRESS");
		return 2;
	}
	if ((o->xentrace_input || o->xentrace_file) && o->source != SOURCE_XENTRACE) {
		errorf("--xentrace-input and --xentrace-file are the xentrace source's: add --source xentrace");
		return 2;
	}
	if (o->xentrace_input && o->xentrace_file) {
		errorf("--xentrace-input converts a file xentrace wrote, --xentrace-file names the one it will write: give one");
		return 2;
	}
	if (o->source == SOURCE_XENTRACE && o->guest.address) {
		errorf("--source xentrace with --guest: merging Xen's trace with a guest's is not done yet (issue 26 item 3)");
		return 2;
	}
	o->guest.quiet = o->quiet;
	return -1;
}

/* CapEff bit 21 of /proc/self/status: CAP_SYS_ADMIN. */
static bool have_sys_admin(void)
{
	char line[256];
	bool yes = false;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long caps;

		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			yes = caps & (1ull << 21);
	}
	if (f)
		fclose(f);
	return yes;
}

static const struct trace_source *choose_source(enum source_choice choice, bool quiet)
{
	char why[256], err[256];
	int present;

	if (choice == SOURCE_TRACEFS)
		return &tracefs_source;
	if (choice == SOURCE_XENTRACE)
		return &xentrace_source;
	present = module_family_present(err, sizeof(err));
	if (present == 1)
		return &module_source;
	if (present == 0)
		explain_module_absent(why, sizeof(why));
	else
		snprintf(why, sizeof(why), "%s", err);
	if (choice == SOURCE_MODULE) {
		errorf("--source module: %s", why);
		return NULL;
	}
	if (!quiet)
		fprintf(stderr, "%s: module source unavailable (%s); using tracefs\n",
			progname, why);
	return &tracefs_source;
}

static void fill_info(struct recorder *r, const struct target_set *targets)
{
	struct trace_info *info = &r->info;
	struct utsname u;

	memset(info, 0, offsetof(struct trace_info, targets));
	info->format_version = TRACEFILE_VERSION;
	info->record_version = GPUPROBE_RECORD_VERSION;
	info->clock_id = CLOCK_MONOTONIC;
	info->source = r->src_ops->file_source;
	if (!uname(&u)) {
		copy_string(info->host, sizeof(info->host), u.nodename);
		copy_string(info->kernel_release, sizeof(info->kernel_release), u.release);
	}
	copy_string(info->tool_version, sizeof(info->tool_version), GPUPROBE_TRACE_VERSION);
	if (&info->targets != targets)
		info->targets = *targets;
}

/* The kernel's count of every target irq, one record each. */
static void snapshot_irq_counts(struct recorder *r, uint32_t phase)
{
	const struct target_set *set = &r->info.targets;

	for (unsigned int i = 0; i < set->count; i++) {
		for (uint32_t j = 0; j < set->t[i].nvec; j++) {
			struct tracefile_rec_irq_count rec = {
				.hdr = { .type = TRACEFILE_REC_IRQ_COUNT, .size = sizeof(rec) },
				.bdf = set->t[i].bdf,
				.irq = set->t[i].vec[j].irq,
				.phase = phase,
			};

			if (irq_kernel_count("/sys", rec.irq, &rec.count))
				continue;
			/* Stamped after the read: see Documentation/trace-format.md. */
			rec.hdr.ts_ns = mono_now_ns();
			sink_to_file(r, &rec.hdr);
		}
	}
}

static void show_status(struct recorder *r, uint64_t start_ns)
{
	struct source_counters c;
	double secs = (double)(mono_now_ns() - start_ns) / 1e9;

	if (!r->status_line)
		return;
	r->src_ops->counters(r->src, &c);
	if (!r->opts.quiet)
		fprintf(stderr, "\r%s: %.1f s, %llu events (%.0f/s), %llu lost   ", progname, secs,
		(unsigned long long)c.events, secs > 0 ? c.events / secs : 0.0,
		(unsigned long long)c.lost);
}

static bool time_to_stop(struct recorder *r, uint64_t deadline_ns)
{
	if (stop_signal)
		return true;
	if (r->have_workload && workload_poll(&r->workload))
		return true;
	/* only the guest runs a command: its end is the recording's */
	if (r->guest && r->opts.guest.command && !r->have_workload && !deadline_ns &&
	    guest_link_ended(r->guest))
		return true;
	return deadline_ns && mono_now_ns() >= deadline_ns;
}

static void stop_source(struct recorder *r)
{
	if (!r->source_stopped)
		r->src_ops->stop(r->src);
	r->source_stopped = true;
}

/*
 * After a write error (disk full, closed pipe) tracing stops but the
 * workload is not killed for our I/O error: wait for it as usual.
 */
static void record_loop(struct recorder *r, uint64_t start_ns)
{
	const struct record_sink sink = { sink_to_file, r };
	struct timespec tick = { 0, POLL_MS * 1000000L };
	uint64_t deadline = 0;

	if (r->opts.duration_s > 0)
		deadline = start_ns + (uint64_t)(r->opts.duration_s * 1e9);
	while (!time_to_stop(r, deadline)) {
		if (r->write_errno) {
			stop_source(r);
			nanosleep(&tick, NULL);	/* SIGCHLD cuts it short */
			continue;
		}
		r->src_ops->poll(r->src, POLL_MS, &sink);
		if (r->guest)
			guest_link_pump(r->guest, &sink);
		/* On disk every POLL_MS: a killed recording loses at most that much. */
		if (!r->write_errno && trace_writer_flush(&r->writer))
			write_failed(r);
		show_status(r, start_ns);
	}
	if (r->status_line)
		fputc('\n', stderr);
}

/*
 * An earlier trace at the output's name is kept as NAME.old (as perf keeps
 * perf.data.old), replacing an older .old; only a regular file is moved.
 */
static bool keep_earlier_trace(struct recorder *r, char *old, size_t size)
{
	const char *path = r->opts.output;
	struct stat st;

	if (r->writer.published || lstat(path, &st) || !S_ISREG(st.st_mode))
		return false;	/* stdout, a FIFO, a device: written in place */
	if (format_into(old, size, "%s.old", path) || rename(path, old)) {
		warnf("%s exists and could not be kept as %s.old (%s): it is replaced",
		      path, path, strerror(errno ? errno : ENAMETOOLONG));
		return false;
	}
	if (!r->opts.quiet)
		fprintf(stderr, "%s: the earlier %s is kept as %s\n", progname, path, old);
	return true;
}

/*
 * The workload's argv, so that report can say what ran; after a merged
 * file's machine record, which must come first (Documentation/trace-format.md).
 */
static int put_command(struct recorder *r)
{
	static unsigned char buf[sizeof(struct tracefile_rec_command) + TRACEFILE_COMMAND_MAX];

	if (!r->have_workload)
		return 0;
	if (!command_record_build(r->opts.command, r->info.start_ns, buf, sizeof(buf))) {
		errno = EOVERFLOW;
		return -1;
	}
	return trace_writer_put(&r->writer, (const struct gpuprobe_rec_hdr *)buf);
}

/* Each target's IOMMU mode as the recording starts (lib/iommu_mode.c). */
static int put_iommu_modes(struct recorder *r)
{
	for (unsigned int i = 0; i < r->info.targets.count; i++) {
		const struct target *t = &r->info.targets.t[i];
		struct tracefile_rec_iommu_mode m;

		iommu_mode_read("", t->name, t->bdf, &m);
		if (r->opts.no_iommu_parts)
			m.flags |= IOMMU_MODE_PARTS_LEFT_OUT;
		m.hdr.ts_ns = r->info.start_ns;
		if (trace_writer_put(&r->writer, &m.hdr))
			return -1;
	}
	return 0;
}

/* The header goes first: a module may deliver records while START is acked. */
static int start_recording(struct recorder *r, uint64_t *start_ns)
{
	char err[256], old[PATH_MAX];
	bool kept;

	*start_ns = mono_now_ns();
	r->info.start_ns = *start_ns;
	r->info.start_realtime_ns = realtime_now_ns();
	r->info.app_events = r->app.active ? TRACEFILE_APP_EXPECTED : TRACEFILE_APP_NONE;
	if (trace_writer_header(&r->writer, &r->info) ||
	    (r->guest && guest_link_put_host(&r->info, r->cfg.sink)) || put_command(r) ||
	    put_iommu_modes(r)) {
		errorf("cannot write %s: %s", r->opts.output, strerror(errno));
		return -1;
	}
	if (r->src_ops->start(r->src, err, sizeof(err))) {
		errorf("%s source: %s", r->src_ops->name, err);
		return -1;
	}
	snapshot_irq_counts(r, IRQ_COUNT_START);
	if (r->guest && guest_link_start(r->guest, r->cfg.sink)) {
		stop_source(r);
		return -1;
	}
	/* The source runs and the header is on disk: from now on a cut file is readable. */
	kept = keep_earlier_trace(r, old, sizeof(old));
	if (trace_writer_publish(&r->writer)) {
		int saved = errno;

		/* the earlier trace back where it was: nothing of the user's is lost */
		if (kept && rename(old, r->opts.output))
			warnf("the earlier %s stays as %s", r->opts.output, old);
		errorf("cannot put the trace in place as %s: %s", r->opts.output, strerror(saved));
		stop_source(r);
		return -1;
	}
	if (r->have_workload)
		workload_release(&r->workload);
	return 0;
}

/* The module's delivery over the run into the file, before its end record. */
static void put_delivery(struct recorder *r, const struct source_counters *c, uint64_t stop_ns)
{
	struct tracefile_rec_delivery d = {
		.hdr = { .type = TRACEFILE_REC_DELIVERY, .size = sizeof(d), .ts_ns = stop_ns },
		.slots = c->slots, .high_water_cpu = c->high_water_cpu,
		.high_water = c->high_water, .wait_max_ns = c->wait_max_ns,
		.ring_dropped = c->ring_dropped, .undelivered = c->undelivered,
		.overrun = c->overrun, .socket_overflows = c->socket_overflows,
		.rcvbuf = c->rcvbuf,
	};

	sink_to_file(r, &d.hdr);
}

/* Stop counts first, so records drained afterwards follow them in the file. */
static int finish_recording(struct recorder *r)
{
	const struct record_sink sink = { sink_to_file, r };
	struct source_counters c;
	uint64_t stop_ns, records;
	int status = -1;

	snapshot_irq_counts(r, IRQ_COUNT_STOP);
	stop_ns = mono_now_ns();
	stop_source(r);
	if (!r->write_errno)
		r->src_ops->drain(r->src, &sink);
	records = r->writer.records;
	if (r->have_workload) {
		workload_stop(&r->workload, stop_signal ? stop_signal : SIGTERM, WORKLOAD_GRACE_MS);
		status = workload_exit_code(&r->workload);
		if (r->write_errno)
			app_inject_discard(&r->app);
		else
			app_inject_merge(&r->app, &r->writer, r->opts.quiet);
	}
	if (r->guest && !r->write_errno) {
		int merged = guest_link_finish(r->guest, &sink);

		r->guest_incomplete = merged != 0;
		if (merged > 0)
			errorf("the guest's part of %s is incomplete: the file is written without its end record, so readers mark it incomplete",
			       r->opts.output);
	}
	r->src_ops->counters(r->src, &c);
	if (c.have_delivery)
		put_delivery(r, &c, stop_ns);
	if (r->write_errno || r->guest_incomplete) {
		trace_writer_close_incomplete(&r->writer);
	} else if (trace_writer_finish(&r->writer, stop_ns, status)) {
		r->write_errno = errno ? errno : EIO;
		errorf("cannot finish %s: %s: the trace is kept without its end record (readable, marked incomplete)",
		       r->opts.output, strerror(r->write_errno));
	}
	if (!r->opts.quiet)
		fprintf(stderr, "%s: %llu records (%llu lost) in %.2f s from %s to %s\n",
			progname, (unsigned long long)records, (unsigned long long)c.lost,
			(double)(stop_ns - r->info.start_ns) / 1e9, r->src_ops->name,
			r->opts.output);
	if (!r->opts.quiet && c.have_delivery)
		fprintf(stderr, "%s: module delivery: fullest ring %llu of %u records (CPU %u), longest wait for the drain %.1f ms, %llu records dropped by the rings (%llu on CPUs without a ring), %llu undelivered (%llu by a full socket, %llu overflows read, receive buffer %d bytes)\n",
			progname, (unsigned long long)c.high_water, c.slots, c.high_water_cpu,
			(double)c.wait_max_ns / 1e6, (unsigned long long)c.ring_dropped,
			(unsigned long long)c.no_ring,
			(unsigned long long)c.undelivered, (unsigned long long)c.overrun,
			(unsigned long long)c.socket_overflows, c.rcvbuf);
	return r->write_errno || r->guest_incomplete ? -1 : 0;
}

static int open_source(struct recorder *r)
{
	static struct record_sink sink;
	char err[256];

	sink = (struct record_sink){ sink_to_file, r };
	r->cfg.sink = &sink;
	r->cfg.targets = &r->info.targets;
	r->cfg.workload_pid = r->have_workload ? r->workload.pid : 0;
	r->cfg.workload_unstarted = r->have_workload;
	r->cfg.cgroup_id = r->opts.cgroup_id;
	r->cfg.cgroup_dir = r->opts.cgroup ? r->opts.cgroup_dir : NULL;
	r->cfg.event_mask = GPUPROBE_EVMASK_ALL;
	if (r->opts.no_iommu_parts)
		r->cfg.event_mask &= ~GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU_PART);
	r->cfg.kvm_vcpu_steps = r->opts.guest.address != NULL;	/* only a merged trace has a crossing */
	r->cfg.xentrace_input = r->opts.xentrace_input;
	r->cfg.xentrace_file = r->opts.xentrace_file;
	r->src = r->src_ops->open(&r->cfg, err, sizeof(err));
	if (!r->src) {
		errorf("%s source: %s", r->src_ops->name, err);
		return -1;
	}
	return 0;
}

static int prepare(struct recorder *r)
{
	struct record_options *o = &r->opts;

	if (targets_from_args("/sys", o->devices, o->ndevices, &r->info.targets))
		return -1;
	/* in dom0 the device is pciback's, its interrupts Xen's: a target is optional */
	if (!r->info.targets.count && o->source != SOURCE_XENTRACE) {
		errorf("no target: this machine has no PCI display-class device; pass -d BDF (lspci -D lists them)");
		return -1;
	}
	r->src_ops = choose_source(o->source, o->quiet);
	if (!r->src_ops)
		return -1;
	fill_info(r, &r->info.targets);
	if (trace_writer_create_temp(&r->writer, o->output) ||
	    trace_writer_compress(&r->writer, o->compress)) {
		errorf("cannot create a file next to %s: %s", o->output, strerror(errno));
		trace_writer_abort(&r->writer);
		return -1;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct recorder *r = calloc(1, sizeof(*r));
	uint64_t start_ns;
	int ret;

	if (!r) {
		errorf("out of memory");
		return 1;
	}
	ret = parse_record_options(argc, argv, &r->opts);
	if (ret >= 0)
		goto out_free;
	ret = 1;
	/* Before anything else: every later failure would be a symptom of this one. */
	if (geteuid() != 0 && !have_sys_admin()) {
		errorf("record needs root: tracing a device's interrupts and DMA is privileged (CAP_SYS_ADMIN); run it with sudo");
		goto out_free;
	}
	if (prepare(r))
		goto out_free;
	if (r->opts.guest.address) {
		r->guest = guest_link_open(&r->opts.guest);
		if (!r->guest)
			goto err_remove_output;
	}
	install_signals();
	if (r->opts.command) {
		if (!r->opts.no_inject)
			app_inject_setup(&r->app, r->opts.inject_dir, r->opts.quiet);
		if (r->opts.api_calls)
			setenv(GPUPROBE_CUDA_API_ENV, r->opts.api_calls, 1);
		setenv(GPUPROBE_RECORDING_ENV, r->src_ops->name, 1);
		if (workload_spawn(&r->workload, r->opts.command, !strcmp(r->opts.output, "-"))) {
			errorf("cannot start '%s': %s", r->opts.command[0], strerror(errno));
			goto err_remove_output;
		}
		r->have_workload = true;
	}
	if (open_source(r))
		goto err_stop_workload;
	r->status_line = !r->opts.quiet && isatty(STDERR_FILENO);
	if (start_recording(r, &start_ns))
		goto err_close_source;
	record_loop(r, start_ns);
	ret = finish_recording(r) ? 1 : 0;
	r->src_ops->close(r->src);
	if (!ret && r->have_workload)
		ret = workload_exit_code(&r->workload);
	else if (!ret && r->guest && r->opts.guest.command)
		ret = guest_link_exit_status(r->guest) > 0 ? guest_link_exit_status(r->guest) : 0;
	goto out_free;

err_close_source:
	r->src_ops->close(r->src);
err_stop_workload:
	if (r->have_workload)
		workload_stop(&r->workload, SIGTERM, WORKLOAD_GRACE_MS);
err_remove_output:
	app_inject_discard(&r->app);
	trace_writer_abort(&r->writer);	/* the temporary file; an older trace stays */
out_free:
	guest_link_free(r->guest);
	free(r);
	return ret;
}
