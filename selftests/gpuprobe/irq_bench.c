// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: cost per edu interrupt, measured side by side in one VM run.
 *
 * Configurations, interleaved round by round so drift hits all alike:
 *   base        nothing attached
 *   gpuprobe    gpuprobe capturing the edu device, a listener draining
 *   ftrace      irq_handler_entry/exit in a tracefs instance, filtered to the irq
 *   other       gpuprobe capturing another device (NVMe, up to 64 vectors):
 *               the cost to interrupts of devices it does not watch
 *   held        gpuprobe capturing the edu device with its delivery held
 *               past the timed window (wake_ms raised for it): the probe's
 *               own cost, on the terms of the ftrace configuration, whose
 *               events also wait in the kernel's buffer with no reader
 * and with -w, the same costs with more or fewer vectors watched:
 *   gpuprobe65  gpuprobe capturing edu and the NVMe drive (1 + 64 vectors)
 *   other1      gpuprobe capturing a second edu device (one vector; VM_EDUS=2)
 *
 * Each sample is the time of raising N interrupts one after another (each
 * handled before the next), divided by N.  With -g, each interrupt is
 * raised from userspace and followed by a fixed amount of work (a counted
 * loop as long as GAP microseconds), so that the records trickle in one
 * per drain instead of in batches.  Under QEMU's -icount shift=0 the guest
 * clock counts executed instructions: the times are instruction counts.
 *
 * Prints medians and the added-cost ratios, "sample NAME VALUE" lines for
 * scripts/benchstat.py (one per configuration per round, and the added
 * costs "added_NAME", each against the same round's base), then the
 * sustained rate the netlink path delivered with zero drops.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <stdint.h>
#include <time.h>

#include "bench.h"
#include "session.h"

#define MAX_ROUNDS	101
#define INST	"/sys/kernel/tracing/instances/gpuprobe_bench"

enum { BASE, GPUPROBE, FTRACE, OTHER, HELD, GPUPROBE65, OTHER1, NCONF };
static const char *names[NCONF] = { "base", "gpuprobe", "ftrace", "other",
				    "held", "gpuprobe65", "other1" };
#define WAKE_MS	"/sys/module/gpuprobe/parameters/wake_ms"
static char wake_ms[16];
static int held_active;

/* wake_ms as found, whatever way the program ends (atexit, die()) */
static void wake_ms_restore(void)
{
	if (held_active && !write_file(WAKE_MS, wake_ms))
		held_active = 0;
}

static int rounds = 21, batch = 2000, sustained = 50000, gap_us, wide;
/* after attaching, before timing: what setup deferred (RCU callbacks) runs */
static int settle_ms = 50;
static char edu[32], edu2[32], nvme[32];
static struct genl_sock ctl, lis;
static volatile int listening;
static struct gp_tally tally;

/* Blocks until records arrive, as gpuprobe-trace does. */
static void *listener(void *arg)
{
	struct pollfd pfd = { .fd = lis.fd, .events = POLLIN };

	while (listening) {
		poll(&pfd, 1, 100);
		gp_drain(&lis, &tally);
	}
	return NULL;
}

static int die(const char *what, int err)
{
	fprintf(stderr, "irq_bench: %s: %s\n", what, strerror(-err));
	exit(1);
}

static void ftrace_set(int irq, int on)
{
	char f[32];

	if (on) {
		mkdir(INST, 0755);
		snprintf(f, sizeof(f), "irq==%d", irq);
		write_file(INST "/events/irq/irq_handler_entry/filter", f);
		write_file(INST "/events/irq/irq_handler_exit/filter", f);
	}
	write_file(INST "/events/irq/irq_handler_entry/enable", on ? "1" : "0");
	write_file(INST "/events/irq/irq_handler_exit/enable", on ? "1" : "0");
}

/* The devices a gpuprobe configuration captures. */
static void targets_set(int conf)
{
	const char *all[] = { edu, edu2, nvme };
	const char *want[2] = { conf == OTHER ? nvme : conf == OTHER1 ? edu2 : edu,
				conf == GPUPROBE65 ? nvme : NULL };
	int i, err;

	for (i = 0; i < 3; i++)
		if (*all[i])
			gp_cmd(&ctl, GPUPROBE_CMD_TARGET_DEL, all[i], 0, 0);
	for (i = 0; i < 2; i++)
		if (want[i] && (err = gp_cmd(&ctl, GPUPROBE_CMD_TARGET_ADD,
					     want[i], 0, 0)))
			die(want[i], err);
}

static void conf_set(int conf, int irq, int on)
{
	int err = 0;

	if (conf == BASE)
		return;
	if (conf == FTRACE) {
		ftrace_set(irq, on);
		return;
	}
	if (on) {
		/* held: the first record's drain comes 100 s later; STOP drains */
		if (conf == HELD) {
			held_active = 1;
			err = write_file(WAKE_MS, "100000");
			if (err)
				die(WAKE_MS, err);
		}
		targets_set(conf);
		err = gp_start(&ctl, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
	} else {
		err = gp_stop(&ctl);
		if (conf == HELD) {
			wake_ms_restore();
			if (held_active)
				die(WAKE_MS, -EIO);
		}
	}
	if (err)
		die(names[conf], err);
}

/* Loop iterations that take about us microseconds (a fixed count after). */
static uint64_t spin_calibrate(unsigned int us)
{
	uint64_t t0 = now_ns(), n = 1000000;

	for (volatile uint64_t i = 0; i < n; i++)
		;
	return n * us * 1000 / (now_ns() - t0 + 1);
}

/* n interrupts; from userspace with `spin` iterations of work after each. */
static void raise_irqs(int fd, int n, uint64_t spin)
{
	char cmd[16];
	int i;

	if (!spin) {
		snprintf(cmd, sizeof(cmd), "%d", n);
		if (pwrite(fd, cmd, strlen(cmd), 0) < 0)
			die("edu irq", -errno);
		return;
	}
	for (i = 0; i < n; i++) {
		if (pwrite(fd, "1", 1, 0) < 0)
			die("edu irq", -errno);
		for (volatile uint64_t j = 0; j < spin; j++)
			;
	}
}

static void pin_to_cpu0(int irq)
{
	cpu_set_t set;
	char path[64];

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irq);
	write_file(path, "0");
}

static void sustained_run(int irq)
{
	struct gp_stats st;
	long long before;
	char cmd[16];
	uint64_t t0, t1;

	targets_set(GPUPROBE);
	memset(&tally, 0, sizeof(tally));
	tally.bdf = gp_bdf(edu);
	before = proc_irq_count(irq);
	gp_start(&ctl, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
	snprintf(cmd, sizeof(cmd), "%d", sustained);
	t0 = now_ns();
	edu_ctl(edu, "irq", cmd);
	t1 = now_ns();
	gp_stop(&ctl);
	usleep(100000);
	gp_drain(&lis, &tally);
	gp_stats(&ctl, &st);
	printf("sustained: %d interrupts in %.3f s = %.0f records/s delivered; "
	       "received %llu, dropped %llu, undelivered %llu, /proc/interrupts delta %lld\n",
	       sustained, (t1 - t0) / 1e9, sustained / ((t1 - t0) / 1e9),
	       (unsigned long long)tally.irq[1], (unsigned long long)st.dropped,
	       (unsigned long long)st.undelivered, proc_irq_count(irq) - before);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: irq_bench [-r ROUNDS] [-n IRQS] [-g GAP_US] [-s SUSTAINED] [-S MS] [-w]\n"
		"  -r  rounds, configurations interleaved (default 21, at most %d)\n"
		"  -n  interrupts per sample (default 2000)\n"
		"  -g  raise each interrupt from userspace, then GAP_US of work\n"
		"  -s  interrupts of the sustained-delivery run (default 50000; 0: none)\n"
		"  -S  milliseconds to wait after attaching, before timing (default 50)\n"
		"  -w  also gpuprobe65 and other1: 65 and 1 vectors watched\n",
		MAX_ROUNDS);
	exit(2);
}

static void report(uint64_t (*samples)[MAX_ROUNDS], int nconf)
{
	uint64_t med[NCONF];
	int r, c;

	for (r = 0; r < rounds; r++)
		for (c = 0; c < nconf; c++) {
			printf("sample %s %llu\n", names[c],
			       (unsigned long long)samples[c][r]);
			if (c != BASE)
				printf("sample added_%s %lld\n", names[c],
				       (long long)(samples[c][r] - samples[BASE][r]));
		}
	for (c = 0; c < nconf; c++) {
		qsort(samples[c], rounds, sizeof(uint64_t), cmp_u64);
		med[c] = samples[c][rounds / 2];
		printf("%-10s %6llu ns  (min %llu, max %llu)\n", names[c],
		       (unsigned long long)med[c],
		       (unsigned long long)samples[c][0],
		       (unsigned long long)samples[c][rounds - 1]);
	}
	for (c = 1; c < nconf; c++)
		printf("added by %-10s %+lld ns\n", names[c],
		       (long long)(med[c] - med[BASE]));
	if (med[FTRACE] > med[BASE])
		printf("ratio gpuprobe/ftrace added cost: %.3f\n",
		       (double)((long long)med[GPUPROBE] - (long long)med[BASE]) /
		       (double)(med[FTRACE] - med[BASE]));
	if (med[FTRACE] > med[BASE] && nconf > HELD)
		printf("ratio held/ftrace added cost: %.3f\n",
		       (double)((long long)med[HELD] - (long long)med[BASE]) /
		       (double)(med[FTRACE] - med[BASE]));
}

int main(int argc, char **argv)
{
	static uint64_t samples[NCONF][MAX_ROUNDS];
	uint64_t t0, spin = 0;
	char path[128];
	pthread_t th;
	int irq, r, c, err, opt, fd, nconf, nvec;

	while ((opt = getopt(argc, argv, "r:n:g:s:S:w")) != -1) {
		switch (opt) {
		case 'r': rounds = atoi(optarg); break;
		case 'n': batch = atoi(optarg); break;
		case 'g': gap_us = atoi(optarg); break;
		case 's': sustained = atoi(optarg); break;
		case 'S': settle_ms = atoi(optarg); break;
		case 'w': wide = 1; break;
		default: usage();
		}
	}
	if (rounds < 1 || rounds > MAX_ROUNDS || batch < 1 || gap_us < 0 ||
	    settle_ms < 0)
		usage();
	nconf = wide ? NCONF : GPUPROBE65;

	if (edu_find(edu, sizeof(edu)) || pci_find(0x1b36, 0x0010, nvme, sizeof(nvme)))
		die("edu or nvme device", -ENODEV);
	if (wide && pci_find_nth(0x1234, 0x11e8, 1, edu2, sizeof(edu2)))
		die("a second edu device for other1 (VM_EDUS=2)", -ENODEV);
	if (!mod_loaded("gpuprobe_edu") && (err = mod_load(EDU_KO, NULL)))
		die("load gpuprobe_edu", err);
	if (!mod_loaded("gpuprobe") && (err = mod_load(GPUPROBE_KO, NULL)))
		die("load gpuprobe", err);
	err = read_file(WAKE_MS, wake_ms, sizeof(wake_ms));
	if (err)
		die(WAKE_MS, err);
	atexit(wake_ms_restore);
	irq = (int)edu_stat(edu, "irq");
	/* raiser and handler on one vCPU: no cross-vCPU wake-up in the loop */
	pin_to_cpu0(irq);
	if ((err = genl_open(&ctl, GPUPROBE_FAMILY_NAME, NULL)))
		die("genl", err);
	if ((err = gp_listen(&lis, 16 << 20)))
		die("listen", err);
	listening = 1;
	pthread_create(&th, NULL, listener, NULL);
	snprintf(path, sizeof(path), EDU_DEBUGFS "/%s/irq", edu);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die(path, -errno);
	if (gap_us)
		spin = spin_calibrate(gap_us);

	targets_set(OTHER);
	nvec = gp_target_nvec(&ctl, nvme);
	printf("# irq_bench: %ld CPUs online, %d rounds of %d interrupts, %s; "
	       "NVMe %s: %d vectors watched\n",
	       sysconf(_SC_NPROCESSORS_ONLN), rounds, batch,
	       gap_us ? "each raised from userspace, then a fixed loop" :
			"back to back", nvme, nvec);
	if (gap_us)
		printf("# loop after each: %llu iterations (%u us when calibrated)\n",
		       (unsigned long long)spin, gap_us);

	raise_irqs(fd, batch, spin);	/* warm up */
	for (r = 0; r < rounds; r++) {
		for (c = 0; c < nconf; c++) {
			conf_set(c, irq, 1);
			usleep(settle_ms * 1000);
			t0 = now_ns();
			raise_irqs(fd, batch, spin);
			samples[c][r] = (now_ns() - t0) / batch;
			conf_set(c, irq, 0);
		}
	}
	rmdir(INST);
	close(fd);

	printf("# cost per edu interrupt (raise -> handled), ns; median of %d rounds of %d\n",
	       rounds, batch);
	report(samples, nconf);
	if (sustained)
		sustained_run(irq);
	listening = 0;
	pthread_join(th, NULL);
	return 0;
}
