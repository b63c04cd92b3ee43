/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C++ symbol names as people read them (demangle.c, libiberty's
 * cplus_demangle): CUPTI reports CUDA kernels mangled
 * ("_Z13MatrixMulCUDAILi32EEvPfS0_S0_ii"); Nsight Systems shows
 * "void MatrixMulCUDA<32>(float*, float*, float*, int, int)".
 */
#ifndef GPUPROBE_DEMANGLE_H
#define GPUPROBE_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

#define DEMANGLED_LEN	512	/* room for an abbreviated name */

/* name demangled whole (malloc'd: free it), NULL when not mangled or not demangled. */
char *demangle_whole(const char *name);
/*
 * A long name shortened for a text column of width characters: parameter
 * lists become "(...)", template arguments "<...>", then the end is cut
 * with "..."; short names unchanged.  Returns buf.
 */
const char *name_abbreviate(const char *name, char *buf, size_t width);
/* Whether name looks mangled (Itanium C++ ABI: starts with _Z). */
bool name_is_mangled(const char *name);

#endif /* GPUPROBE_DEMANGLE_H */
