// SPDX-License-Identifier: GPL-2.0
/*
 * The target device's life while a session streams: its driver unbound and
 * bound again, the PCI function removed and found again by a rescan, and the
 * device handed to vfio-pci and back -- all while another process keeps
 * interrupts and DMA going on it.
 *
 *   stress_device [-n ROUNDS]
 *
 * Afterwards the session must still be running and must follow the device:
 * with traffic stopped, exactly the interrupts raised on the rebound device
 * arrive as records (the kernel's /proc/interrupts agrees), and every unbind,
 * bind and removal was announced by a target record.
 */
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "session.h"

#define EDU_DRV		"/sys/bus/pci/drivers/gpuprobe_edu"
#define VFIO_DRV	"/sys/bus/pci/drivers/vfio-pci"

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

struct traffic {
	unsigned long irq_ok, dma_ok, refused, by_errno[140];
};

static void traffic_count(struct traffic *t, int err, unsigned long *ok)
{
	if (!err) {
		(*ok)++;
		return;
	}
	t->refused++;
	if (-err < 140)
		t->by_errno[-err]++;
}

static void traffic(const char *edu, struct traffic *t)
{
	signal(SIGTERM, on_term);
	while (!stopping) {
		traffic_count(t, edu_ctl(edu, "irq", "2"), &t->irq_ok);
		traffic_count(t, edu_ctl(edu, "dma", "verify 4096"), &t->dma_ok);
		usleep(500);
	}
	_exit(0);
}

static int sysfs_write(const char *dir, const char *file, const char *val)
{
	char path[256];
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	err = write_file(path, val);
	if (err)
		printf("# write %s > %s: %s\n", val, path, strerror(-err));
	return err;
}

static bool edu_bound(const char *edu)
{
	char path[256];

	snprintf(path, sizeof(path), EDU_DRV "/%s", edu);
	return access(path, F_OK) == 0;
}

/* Waits up to 5 s for the edu driver to (re)bind the device. */
static bool wait_edu_bound(const char *edu)
{
	for (int i = 0; i < 500 && !edu_bound(edu); i++)
		usleep(10000);
	return edu_bound(edu);
}

/* Lets the traffic run on the bound device: 3 more successes, or 3 s. */
static void let_traffic_flow(struct genl_sock *l, struct gp_tally *t,
			     const struct traffic *tr)
{
	unsigned long want = tr->irq_ok + tr->dma_ok + 3;

	for (int i = 0; i < 300 && tr->irq_ok + tr->dma_ok < want; i++) {
		gp_drain(l, t);
		usleep(10000);
	}
}

static void drain_for(struct genl_sock *l, struct gp_tally *t, int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		gp_drain(l, t);
		usleep(10000);
	}
	gp_drain(l, t);
}

