// SPDX-License-Identifier: GPL-2.0
/*
 * LOST records: how both sources tell the trace what the kernel dropped.
 * In band, where a source learns of a loss as it reads (the module's LOST
 * records, tracefs's missed events, an overflowed socket), and once at the
 * end, for what the kernel's drop counters hold beyond what was reported in
 * band, so that the trace's total is the kernel's.
 */
#include "source.h"
#include "tracefile.h"
#include "util.h"

int put_lost_record(const struct record_sink *sink, uint16_t cpu, uint64_t count,
		    bool count_unknown)
{
	struct gpuprobe_rec_lost lost = {
		.hdr = {
			.type = GPUPROBE_EV_LOST, .size = sizeof(lost), .cpu = cpu,
			.flags = count_unknown ? TRACEFILE_LOST_COUNT_UNKNOWN : 0,
			.ts_ns = mono_now_ns(),
		},
		.count = count,
	};

	return sink ? sink_put(sink, &lost.hdr) : 0;
}

int put_unreported_drops(const struct record_sink *sink, uint64_t dropped, uint64_t inband,
			 struct source_counters *counters)
{
	if (dropped <= inband)
		return 0;
	counters->lost += dropped - inband;
	return put_lost_record(sink, 0, dropped - inband, false);
}
