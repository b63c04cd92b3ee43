// SPDX-License-Identifier: GPL-2.0
/* Machine records and guest wrappers of merged traces (machine.h). */
#include <stdio.h>
#include <string.h>

#include "machine.h"
#include "util.h"

size_t machine_record_build(const struct machine_desc *m, void *buf, size_t size)
{
	struct tracefile_rec_machine *rec = buf;
	const struct target_set *set = &m->info.targets;
	size_t len = sizeof(*rec);
	unsigned char *p = buf;

	if (size < len)
		return 0;
	if (size > TRACEFILE_REC_MAX_SIZE)
		size = TRACEFILE_REC_MAX_SIZE;
	memset(rec, 0, sizeof(*rec));
	for (unsigned int i = 0; i < set->count; i++) {
		const struct target *t = &set->t[i];
		size_t need = sizeof(struct tracefile_target) + t->nvec * sizeof(struct tracefile_vector);
		struct tracefile_target ft = {
			.bdf = t->bdf, .vendor = t->vendor, .device = t->device,
			.class = t->class, .nvec = t->nvec,
		};

		if (len + need > size)
			break;
		copy_string(ft.driver, sizeof(ft.driver), t->driver);
		memcpy(p + len, &ft, sizeof(ft));
		len += sizeof(ft);
		for (uint32_t v = 0; v < t->nvec; v++) {
			struct tracefile_vector fv = {
				.index = t->vec[v].index, .irq = t->vec[v].irq,
				.flags = t->vec[v].flags,
			};

			memcpy(p + len, &fv, sizeof(fv));
			len += sizeof(fv);
		}
		rec->ntargets++;
	}
	rec->hdr.type = TRACEFILE_REC_MACHINE;
	rec->hdr.size = (uint16_t)len;
	rec->hdr.ts_ns = mono_now_ns();
	rec->machine = m->machine;
	rec->role = m->role;
	rec->source = m->info.source;
	rec->start_ns = m->info.start_ns;
	rec->start_realtime_ns = m->info.start_realtime_ns;
	copy_string(rec->host, sizeof(rec->host), m->info.host);
	copy_string(rec->kernel_release, sizeof(rec->kernel_release), m->info.kernel_release);
	copy_string(rec->tool_version, sizeof(rec->tool_version), m->info.tool_version);
	copy_string(rec->address, sizeof(rec->address), m->address);
	rec->flags = m->flags;
	rec->exit_status = m->exit_status;
	rec->records = m->records;
	rec->stop_ns = m->stop_ns;
	return len;
}

int machine_record_decode(const struct tracefile_rec_machine *rec, struct machine_desc *m,
			  char *err, size_t errlen)
{
	const unsigned char *p = (const unsigned char *)rec;
	size_t pos = sizeof(*rec);

	memset(m, 0, offsetof(struct machine_desc, info));
	memset(&m->info, 0, offsetof(struct trace_info, targets));
	m->info.targets.count = 0;
	m->machine = rec->machine;
	m->role = rec->role;
	m->flags = rec->flags;
	m->exit_status = rec->exit_status;
	m->records = rec->records;
	m->stop_ns = rec->stop_ns;
	m->info.source = rec->source;
	m->info.start_ns = rec->start_ns;
	m->info.start_realtime_ns = rec->start_realtime_ns;
	m->info.clock_id = 1;	/* CLOCK_MONOTONIC, as every machine of the file records it */
	m->info.format_version = TRACEFILE_VERSION;
	m->info.record_version = GPUPROBE_RECORD_VERSION;
	/* strings may lack their NUL in a corrupt file: copy_string bounds them */
	snprintf(m->info.host, sizeof(m->info.host), "%.*s", (int)sizeof(rec->host), rec->host);
	snprintf(m->info.kernel_release, sizeof(m->info.kernel_release), "%.*s",
		 (int)sizeof(rec->kernel_release), rec->kernel_release);
	snprintf(m->info.tool_version, sizeof(m->info.tool_version), "%.*s",
		 (int)sizeof(rec->tool_version) - 1, rec->tool_version);
	snprintf(m->address, sizeof(m->address), "%.*s", (int)sizeof(rec->address) - 1,
		 rec->address);
	if (rec->ntargets > TARGET_MAX) {
		snprintf(err, errlen, "machine %u: corrupt target count %u", rec->machine,
			 rec->ntargets);
		return -1;
	}
	for (uint32_t i = 0; i < rec->ntargets; i++) {
		if (tracefile_target_decode(p, rec->hdr.size, &pos, &m->info.targets.t[i]))
			goto corrupt;
		m->info.targets.count = i + 1;
	}
	return 0;
corrupt:
	snprintf(err, errlen, "machine %u: its target table runs past the record (%u bytes)",
		 rec->machine, rec->hdr.size);
	return -1;
}

int guest_record_wrap(uint32_t machine, const struct gpuprobe_rec_hdr *inner,
		      uint64_t host_ts, void *buf)
{
	struct tracefile_rec_guest *g = buf;

	if (inner->size > TRACEFILE_GUEST_MAX_INNER || inner->size < sizeof(*inner) ||
	    inner->size % 8)
		return -1;
	memset(g, 0, sizeof(*g));
	g->hdr.type = TRACEFILE_REC_GUEST;
	g->hdr.size = (uint16_t)(sizeof(*g) + inner->size);
	g->hdr.cpu = inner->cpu;
	g->hdr.ts_ns = host_ts;
	g->machine = machine;
	memcpy(g + 1, inner, inner->size);
	return 0;
}
