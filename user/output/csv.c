// SPDX-License-Identifier: GPL-2.0
/*
 * `export --csv`: one row per record, one column per field any record type
 * has; a field the type lacks is 0 (or empty, for bdf).  A merged trace's
 * guest records are rows of their own type with "guest_" before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "command.h"
#include "export.h"
#include "machine.h"
#include "tracefile.h"
#include "util.h"

static const char csv_header[] =
	"type,ts_ns,cpu,flags,bdf,irq,vector,duration_ns,op,dir,bytes,nents,addr,paddr,count,pid,prev_pid,target_cpu,command\n";

struct csv_row {
	const char *bdf;
	uint64_t irq, vector, duration, op, dir, bytes, nents, addr, paddr, count;
	uint64_t pid, prev_pid, target_cpu;
};

static void csv_fill(const struct gpuprobe_rec_hdr *h, struct csv_row *c, char *bdf)
{
	const struct gpuprobe_rec_irq *irq = (const void *)h;
	const struct gpuprobe_rec_dma *dma = (const void *)h;
	const struct gpuprobe_rec_iommu *io = (const void *)h;
	const struct gpuprobe_rec_swiotlb *sw = (const void *)h;
	const struct gpuprobe_rec_sched *s = (const void *)h;
	const struct tracefile_rec_irq_count *ic = (const void *)h;
	const struct gpuprobe_rec_kvm *kvm = (const void *)h;

	memset(c, 0, sizeof(*c));
	c->bdf = "";
	switch (h->type) {
	case GPUPROBE_EV_IRQ:
		bdf_format(irq->bdf, bdf);
		*c = (struct csv_row){ .bdf = bdf, .irq = irq->irq, .vector = irq->vector,
				       .duration = irq->duration_ns };
		break;
	case GPUPROBE_EV_LOST:
		c->count = ((const struct gpuprobe_rec_lost *)h)->count;
		break;
	case GPUPROBE_EV_WAKEUP:
	case GPUPROBE_EV_SWITCH:
		*c = (struct csv_row){ .bdf = "", .pid = s->pid, .prev_pid = s->prev_pid,
				       .target_cpu = s->target_cpu };
		break;
	case GPUPROBE_EV_DMA:
		bdf_format(dma->bdf, bdf);
		*c = (struct csv_row){ .bdf = bdf, .duration = dma->duration_ns, .op = dma->op,
				       .dir = dma->dir, .bytes = dma->bytes, .nents = dma->nents,
				       .addr = dma->dma_addr };
		break;
	case GPUPROBE_EV_IOMMU:
		if (io->bdf != GPUPROBE_BDF_NONE)
			bdf_format(io->bdf, bdf), c->bdf = bdf;
		c->duration = io->duration_ns, c->op = io->op, c->bytes = io->size;
		c->addr = io->iova, c->paddr = io->paddr;
		if (h->size >= sizeof(*io))	/* older modules' end before it */
			c->pid = io->pid;
		break;
	case GPUPROBE_EV_SWIOTLB:
		bdf_format(sw->bdf, bdf);
		*c = (struct csv_row){ .bdf = bdf, .dir = sw->dir, .bytes = sw->bytes };
		break;
	case TRACEFILE_REC_IRQ_COUNT:
		bdf_format(ic->bdf, bdf);
		*c = (struct csv_row){ .bdf = bdf, .irq = ic->irq, .op = ic->phase, .count = ic->count };
		break;
	case TRACEFILE_REC_KVM:
		/* irq: the host irq, op: the stage, count: the vCPU, addr: the MSI address */
		if (kvm->bdf != GPUPROBE_BDF_NONE)
			bdf_format(kvm->bdf, bdf), c->bdf = bdf;
		c->irq = kvm->host_irq, c->vector = kvm->vector, c->op = kvm->stage;
		c->pid = kvm->pid, c->count = kvm->vcpu, c->addr = kvm->msi_address;
		break;
	case TRACEFILE_REC_COMMAND:
		c->count = ((const struct tracefile_rec_command *)h)->argc;
		break;
	case GPUPROBE_EV_TARGET:
		bdf_format(((const struct gpuprobe_rec_target *)h)->bdf, bdf);
		c->bdf = bdf;
		c->op = ((const struct gpuprobe_rec_target *)h)->event;
		c->count = ((const struct gpuprobe_rec_target *)h)->nvec;
		break;
	}
}

/* The workload's argv as the shell reads it back, as one quoted field; else empty. */
static void csv_command(FILE *out, const struct gpuprobe_rec_hdr *h)
{
	static struct trace_command cmd;
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	if (h->type != TRACEFILE_REC_COMMAND || h->size < sizeof(struct tracefile_rec_command))
		return;
	command_record_decode(h, &cmd);
	m = open_memstream(&text, &len);
	if (cmd.malformed || !m) {
		if (m)
			fclose(m);
		return;
	}
	command_print_shell(m, &cmd);
	fclose(m);
	fputc('"', out);
	for (const char *p = text; p && *p; p++) {
		if (*p == '"')
			fputc('"', out);	/* doubled, as RFC 4180 quotes it */
		fputc(*p, out);
	}
	fputc('"', out);
	free(text);
}

/* A guest's record (merged traces): "guest_irq", ..., its time on the host clock. */
static void csv_record(void *state, const struct gpuprobe_rec_hdr *h)
{
	const struct gpuprobe_rec_hdr *fields = h;
	char bdf[BDF_STRLEN], type[40];
	FILE *out = state;
	struct csv_row c;

	if (h->type == TRACEFILE_REC_GUEST)
		fields = guest_record_inner((const struct tracefile_rec_guest *)h);
	snprintf(type, sizeof(type), "%s%s", fields == h ? "" : "guest_",
		 tracefile_record_type_name(fields->type));
	csv_fill(fields, &c, bdf);
	fprintf(out, "%s,%llu,%u,%u,%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,0x%llx,0x%llx,%llu,%llu,%llu,%llu,",
		type, (unsigned long long)h->ts_ns, h->cpu, fields->flags, c.bdf,
		(unsigned long long)c.irq, (unsigned long long)c.vector,
		(unsigned long long)c.duration, (unsigned long long)c.op,
		(unsigned long long)c.dir, (unsigned long long)c.bytes,
		(unsigned long long)c.nents, (unsigned long long)c.addr,
		(unsigned long long)c.paddr, (unsigned long long)c.count,
		(unsigned long long)c.pid, (unsigned long long)c.prev_pid,
		(unsigned long long)c.target_cpu);
	csv_command(out, fields);
	fputc('\n', out);
}

static void *csv_begin(FILE *out, const struct trace_info *info, const struct passthrough *pt)
{
	(void)info;
	(void)pt;
	fputs(csv_header, out);
	return out;
}

static void csv_end(void *state)
{
	(void)state;
}

const struct export_writer csv_writer = {
	.begin = csv_begin,
	.record = csv_record,
	.end = csv_end,
};
