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
		"record", cmd_record, "record a trace while a command runs (host and guest with --guest)",
		"usage: gpuprobe-trace record [-d BDF]... [-o FILE] [--source auto|module|tracefs|xentrace]\n"
		"                             [--duration SEC] [--cgroup PATH] [-- CMD ARGS...]\n"
		"       gpuprobe-trace record --guest vsock:CID[:PORT]|tcp:HOST:PORT --token-file FILE\n"
		"                             [--guest-target BDF]... [--guest-source SRC]\n"
		"                             [--guest-command CMD] [host options] [-- CMD ARGS...]\n"
		"\n"
		"Records interrupts (handler entry + duration), DMA-API calls, IOMMU maps,\n"
		"faults and swiotlb bounces of the target devices into FILE. With CMD it\n"
		"records while CMD runs and exits with CMD's status; otherwise until Ctrl-C\n"
		"or --duration.\n"
		"\n"
		"  -d, --device BDF     target PCI function (repeatable; default: display devices)\n"
		"  -o, --output FILE    trace file (default gpuprobe.trace)\n"
		"  -s, --source SRC     auto (module if loaded, else tracefs), module or tracefs;\n"
		"                       xentrace in Xen's dom0: Xen's physical irqs and its\n"
		"                       injections into HVM vCPUs, read by Xen's xentrace\n"
		"                       (xen-utils; -d optional there)\n"
		"      --xentrace-input FILE  with --source xentrace: convert FILE, written by\n"
		"                       xentrace -e 0x00882000 (or a wider mask), instead of\n"
		"                       running xentrace\n"
		"      --xentrace-file FILE   with --source xentrace: xentrace writes (and\n"
		"                       leaves) its file there (default: a temporary file)\n"
		"  -D, --duration SEC   stop after SEC seconds\n"
		"  -q, --quiet          no status line, no summary on stderr\n"
		"      --no-inject      do not trace CMD's CUDA/OpenCL calls\n"
		"      --no-iommu-parts the module source: time each map/unmap, not its parts\n"
		"                       (IOVA, page tables, invalidation): the parts' probes\n"
		"                       fire for every device's IOVA and page-table calls, and\n"
		"                       are not attached (Documentation/iommu.md)\n"
		"      --inject-dir DIR libgpuprobe_cupti.so / libgpuprobe_opencl.so are in DIR\n"
		"                       (default: next to this binary, or ../inject)\n"
		"      --api-calls SET  CUDA API calls recorded: attribution (default: launches,\n"
		"                       copies, memsets, syncs, stream waits) or all (every\n"
		"                       call, GPUPROBE_CUDA_API=all: costs a launch-bound\n"
		"                       workload more)\n"
		"      --zstd[=LEVEL]   compress the compact records with zstd too (level 1-19,\n"
		"                       default 3): a third smaller, slower to read\n"
		"      --uncompressed   write format version 1, records as they are (about 42\n"
		"                       bytes each, against about 9 compact)\n"
		"      --cgroup PATH    follow every process of this cgroup v2 (and below it),\n"
		"                       absolute or relative to /sys/fs/cgroup (its unified/ in\n"
		"                       a hybrid layout), as perf -G: a container's or a pod's,\n"
		"                       whatever its pid namespace, those forked or moved into\n"
		"                       it during the run included; its wake-ups and KVM\n"
		"                       injections are recorded (the tracefs source reads the\n"
		"                       cgroup's pids every 100 ms: a process moved in is\n"
		"                       followed up to that late, one moved out until it exits)\n"
		"\n"
		"Host and guest in one file (the guest runs `gpuprobe-trace agent`):\n"
		"      --guest ADDR       the agent: vsock:CID[:PORT] (QEMU guest-cid=CID, port\n"
		"                         5999) or tcp:HOST:PORT; the guest records as `record`\n"
		"                         would there, its records and clock offset, drift and\n"
		"                         error bound (two-way exchanges) go into FILE\n"
		"      --token-file FILE  the secret shared with the agent (or --token STRING)\n"
		"      --guest-target BDF the device as the guest sees it (repeatable)\n"
		"      --guest-source SRC the guest's source: auto, module or tracefs\n"
		"      --guest-command CMD  run CMD (sh -c) in the guest while recording; with\n"
		"                         no host CMD and no --duration the recording ends with it\n"
		"      --guest-timeout SEC  how long the agent may stay silent (default 10)\n"
		"      --guest-vmm PID    the guest's QEMU/VMM (default: the only VM in KVM's\n"
		"                         debugfs): its vCPUs' TSC offsets give the exact clock\n"
		"      --test-tsc-offset TICKS, --test-tsc-error TICKS\n"
		"                         tests: that offset instead of KVM's (an agent on this\n"
		"                         machine: 0), or KVM's made wrong by TICKS\n"
		"\n"
		"CMD's CUDA work (CUPTI, through CUDA_INJECTION64_PATH) and OpenCL work (an\n"
		"ICD loader layer, through OPENCL_LAYERS) is recorded too, on the same clock,\n"
		"and merged into FILE; `report` attributes interrupts and DMA to it.\n"
		"\n"
		"EXAMPLES\n"
		"  gpuprobe-trace record -d 0000:00:06.0 -- python3 train.py\n"
		"  gpuprobe-trace record --source tracefs --duration 10 -o idle.trace\n"
		"  gpuprobe-trace record --cgroup kubepods.slice/kubepods-pod1234.slice --duration 30\n"
		"  gpuprobe-trace record -d 00:02.0 -- dd if=/dev/zero of=f bs=4k count=100 oflag=direct\n"
		"  gpuprobe-trace record -d 0000:3b:00.0 --guest vsock:3 --token-file /etc/gpuprobe.token \\\n"
		"      --guest-target 0000:00:06.0 --guest-command 'python3 train.py' -o vm.trace\n",
	},
	{
		"report", cmd_report, "summarise a trace file",
		"usage: gpuprobe-trace report [FILE] [--json] [-v] [--tracing-cost COSTS]\n"
		"\n"
		"First the verdict: the workload, the wall time, and where the passthrough-\n"
		"sensitive time went as shares of that wall time (interrupt handlers, waits\n"
		"that saw an interrupt, DMA/IOMMU mapping, host -> guest crossing), largest\n"
		"first, then what was not measured and why.  Then per target and vector:\n"
		"interrupt count, rate, handler time p50/p99/max/total and log2 histogram,\n"
		"the kernel's own count over the same window; DMA-API calls, bytes, segments\n"
		"and latency; IOMMU map/unmap counts, bytes and time; faults; swiotlb\n"
		"bounces; drops. FILE defaults to gpuprobe.trace.\n"
		"\n"
		"      --json     one JSON document (keys: Documentation/report-json.md)\n"
		"  -v, --verbose  every idle vector and all-zero row (folded into one line\n"
		"                 each without it)\n"
		"      --tracing-cost cuda=NS,opencl=NS,kernel=NS\n"
		"                 the tracer's measured cost per record of each layer, for the\n"
		"                 tracing-cost line (default: GPUPROBE_TRACE_COST; without\n"
		"                 either, CUPTI's own overhead records only, a lower bound;\n"
		"                 scripts/h200-cost.sh measures it)\n"
		"      --test-tsc-error TICKS  tests: a merged trace's exact clock with every KVM\n"
		"                 offset wrong by TICKS (order violations must show)\n"
		"\n"
		"EXAMPLES\n"
		"  gpuprobe-trace report\n"
		"  gpuprobe-trace report run1.trace --json | jq '.targets[0].irq_count'\n",
	},
	{
		"export", cmd_export, "convert a trace to Perfetto (JSON or protobuf) or CSV",
		"usage: gpuprobe-trace export FILE --perfetto OUT.json | --perfetto-proto OUT.pftrace |\n"
		"                             --csv OUT.csv\n"
		"\n"
		"  --perfetto OUT   Chrome trace-event JSON: one track per CPU and per vector,\n"
		"                   interrupt handlers as complete events, DMA and IOMMU spans;\n"
		"                   open it in https://ui.perfetto.dev\n"
		"  --perfetto-proto OUT\n"
		"                   native Perfetto protobuf trace (TrackEvent): per-CPU interrupt\n"
		"                   tracks, DMA/IOMMU spans on async lanes, CUDA/OpenCL stream and\n"
		"                   thread tracks with demangled kernel names, flows interrupt ->\n"
		"                   wake-up -> the wait it ended, a CLOCK_MONOTONIC ClockSnapshot so\n"
		"                   it merges with a Perfetto/ftrace trace of the same run\n"
		"  --csv OUT        one row per record\n"
		"\n"
		"EXAMPLES\n"
		"  gpuprobe-trace export gpuprobe.trace --perfetto trace.json\n"
		"  gpuprobe-trace export gpuprobe.trace --perfetto-proto trace.pftrace\n"
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
	{
		"agent", cmd_agent, "in a guest: record for the host's `record --guest`",
		"usage: gpuprobe-trace agent [--listen vsock[:CID][:PORT]|tcp:ADDR:PORT]\n"
		"                            --token-file FILE | --token STRING [--once] [--timeout SEC]\n"
		"\n"
		"Runs in the guest of a GPU passthrough VM and waits for the host's\n"
		"`gpuprobe-trace record --guest`: it checks the host holds the shared token\n"
		"(HMAC challenge-response, both ways; the token is never sent), records this\n"
		"machine as `record` would with the source, targets and command the host\n"
		"names, answers clock exchanges, and sends the trace back. One session at a\n"
		"time; a wrong token, a malformed or oversized message, or a peer silent\n"
		"past the timeout is refused and the agent waits for the next. Needs root,\n"
		"as record does. Documentation/passthrough.md has the whole recipe.\n"
		"\n"
		"  -l, --listen ADDR    vsock (default: any CID, port 5999), vsock::PORT, or\n"
		"                       tcp:ADDR:PORT where there is no vsock\n"
		"  -T, --token-file FILE  the shared secret (its first line); -t, --token STRING\n"
		"      --once           exit after one session (its status: 0 when it ran to its end)\n"
		"      --timeout SEC    a peer silent for SEC inside the handshake or a message,\n"
		"                       or a host silent for SEC while recording (it sends clock\n"
		"                       exchanges every second), ends the session (default 10)\n"
		"  -q, --quiet          no session log on stderr\n"
		"      --test-clock-offset NS, --test-clock-drift PPM\n"
		"                       tests only: skew the clock the agent reports\n"
		"\n"
		"EXAMPLES\n"
		"  head -c 32 /dev/urandom | base64 > /etc/gpuprobe.token   # same file on both\n"
		"  sudo gpuprobe-trace agent --token-file /etc/gpuprobe.token\n"
		"  sudo gpuprobe-trace agent --listen tcp:0.0.0.0:5999 --token-file /etc/gpuprobe.token\n",
	},
	{
		"serve", cmd_serve, "Prometheus exporter: interrupt, DMA and IOMMU metrics over HTTP",
		"usage: gpuprobe-trace serve [-d BDF]... [--listen ADDR:PORT] [--source auto|module|tracefs]\n"
		"                            [--role host|guest|auto] [--pid PID] [--cgroup PATH] [-q]\n"
		"\n"
		"Runs until SIGINT/SIGTERM and serves the targets' metrics at\n"
		"http://ADDR:PORT/metrics in the Prometheus text format: per target (labels\n"
		"bdf, driver, role) interrupt counts beside the kernel's own count read in\n"
		"the same scrape, handler-time histograms, and with the tracefs source DMA-API\n"
		"calls/bytes/latency, IOMMU maps/faults, swiotlb bounces, wake-up latency;\n"
		"drops and the source's health (gpuprobe_source_up) for both.\n"
		"\n"
		"Sources: the module in summary mode (histograms summed in the kernel, nothing\n"
		"exported per event: interrupts only), or tracefs (every event read and added\n"
		"to running totals in fixed tables: memory does not grow). If the module is\n"
		"unloaded, a session of another tool holds it, or the tracefs instance goes,\n"
		"serve says so (gpuprobe_source_up 0), retries every 2 s and counts the\n"
		"reconnection; totals carry over. A device unbound keeps its totals\n"
		"(gpuprobe_target_bound 0) and its new vectors are picked up when it binds.\n"
		"\n"
		"Starting needs root (CAP_NET_ADMIN for the module, tracefs for tracefs);\n"
		"scraping needs nothing: it is plain HTTP, on loopback unless --listen says\n"
		"otherwise (the metrics hold no addresses, but do not expose it beyond the\n"
		"host without a proxy that authenticates).\n"
		"\n"
		"  -d, --device BDF        target PCI function (repeatable; default: display devices)\n"
		"  -l, --listen ADDR:PORT  where to listen (default 127.0.0.1:9477; [::1]:9477 for IPv6)\n"
		"  -s, --source SRC        auto (module if loaded, else tracefs), module (wait for it)\n"
		"                          or tracefs\n"
		"  -r, --role ROLE         the role label: host, guest, or auto (host when a target is\n"
		"                          bound to vfio-pci or the CPU is not virtual, else guest)\n"
		"  -p, --pid PID           follow PID's wake-ups (tracefs): wake-up latency histogram\n"
		"      --cgroup PATH       the same for every process of a cgroup v2 (record --cgroup),\n"
		"                          its histogram labelled cgroup=\"PATH\" (tracefs source)\n"
		"  -q, --quiet             no messages on stderr but errors\n"
		"\n"
		"Metric names, PromQL examples and the Grafana dashboard:\n"
		"Documentation/fleet.md, Documentation/grafana-gpuprobe.json.\n"
		"\n"
		"EXAMPLES\n"
		"  sudo gpuprobe-trace serve -d 0000:00:06.0 &\n"
		"  curl -s 127.0.0.1:9477/metrics | grep gpuprobe_interrupts_total\n"
		"  sudo gpuprobe-trace serve --source tracefs -d 00:02.0 --listen 127.0.0.1:9100\n"
		"  # prometheus.yml: scrape_configs: [{job_name: gpuprobe,\n"
		"  #   static_configs: [{targets: ['127.0.0.1:9477']}]}]\n"
		"  # PromQL: rate(gpuprobe_interrupts_total[1m]);\n"
		"  #   histogram_quantile(0.99, rate(gpuprobe_interrupt_handler_duration_seconds_bucket[5m]))\n",
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
	/* help COMMAND: that command's help, as COMMAND --help */
	if (!strcmp(cmd, "help") && argc > 2) {
		for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++) {
			if (!strcmp(subcommands[i].name, argv[2])) {
				usage_of(argv[2], stdout);
				return 0;
			}
		}
		errorf("help: unknown command '%s'", argv[2]);
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
