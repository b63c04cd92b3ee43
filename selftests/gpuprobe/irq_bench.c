// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: cost per edu interrupt, measured side by side in one VM run.
 *
 * Configurations, interleaved round by round so drift hits all alike:
 *   base      nothing attached
 *   gpuprobe  gpuprobe capturing the edu device, a listener draining
 *   ftrace    irq_handler_entry/exit in a tracefs instance, filtered to the irq
 *   other     gpuprobe capturing another device (NVMe): cost to non-targets
 * Each sample is the wall time of raising N interrupts one after another
 * (each handled before the next).  Prints medians and the added-cost ratios,
 * then the sustained rate the netlink path delivered with zero drops.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <stdint.h>
#include <time.h>

#include "bench.h"
#include "session.h"

#define ROUNDS	21
#define BATCH	2000
#define INST	"/sys/kernel/tracing/instances/gpuprobe_bench"

enum { BASE, GPUPROBE, FTRACE, OTHER, NCONF };
static const char *names[NCONF] = { "base", "gpuprobe", "ftrace", "other" };

static char edu[32], nvme[32];
static struct genl_sock ctl, lis;
static volatile int listening;
static struct gp_tally tally;

static void *listener(void *arg)
{
	while (listening) {
		gp_drain(&lis, &tally);
		usleep(1000);
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

static void conf_set(int conf, int irq, int on)
{
	int err = 0;

	switch (conf) {
	case GPUPROBE:
	case OTHER:
		if (on) {
			const char *t = conf == OTHER ? nvme : edu;

			gp_cmd(&ctl, GPUPROBE_CMD_TARGET_DEL, edu, 0, 0);
			gp_cmd(&ctl, GPUPROBE_CMD_TARGET_DEL, nvme, 0, 0);
			err = gp_cmd(&ctl, GPUPROBE_CMD_TARGET_ADD, t, 0, 0);
			if (!err)
				err = gp_start(&ctl, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
		} else {
			err = gp_stop(&ctl);
		}
		break;
	case FTRACE:
		ftrace_set(irq, on);
		break;
	}
	if (err)
		die(names[conf], err);
}

int main(void)
{
	uint64_t samples[NCONF][ROUNDS], med[NCONF], t0, t1;
	char cmd[32];
	struct gp_stats st;
	pthread_t th;
	int irq, r, c, err;
	long long before;

	if (edu_find(edu, sizeof(edu)) || pci_find(0x1b36, 0x0010, nvme, sizeof(nvme)))
		die("edu or nvme device", -ENODEV);
	if (!mod_loaded("gpuprobe_edu") && (err = mod_load(EDU_KO, NULL)))
		die("load gpuprobe_edu", err);
	if (!mod_loaded("gpuprobe") && (err = mod_load(GPUPROBE_KO, NULL)))
		die("load gpuprobe", err);
	irq = (int)edu_stat(edu, "irq");
	/* raiser and handler on one vCPU: no cross-vCPU wake-up in the loop */
	{
		cpu_set_t set;
		char path[64];

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		sched_setaffinity(0, sizeof(set), &set);
		snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irq);
		write_file(path, "0");
	}
	if ((err = genl_open(&ctl, GPUPROBE_FAMILY_NAME, NULL)))
		die("genl", err);
	if ((err = gp_listen(&lis, 16 << 20)))
		die("listen", err);
	listening = 1;
	pthread_create(&th, NULL, listener, NULL);

	snprintf(cmd, sizeof(cmd), "%d", BATCH);
	edu_ctl(edu, "irq", cmd);	/* warm up */
	for (r = 0; r < ROUNDS; r++) {
		for (c = 0; c < NCONF; c++) {
			conf_set(c, irq, 1);
			t0 = now_ns();
			edu_ctl(edu, "irq", cmd);
			t1 = now_ns();
			conf_set(c, irq, 0);
			samples[c][r] = (t1 - t0) / BATCH;
		}
	}
	rmdir(INST);

	printf("# cost per edu interrupt (raise -> handled), ns; median of %d rounds of %d\n",
	       ROUNDS, BATCH);
	bench_medians(names, NCONF, ROUNDS, &samples[0][0], med);
	printf("(min)     base %llu, gpuprobe %llu, ftrace %llu, other %llu\n",
	       (unsigned long long)samples[BASE][0],
	       (unsigned long long)samples[GPUPROBE][0],
	       (unsigned long long)samples[FTRACE][0],
	       (unsigned long long)samples[OTHER][0]);
	printf("added by gpuprobe:        %+lld ns\n", (long long)(med[GPUPROBE] - med[BASE]));
	printf("added by ftrace:          %+lld ns\n", (long long)(med[FTRACE] - med[BASE]));
	printf("added to a non-target:    %+lld ns\n", (long long)(med[OTHER] - med[BASE]));
	if (med[FTRACE] > med[BASE])
		printf("ratio gpuprobe/ftrace added cost: %.2f\n",
		       (double)((long long)med[GPUPROBE] - (long long)med[BASE]) /
		       (double)(med[FTRACE] - med[BASE]));

	/* sustained delivery: as fast as the device raises, zero drops? */
	gp_cmd(&ctl, GPUPROBE_CMD_TARGET_DEL, nvme, 0, 0);
	gp_cmd(&ctl, GPUPROBE_CMD_TARGET_ADD, edu, 0, 0);
	memset(&tally, 0, sizeof(tally));
	tally.bdf = gp_bdf(edu);
	before = proc_irq_count(irq);
	gp_start(&ctl, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ));
	t0 = now_ns();
	edu_ctl(edu, "irq", "50000");
	t1 = now_ns();
	gp_stop(&ctl);
	usleep(100000);
	listening = 0;
	pthread_join(th, NULL);
	gp_drain(&lis, &tally);
	gp_stats(&ctl, &st);
	printf("sustained: %llu interrupts in %.2f s = %.0f records/s delivered; "
	       "received %llu, dropped %llu, undelivered %llu, /proc/interrupts delta %lld\n",
	       50000ULL, (t1 - t0) / 1e9, 50000 / ((t1 - t0) / 1e9),
	       (unsigned long long)tally.irq[1], (unsigned long long)st.dropped,
	       (unsigned long long)st.undelivered, proc_irq_count(irq) - before);
	return 0;
}
