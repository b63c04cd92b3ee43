// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failure at every point of the module's operations, the way
 * syzkaller does it: /proc/thread-self/fail-nth = k makes the k-th
 * fault-injectable call (slab or page allocation) of this task fail.  For
 * each operation, k runs 1, 2, ... until the operation completes without the
 * fault being reached; every attempt before that must end in a clean error
 * (or a successful fallback), leave consistent state behind, and let the next
 * attempt run.  Leaks are caught by the VM harness's kmemleak scan, crashes
 * and lock problems by the debug kernel.
 *
 * Operations: insmod (from argument parsing on: sysfs setup and module init:
 * hooks, notifier, targets, family; see loader_points()),
 * START of interrupt events (rings, tracepoints, batch buffer), TARGET_ADD,
 * and driver bind during a session (the bus notifier re-reads the vectors and
 * publishes the irq map, the code the periodic rescan work runs; its faults
 * come from the module's own attribute, see op_bind()), and the rescan work
 * itself (op_rescan(), in a kworker).  After each bind the
 * session must record the device's interrupts exactly, /proc/interrupts
 * against the records.
 *
 * Needs CONFIG_FAULT_INJECTION_DEBUG_FS with FAILSLAB and FAIL_PAGE_ALLOC:
 * skips (4) on kernels without it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <time.h>

#include "session.h"

#define MAX_POINTS	4000
#define EDU_DRV		"/sys/bus/pci/drivers/gpuprobe_edu"

static int nth_fd = -1;
static char edu[32];

static void nth_arm(unsigned int k)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "%u", k);

	if (pwrite(nth_fd, buf, n, 0) != n)
		exit(1);
}

/* true when the armed fault was injected; disarms it either way */
static bool nth_fired(void)
{
	char buf[16] = "";
	bool fired;

	if (pread(nth_fd, buf, sizeof(buf) - 1, 0) <= 0)
		exit(1);
	fired = atoi(buf) == 0;
	if (pwrite(nth_fd, "0", 1, 0) != 1)
		exit(1);
	return fired;
}

static int open_ctl(struct genl_sock *s)
{
	struct timeval tv = { .tv_sec = 5 };
	int err = genl_open(s, GPUPROBE_FAMILY_NAME, NULL);

	if (!err)
		setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return err;
}

static bool running(struct genl_sock *s)
{
	struct gp_stats st;

	return gp_stats(s, &st) == 0 && st.running;
}

static bool has_target(struct genl_sock *s, const char *bdf)
{
	char list[1024];

	return gp_targets(s, list) == 0 && strstr(list, bdf);
}

struct op_result {
	unsigned int points;	/* faults injected, each handled */
	unsigned int failed;	/* of those, the operation reported an error */
	unsigned int bad;	/* inconsistent state afterwards */
	bool completed;		/* ran clean once no fault was left to hit */
};

static struct timespec op_start;

static void op_begin(void)
{
	clock_gettime(CLOCK_MONOTONIC, &op_start);
}

static void report(int n, const char *name, const struct op_result *r)
{
	bool ok = r->completed && !r->bad && r->points > 0;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	printf("# %s: %.1f s\n", name, (now.tv_sec - op_start.tv_sec) +
	       (now.tv_nsec - op_start.tv_nsec) / 1e9);
	printf("# %s: %u allocation points failed in turn, %u gave an error, %u fell back; %u left bad state; %s\n",
	       name, r->points, r->failed, r->points - r->failed, r->bad,
	       r->completed ? "then completed" : "never completed");
	printf("%sok %d %s survives failure at every allocation\n",
	       ok ? "" : "not ", n, name);
}

/*
 * The module loader's allocations before argument parsing (copying, layout,
 * relocation: hundreds of them, the same for any module) are the loader's,
 * not ours: count them with a load that fails at argument parsing, and fail
 * every allocation from there on (sysfs setup, then our init).
 */
