// SPDX-License-Identifier: GPL-2.0
/*
 * gpuprobe-trace: interrupt, DMA and IOMMU tracing for one PCI device.
 * Table-driven dispatch to one file per subcommand.
 */
#include <stdio.h>
#include <string.h>

#include <linux/gpuprobe.h>

#include "cmds.h"
#include "util.h"

struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
	const char *usage;
};

static const struct subcommand subcommands[] = {
	{
		"info", cmd_info, "show sources (module, tracefs), targets and vectors",
		"usage: gpuprobe-trace info [-d BDF]... [--json]\n"
		"\n"
		"Shows whether the gpuprobe module is loaded (and why not), which tracefs\n"
		"events exist, and the target devices with their MSI/MSI-X vectors.\n"
		"Default targets: every PCI display-class device.\n"
		"\n"
		"  -d, --device BDF   target this PCI function instead (repeatable)\n"
		"      --json         one JSON document on stdout\n"
		"\n"
		"EXAMPLES\n"
		"  gpuprobe-trace info\n"
		"  gpuprobe-trace info -d 0000:00:06.0 --json\n",
	},
	{
		"record", cmd_record, "record a trace while a command runs",
		"usage: gpuprobe-trace record [-d BDF]... [-o FILE] [--source auto|module|tracefs]\n"
		"                             [--duration SEC] [-- CMD ARGS...]\n"
		"\n"
		"Records interrupts (handler entry + duration), DMA-API calls, IOMMU maps,\n"
		"faults and swiotlb bounces of the target devices into FILE. With CMD it\n"
		"records while CMD runs and exits with CMD's status; otherwise until Ctrl-C\n"
		"or --duration.\n"
		"\n"
		"  -d, --device BDF     target PCI function (repeatable; default: display devices)\n"
		"  -o, --output FILE    trace file (default gpuprobe.trace)\n"
		"  -s, --source SRC     auto (module if loaded, else tracefs), module or tracefs\n"
		"  -D, --duration SEC   stop after SEC seconds\n"
		"  -q, --quiet          no status line, no summary on stderr\n"
		"      --no-inject      do not trace CMD's CUDA/OpenCL calls\n"
		"      --inject-dir DIR libgpuprobe_cupti.so / libgpuprobe_opencl.so are in DIR\n"
		"                       (default: next to this binary, or ../inject)\n"
		"      --zstd[=LEVEL]   compress the compact records with zstd too (level 1-19,\n"
		"                       default 3): a third smaller, slower to read\n"
		"      --uncompressed   write format version 1, records as they are (about 42\n"
		"                       bytes each, against about 9 compact)\n"
		"\n"
		"CMD's CUDA work (CUPTI, through CUDA_INJECTION64_PATH) and OpenCL work (an\n"
		"ICD loader layer, through OPENCL_LAYERS) is recorded too, on the same clock,\n"
		"and merged into FILE; `report` attributes interrupts and DMA to it.\n"
		"\n"
		"EXAMPLES\n"
		"  gpuprobe-trace record -d 0000:00:06.0 -- python3 train.py\n"
		"  gpuprobe-trace record --source tracefs --duration 10 -o idle.trace\n"
		"  gpuprobe-trace record -d 00:02.0 -- dd if=/dev/zero of=f bs=4k count=100 oflag=direct\n",
	},
	{
		"report", cmd_report, "summarise a trace file",
		"usage: gpuprobe-trace report [FILE] [--json]\n"
		"\n"
		"Per target and vector: interrupt count, rate, handler time p50/p99/max and\n"
		"log2 histogram, the kernel's own count over the same window; DMA-API calls,\n"
		"bytes, segments and latency; IOMMU map/unmap counts, bytes and time; faults;\n"
		"swiotlb bounces; drops. FILE defaults to gpuprobe.trace.\n"
		"\n"
		"      --json   one JSON document (keys: Documentation/report-json.md)\n"
		"\n"
		"EXAMPLES\n"
		"  gpuprobe-trace report\n"
		"  gpuprobe-trace report run1.trace --json | jq '.targets[0].irq_count'\n",
	},
	{
		"export", cmd_export, "convert a trace to Perfetto JSON or CSV",
		"usage: gpuprobe-trace export FILE --perfetto OUT.json | --csv OUT.csv\n"
		"\n"
		"  --perfetto OUT   Chrome trace-event JSON: one track per CPU and per vector,\n"
		"                   interrupt handlers as complete events, DMA and IOMMU spans;\n"
		"                   open it in https://ui.perfetto.dev\n"
		"  --csv OUT        one row per record\n"
		"\n"
		"EXAMPLES\n"
		"  gpuprobe-trace export gpuprobe.trace --perfetto trace.json\n"
		"  gpuprobe-trace export gpuprobe.trace --csv records.csv\n",
	},
	{
		"explain", cmd_explain, "attribute a traced probe run: interrupt waterfall, pinning, copies",
		"usage: gpuprobe-trace explain PROBE.json TRACE [-d BDF] [--json] [-o OUT.json]\n"
		"\n"
		"Lines up a `probe` run with the kernel events recorded around it (same\n"
		"CLOCK_MONOTONIC) and attributes them:\n"
		"  - blocking sync: GPU end -> MSI handler entry -> wake-up of the waiting\n"
		"    thread (in or after the handler) -> the wait returns, each step's\n"
		"    p50/p99; causality checked per wait (no return, wake-up or interrupt-\n"
		"    path handler entry before GPU end by more than the clock error bound,\n"
		"    which is printed);\n"
		"  - pinning: DMA map calls, bytes and segments per pin.first / pin.repeat\n"
		"    call, the first-vs-repeat gap and what it means;\n"
		"  - copies: interrupts per MiB, DMA maps and swiotlb bounces per copy.\n"
		"Exit status 0, 1 when the inputs cannot be read, 3 when a wait breaks\n"
		"causality (the device clock mapping or its bound is wrong).\n"
		"\n"
		"  -d, --device BDF   the GPU in the trace (default: the device the probe\n"
		"                     names, else the trace's first target)\n"
		"      --json         one JSON document on stdout\n"
		"  -o, --output FILE  a copy of PROBE.json with an \"explain\" member added;\n"
		"                     `compare` then shows the attributed components too\n"
		"\n"
		"EXAMPLES\n"
		"  gpuprobe-trace record --source tracefs -d 0000:00:06.0 -o probe.trace -- \\\n"
		"      gpuprobe-trace probe --api cuda --quick -o probe.json\n"
		"  gpuprobe-trace explain probe.json probe.trace\n"
		"  gpuprobe-trace explain probe.json probe.trace -o probe-explained.json\n"
		"  gpuprobe-trace compare host-explained.json guest-explained.json\n",
	},
	{ "probe", cmd_probe, PROBE_SUMMARY, PROBE_USAGE }, { "compare", cmd_compare, COMPARE_SUMMARY, COMPARE_USAGE },
};

