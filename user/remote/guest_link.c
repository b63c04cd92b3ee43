// SPDX-License-Identifier: GPL-2.0
/*
 * record --guest: the host's side of the link to the guest's agent.  The
 * guest's trace arrives as the bytes of a trace file (the agent runs
 * `record -o -`); they are spooled to an unlinked temporary file and read
 * back at the end by the same validating reader as any trace, so a guest
 * that dies mid-run leaves its whole records up to the cut.  Each guest
 * record is then written into the host's file inside a wrapper (0x8007),
 * with its raw guest timestamp and its time on the host clock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clocksync.h"
#include "tscclock.h"
#include "guest_link.h"
#include "guest_merge.h"
#include "machine.h"
#include "protocol.h"
#include "util.h"

#define BURST_START		16
#define BURST_PERIODIC		8
#define BURST_PERIOD_NS		1000000000ull
#define EXIT_WAIT_EXTRA_MS	20000	/* the guest's command gets 5 s to stop; its drain more */

struct guest_link {
	struct guest_options o;
	char token[REMOTE_TOKEN_MAX];
	char address[96];
	struct remote_chan c;
	FILE *spool;
	uint64_t spool_bytes;
	struct clock_fit fit;
	uint64_t sync_seq;
	uint64_t next_burst_ns;
	bool started;		/* its first bytes arrived: from now on a loss leaves an incomplete trace */
	bool exited, lost, write_error;
	int32_t exit_status;
	struct kvm_tsc *kvm;	/* the exact clock's host half; NULL: the exchanges' clock only */
};

static void link_lost(struct guest_link *g, const char *why)
{
	if (g->lost)
		return;
	g->lost = true;
	if (g->started)
		errorf("guest %s: %s; the guest's records up to here are kept and the trace will be marked incomplete",
		       g->address, why);
	else
		errorf("guest %s: %s: the recording cannot start", g->address, why);
}

static void spool_data(struct guest_link *g)
{
	if (g->write_error)
		return;
	if (fwrite(g->c.payload, 1, g->c.hdr.length, g->spool) != g->c.hdr.length) {
		g->write_error = true;
		errorf("cannot spool the guest's trace: %s", strerror(errno));
		return;
	}
	g->spool_bytes += g->c.hdr.length;
}

/* A message outside a clock exchange. */
static void handle_message(struct guest_link *g)
{
	switch (g->c.hdr.type) {
	case REMOTE_DATA:
		spool_data(g);
		break;
	case REMOTE_LOG:	/* its command's output and its errors: shown as a local workload's */
		fprintf(stderr, "%s: guest: %s\n", progname, remote_text(&g->c));
		break;
	case REMOTE_EXIT:
		memcpy(&g->exit_status, g->c.payload, sizeof(g->exit_status));
		g->exited = true;
		break;
	case REMOTE_SYNC_REPLY:	/* of an exchange that timed out: too late to be used */
		break;
	case REMOTE_ERROR: {
		char why[600];

		snprintf(why, sizeof(why), "the agent gave up: %s", remote_text(&g->c));
		link_lost(g, why);
		break;
	}
	default: {
		char why[128];

		snprintf(why, sizeof(why), "malformed exchange: %s from the agent",
			 remote_msg_name(g->c.hdr.type));
		remote_send_error(&g->c, "%s", why);
		link_lost(g, why);
	}
	}
}

/* Receive for up to wait_ms; 1 a message was handled, 0 none, -1 the link is gone. */
static int receive(struct guest_link *g, int wait_ms)
{
	int n;

	if (g->lost)
		return -1;
	n = remote_recv(&g->c, wait_ms);
	if (n < 0) {
		link_lost(g, g->c.closed && !g->exited ?
			  "the agent closed the connection before its recording ended (killed, or the guest died)" :
			  g->c.error);
		return -1;
	}
	if (n > 0)
		handle_message(g);
	return n;
}

