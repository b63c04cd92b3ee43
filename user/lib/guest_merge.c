// SPDX-License-Identifier: GPL-2.0
/* Merge a guest's trace into the host's file (guest_merge.h). */
#include <stdlib.h>
#include <string.h>

#include "guest_merge.h"
#include "machine.h"
#include "util.h"

static int put_fit(const struct clock_fit *f, const struct record_sink *sink)
{
	struct tracefile_rec_clock_sync rec = {
		.hdr = { .type = TRACEFILE_REC_CLOCK_SYNC, .size = sizeof(rec), .ts_ns = f->ref_host_ns },
		.machine = MACHINE_GUEST,
		.kind = CLOCK_SYNC_FIT,
		.samples = (uint16_t)f->npoints,
		.offset_ns = f->offset_ns,
		.error_ns = f->error_ns,
		.drift_ppb = f->drift_ppb,
	};

	return sink_put(sink, &rec.hdr);
}

/* Pass 1: how many whole records, and whether the guest's file is complete. */
static int count_records(FILE *f, uint64_t *records, bool *complete, int32_t *exit_status,
			 uint64_t *stop_ns, char *err, size_t errlen)
{
	const struct gpuprobe_rec_hdr *rec;
	struct trace_reader r;
	struct trace_info *info = malloc(sizeof(*info));
	int n = -1;

	if (!info)
		return -1;
	if (!trace_reader_open_stream(&r, f, "the guest's trace", info)) {
		while ((n = trace_reader_next(&r, &rec)) > 0)
			(*records)++;
		*complete = r.seen_end;
		*exit_status = r.seen_end ? r.end.exit_status : -1;
		*stop_ns = r.seen_end ? r.end.hdr.ts_ns : 0;
	}
	if (n < 0)
		snprintf(err, errlen, "%s", r.error);
	r.file = NULL;	/* the caller's */
	trace_reader_close(&r);
	free(info);
	return n < 0 ? -1 : 0;
}

static int put_machine(const struct guest_merge_input *in, const struct trace_info *info,
		       uint64_t records, bool complete, int32_t exit_status, uint64_t stop_ns,
		       const struct record_sink *sink)
{
	static unsigned char buf[TRACEFILE_REC_MAX_SIZE];
	struct machine_desc *m = calloc(1, sizeof(*m));
	size_t len;

	if (!m)
		return -1;
	m->machine = MACHINE_GUEST;
	m->role = MACHINE_ROLE_GUEST;
	m->flags = (complete ? MACHINE_COMPLETE : 0) | (in->link_lost ? MACHINE_LOST : 0);
	m->exit_status = in->exit_status >= 0 ? in->exit_status : exit_status;
	m->records = records;
	m->stop_ns = stop_ns;
	m->info = *info;
	copy_string(m->address, sizeof(m->address), in->address);
	len = machine_record_build(m, buf, sizeof(buf));
	free(m);
	return len ? sink_put(sink, (const struct gpuprobe_rec_hdr *)buf) : -1;
}

int guest_merge(struct guest_merge_input *in, const struct record_sink *sink)
{
	static unsigned char wrapped[TRACEFILE_REC_MAX_SIZE];
	const struct gpuprobe_rec_hdr *rec;
	struct trace_info *info = malloc(sizeof(*info));
	uint64_t records = 0, wrapped_count = 0, stop_ns = 0;
	struct trace_reader r;
	bool complete = false;
	int32_t exit_status = -1;
	char err[512] = "";
	int ret = 1, n = -1;

	if (!info)
		goto out_close;
	clock_fit_solve(in->fit);
	if (!in->fit->npoints)
		warnf("the guest's clock was never compared with the host's: its records keep their own times, NOT aligned");
	else if (put_fit(in->fit, sink))
		goto err_sink;
	if (count_records(in->spool, &records, &complete, &exit_status, &stop_ns,
			  err, sizeof(err))) {
		errorf("the guest's trace is unreadable, left out: %s", err);
		goto out_close;
	}
	rewind(in->spool);
	if (trace_reader_open_stream(&r, in->spool, "the guest's trace", info)) {
		errorf("%s", r.error);
		trace_reader_close(&r);	/* its buffer, and the spool it holds */
		in->spool = NULL;
		goto out_close;
	}
	if (put_machine(in, info, records, complete, exit_status, stop_ns, sink))
		goto err_reader;
	while ((n = trace_reader_next(&r, &rec)) > 0) {
		uint64_t host_ts = rec->ts_ns;

		clock_guest_to_host(in->fit, rec->ts_ns, &host_ts);
		if (guest_record_wrap(MACHINE_GUEST, rec, host_ts, wrapped))
			continue;	/* larger than a record can carry: cannot happen with today's types */
		if (sink_put(sink, (const struct gpuprobe_rec_hdr *)wrapped))
			goto err_reader;
		wrapped_count++;
	}
	for (unsigned int i = 0; i < r.damaged && i < TRACEFILE_DAMAGE_LIST; i++) {
		char line[400];

		warnf("guest: %s", trace_reader_damage_line(&r, i, line, sizeof(line)));
	}
	if (r.truncated)
		warnf("guest: %s", r.warning);
	ret = complete && !in->link_lost && n == 0 ? 0 : 1;
	trace_reader_close(&r);
	in->spool = NULL;
	goto out_free;

err_reader:
	trace_reader_close(&r);
	in->spool = NULL;
err_sink:
	ret = -1;
out_close:
	if (in->spool)
		fclose(in->spool);
	in->spool = NULL;
out_free:
	(void)wrapped_count;
	free(info);
	return ret;
}
