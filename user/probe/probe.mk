# SPDX-License-Identifier: GPL-2.0
# `probe` (Documentation/probes.md), included by user/Makefile.
# CUDA and OpenCL are dlopen'd at run time: no link-time dependency on either.
# The CUDA kernels come from ../kernels as a generated C array (an empty one
# when nvcc is absent, and the CUDA probes then say so).

PROBE_OBJS	:= probe/probe_stats.o probe/probe_opencl.o probe/probe_cuda.o probe/probe_edu.o \
		   probe/probe_fatbin.o

# This file is included before the Makefile's first rule and defines rules.
.DEFAULT_GOAL	:= all

# cmd_probe/cmd_compare are declared in probe.h; the command table gets it
# here so that gpuprobe-trace.c itself only gains its table line.
gpuprobe-trace.o: CFLAGS += -include probe.h

../kernels/probe_kernels_fatbin.c: FORCE_KERNELS
	$(MAKE) -C ../kernels

probe/probe_fatbin.o: ../kernels/probe_kernels_fatbin.c
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<

.PHONY: FORCE_KERNELS