static unsigned int loader_points(void)
{
	char buf[16] = "";
	int err;

	nth_arm(1000000);
	err = mod_load(GPUPROBE_KO, "max_targets=not-a-number");
	if (pread(nth_fd, buf, sizeof(buf) - 1, 0) <= 0 ||
	    pwrite(nth_fd, "0", 1, 0) != 1)
		exit(1);
	if (err != -EINVAL) {
		printf("# a load with a bad parameter gave %s, not EINVAL\n",
		       strerror(-err));
		if (!err)
			mod_unload("gpuprobe");
		return 0;
	}
	return 1000000 - atoi(buf);
}

static void op_insmod(struct op_result *r)
{
	unsigned int first = loader_points() + 1;
	char param[64];

	printf("# insmod: the loader's first %u allocation points (before argument parsing) left alone\n",
	       first - 1);
	snprintf(param, sizeof(param), "target=%s", edu);
	for (unsigned int k = first; k < first + MAX_POINTS; k++) {
		int err;
		bool fired;

		nth_arm(k);
		err = mod_load(GPUPROBE_KO, param);
		fired = nth_fired();
		if (err && !fired) {
			printf("# insmod failed without an injected fault: %s\n",
			       strerror(-err));
			r->bad++;
			return;
		}
		if (fired) {
			r->points++;
			r->failed += !!err;
			if (err && mod_loaded("gpuprobe")) {
				printf("# insmod k=%u: error %s but the module stayed\n",
				       k, strerror(-err));
				r->bad++;
			}
		}
		if (!err)
			mod_unload("gpuprobe");
		if (!fired) {
			r->completed = true;
			return;
		}
	}
}

/*
 * A netlink op under fault injection, on a fresh socket each time.  The
 * state is checked and undone on the same socket: it owns the session, and
 * closing it would stop the session behind our back.
 */
