// SPDX-License-Identifier: GPL-2.0
/*
 * make bench-nontarget: what gpuprobe costs the DMA of a device it does not
 * watch -- the VM's NVMe drive under O_DIRECT reads -- measured side by
 * side in one VM run, the configurations interleaved round by round:
 *   base      neither module loaded
 *   floor     gpuprobe_floor.ko: empty probes at the addresses gpuprobe
 *             probes on this kernel (the mechanism's own cost)
 *   floorc    the same with counters=1: an empty kprobe beside each of its
 *             kretprobes too, as gpuprobe has (its probe layout's cost)
 *   floorp    floorc with parts=1: empty probes also where a START with
 *             IOMMU events attaches the IOMMU parts hooks (kmod/dma_parts.c)
 *   gpuprobe  gpuprobe.ko loaded with edu as its target, recording DMA and
 *             IOMMU events and the IOMMU parts (STARTed)
 *   noparts   the same, STARTed with GPUPROBE_A_NO_IOMMU_PARTS (record
 *             --no-iommu-parts):
 *             no parts probe attached, so its floor is floorc
 * Each at two read sizes: 4 KiB (one dma_map_page per I/O) and 64 KiB (a
 * scatterlist).  A sample is the time of N reads one after another (each
 * completes before the next), divided by N.  With -e, a second edu device
 * (VM_EDUS=2), not gpuprobe's target, also maps from its driver: "pair",
 * N dma_map_single()+dma_unmap_single() of 4 KiB (mapbench); "sg64", N
 * dma_map_sg()+dma_unmap_sg() of 64 segments (mapsg): no device to wait
 * for, so under -icount their counts repeat exactly.
 *
 * With -s (the -icount runs), a spinner at SCHED_IDLE on the same CPU takes
 * the time the reads wait for the drive, and its share is taken off: under
 * QEMU's -icount shift=0 the guest clock counts instructions while a vCPU
 * runs, but while it idles it follows the host (sleep=on) or jumps to the
 * next timer (sleep=off), and the drive's latency is the host's.  With the
 * spinner the vCPU never idles, and a sample is the instructions executed
 * by everything but the spinner: the reads' own, in the kernel and out.
 * Its cost per loop is measured each round with the CPU otherwise idle,
 * timer ticks included, so the ticks that fall in a wait go with it.
 *
 * Prints "sample NAME VALUE" lines for scripts/benchstat.py: each
 * configuration's time per read, the added cost against the same round's
 * base ("added_floor_4k", "added_gpuprobe_4k", ...), that cost per probed
 * call ("percall_*": the floor module counts the DMA-API and IOMMU calls
 * the reads made, "calls_*"), and gpuprobe's cost above the floor
 * ("above_floor_*", and "above_floorc_*", "above_floorp_*"; noparts's above
 * floorc, "above_floorc_noparts_*"); with floorp
 * loaded, the calls of the parts functions too ("calls_parts_*") and all
 * probed calls ("calls_all_*").
 */
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/stat.h>

#include "bench.h"
#include "session.h"

#define FLOOR_KO	"/gpuprobe/gpuprobe_floor.ko"
#define FLOOR_PARAM	"/sys/module/gpuprobe_floor/parameters/"
#define NVME		"/dev/nvme0n1"
#define SPAN		(48ULL << 20)	/* of the 64 MiB drive */

enum { BASE, FLOOR, FLOORC, FLOORP, GPUPROBE, NOPARTS, NCONF };
static const char *names[NCONF] = { "base", "floor", "floorc", "floorp", "gpuprobe", "noparts" };
static const char *floor_params[NCONF] = {
	[FLOORC] = "counters=1", [FLOORP] = "counters=1 parts=1",
};
/* the workloads: NVMe reads of these sizes, then (-e) the other edu's maps */
static const unsigned int sizes[] = { 4096, 65536, 0, 0 };
static const char *size_names[] = { "4k", "64k", "pair", "sg64" };
#define NSIZES	4
#define MAXREAD	65536
static int nsizes = 2;
static char edu2[32];

static int rounds = 11, nreads = 400, spin;
static volatile uint64_t spins;
static volatile int spinning;
static double spin_ns;		/* guest ns per spinner loop, this round */
static char edu[32];
static struct genl_sock ctl, lis;
static uint64_t records;

static void die(const char *what, int err)
{
	fprintf(stderr, "nontarget_bench: %s: %s\n", what, strerror(-err));
	exit(1);
}

static uint64_t floor_count(const char *param)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), FLOOR_PARAM "%s", param);
	if (read_file(path, buf, sizeof(buf)))
		die(path, -EIO);
	return strtoull(buf, NULL, 10);
}

static void floor_mode(void)
{
	char buf[16];

	if (!read_file(FLOOR_PARAM "mode", buf, sizeof(buf)))
		printf("# floor probes: gpuprobe's %s path\n",
		       strcmp(buf, "tp") ? "kretprobe" : "tracepoint");
}

