/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracefs source in a pid namespace of its own (tracefs_pidns.c): the
 * plain-C parts the unit tests link.  The kernel's pids of the recorder and
 * its workload are read from signal:signal_generate lines of the probe
 * signal, each sent with a random nonce in si_errno (the event's errno=),
 * and a kernel pid becomes this namespace's number only for those two.
 */
#ifndef GPUPROBE_PIDNS_PARSE_H
#define GPUPROBE_PIDNS_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The next line of the instance's trace text from *pos that is a
 * "signal_generate: sig=SIG errno=NONCE " event: its sender's kernel pid
 * (the "comm-PID" before the CPU) and its target's (pid=).  Lines of other
 * signals or nonces (any task on the host sending one) are skipped.  *pos
 * moves past the line; false when no such line is left.
 */
bool pidns_next_signal(const char **pos, int sig, int nonce, long *sender, long *target);

/*
 * A kernel pid as this pid namespace numbers it: the recorder's and the
 * workload's (known), 0 for every other task (unknown: its kernel pid may
 * be a pid of this namespace's too).  kpid 0 (the idle task) stays 0.
 */
uint32_t pidns_local_pid(uint32_t kpid, uint32_t kself, uint32_t self,
			 uint32_t kworkload, uint32_t workload);

#endif /* GPUPROBE_PIDNS_PARSE_H */