static void op_genl(struct op_result *r, uint8_t cmd, bool start)
{
	for (unsigned int k = 1; k < MAX_POINTS; k++) {
		struct genl_sock s;
		int err, undo;
		bool fired;

		if (open_ctl(&s)) {
			r->bad++;
			return;
		}
		nth_arm(k);
		/*
		 * Interrupt events: rings and tracepoints.  The DMA events'
		 * kretprobes add one allocation per instance (maxactive per
		 * probe), hundreds of identical points in the kernel's own
		 * register_kretprobe(), each a full START and rollback:
		 * minutes apiece under TCG, so not here.
		 */
		if (start)
			err = gp_start(&s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
		else
			err = gp_cmd(&s, cmd, edu, 0, 0);
		fired = nth_fired();
		if (err && !fired) {
			printf("# %s failed without an injected fault: %s\n",
			       start ? "START" : "TARGET_ADD", strerror(-err));
			r->bad++;
		}
		if (fired) {
			r->points++;
			r->failed += !!err;
		}
		/*
		 * An error may come from the netlink core after the op ran
		 * (the ack could not be allocated: the socket then reports
		 * ENOBUFS once), so state is judged, not the error: it must be
		 * one whole thing or the other.
		 */
		for (int tries = 0; tries < 2; tries++) {
			if (start)
				undo = running(&s) ? gp_stop(&s) : 0;
			else
				undo = has_target(&s, edu) ?
				       gp_cmd(&s, GPUPROBE_CMD_TARGET_DEL, edu, 0, 0) : 0;
			if (undo != -ENOBUFS)
				break;
		}
		if (undo) {
			printf("# k=%u: undoing the op: %s\n", k, strerror(-undo));
			r->bad++;
		}
		genl_close(&s);
		if (!fired) {
			r->completed = !r->bad;
			return;
		}
	}
}

/*
 * The module's own fault attribute (debugfs fail_gpuprobe, debug kernels
 * only): counts only gpuprobe's target-tracking allocations, and with
 * task-filter only those of tasks marked make-it-fail (this one).
 */
#define FAIL_GP		"/sys/kernel/debug/fail_gpuprobe"

static bool gp_fail_arm(unsigned int k, bool this_task)
{
	char n[16];

	snprintf(n, sizeof(n), "%u", k);
	return !write_file(FAIL_GP "/verbose", "0") &&
	       !write_file(FAIL_GP "/task-filter", this_task ? "Y" : "N") &&
	       !write_file(FAIL_GP "/space", n) &&
	       !write_file(FAIL_GP "/times", "1") &&
	       !write_file(FAIL_GP "/probability", "100");
}

/* true when the armed fault was injected; disarms it either way */
static bool gp_fail_fired(void)
{
	char times[16] = "";

	if (read_file(FAIL_GP "/times", times, sizeof(times)) ||
	    write_file(FAIL_GP "/probability", "0"))
		exit(1);
	return atoi(times) == 0;
}

/*
 * The session records the device's interrupts exactly: after a fault in the
 * notifier the periodic rescan (500 ms) re-reads the vectors and republishes
 * the irq map, with no other bind.
 */
static bool records_exact(struct genl_sock *l, struct gp_tally *t)
{
	long long proc = 0;
	uint64_t rec = 0;

	usleep(1200 * 1000);
	if (gp_raise_and_count(l, t, edu, 3, &proc, &rec))
		return false;
	if (proc == 3 && rec == 3)
		return true;
	printf("# 3 interrupts raised: /proc/interrupts +%lld, records +%llu\n",
	       proc, (unsigned long long)rec);
	return false;
}

/*
 * Driver bind during a session: the notifier reads the vectors and publishes
 * the irq map.  fail-nth cannot aim there: the driver probe before it
 * allocates a different amount on every bind (kmemleak, debug objects,
 * dentry caches), and its points are not safe to fail (ACPICA's _PRT error
 * path has a use-after-free; register_irq_proc() ignores a failed proc_mkdir
 * and the unbind then WARNs).  So the module's own attribute fails its k-th
 * allocation of the bind, k = 1, 2, ... until none is left.
 */
static void op_bind(struct op_result *r, struct genl_sock *l,
		    struct gp_tally *t)
{
	char path[256];

	snprintf(path, sizeof(path), EDU_DRV "/%s", edu);
	if (write_file("/proc/thread-self/make-it-fail", "1")) {
		r->bad++;
		return;
	}
	for (unsigned int k = 1; k < MAX_POINTS; k++) {
		int err;
		bool fired;

		if (access(path, F_OK) == 0 &&
		    write_file(EDU_DRV "/unbind", edu)) {
			r->bad++;
			return;
		}
		if (!gp_fail_arm(k, true)) {
			printf("# cannot arm " FAIL_GP "\n");
			r->bad++;
			return;
		}
		err = write_file(EDU_DRV "/bind", edu);
		fired = gp_fail_fired();
		if (err) {
			/* the notifier's result is not the bind's */
			printf("# bind k=%u failed: %s\n", k, strerror(-err));
			r->bad++;
			return;
		}
		if (!records_exact(l, t)) {
			printf("# bind k=%u%s left the device's interrupts unrecorded\n",
			       k, fired ? " (fault injected)" : "");
			r->bad++;
		}
		if (!fired) {
			r->completed = true;
			break;
		}
		r->points++;
	}
	write_file("/proc/thread-self/make-it-fail", "0");
}

/*
 * The rescan work, a kworker (no per-task fault reaches it, so the
 * attribute counts every task here).  edu gives its MSI vector back while
 * bound (its "vectors" file): the free_irq kprobe runs the rescan at once,
 * which reads the device's vectors, now its INTx line (allocation 1), and
 * publishes the map (allocation 2).  Each fails in turn; the retry after it
 * must repair.  Then edu takes an MSI vector again, and its interrupts are
 * recorded.
 */
static void op_rescan(struct op_result *r, struct genl_sock *l,
		      struct gp_tally *t)
{
	for (unsigned int k = 1; k <= 2; k++) {
		bool fired = false;

		if (!gp_fail_arm(k, false) ||
		    edu_ctl(edu, "vectors", "free")) {
			printf("# rescan k=%u: cannot arm, or edu kept its vector\n",
			       k);
			r->bad++;
			break;
		}
		for (int i = 0; i < 40 && !fired; i++) {
			char times[16] = "";

			usleep(50000);
			if (!read_file(FAIL_GP "/times", times, sizeof(times)))
				fired = atoi(times) == 0;
		}
		gp_fail_fired();
		r->points += fired;
		if (!fired)
			printf("# rescan k=%u: no fault injected in 2 s\n", k);
		if (edu_ctl(edu, "vectors", "alloc") || !records_exact(l, t)) {
			printf("# rescan k=%u: the device's interrupts unrecorded after the next rescan\n",
			       k);
			r->bad++;
		}
	}
	r->completed = r->points == 2;
}

static bool configure(const char *dir)
{
	char path[128];
	static const char *const set[][2] = {
		{ "ignore-gfp-wait", "N" },	/* GFP_KERNEL too */
		{ "verbose", "0" },
		{ "probability", "0" },		/* only fail-nth fires */
	};

	for (unsigned int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, set[i][0]);
		if (write_file(path, set[i][1]))
			return false;
	}
	snprintf(path, sizeof(path), "%s/min-order", dir);
	if (!access(path, F_OK))
		write_file(path, "0");
	return true;
}

