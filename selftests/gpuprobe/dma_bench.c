// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: cost per DMA map+unmap pair of the edu device (4 KiB,
 * intel-iommu strict), measured side by side in one VM run:
 *   base      nothing attached
 *   gpuprobe  gpuprobe capturing DMA and IOMMU events for the edu device
 *   kprobes   tracefs kprobe events giving the same facts: entry and return
 *             of dma_map_page_attrs, dma_unmap_page_attrs, iommu_map_atomic,
 *             iommu_unmap_fast, in a private instance
 * Rounds interleave the configurations; medians are reported.
 */
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <time.h>

#include "bench.h"
#include "dma.h"

#define ROUNDS	15
#define PAIRS	"3000 4096"
#define NPAIRS	3000
#define INST	"/sys/kernel/tracing/instances/gpuprobe_dmabench"

enum { BASE, GPUPROBE, KPROBES, NCONF };
static const char *names[NCONF] = { "base", "gpuprobe", "kprobes" };
static const char *kfuncs[] = { "dma_map_page_attrs", "dma_unmap_page_attrs",
				"iommu_map_atomic", "iommu_unmap_fast" };
static struct genl_sock ctl, lis;
static volatile int listening;
static struct dma_tally tally;

static void *listener(void *arg)
{
	while (listening) {
		dma_drain(&lis, &tally);
		usleep(1000);
	}
	return NULL;
}

static void kprobes_define(void)
{
	FILE *f = fopen("/sys/kernel/tracing/kprobe_events", "we");
	unsigned int i;

	for (i = 0; f && i < 4; i++)
		fprintf(f, "p:gpb/e%u %s\nr:gpb/r%u %s\n", i, kfuncs[i], i,
			kfuncs[i]);
	if (f)
		fclose(f);
	mkdir(INST, 0755);
}

static void kprobes_enable(int on)
{
	write_file(INST "/events/gpb/enable", on ? "1" : "0");
}

static void conf_set(int conf, int on)
{
	int err = 0;

	if (conf == GPUPROBE)
		err = on ? gp_start(&ctl, GPUPROBE_EVMASK(GPUPROBE_EV_DMA) |
				    GPUPROBE_EVMASK(GPUPROBE_EV_IOMMU)) :
			   gp_stop(&ctl);
	else if (conf == KPROBES)
		kprobes_enable(on);
	if (err) {
		fprintf(stderr, "dma_bench: %s: %s\n", names[conf], strerror(-err));
		exit(1);
	}
}

int main(void)
{
	uint64_t samples[NCONF][ROUNDS], med[NCONF], t0;
	char edu[32], param[64];
	cpu_set_t set;
	pthread_t th;
	int r, c;

	if (edu_find(edu, sizeof(edu)))
		return 1;
	if (!mod_loaded("gpuprobe_edu") && mod_load(EDU_KO, NULL))
		return 1;
	snprintf(param, sizeof(param), "target=%s", edu);
	if (!mod_loaded("gpuprobe") && mod_load(GPUPROBE_KO, param))
		return 1;
	if (genl_open(&ctl, GPUPROBE_FAMILY_NAME, NULL) || gp_listen(&lis, 16 << 20))
		return 1;
	tally.bdf = gp_bdf(edu);
	listening = 1;
	pthread_create(&th, NULL, listener, NULL);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	kprobes_define();

	edu_ctl(edu, "mapbench", PAIRS);	/* warm up */
	for (r = 0; r < ROUNDS; r++) {
		for (c = 0; c < NCONF; c++) {
			conf_set(c, 1);
			t0 = now_ns();
			edu_ctl(edu, "mapbench", PAIRS);
			samples[c][r] = (now_ns() - t0) / NPAIRS;
			conf_set(c, 0);
		}
	}
	kprobes_enable(0);
	rmdir(INST);
	write_file("/sys/kernel/tracing/kprobe_events", "");
	listening = 0;
	pthread_join(th, NULL);
	dma_drain(&lis, &tally);

	printf("# cost per 4 KiB dma_map_single+dma_unmap_single pair, ns; median of %d rounds of %d\n",
	       ROUNDS, NPAIRS);
	bench_medians(names, NCONF, ROUNDS, &samples[0][0], med);
	printf("added by gpuprobe: %+lld ns, by kprobe events: %+lld ns\n",
	       (long long)(med[GPUPROBE] - med[BASE]),
	       (long long)(med[KPROBES] - med[BASE]));
	if (med[KPROBES] > med[BASE])
		printf("ratio gpuprobe/kprobe-events added cost: %.2f\n",
		       (double)((long long)med[GPUPROBE] - (long long)med[BASE]) /
		       (double)(med[KPROBES] - med[BASE]));
	printf("gpuprobe recorded %llu maps, %llu unmaps (expected %d each), %llu IOMMU maps\n",
	       (unsigned long long)tally.calls[GPUPROBE_DMA_MAP_PAGE],
	       (unsigned long long)tally.calls[GPUPROBE_DMA_UNMAP_PAGE],
	       ROUNDS * NPAIRS,
	       (unsigned long long)tally.iommu[GPUPROBE_IOMMU_MAP]);
	return 0;
}
