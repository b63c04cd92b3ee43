/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host half of a host + guest recording (record --guest): the link to
 * the guest's agent, the clock exchanges, the guest's trace spooled while
 * it arrives and merged into the host's file at the end
 * (Documentation/passthrough.md).
 */
#ifndef GPUPROBE_REMOTE_GUEST_LINK_H
#define GPUPROBE_REMOTE_GUEST_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "kvm_tsc.h"
#include "target.h"
#include "source.h"
#include "tracefile.h"

struct guest_options {
	const char *address;		/* vsock:CID[:PORT] or tcp:HOST:PORT */
	const char *token;		/* --token */
	const char *token_file;		/* --token-file */
	const char *source;		/* the guest's: auto, module, tracefs */
	unsigned int ntargets;
	char *targets[TARGET_MAX];	/* --guest-target BDF */
	const char *command;		/* --guest-command: run by sh -c in the guest */
	int timeout_ms;
	bool quiet;
	struct kvm_tsc_options kvm;	/* --guest-vmm, --test-tsc-offset, --test-tsc-error */
};

struct guest_link;

/* Connect and authenticate; NULL after saying why. */
struct guest_link *guest_link_open(const struct guest_options *o);
/* Right after the file header: the host's machine record, the first record of a merged file. */
int guest_link_put_host(const struct trace_info *host, const struct record_sink *sink);
/*
 * The host is recording: start the guest's recording, wait for its first
 * bytes, first clock burst.  -1 after saying why.
 */
int guest_link_start(struct guest_link *g, const struct record_sink *sink);
/* While recording: take what arrived, a clock burst every second. */
void guest_link_pump(struct guest_link *g, const struct record_sink *sink);
/* The guest's recording ended on its own (its command exited), or the link broke. */
bool guest_link_ended(const struct guest_link *g);
bool guest_link_lost(const struct guest_link *g);
/* The guest recording's exit status (its command's), -1 when unknown. */
int guest_link_exit_status(const struct guest_link *g);
/*
 * The host stopped: last clock burst, STOP, the rest of the guest's trace,
 * then the fit, the guest's machine record and its records, wrapped.
 * 0: the guest's trace is whole; 1: it was cut short (the host's file must
 * be marked incomplete); -1: a write error.
 */
int guest_link_finish(struct guest_link *g, const struct record_sink *sink);
void guest_link_free(struct guest_link *g);

#endif /* GPUPROBE_REMOTE_GUEST_LINK_H */