int main(void)
{
	struct op_result ins = { 0 }, start = { 0 }, add = { 0 }, bind = { 0 };
	struct op_result rescan = { 0 };
	struct gp_tally tally = { 0 };
	struct genl_sock s, l;
	int err;

	printf("TAP version 13\n");
	if (access("/proc/thread-self/fail-nth", F_OK) ||
	    !configure("/sys/kernel/debug/failslab") ||
	    !configure("/sys/kernel/debug/fail_page_alloc")) {
		printf("1..0 # SKIP no fail-nth, failslab or fail_page_alloc (a debug kernel has them)\n");
		return 4;
	}
	printf("1..5\n");
	err = gp_setup_edu(edu, sizeof(edu), NULL, &s);
	if (err) {
		printf("Bail out! setup: %s\n", strerror(-err));
		return 1;
	}
	genl_close(&s);
	mod_unload("gpuprobe");
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		return 1;

	op_begin();
	op_insmod(&ins);
	report(1, "insmod", &ins);
	fflush(stdout);

	if (mod_load(GPUPROBE_KO, NULL) || open_ctl(&s)) {
		printf("Bail out! loading gpuprobe\n");
		return 1;
	}
	/* START with edu as the target */
	gp_cmd(&s, GPUPROBE_CMD_TARGET_ADD, edu, 0, 0);
	op_begin();
	op_genl(&start, GPUPROBE_CMD_START, true);
	report(2, "START", &start);
	fflush(stdout);

	gp_cmd(&s, GPUPROBE_CMD_TARGET_DEL, edu, 0, 0);
	op_begin();
	op_genl(&add, GPUPROBE_CMD_TARGET_ADD, false);
	report(3, "TARGET_ADD", &add);
	fflush(stdout);

	/* bind with edu watched, during a session */
	gp_cmd(&s, GPUPROBE_CMD_TARGET_ADD, edu, 0, 0);
	if (gp_listen(&l, 8 << 20) ||
	    gp_start(&s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ))) {
		printf("Bail out! a session for the bind\n");
		return 1;
	}
	tally.bdf = gp_bdf(edu);
	op_begin();
	op_bind(&bind, &l, &tally);
	report(4, "driver bind (vector re-read, irq map publish)", &bind);
	fflush(stdout);
	op_begin();
	op_rescan(&rescan, &l, &tally);
	report(5, "the rescan work", &rescan);
	gp_stop(&s);
	genl_close(&l);
	genl_close(&s);
	mod_unload("gpuprobe");

	return ins.completed && start.completed && add.completed &&
	       bind.completed && rescan.completed && !ins.bad && !start.bad &&
	       !add.bad && !bind.bad && !rescan.bad ? 0 : 1;
}