void usage_of(const char *cmd, FILE *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
		if (!strcmp(subcommands[i].name, cmd))
			fputs(subcommands[i].usage, out);
}

static void usage(FILE *out)
{
	fprintf(out, "usage: gpuprobe-trace <command> [options]   (version %s)\n\ncommands:\n",
		GPUPROBE_TRACE_VERSION);
	for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
		fprintf(out, "  %-8s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(out, "\n'gpuprobe-trace <command> --help' shows options and examples.\n");
}

/* The tool's version and the loaded module's (MODULE_VERSION's sysfs file). */
static int print_version(void)
{
	char module[64];

	printf("gpuprobe-trace %s (record version %d, netlink family version %d)\n",
	       GPUPROBE_TRACE_VERSION, GPUPROBE_RECORD_VERSION, GPUPROBE_FAMILY_VERSION);
	if (!read_text_file("/sys/module/gpuprobe/version", module, sizeof(module)))
		printf("gpuprobe.ko %s (loaded)\n", module);
	else
		printf("gpuprobe.ko not loaded ('modinfo gpuprobe' shows an installed one)\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	/* everywhere: gpuprobe-trace --version, -V, version, <command> --version */
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V") || !strcmp(cmd, "version") ||
	    (argc > 2 && !strcmp(argv[2], "--version")))
		return print_version();
	for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
		if (!strcmp(subcommands[i].name, cmd))
			return subcommands[i].run(argc - 1, argv + 1);
	errorf("unknown command '%s'", cmd);
	usage(stderr);
	return 2;
}
