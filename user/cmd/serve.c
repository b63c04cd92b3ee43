// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe-trace serve: a Prometheus exporter left running.  The main
 * thread owns the source (the module's summary histograms, or tracefs read
 * into running totals) and reopens it when it goes away; libmicrohttpd's
 * thread answers scrapes (output/http.c).  A scrape asks the main thread
 * for a cut (the targets resolved again, the kernel's count of every vector
 * read, the source drained up to then) and renders the totals under the
 * lock: so the interrupt counters and the kernel's counters of one scrape
 * agree (Documentation/fleet.md).  The main thread also cuts every second
 * between scrapes: a module unloaded, or a device unbound, is seen within
 * a second, not at the next scrape.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "cgroup.h"
#include "cmds.h"
#include "metrics.h"
#include "netlink_summary.h"
#include "prometheus.h"
#include "source.h"
#include "util.h"

#define SERVE_DEFAULT_LISTEN	"127.0.0.1:9477"
#define SERVE_POLL_MS		50
#define SERVE_CUT_MS		1000	/* between scrapes */
#define SERVE_RETRY_MS		2000
#define SCRAPE_WAIT_MS		3000

enum serve_source { SERVE_AUTO, SERVE_MODULE, SERVE_TRACEFS };

struct serve {
	/* options */
	const char *listen;
	enum serve_source choice;
	const char *role;
	pid_t pid;
	const char *cgroup;		/* --cgroup PATH */
	char cgroup_dir[PATH_MAX];
	uint64_t cgroup_id;
	bool quiet;
	char *devices[TARGET_MAX];
	unsigned int ndevices;
	/* the source */
	bool use_module;
	struct target_set *targets;	/* as resolved now */
	struct source_config cfg;
	struct record_sink sink;
	void *tracefs;			/* tracefs_source's handle */
	struct summary_session *summary;
	bool was_up, reported;
	bool starting;			/* the first open: a failure is the caller's to say */
	struct target_set *current;	/* rescanned: drivers and vectors now */
	uint64_t next_retry_ns, next_cut_ns;
	/* shared with the HTTP thread, under lock */
	pthread_mutex_t lock;
	pthread_cond_t cut_done;
	uint64_t cuts_requested, cuts_done;
	struct metrics m;
};

static volatile sig_atomic_t serve_exiting;

static void on_exit_signal(int sig)
{
	(void)sig;
	serve_exiting = 1;
}

