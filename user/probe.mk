# SPDX-License-Identifier: GPL-2.0
# `probe` and `compare` (Documentation/probes.md), included by user/Makefile.
# CUDA and OpenCL are dlopen'd at run time: no link-time dependency on either.
# The CUDA kernels come from ../kernels as a generated C array (an empty one
# when nvcc is absent, and the CUDA probes then say so).

PROBE_OBJS	:= probe.o probe_stats.o probe_output.o probe_opencl.o probe_cuda.o \
		   probe_fatbin.o compare.o probe_jsonread.o
# `explain`: a probe output and the trace recorded around it, attributed.
EXPLAIN_OBJS	:= explain.o explain_timeline.o explain_wake.o explain_dma.o \
		   explain_output.o explain_json.o
APP_OBJS	+= $(PROBE_OBJS) $(EXPLAIN_OBJS)

# This file is included before the Makefile's first rule and defines rules.
.DEFAULT_GOAL	:= all

# cmd_probe/cmd_compare are declared in probe.h; main.c gets it here so that
# main.c itself only gains its table line.
main.o: CFLAGS += -include probe.h

../kernels/probe_kernels_fatbin.c: FORCE_KERNELS
	$(MAKE) -C ../kernels

# Synthetic timelines with known answers, and the committed H200 run.
tests/test_explain: tests/test_explain.o tests/testlib.o tests/synth.o $(EXPLAIN_OBJS) probe_jsonread.o \
		    $(CORE_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

probe_fatbin.o: ../kernels/probe_kernels_fatbin.c
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<

.PHONY: FORCE_KERNELS
