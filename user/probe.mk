# SPDX-License-Identifier: GPL-2.0
# `probe` and `compare` (Documentation/probes.md), included by user/Makefile.
# CUDA and OpenCL are dlopen'd at run time: no link-time dependency on either.
# The CUDA kernels come from ../kernels as a generated C array (an empty one
# when nvcc is absent, and the CUDA probes then say so).

PROBE_OBJS	:= probe.o probe_stats.o probe_output.o probe_opencl.o probe_cuda.o \
		   probe_fatbin.o compare.o probe_jsonread.o
APP_OBJS	+= $(PROBE_OBJS)

# This file is included before the Makefile's first rule and defines rules.
.DEFAULT_GOAL	:= all

# cmd_probe/cmd_compare are declared in probe.h; main.c gets it here so that
# main.c itself only gains its table line.
main.o: CFLAGS += -include probe.h

../kernels/probe_kernels_fatbin.c: FORCE_KERNELS
	$(MAKE) -C ../kernels

probe_fatbin.o: ../kernels/probe_kernels_fatbin.c
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<

.PHONY: FORCE_KERNELS