static int put_record(void *ctx, const struct gpuprobe_rec_hdr *rec)
{
	struct serve *s = ctx;

	pthread_mutex_lock(&s->lock);
	metrics_add_record(&s->m, rec);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static void on_summary_hist(void *ctx, uint32_t bdf, uint32_t vector,
			    const uint64_t buckets[SUMMARY_BUCKETS])
{
	metrics_add_summary(&((struct serve *)ctx)->m, bdf, vector, buckets);
}

/* Says so on stderr when the state changes, and counts reconnections. */
static void set_health(struct serve *s, bool up, const char *why)
{
	bool changed;

	pthread_mutex_lock(&s->lock);
	changed = up != s->m.source_up || !s->reported;
	if (up && !s->m.source_up && s->was_up)
		s->m.source_reconnects++;
	s->m.source_up = up;
	copy_string(s->m.source_error, sizeof(s->m.source_error), up ? "" : why);
	pthread_mutex_unlock(&s->lock);
	if (changed && !s->quiet && up)
		fprintf(stderr, "%s: serve: %s source %s\n", progname, s->m.source,
			s->was_up ? "reconnected" : "running");
	else if (changed && !s->quiet && !s->starting)
		fprintf(stderr, "%s: serve: %s source down: %s; retrying every %d s\n", progname,
			s->m.source, why, SERVE_RETRY_MS / 1000);
	s->reported = true;
	s->was_up |= up;
}

static void close_source(struct serve *s)
{
	if (s->tracefs) {
		tracefs_source.stop(s->tracefs);
		tracefs_source.close(s->tracefs);
		s->tracefs = NULL;
	}
	summary_close(s->summary);
	s->summary = NULL;
}

/* Whether the source runs now; err says why not. */
static bool open_source(struct serve *s, char *err, size_t errlen)
{
	err[0] = 0;
	if (s->use_module) {
		s->summary = summary_open(s->targets, err, errlen);
		if (s->summary) {
			pthread_mutex_lock(&s->lock);
			metrics_summary_session(&s->m);
			pthread_mutex_unlock(&s->lock);
		}
	} else {
		s->tracefs = tracefs_source.open(&s->cfg, err, errlen);
		if (s->tracefs && tracefs_source.start(s->tracefs, err, errlen)) {
			tracefs_source.close(s->tracefs);
			s->tracefs = NULL;
		}
	}
	set_health(s, s->summary || s->tracefs, err);
	return s->summary || s->tracefs;
}

/* Driver, bound state and vectors now: an unbind or rebind shows at once. */
static void rescan_targets(struct serve *s)
{
	char err[256];

	s->current->count = s->targets->count;
	for (unsigned int i = 0; i < s->targets->count; i++) {
		struct target *t = &s->current->t[i];

		if (target_resolve("/sys", s->targets->t[i].bdf, t, err, sizeof(err))) {
			*t = s->targets->t[i];	/* gone: no driver, no vectors */
			t->driver[0] = 0;
			t->nvec = 0;
		}
	}
	pthread_mutex_lock(&s->lock);
	metrics_update_targets(&s->m, s->current);
	pthread_mutex_unlock(&s->lock);
}

/* The module's summaries, or the tracefs buffers read to now. */
static void read_source(struct serve *s, int timeout_ms)
{
	char err[256];
	uint64_t dropped = 0;
	int ret;

	if (s->tracefs) {
		if (tracefs_source.poll(s->tracefs, timeout_ms, &s->sink) == 0)
			return;
		snprintf(err, sizeof(err), "reading the tracefs instance failed");
	} else if (s->summary) {
		pthread_mutex_lock(&s->lock);
		ret = summary_read(s->summary, on_summary_hist, s, &dropped, err, sizeof(err));
		if (!ret)
			s->m.lost = dropped;
		pthread_mutex_unlock(&s->lock);
		if (!ret)
			return;
	} else {
		return;
	}
	close_source(s);
	set_health(s, false, err);
	/* at once: a module reloaded between two reads is back already */
	s->next_retry_ns = mono_now_ns();
}

/*
 * A vector's kernel count and the time to cut at: two reads that agree, the
 * time taken between them.  An interrupt counted by the first read had its
 * handler entered before that time, one the second did not count enters
 * after it; two reads that differ (an interrupt in between, or another irq
 * behind the number) are taken again.
 */
static int kernel_count_at(struct kernel_count *kc)
{
	uint64_t again, id_again;

	for (int tries = 0; tries < 16; tries++) {
		if (irq_desc_id("/sys", kc->irq, &kc->irq_id))
			kc->irq_id = 0;
		if (irq_kernel_count("/sys", kc->irq, &kc->count))
			return -1;
		kc->cut_ns = mono_now_ns();
		if (irq_kernel_count("/sys", kc->irq, &again))
			return -1;
		if (irq_desc_id("/sys", kc->irq, &id_again))
			id_again = 0;
		if (again == kc->count && id_again == kc->irq_id)
			break;
	}
	return 0;
}

/* Targets resolved again, the kernel's count of each vector, the source drained past it. */
static void cut(struct serve *s)
{
	rescan_targets(s);
	for (unsigned int i = 0; i < s->current->count; i++) {
		const struct target *t = &s->current->t[i];

		for (uint32_t j = 0; j < t->nvec; j++) {
			struct kernel_count kc = { .irq = t->vec[j].irq };

			if (kernel_count_at(&kc))
				continue;
			pthread_mutex_lock(&s->lock);
			metrics_kernel_count(&s->m, t->bdf, t->vec[j].index, &kc);
			pthread_mutex_unlock(&s->lock);
		}
	}
	read_source(s, 0);
}

/* The HTTP thread: ask for a cut, wait for it, render. */
static int render(void *ctx, char **text, size_t *len)
{
	struct serve *s = ctx;
	struct timespec deadline;
	uint64_t mine;
	FILE *out;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += SCRAPE_WAIT_MS / 1000;
	pthread_mutex_lock(&s->lock);
	mine = ++s->cuts_requested;
	while (s->cuts_done < mine && !serve_exiting)
		if (pthread_cond_timedwait(&s->cut_done, &s->lock, &deadline) == ETIMEDOUT)
			break;		/* the main thread is stuck: serve what there is */
	s->m.scrapes++;
	out = open_memstream(text, len);
	if (out) {
		prometheus_write(out, &s->m, GPUPROBE_TRACE_VERSION);
		if (fclose(out))
			out = NULL;
	}
	pthread_mutex_unlock(&s->lock);
	return out ? 0 : -1;
}

static void serve_loop(struct serve *s)
{
	while (!serve_exiting) {
		uint64_t now = mono_now_ns(), wanted;
		struct timespec tick = { 0, SERVE_POLL_MS * 1000000L };

		if (!s->tracefs && !s->summary && now >= s->next_retry_ns) {
			char err[256];

			open_source(s, err, sizeof(err));
			s->next_retry_ns = now + SERVE_RETRY_MS * 1000000ull;
		}
		/* the first cut, right after the first open, is the vectors' baseline */
		if (now >= s->next_cut_ns) {
			cut(s);
			s->next_cut_ns = now + SERVE_CUT_MS * 1000000ull;
		}
		if (s->tracefs)
			read_source(s, SERVE_POLL_MS);
		else
			nanosleep(&tick, NULL);
		pthread_mutex_lock(&s->lock);
		wanted = s->cuts_requested;
		pthread_mutex_unlock(&s->lock);
		if (wanted == s->cuts_done)
			continue;
		cut(s);
		pthread_mutex_lock(&s->lock);
		s->cuts_done = wanted;
		pthread_cond_broadcast(&s->cut_done);
		pthread_mutex_unlock(&s->lock);
	}
}

/* host: the device is given to a guest (vfio-pci) here; guest: this kernel runs under a hypervisor. */
static const char *auto_role(const struct target_set *set)
{
	char flags[65536];

	for (unsigned int i = 0; i < set->count; i++)
		if (!strcmp(set->t[i].driver, "vfio-pci"))
			return "host";
	if (!read_text_file("/proc/cpuinfo", flags, sizeof(flags)) && strstr(flags, " hypervisor"))
		return "guest";
	return "host";
}

static int parse_serve_args(struct serve *s, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "device", required_argument, NULL, 'd' },
		{ "source", required_argument, NULL, 's' },
		{ "role", required_argument, NULL, 'r' },
		{ "pid", required_argument, NULL, 'p' },
		{ "cgroup", required_argument, NULL, 'c' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t pid;
	int c;

	s->listen = SERVE_DEFAULT_LISTEN;
	while ((c = getopt_long(argc, argv, "l:d:s:r:p:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			s->listen = optarg;
			break;
		case 'd':
			if (device_arg_add(s->devices, &s->ndevices, optarg))
				return 2;
			break;
		case 's':
			if (!strcmp(optarg, "auto"))
				s->choice = SERVE_AUTO;
			else if (!strcmp(optarg, "module"))
				s->choice = SERVE_MODULE;
			else if (!strcmp(optarg, "tracefs"))
				s->choice = SERVE_TRACEFS;
			else {
				errorf("--source %s: expected auto, module or tracefs", optarg);
				return 2;
			}
			break;
		case 'r':
			if (strcmp(optarg, "host") && strcmp(optarg, "guest") && strcmp(optarg, "auto")) {
				errorf("--role %s: expected host, guest or auto", optarg);
				return 2;
			}
			s->role = strcmp(optarg, "auto") ? optarg : NULL;
			break;
		case 'p':
			if (parse_u64(optarg, &pid) || !pid || pid > 0x7fffffff) {
				errorf("--pid %s: expected a process id", optarg);
				return 2;
			}
			s->pid = (pid_t)pid;
			break;
		case 'c':
			s->cgroup = optarg;
			break;
		case 'q':
			s->quiet = true;
			break;
		case 'h':
			usage_of("serve", stdout);
			return 0;
		default:
			usage_of("serve", stderr);
			return 2;
		}
	}
	if (optind < argc) {
		errorf("serve takes no arguments (%s): targets are -d BDF", argv[optind]);
		return 2;
	}
	if (s->cgroup) {
		char err[PATH_MAX + 256];

		if (s->choice == SERVE_MODULE) {
			errorf("serve --cgroup needs the tracefs source: the module serves interrupt summaries only, no wake-ups");
			return 2;
		}
		if (cgroup_resolve(s->cgroup, s->cgroup_dir, sizeof(s->cgroup_dir), &s->cgroup_id,
				   err, sizeof(err))) {
			errorf("serve: %s", err);
			return 2;
		}
		s->choice = SERVE_TRACEFS;	/* auto: the one that has wake-ups */
	}
	return -1;
}

static bool choose_module(struct serve *s)
{
	char err[256], why[256];
	int present;

	if (s->choice == SERVE_TRACEFS)
		return false;
	present = module_family_present(err, sizeof(err));
	if (present == 1 || s->choice == SERVE_MODULE)
		return true;	/* --source module: wait for it to be loaded */
	if (present == 0)
		explain_module_absent(why, sizeof(why));
	if (!s->quiet)
		fprintf(stderr, "%s: serve: module source unavailable (%s); using tracefs\n",
			progname, present == 0 ? why : err);
	return false;
}

static void install_signals(void)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = on_exit_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

int cmd_serve(int argc, char **argv)
{
	struct serve *s = calloc(1, sizeof(*s));
	struct http_server *http;
	char err[256];
	int ret;

	if (!s || !(s->targets = calloc(1, sizeof(*s->targets))) ||
	    !(s->current = calloc(1, sizeof(*s->current)))) {
		errorf("out of memory");
		return 1;
	}
	ret = parse_serve_args(s, argc, argv);
	if (ret >= 0)
		goto out_free;
	ret = 1;
	if (targets_from_args("/sys", s->devices, s->ndevices, s->targets))
		goto out_free;
	if (!s->targets->count) {
		errorf("serve: no target: this machine has no PCI display-class device; pass -d BDF (lspci -D lists them)");
		goto out_free;
	}
	if (s->pid && kill(s->pid, 0) && errno == ESRCH) {
		errorf("serve: --pid %d: no such process", (int)s->pid);
		goto out_free;
	}
	*s->current = *s->targets;
	s->use_module = choose_module(s);
	if (metrics_init(&s->m, s->targets, s->role ? s->role : auto_role(s->targets),
			 s->use_module ? "module" : "tracefs")) {
		errorf("out of memory");
		goto out_free;
	}
	s->m.detailed = !s->use_module;
	s->sink = (struct record_sink){ put_record, s };
	s->cfg = (struct source_config){ .targets = s->targets, .workload_pid = s->pid,
					 .event_mask = GPUPROBE_EVMASK_ALL, .sink = &s->sink };
	if (s->cgroup) {
		s->cfg.cgroup_id = s->cgroup_id;
		s->cfg.cgroup_dir = s->cgroup_dir;
		metrics_label_wakeups(&s->m, "cgroup", s->cgroup_dir);
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cut_done, NULL);
	install_signals();
	/*
	 * A source that cannot be read at the start is an error, said now with
	 * its cause; only one that ran is retried after it fails (or the module,
	 * with --source module, waited for).
	 */
	s->starting = true;
	if (!(s->use_module && s->choice == SERVE_MODULE) && !open_source(s, err, sizeof(err))) {
		errorf("serve: cannot read the %s source: %s", s->m.source, err);
		goto out_metrics;
	}
	s->starting = false;
	http = http_start(s->listen, render, s, err, sizeof(err));
	if (!http) {
		errorf("%s", err);
		close_source(s);
		goto out_metrics;
	}
	if (!s->quiet)
		fprintf(stderr, "%s: serve: http://%s/metrics, %u target(s), %s source\n",
			progname, s->listen, s->targets->count, s->m.source);
	serve_loop(s);
	pthread_mutex_lock(&s->lock);
	pthread_cond_broadcast(&s->cut_done);
	pthread_mutex_unlock(&s->lock);
	http_stop(http);
	close_source(s);
	ret = 0;
out_metrics:
	metrics_free(&s->m);
out_free:
	if (s) {
		free(s->targets);
		free(s->current);
	}
	free(s);
	return ret;
}
