/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload's command line in a trace (struct tracefile_rec_command):
 * built by record, decoded by readers, printed so that a shell gives back
 * the same argv.
 */
#ifndef GPUPROBE_COMMAND_H
#define GPUPROBE_COMMAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracefile.h"

struct trace_command {
	bool present;		/* a command record was read */
	bool malformed;		/* one was, and its fields disagree: not used */
	bool cut;		/* COMMAND_CUT */
	uint32_t argc, nargs, len;
	char text[TRACEFILE_COMMAND_MAX];	/* nargs NUL-terminated strings */
};

/* The record for argv (NULL-terminated) into buf: its size, 0 when size is too small. */
size_t command_record_build(char *const *argv, uint64_t ts_ns, void *buf, size_t size);
/* The record into c; a malformed one sets only c->present and c->malformed. */
void command_record_decode(const struct gpuprobe_rec_hdr *h, struct trace_command *c);
/* The stored argument i (< c->nargs), or NULL. */
const char *command_arg(const struct trace_command *c, uint32_t i);
/*
 * The stored arguments separated by spaces, each quoted as a shell reads
 * it back: bare when made only of safe characters, '...' otherwise, and
 * $'...' when it holds control characters.
 */
void command_print_shell(FILE *out, const struct trace_command *c);
/* "(cut at N bytes: M of ARGC arguments kept)" or "" */
void command_print_cut(FILE *out, const struct trace_command *c);

#endif /* GPUPROBE_COMMAND_H */
