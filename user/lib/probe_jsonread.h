/* SPDX-License-Identifier: GPL-2.0 */
/* A small JSON reader for `compare`: the whole document as a tree. */
#ifndef GPUPROBE_PROBE_JSONREAD_H
#define GPUPROBE_PROBE_JSONREAD_H

#include <stdbool.h>
#include <stddef.h>

enum jnode_type { JNODE_NULL, JNODE_BOOL, JNODE_NUMBER, JNODE_STRING, JNODE_ARRAY, JNODE_OBJECT };

struct jnode {
	enum jnode_type type;
	char *key;		/* member name inside an object */
	char *str;		/* JNODE_STRING */
	double num;		/* JNODE_NUMBER, JNODE_BOOL */
	struct jnode *child;	/* first element or member */
	struct jnode *next;	/* next sibling */
};

/* NULL with a message naming the byte offset in err on malformed input. */
struct jnode *jread_parse(const char *text, char *err, size_t errsize);
/* Read and parse a file; NULL with the reason in err. */
struct jnode *jread_file(const char *path, char *err, size_t errsize);
const struct jnode *jread_get(const struct jnode *obj, const char *key);
const char *jread_string(const struct jnode *obj, const char *key, const char *fallback);
double jread_number(const struct jnode *obj, const char *key, double fallback);
void jread_free(struct jnode *n);

#endif /* GPUPROBE_PROBE_JSONREAD_H */
