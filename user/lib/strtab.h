/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace's string table (TRACEFILE_REC_STRING): whole kernel names, which
 * application events carry only in short form ("first 46 characters~HASH",
 * inject/appwriter.c).  Build a record from a name, decode one, and find a
 * short name's whole one.
 */
#ifndef GPUPROBE_STRTAB_H
#define GPUPROBE_STRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracefile.h"

struct strtab {
	size_t n, cap;		/* open addressing on the hash, cap a power of 2 */
	struct strtab_slot { uint64_t hash; char *text; } *slot;
	uint64_t malformed;	/* records refused: length, NUL or hash wrong */
};

/* 64-bit FNV-1a of len bytes: the hash of the short form. */
uint64_t strtab_hash(const char *s, size_t len);
/*
 * The record of text (len bytes, hash: the whole name's, cut: the name was
 * longer) into buf (TRACEFILE_STRING_MAX + sizeof record + 8 bytes): its size.
 */
size_t strtab_record_build(uint64_t hash, const char *text, size_t len, bool cut, uint64_t ts_ns,
			   void *buf, size_t size);
/* Keeps the record's string (the reader checked its minimum size); 0, or -1 if malformed/no memory. */
int strtab_add(struct strtab *t, const struct gpuprobe_rec_hdr *h);
/* Keeps a string under its hash (record's merge); 0 or -1. */
int strtab_put(struct strtab *t, uint64_t hash, const char *text, size_t len);
/*
 * The whole name of a short one (flags: the event's; only a shortened name
 * is looked up), else name itself.
 */
const char *strtab_whole(const struct strtab *t, const char *name, uint32_t flags);
void strtab_free(struct strtab *t);
/* Calls fn for every string kept (in no particular order). */
void strtab_each(const struct strtab *t, void (*fn)(void *arg, uint64_t hash, const char *text),
		 void *arg);

#endif /* GPUPROBE_STRTAB_H */