static int put_burst_record(struct guest_link *g, const struct clock_point *p, unsigned int n,
			    const struct record_sink *sink)
{
	struct tracefile_rec_clock_sync rec = {
		.hdr = { .type = TRACEFILE_REC_CLOCK_SYNC, .size = sizeof(rec), .ts_ns = p->host_ns },
		.machine = MACHINE_GUEST,
		.kind = CLOCK_SYNC_BURST,
		.samples = (uint16_t)n,
		.offset_ns = p->offset_ns,
		.error_ns = p->error_ns,
		.guest_ns = p->guest_ns,
	};

	clock_fit_add(&g->fit, p);
	return sink_put(sink, &rec.hdr);
}

static uint64_t host_clock(void *unused)
{
	(void)unused;
	return mono_now_ns();
}

/*
 * The exact clock's samples of a burst: the guest's narrowest TSC read
 * (with the host window of its exchange, which says under which of KVM's
 * offsets it was read) and one of the host's own.
 */
static void put_tsc_samples(struct guest_link *g, const struct tracefile_rec_tsc *guest,
			    const struct record_sink *sink)
{
	struct tracefile_rec_tsc rec;
	struct tsc_sample s;

	if (!g->kvm || !guest->hdr.size)
		return;
	if (sink_put(sink, &guest->hdr))
		return;
	/* the narrowest of 16: once a burst, after it, so no exchange waits on it */
	if (!tsc_sample_now(host_clock, NULL, 16, &s)) {
		tsc_sample_record(&s, MACHINE_HOST, s.mono_lo, &rec);
		sink_put(sink, &rec.hdr);
	}
}

/* An exchange's reply with the guest's TSC read: the narrowest so far in *best. */
static void keep_guest_tsc(const struct remote_chan *c, uint64_t t1, uint64_t t3,
			   struct tracefile_rec_tsc *best)
{
	struct remote_sync_reply r;
	struct tsc_sample s;

	if (c->hdr.length < sizeof(r))
		return;
	memcpy(&r, c->payload, sizeof(r));
	if (r.tsc_mono_hi < r.tsc_mono_lo || (best->hdr.size &&
	    r.tsc_mono_hi - r.tsc_mono_lo >= best->mono_hi - best->mono_lo))
		return;
	s = (struct tsc_sample){ .mono_lo = r.tsc_mono_lo, .tsc = r.tsc, .mono_hi = r.tsc_mono_hi,
				 .cpu = r.cpu, .apic_id = r.apic_id };
	tsc_sample_record(&s, MACHINE_GUEST, t3, best);
	best->host_lo = t1;
	best->host_hi = t3;
}

/* n two-way exchanges; the best becomes a clock point and a record. */
static void clock_burst(struct guest_link *g, unsigned int n, const struct record_sink *sink)
{
	struct clock_sample s[BURST_START];
	struct tracefile_rec_tsc guest_tsc = { .hdr.size = 0 };
	struct clock_point best;
	unsigned int got = 0;

	for (unsigned int i = 0; i < n && i < BURST_START && !g->lost; i++) {
		uint64_t seq = ++g->sync_seq, deadline;

		s[got].t1 = mono_now_ns();
		if (remote_send(&g->c, REMOTE_SYNC, &seq, sizeof(seq))) {
			link_lost(g, g->c.error);
			break;
		}
		deadline = s[got].t1 + (uint64_t)g->o.timeout_ms * 1000000;
		for (;;) {
			uint64_t now = mono_now_ns();
			struct remote_sync_reply r;
			int m;

			if (now >= deadline) {
				link_lost(g, "no answer to a clock exchange: the agent stalls");
				break;
			}
			m = remote_recv(&g->c, (int)((deadline - now) / 1000000) + 1);
			if (m <= 0) {
				if (m < 0)
					receive(g, 0);	/* reports why */
				continue;
			}
			if (g->c.hdr.type != REMOTE_SYNC_REPLY) {
				handle_message(g);
				continue;
			}
			memcpy(&r, g->c.payload, REMOTE_SYNC_REPLY_SHORT);
			if (r.seq != seq)
				continue;
			s[got].t3 = mono_now_ns();
			s[got].t2 = r.guest_ns;
			keep_guest_tsc(&g->c, s[got].t1, s[got].t3, &guest_tsc);
			got++;
			break;
		}
	}
	if (got && !clock_burst_best(s, got, &best))
		put_burst_record(g, &best, got, sink);
	put_tsc_samples(g, &guest_tsc, sink);
	g->next_burst_ns = mono_now_ns() + BURST_PERIOD_NS;
}

