/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Xen's side of a passed-through device, from dom0's xentrace records
 * (struct tracefile_rec_xen): the physical irqs Xen handled, per Xen irq
 * (a passed-through device's MSI is one of them), and the vectors Xen
 * injected into HVM vCPUs, per vector (a PV-on-HVM guest's event-channel
 * upcall is one vector for all its channels; a nopv guest's device has
 * its own).  Counts only: pairing them with the guest's handlers needs the
 * merged trace (issue 26 item 3, not done).
 */
#ifndef GPUPROBE_XEN_H
#define GPUPROBE_XEN_H

#include <stdint.h>

#include "tracefile.h"

#define XEN_MAX_IRQS	256
#define XEN_VECTORS	256

struct xen_irq_stats {
	uint32_t irq;
	uint64_t count;
	uint64_t cycles_sum;		/* Xen's handler, of those with an entry TSC */
	uint64_t timed;
	uint32_t cycles_max;
};

struct xen_host {
	uint64_t records;
	uint64_t phys_irqs, injections, reinjections;
	uint64_t untimed;		/* no TSC of their own (XEN_REC_UNTIMED) */
	uint64_t nested;		/* in a nested guest */
	uint64_t lost, lost_records;	/* records Xen lost, LOST records saying so */
	uint64_t overflow;		/* irqs beyond XEN_MAX_IRQS, vectors beyond 255 */
	unsigned int nirqs;
	struct xen_irq_stats irqs[XEN_MAX_IRQS];	/* by irq after xen_host_finish */
	uint64_t by_vector[XEN_VECTORS];
};

struct xen_host *xen_host_new(void);
/* TRACEFILE_REC_XEN records; others are ignored. */
void xen_host_add(struct xen_host *x, const struct gpuprobe_rec_hdr *rec);
void xen_host_finish(struct xen_host *x);
void xen_host_free(struct xen_host *x);

#endif /* GPUPROBE_XEN_H */