/* probed calls per read, as the floor module counted them */
static void calls_print(const char *sn, uint64_t dma, uint64_t iommu)
{
	printf("sample calls_dma_%s %.3f\nsample calls_iommu_%s %.3f\n"
	       "sample calls_%s %.3f\n", sn, (double)dma / nreads, sn,
	       (double)iommu / nreads, sn, (double)(dma + iommu) / nreads);
}

/* floorp: the parts functions' calls per read, and all probed calls */
static void parts_print(const char *sn, uint64_t calls, uint64_t part)
{
	printf("sample calls_parts_%s %.3f\nsample calls_all_%s %.3f\n", sn,
	       (double)part / nreads, sn, (double)(calls + part) / nreads);
}

static void count_cb(void *arg, const uint8_t *p, size_t len)
{
	while (len >= sizeof(struct gpuprobe_rec_hdr)) {
		const struct gpuprobe_rec_hdr *h = (const void *)p;

		if (h->size < sizeof(*h) || h->size > len)
			break;
		records += h->type == GPUPROBE_EV_DMA ||
			   h->type == GPUPROBE_EV_IOMMU;
		p += h->size;
		len -= h->size;
	}
}

static void conf_set(int conf, int on)
{
	char param[64];
	int err = 0;

	if (conf == FLOOR || conf == FLOORC || conf == FLOORP) {
		err = on ? mod_load(FLOOR_KO, floor_params[conf]) :
			   mod_unload("gpuprobe_floor");
	} else if ((conf == GPUPROBE || conf == NOPARTS) && on) {
		snprintf(param, sizeof(param), "target=%s", edu);
		err = mod_load(GPUPROBE_KO, param);
		if (!err)
			err = genl_open(&ctl, GPUPROBE_FAMILY_NAME, NULL);
		if (!err)
			err = gp_listen(&lis, 4 << 20);
		if (!err)
			err = conf == GPUPROBE ?
				gp_start(&ctl, GPUPROBE_EVMASK(GPUPROBE_EV_DMA) |
					 GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU)) :
				gp_start_flag(&ctl, GPUPROBE_EVMASK(GPUPROBE_EV_DMA) |
					      GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU),
					      GPUPROBE_A_NO_IOMMU_PARTS);
		/* the probes gpuprobe has on this kernel, one of each path */
		if (!err && gp_hook_attached(&ctl, "kretprobe:iommu_map") != 1)
			err = -ENOENT;
		/* the parts' probes: only where the session asked for them */
		if (!err && gp_hook_attached(&ctl, "kretprobe:alloc_iova_fast") !=
			    (conf == GPUPROBE))
			err = -EPROTO;
	} else if (conf == GPUPROBE || conf == NOPARTS) {
		err = gp_stop(&ctl);
		gp_recv_records(&lis, count_cb, NULL);
		genl_close(&lis);
		genl_close(&ctl);
		if (!err)
			err = mod_unload("gpuprobe");
	}
	if (err)
		die(names[conf], err);
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *spinner(void *arg)
{
	struct sched_param sp = { 0 };

	pin_cpu0();
	if (sched_setscheduler(0, SCHED_IDLE, &sp))
		die("SCHED_IDLE", -errno);
	while (spinning)
		spins++;
	return NULL;
}

/* The spinner's cost per loop while it has the CPU to itself. */
static void spin_calibrate(void)
{
	struct timespec ts = { .tv_nsec = 20 * 1000 * 1000 };
	uint64_t s0 = spins, t0 = now_ns();

	nanosleep(&ts, NULL);
	spin_ns = (double)(now_ns() - t0) / (double)(spins - s0 ? spins - s0 : 1);
}

/* the other edu's maps: n pairs (w 2) or n scatterlists (w 3) */
static void edu_maps(int w, int n)
{
	char cmd[32];
	int err = 0;

	if (w == 2) {
		snprintf(cmd, sizeof(cmd), "%d 4096", n);
		err = edu_ctl(edu2, "mapbench", cmd);
	}
	for (int i = 0; w == 3 && i < n && !err; i++)
		err = edu_ctl(edu2, "mapsg", "64 256");
	if (err)
		die(edu2, err);
}

/* n of workload w (reads: each at the next offset); ns per one */
static uint64_t reads(int fd, void *buf, int w, int n, off_t *off)
{
	unsigned int size = sizes[w];
	uint64_t s0 = spins, t0 = now_ns(), t;

	if (!size)
		edu_maps(w, n);
	for (int i = 0; size && i < n; i++) {
		if (pread(fd, buf, size, *off) != (ssize_t)size)
			die("pread " NVME, -errno);
		*off = (*off + size) % SPAN;
	}
	t = now_ns() - t0;
	if (spin)
		t -= (uint64_t)((double)(spins - s0) * spin_ns);
	return t / n;
}