/* KVM's relation of the guest's TSC to ours; without it the exchanges' clock is the file's. */
static void open_kvm(struct guest_link *g, const struct record_sink *sink)
{
	char why[400];

	/* whether interrupts can be posted: the crossing's route (hostpath.c) */
	if (kvm_apic_mode_put("/sys", sink))
		warnf("cannot write the host's APIC virtualization record: the route will say 'not recorded'");
	g->kvm = kvm_tsc_open(&g->o.kvm, why, sizeof(why));
	if (!g->kvm) {
		warnf("no exact clock for the guest (%s): its times are mapped by the clock exchanges", why);
		return;
	}
	if (kvm_tsc_put(g->kvm, 0, sink)) {
		kvm_tsc_close(g->kvm);
		g->kvm = NULL;
	}
}

struct guest_link *guest_link_open(const struct guest_options *o)
{
	struct guest_link *g = calloc(1, sizeof(*g));
	struct remote_addr addr;
	char err[512];
	int fd;

	if (!g) {
		errorf("out of memory");
		return NULL;
	}
	g->o = *o;
	g->exit_status = -1;
	g->c.fd = -1;
	if (remote_token_load(o->token, o->token_file, g->token, sizeof(g->token), err, sizeof(err)) ||
	    remote_addr_parse(o->address, false, &addr, err, sizeof(err))) {
		errorf("--guest: %s", err);
		goto err_free;
	}
	remote_addr_format(&addr, g->address, sizeof(g->address));
	fd = remote_connect(&addr, o->timeout_ms, err, sizeof(err));
	if (fd < 0) {
		errorf("--guest: %s", err);
		goto err_free;
	}
	if (remote_chan_init(&g->c, fd, g->address, o->timeout_ms)) {
		close(fd);
		errorf("out of memory");
		goto err_free;
	}
	if (remote_handshake_host(&g->c, g->token)) {
		errorf("--guest: %s", g->c.error);
		goto err_close;
	}
	g->spool = tmpfile();
	if (!g->spool) {
		errorf("cannot create a temporary file for the guest's trace: %s", strerror(errno));
		goto err_close;
	}
	return g;

err_close:
	remote_chan_close(&g->c);
err_free:
	free(g);
	return NULL;
}

/* START's key=value strings. */
static size_t build_start(const struct guest_options *o, char *buf, size_t size)
{
	size_t len = 0;
	int n;

#define PUT(...) do { \
	n = snprintf(buf + len, size - len, __VA_ARGS__); \
	if (n < 0 || (size_t)n + 1 > size - len) \
		return 0; \
	len += (size_t)n + 1; \
} while (0)
	PUT("source=%s", o->source ? o->source : "auto");
	for (unsigned int i = 0; i < o->ntargets; i++)
		PUT("target=%s", o->targets[i]);
	if (o->command)
		PUT("command=%s", o->command);
#undef PUT
	return len;
}

int guest_link_put_host(const struct trace_info *host, const struct record_sink *sink)
{
	static unsigned char buf[TRACEFILE_REC_MAX_SIZE];
	struct machine_desc *m = calloc(1, sizeof(*m));
	size_t len;

	if (!m)
		return -1;
	m->machine = MACHINE_HOST;
	m->role = MACHINE_ROLE_HOST;
	m->exit_status = -1;
	m->info = *host;
	m->info.targets.count = 0;	/* they are the file header's */
	len = machine_record_build(m, buf, sizeof(buf));
	free(m);
	return len ? sink_put(sink, (const struct gpuprobe_rec_hdr *)buf) : -1;
}

