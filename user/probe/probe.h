/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `gpuprobe-trace probe`: latency, bandwidth and pinning probes for CUDA
 * (driver API, dlopen'd) and OpenCL (ICD loader, dlopen'd), the same kind for
 * QEMU's edu device (its test driver's debugfs controls), and `compare`.
 *
 * Every probe keeps all its samples (nanoseconds per operation) and reports
 * their distribution; every timestamp is CLOCK_MONOTONIC, the clock of
 * gpuprobe's kernel events, so a trace recorded around the run lines up.
 */
#ifndef GPUPROBE_PROBE_H
#define GPUPROBE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"
#include "stats.h"

#define PROBE_SUMMARY	"latency, bandwidth and pinning probes (CUDA, OpenCL, QEMU edu)"
#define PROBE_USAGE \
	"usage: gpuprobe-trace probe [--api cuda|opencl|all] [--json] [--quick] [-o OUT.json]\n" \
	"       gpuprobe-trace probe --api edu [-d BDF] [--rounds N] [--json] [-o OUT.json]\n" \
	"\n" \
	"Measures, per API, distributions (n, min, p50, p99) of: launch latency\n" \
	"(empty kernel, spin wait); sync wake latency (blocking synchronisation,\n" \
	"i.e. interrupt-driven) against the same wait spinning; H2D/D2H copy time\n" \
	"4 KiB..256 MiB, pinned and pageable; pinning and unpinning host memory,\n" \
	"first time vs again on the same memory; allocation; queue delay; on-device\n" \
	"copy (the control passthrough should not change). CUDA needs libcuda.so.1,\n" \
	"OpenCL an ICD platform; an API that is missing is skipped with the reason.\n" \
	"Exit status 0 when at least one API ran, 1 when none could.\n" \
	"\n" \
	"--api edu drives QEMU's edu device through the gpuprobe_edu test driver's\n" \
	"debugfs controls (root; selftests/gpuprobe/edu/), the same exact workload on\n" \
	"a host and in a guest it is passed through to, each write timed: write.noop\n" \
	"(the control), irq.round_trip (raise MSI -> handler -> waiter woken),\n" \
	"dma.verify.2KiB (map, RAM -> device -> RAM waited by MSI, unmap, compare;\n" \
	"QEMU's edu takes 100 ms per transfer, so a tenth of the rounds), and\n" \
	"map_unmap.4KiB (ns per dma_map_single + dma_unmap_single pair); the\n" \
	"driver's counters before and after are checked against the workload.\n" \
	"\n" \
	"      --api API      cuda, opencl, all (cuda and opencl; the default) or edu\n" \
	"  -d, --device BDF   the edu device (--api edu; default: the only one bound)\n" \
	"      --rounds N     samples per edu probe (default 200, --quick 20)\n" \
	"      --json         one JSON document (keys: Documentation/probes.md)\n" \
	"  -o, --output FILE  write the JSON document to FILE (text report on stdout)\n" \
	"      --quick        small sizes and few samples (seconds, for CI)\n" \
	"\n" \
	"environment: GPUPROBE_DEBUGFS, where debugfs is (default /sys/kernel/debug)\n" \
	"\n" \
	"Every sample keeps CLOCK_MONOTONIC timestamps; record the kernel side with\n" \
	"  gpuprobe-trace record -o probe.trace -- gpuprobe-trace probe -o probe.json\n" \
	"\n" \
	"EXAMPLES\n" \
	"  gpuprobe-trace probe --quick\n" \
	"  gpuprobe-trace probe --api cuda -o vm.json\n" \
	"  gpuprobe-trace probe --api opencl --json | jq '.apis[0].probes[0]'\n" \
	"  gpuprobe-trace probe --api edu -d 0000:00:03.0 --rounds 100 -o base.json   # host\n" \
	"  gpuprobe-trace probe --api edu --rounds 100 -o guest.json     # guest, edu passed through\n" \
	"  gpuprobe-trace compare base.json guest.json\n"

#define COMPARE_SUMMARY	"compare two probe runs (RUN as % of BASE)"
#define COMPARE_USAGE \
	"usage: gpuprobe-trace compare BASE.json RUN.json [--json]\n" \
	"       gpuprobe-trace compare BASE.trace RUN.trace [--json]\n" \
	"\n" \
	"Two traces (strict and lazy IOMMU mode, say): per target with IOMMU parts in\n" \
	"both, what an unmap costs in each and what RUN saved (Documentation/iommu.md).\n" \
	"\n" \
	"For every probe present in both `probe` outputs: BASE p50, RUN p50 and RUN\n" \
	"as a percentage of BASE (above 100 %: RUN is slower). Typical pairs: bare\n" \
	"metal vs VM, host vs guest, one hypervisor vs another.\n" \
	"\n" \
	"      --json   one JSON document instead of the table\n" \
	"\n" \
	"EXAMPLES\n" \
	"  gpuprobe-trace compare baremetal.json vm.json\n" \
	"  gpuprobe-trace compare host.json guest.json --json\n"

int cmd_probe(int argc, char **argv);
int cmd_compare(int argc, char **argv);

/* One measured quantity: every sample, in nanoseconds per operation. */
struct probe_dist {
	char name[64];		/* stable key: "h2d.pinned.4KiB" */
	char what[128];		/* what the interval covers, for people */
	uint64_t bytes;		/* bytes moved per operation, 0 if none */
	size_t n, cap;
	double *ns;
};


/*
 * One blocking-sync sample, all CLOCK_MONOTONIC ns (the gpu_* ones through
 * the clock calibration; 0 when the API has no device clock).
 */