int main(int argc, char **argv)
{
	char edu[32], devdir[96];
	struct gp_tally tally = { 0 };
	unsigned long rounds = 5, unbinds = 0, removes = 0, vfio = 0;
	struct genl_sock s, l;
	struct traffic *tr;
	int opt, fails = 0, err;
	long long proc = 0;
	uint64_t rec = 0;
	bool have_vfio;
	pid_t pid;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n') {
			fprintf(stderr, "usage: stress_device [-n ROUNDS]\n");
			return 2;
		}
		rounds = strtoul(optarg, NULL, 0);
	}
	printf("TAP version 13\n1..3\n");
	err = gp_setup_edu(edu, sizeof(edu), NULL, &s);
	if (!err)
		err = gp_listen(&l, 8 << 20);
	if (!err)
		err = gp_start(&s, GPUPROBE_EVMASK(GPUPROBE_EV_IRQ) |
			       GPUPROBE_EVMASK(GPUPROBE_EV_DMA) |
			       GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU));
	if (err) {
		printf("Bail out! setup: %s (%s)\n", strerror(-err), s.extack);
		return 1;
	}
	tally.bdf = gp_bdf(edu);
	snprintf(devdir, sizeof(devdir), "/sys/bus/pci/devices/%s", edu);
	have_vfio = access(VFIO_DRV, F_OK) == 0;

	tr = mmap(NULL, sizeof(*tr), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tr == MAP_FAILED)
		return 1;
	memset(tr, 0, sizeof(*tr));
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		traffic(edu, tr);

	let_traffic_flow(&l, &tally, tr);
	for (unsigned long r = 0; r < rounds; r++) {
		/* 1. driver unbound and bound again */
		if (!sysfs_write(EDU_DRV, "unbind", edu)) {
			drain_for(&l, &tally, 50);
			unbinds += !sysfs_write(EDU_DRV, "bind", edu);
		}
		wait_edu_bound(edu);
		let_traffic_flow(&l, &tally, tr);

		/* 2. the function removed, then found by a rescan */
		if (!sysfs_write(devdir, "remove", "1")) {
			drain_for(&l, &tally, 50);
			removes += !sysfs_write("/sys/bus/pci", "rescan", "1");
		}
		wait_edu_bound(edu);
		/* a removed target is gone: watch the new device again */
		err = gp_cmd(&s, GPUPROBE_CMD_TARGET_ADD, edu, 0, 0);
		if (err && err != -EEXIST)
			printf("# round %lu: TARGET_ADD after rescan: %s (%s)\n",
			       r, strerror(-err), s.extack);
		let_traffic_flow(&l, &tally, tr);

		/* 3. handed to vfio-pci (as for a VM) and back */
		if (have_vfio && !sysfs_write(EDU_DRV, "unbind", edu)) {
			sysfs_write(devdir, "driver_override", "vfio-pci");
			sysfs_write("/sys/bus/pci", "drivers_probe", edu);
			drain_for(&l, &tally, 50);
			sysfs_write(VFIO_DRV, "unbind", edu);
			sysfs_write(devdir, "driver_override", "\n");
			vfio += !sysfs_write("/sys/bus/pci", "drivers_probe", edu);
		}
		wait_edu_bound(edu);
		let_traffic_flow(&l, &tally, tr);
	}
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	drain_for(&l, &tally, 200);

	printf("# %lu rounds: %lu unbind/bind, %lu remove/rescan, %lu vfio-pci round trips\n",
	       rounds, unbinds, removes, vfio);
	printf("# traffic meanwhile: %lu interrupt bursts, %lu DMA verifies, %lu refused while unbound\n",
	       tr->irq_ok, tr->dma_ok, tr->refused);
	for (int e = 1; e < 140; e++)
		if (tr->by_errno[e])
			printf("#   refused with %s: %lu\n", strerror(e), tr->by_errno[e]);
	printf("# records: %llu edu interrupts, target events added %llu vectors %llu unbound %llu removed %llu, lost %llu\n",
	       (unsigned long long)tally.irq[1],
	       (unsigned long long)tally.target_events[GPUPROBE_TARGET_ADDED],
	       (unsigned long long)tally.target_events[GPUPROBE_TARGET_VECTORS],
	       (unsigned long long)tally.target_events[GPUPROBE_TARGET_UNBOUND],
	       (unsigned long long)tally.target_events[GPUPROBE_TARGET_REMOVED],
	       (unsigned long long)tally.lost);
	/* traffic ran in every window the device was bound */
	err = !(unbinds == rounds && removes == rounds &&
		(!have_vfio || vfio == rounds) && wait_edu_bound(edu) &&
		tr->irq_ok + tr->dma_ok >= 3 * (3 * rounds + 1));
	printf("%sok 1 the device went through %lu rounds of unbind, removal and vfio-pci while traffic flowed\n",
	       err ? "not " : "", rounds);
	fails += err;

	err = !(tally.target_events[GPUPROBE_TARGET_UNBOUND] >=
		rounds * (have_vfio ? 4 : 2) &&
		tally.target_events[GPUPROBE_TARGET_REMOVED] >= rounds);
	printf("%sok 2 every unbind and removal announced by a target record\n",
	       err ? "not " : "");
	fails += err;

	/* the session follows the device: exact counts, cross-checked */
	err = gp_raise_and_count(&l, &tally, edu, 20, &proc, &rec);
	printf("# after the last rebind: 20 raised, /proc/interrupts +%lld, records +%llu\n",
	       proc, (unsigned long long)rec);
	err = err || proc != 20 || rec != 20;
	printf("%sok 3 the running session records the rebound device's interrupts exactly\n",
	       err ? "not " : "");
	fails += err;

	gp_stop(&s);
	genl_close(&l);
	genl_close(&s);
	mod_unload("gpuprobe");
	return fails ? 1 : 0;
}