int main(int argc, char **argv)
{
	static uint64_t t[NCONF][NSIZES];
	uint64_t dma0, iommu0;
	off_t off = 0;
	pthread_t th;
	void *buf;
	int fd, opt;

	while ((opt = getopt(argc, argv, "r:n:se")) != -1) {
		if (opt == 'e')
			nsizes = NSIZES;
		else if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 'n')
			nreads = atoi(optarg);
		else if (opt == 's')
			spin = 1;
		else
			return 2;
	}
	if (edu_find(edu, sizeof(edu)))
		die("no edu device", -ENODEV);
	if (nsizes > 2 && (pci_find_nth(0x1234, 0x11e8, 1, edu2, sizeof(edu2)) ||
			   (!mod_loaded("gpuprobe_edu") && mod_load(EDU_KO, NULL))))
		die("-e: a second edu device and its driver (VM_EDUS=2)", -ENODEV);
	if (mod_loaded("gpuprobe"))
		mod_unload("gpuprobe");
	fd = open(NVME, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		die(NVME, -errno);
	if (posix_memalign(&buf, 4096, MAXREAD))
		die("buffer", -ENOMEM);
	pin_cpu0();
	if (spin) {
		spinning = 1;
		pthread_create(&th, NULL, spinner, NULL);
	}

	printf("# nontarget_bench: %d rounds of %d O_DIRECT reads of %s per size%s%s\n",
	       rounds, nreads, NVME, spin ? ", less a SCHED_IDLE spinner's time" : "",
	       nsizes > 2 ? "; as many maps of the other edu, " : "");
	if (nsizes > 2)
		printf("# target %s, the other edu %s\n", edu, edu2);
	for (int s = 0; s < nsizes; s++)	/* warm up */
		reads(fd, buf, s, nreads, &off);
	for (int r = 0; r < rounds; r++) {
		if (spin) {
			spin_calibrate();
			printf("sample spin_ns %.4f\n", spin_ns);
		}
		for (int c = 0; c < NCONF; c++) {
			conf_set(c, 1);
			if (c == FLOOR && r == 0)
				floor_mode();
			for (int s = 0; s < nsizes; s++) {
				reads(fd, buf, s, 4, &off);
				if (c == FLOOR) {
					dma0 = floor_count("dma_hits");
					iommu0 = floor_count("iommu_hits");
				}
				if (c == FLOORP) {
					dma0 = floor_count("dma_hits") +
					       floor_count("iommu_hits");
					iommu0 = floor_count("part_hits");
				}
				t[c][s] = reads(fd, buf, s, nreads, &off);
				if (c == FLOOR)
					calls_print(size_names[s],
						    floor_count("dma_hits") - dma0,
						    floor_count("iommu_hits") - iommu0);
				if (c == FLOORP)
					parts_print(size_names[s],
						    floor_count("dma_hits") +
						    floor_count("iommu_hits") - dma0,
						    floor_count("part_hits") - iommu0);
			}
			conf_set(c, 0);
		}
		for (int s = 0; s < nsizes; s++) {
			const char *sn = size_names[s];

			for (int c = 0; c < NCONF; c++)
				printf("sample %s_%s %llu\n", names[c], sn,
				       (unsigned long long)t[c][s]);
			printf("sample added_floor_%s %lld\nsample added_gpuprobe_%s %lld\n"
			       "sample above_floor_%s %lld\nsample added_floorc_%s %lld\n"
			       "sample above_floorc_%s %lld\nsample added_floorp_%s %lld\n"
			       "sample above_floorp_%s %lld\nsample added_noparts_%s %lld\n"
			       "sample above_floorc_noparts_%s %lld\n",
			       sn, (long long)(t[FLOOR][s] - t[BASE][s]),
			       sn, (long long)(t[GPUPROBE][s] - t[BASE][s]),
			       sn, (long long)(t[GPUPROBE][s] - t[FLOOR][s]),
			       sn, (long long)(t[FLOORC][s] - t[BASE][s]),
			       sn, (long long)(t[GPUPROBE][s] - t[FLOORC][s]),
			       sn, (long long)(t[FLOORP][s] - t[BASE][s]),
			       sn, (long long)(t[GPUPROBE][s] - t[FLOORP][s]),
			       sn, (long long)(t[NOPARTS][s] - t[BASE][s]),
			       sn, (long long)(t[NOPARTS][s] - t[FLOORC][s]));
		}
		fflush(stdout);
	}
	printf("# gpuprobe recorded %llu DMA/IOMMU records (expected 0: its target made no DMA)\n",
	       (unsigned long long)records);
	spinning = 0;
	if (spin)
		pthread_join(th, NULL);
	close(fd);
	return records ? 1 : 0;
}