int guest_link_start(struct guest_link *g, const struct record_sink *sink)
{
	char start[16u << 10];
	size_t len = build_start(&g->o, start, sizeof(start));
	uint64_t deadline;

	if (!len) {
		errorf("--guest-command and --guest-target make a START message over %zu bytes", sizeof(start));
		return -1;
	}
	if (remote_send(&g->c, REMOTE_START, start, (uint32_t)len)) {
		errorf("--guest: %s", g->c.error);
		return -1;
	}
	/* its first bytes say its recording runs; an EXIT first says it failed */
	deadline = mono_now_ns() + (uint64_t)g->o.timeout_ms * 1000000;
	while (!g->spool_bytes && !g->exited && !g->lost && mono_now_ns() < deadline)
		receive(g, 100);
	if (!g->spool_bytes || g->lost) {
		if (!g->lost)
			errorf("guest %s: %s", g->address, g->exited ?
			       "its recording failed to start (its messages are above)" :
			       "its recording sent nothing: the agent stalls");
		return -1;
	}
	g->started = true;
	open_kvm(g, sink);
	clock_burst(g, BURST_START, sink);
	return 0;
}

void guest_link_pump(struct guest_link *g, const struct record_sink *sink)
{
	while (receive(g, 0) > 0)
		;
	if (!g->lost && mono_now_ns() >= g->next_burst_ns)
		clock_burst(g, BURST_PERIODIC, sink);
}

bool guest_link_ended(const struct guest_link *g)
{
	return g->exited || g->lost;
}

bool guest_link_lost(const struct guest_link *g)
{
	return g->lost;
}

int guest_link_exit_status(const struct guest_link *g)
{
	return g->exited ? g->exit_status : -1;
}

/* Last burst, STOP, and what the guest still sends until its EXIT. */
static void stop_guest(struct guest_link *g, const struct record_sink *sink)
{
	uint64_t deadline;

	if (g->lost)
		return;
	clock_burst(g, BURST_START, sink);
	if (g->kvm) {	/* the end's read says whether a write went untraced */
		kvm_tsc_put(g->kvm, TSC_KVM_END, sink);
		kvm_tsc_put_traced(g->kvm, sink);
		kvm_tsc_close(g->kvm);
		g->kvm = NULL;
	}
	if (!g->exited && remote_send(&g->c, REMOTE_STOP, NULL, 0))
		link_lost(g, g->c.error);
	deadline = mono_now_ns() + (uint64_t)(g->o.timeout_ms + EXIT_WAIT_EXTRA_MS) * 1000000;
	while (!g->exited && !g->lost) {
		if (mono_now_ns() > deadline) {
			link_lost(g, "the agent did not end its recording after STOP");
			break;
		}
		receive(g, 100);
	}
}

void guest_link_free(struct guest_link *g)
{
	if (!g)
		return;
	remote_chan_close(&g->c);
	if (g->spool)
		fclose(g->spool);
	kvm_tsc_close(g->kvm);
	free(g);
}

int guest_link_finish(struct guest_link *g, const struct record_sink *sink)
{
	struct guest_merge_input in = {
		.address = g->address,
		.fit = &g->fit,
		.link_lost = g->lost,
		.exit_status = guest_link_exit_status(g),
	};
	int ret;

	stop_guest(g, sink);
	in.link_lost = g->lost;
	in.exit_status = guest_link_exit_status(g);
	remote_chan_close(&g->c);	/* the agent's session ends here */
	if (g->write_error || fflush(g->spool)) {
		errorf("the guest's trace could not be spooled: it is left out");
		return 1;
	}
	rewind(g->spool);
	in.spool = g->spool;
	ret = guest_merge(&in, sink);
	g->spool = NULL;	/* guest_merge closed it */
	return ret;
}