struct probe_wake_sample {
	uint64_t submit_ns;	/* before the launch call */
	uint64_t launched_ns;	/* launch call returned, wait begins */
	uint64_t gpu_start_ns;
	uint64_t gpu_end_ns;
	uint64_t return_ns;	/* the wait returned */
	uint64_t gpu_start_dev, gpu_end_dev;	/* raw device clock */
	uint64_t kernel_spin_ns;	/* how long the kernel ran on purpose */
	bool blocking;
};

/* host_ns - mono(dev_ns) (sign +1) or mono(dev_ns) - host_ns (sign -1),
 * resolved into d once the final calibration is known. */
struct probe_deferred {
	struct probe_dist *d;
	uint64_t host_ns, dev_ns;
	int sign;
};

/* Device clock -> CLOCK_MONOTONIC: mono = dev + offset (+ drift). */
struct probe_clock_cal {
	bool valid;
	char source[64];	/* "%globaltimer", "CL_PROFILING_COMMAND_END" */
	int64_t offset_ns;	/* at dev_ref_ns */
	uint64_t dev_ref_ns;
	double drift_ppm;	/* from two calibrations, 0 if only one */
	double error_ns;	/* half-width of the bound on offset */
	size_t pairs, used;	/* pairs taken, min-RTT pairs kept */
	double best_rtt_ns;
};

/* A host/device timestamp pair: the device stamp lies within [t0, t1]. */
struct probe_clock_pair {
	uint64_t t0, dev, t1;
};

struct probe_phase {
	char name[48];
	uint64_t start_ns, end_ns;
};

/*
 * When operations of one probe ran (one pin call, or a whole copy run), so
 * that `explain` can count the kernel events of a trace inside each.
 */
struct probe_window {
	const struct probe_dist *d;
	uint64_t start_ns, end_ns;
	uint32_t ops;		/* operations inside, a copy run's warm-up included */
};

#define PROBE_MAX_PHASES	32

/* A device-side counter's change over the run (the edu driver's stats). */
struct probe_counter {
	char name[32];
	uint64_t value;
};

struct probe_api {
	const char *api;	/* "cuda", "opencl" */
	bool ran;
	char reason[512];	/* why it was skipped or stopped */
	char device[256];
	char driver[256];
	struct probe_dist **dists;	/* each its own allocation: pointers stay valid */
	size_t ndists;
	struct probe_clock_cal cal;
	struct probe_wake_sample *wake;
	size_t nwake;
	struct probe_deferred *deferred;
	size_t ndeferred;
	struct probe_phase phases[PROBE_MAX_PHASES];
	size_t nphases;
	struct probe_window *windows;
	size_t nwindows;
	struct probe_counter *counters;
	size_t ncounters;
	uint32_t tid;		/* the thread that waits (blocking sync) */
};

struct probe_opts {
	bool quick;
	const char *device;	/* --api edu: -d BDF, NULL for the only one */
	size_t rounds;		/* --api edu: samples per probe, 0 for the default */
};

/* The sizes of the copy and pin sweeps. */
size_t probe_sizes(const struct probe_opts *o, const uint64_t **sizes);
size_t probe_pin_sizes(const struct probe_opts *o, const uint64_t **sizes);
/* Samples to take for one operation of duration est_ns within budget_ns. */
size_t probe_samples_for(uint64_t est_ns, uint64_t budget_ns, size_t min, size_t max);

/* probe_stats.c */
struct probe_dist *probe_dist_new(struct probe_api *a, const char *name, uint64_t bytes,
				  const char *what_fmt, ...) __attribute__((format(printf, 4, 5)));
/* Named "PREFIX.SIZE" ("pin.first.4KiB"); bytes moved per operation as given. */
struct probe_dist *probe_dist_sized(struct probe_api *a, const char *prefix, uint64_t size,
				    uint64_t bytes, const char *what);
void probe_dist_add(struct probe_dist *d, double ns);
bool probe_summarize(const struct probe_dist *d, struct sample_stats *s);
void probe_wake_add(struct probe_api *a, const struct probe_wake_sample *w);
void probe_defer(struct probe_api *a, struct probe_dist *d, uint64_t host_ns, uint64_t dev_ns,
		 int sign);
/* With a->cal final: fill the deferred samples and the wake samples' gpu_*_ns. */
void probe_resolve(struct probe_api *a);
void probe_phase_begin(struct probe_api *a, const char *name);
void probe_phase_end(struct probe_api *a);
void probe_window_add(struct probe_api *a, const struct probe_dist *d, uint64_t start_ns,
		      uint64_t end_ns, uint32_t ops);
void probe_api_free(struct probe_api *a);
/* Fit one calibration from pairs (sorted by RTT in place). */
bool probe_clock_fit(struct probe_clock_pair *p, size_t n, struct probe_clock_cal *cal);
/* Combine a calibration taken before and one after the probes. */
void probe_clock_merge(struct probe_clock_cal *first, const struct probe_clock_cal *second);
int64_t probe_clock_to_mono(const struct probe_clock_cal *cal, uint64_t dev_ns);
/* Fresh anonymous memory, every page touched (NULL with a message on failure). */
void *probe_host_alloc(uint64_t bytes);
void probe_host_free(void *p, uint64_t bytes);

/* probe_cuda.c, probe_opencl.c, probe_edu.c: fill a; false (with a->reason) if skipped. */
bool probe_cuda_run(struct probe_api *a, const struct probe_opts *o);
bool probe_opencl_run(struct probe_api *a, const struct probe_opts *o);
bool probe_edu_run(struct probe_api *a, const struct probe_opts *o);

/* probe_output.c */
void probe_print_text(FILE *out, struct probe_api *apis, size_t napis);
void probe_print_json(FILE *out, struct probe_api *apis, size_t napis,
		      const struct probe_opts *o, uint64_t start_ns, uint64_t end_ns);

#endif /* GPUPROBE_PROBE_H */
