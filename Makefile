# SPDX-License-Identifier: GPL-2.0
#
# gpuprobe: `make` builds the module, the edu test driver, gpuprobe-trace and
# the selftests; `make test` runs every test tier; `make demo` boots the test
# VM and shows what gpuprobe saw; `make install`, `make install-dkms` and
# `make deb` install it (install.mk).  See README.md.

TOP := $(abspath .)
BUILD := $(TOP)/build

# The kernel to build against: the running kernel's build dir, else the
# oldest installed Debian headers (the stable kernel the test VM boots; the
# dev/CI machines run a kernel without modules).  KDIR_NEXT, the newest
# installed headers when they differ (bookworm-backports' 6.12, with the dma:
# tracepoints), gets a second build in build/knext and a second VM tier.
HEADERS := $(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V)
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(firstword $(HEADERS)))
KDIR_NEXT ?= $(filter-out $(KDIR),$(lastword $(HEADERS)))
KNEXT := $(BUILD)/knext
KSRC_TAR ?= $(lastword $(sort $(wildcard /usr/src/linux-source-*.tar.xz)))
KSRC := $(BUILD)/ksrc
KSFT_DIR := $(KSRC)/tools/testing/selftests
CHECKPATCH := $(KSRC)/scripts/checkpatch.pl

all: modules user selftests

modules:
	@test -n "$(KDIR)" || { echo "no kernel headers: run scripts/deps.sh"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(TOP) modules

# W=1 rebuild of everything (kbuild notices the changed flags)
modules-w1:
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 modules

# The module again for another kernel tree, from a copy (kbuild builds in the
# source): $(1) the copy, $(2) the kernel tree.
define build-module-copy
	mkdir -p $(1)
	rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude='*.mod' --exclude='*.mod.c' --exclude='modules.order' \
		--exclude='Module.symvers' \
		--include='/Kbuild' --include='/kmod/***' --include='/include/***' \
		--include='/selftests/' --include='/selftests/gpuprobe/' \
		--include='/selftests/gpuprobe/edu/***' --include='/selftests/gpuprobe/floor/***' --exclude='*' ./ $(1)/
	$(MAKE) -C $(2) M=$(1) W=1 modules
endef

# KDIR_NEXT: bookworm-backports' 6.12 headers
modules-next:
	@test -n "$(KDIR_NEXT)" || { echo "no second kernel's headers: run scripts/deps.sh"; exit 1; }
	$(call build-module-copy,$(KNEXT),$(KDIR_NEXT))

# The debug kernel (KASAN, lockdep, kmemleak, fault injection), built from
# linux-source-6.1 or reused from /var/cache/gpuprobe: Documentation/debug-kernel.rst.
debug-kernel:
	scripts/debug-kernel.sh

KDEBUG := $(BUILD)/kdebug
modules-debug:
	@kdir=$$(scripts/debug-kernel.sh | tail -n1 | sed -n 's/.* KDIR=//p'); \
	test -n "$$kdir" || { echo "no debug kernel: see scripts/debug-kernel.sh"; exit 1; }; \
	$(MAKE) --no-print-directory KDIR_DEBUG=$$kdir modules-debug-build

modules-debug-build:
	$(call build-module-copy,$(KDEBUG),$(KDIR_DEBUG))

# The module as a kernel without a privileged events group builds it
# (records unicast to the session's owner), for the VM's
# session_owner_unicast: build/unicast/gpuprobe.ko, into the VM with
# VM_EXTRA_FILES=build/unicast
modules-unicast:
	@$(MAKE) --no-print-directory GPUPROBE_UNICAST=1 modules-unicast-build

modules-unicast-build:
	$(call build-module-copy,$(BUILD)/kunicast,$(KDIR))
	mkdir -p $(BUILD)/unicast
	cp $(BUILD)/kunicast/kmod/gpuprobe.ko $(BUILD)/unicast/

# A kernel built with CONFIG_MODULE_SIG=y, for scripts/sign-test.sh
modules-sign-build:
	$(call build-module-copy,$(BUILD)/ksign,$(KDIR_SIGN))

user:
	$(MAKE) -C user
	$(MAKE) -C inject

# kselftest harness and checkpatch come from Debian's linux-source tarball,
# extracted at build time (not vendored).
$(KSRC)/.stamp:
	@test -n "$(KSRC_TAR)" || { echo "no linux-source tarball: run scripts/deps.sh"; exit 1; }
	mkdir -p $(KSRC)
	tar -xJf $(KSRC_TAR) -C $(KSRC) --strip-components=1 --wildcards \
		'*/tools/testing/selftests/kselftest*.h' \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
	touch $@

# The kernel's ynl schemas (Documentation/netlink/genetlink*.yaml) are newer
# than 6.1: they come from Debian's linux-source-6.12.
KSRC_NEXT_TAR ?= $(lastword $(sort $(wildcard /usr/src/linux-source-6.1[2-9].tar.xz)))
KSRC_NEXT := $(BUILD)/ksrc-next
$(KSRC_NEXT)/.stamp:
	@test -n "$(KSRC_NEXT_TAR)" || { echo "no linux-source-6.12 tarball: run scripts/deps.sh"; exit 1; }
	mkdir -p $(KSRC_NEXT)
	tar -xJf $(KSRC_NEXT_TAR) -C $(KSRC_NEXT) --strip-components=1 --wildcards \
		'*/Documentation/netlink/genetlink*.yaml'
	touch $@

spec-schema: $(KSRC_NEXT)/.stamp

selftests: $(KSRC)/.stamp
	$(MAKE) -C selftests/gpuprobe KSFT_DIR=$(KSFT_DIR) OUTPUT=$(BUILD)/selftests

checkpatch: $(KSRC)/.stamp
	perl $(CHECKPATCH) --strict --no-tree --terse -f \
		$(filter-out %.mod.c,$(wildcard kmod/*.c kmod/*.h selftests/gpuprobe/edu/*.c selftests/gpuprobe/floor/*.c)) \
		include/uapi/linux/gpuprobe.h

test: all
	scripts/test.sh

vmtest: all
	scripts/vmtest.sh

demo: all
	scripts/demo.sh

bench: all
	scripts/bench.sh

# the interrupt benchmark in instructions (QEMU -icount): Documentation/benchmarks.md
bench-icount: all
	scripts/bench-icount.sh

# another device's DMA (NVMe O_DIRECT reads) with gpuprobe watching edu, on
# 6.1 and 6.12, in instructions and wall time: Documentation/benchmarks.md
bench-nontarget: all modules-next
	scripts/bench-nontarget.sh

# the tracefs source against trace-cmd record on interrupts + DMA in the test VM
bench-tracefs-vm: all
	scripts/bench-tracefs-vm.sh

# Mutation testing (scripts/mutate.py, Documentation/testing.md): a seeded
# sample of MUTANTS run mutants of user/ and inject/ (all: every one, about
# a day on 2 cores); SEED=n repeats a sample.  mutate-kmod: the module's
# mutants against the VM tier, minutes each (not in CI).
MUTANTS ?= 100
mutate: user
	nice -n 10 scripts/mutate.py --mutants $(MUTANTS) $(if $(SEED),--seed $(SEED)) \
		--json $(BUILD)/mutate/report.json

mutate-kmod:
	nice -n 10 scripts/mutate.py --profile kmod --jobs 1 --mutants $(or $(MUTANTS_KMOD),20) \
		$(if $(SEED),--seed $(SEED)) --work $(BUILD)/mutate-kmod \
		--json $(BUILD)/mutate-kmod/report.json

# DMA bursts: records/s held with 0 lost, module and tracefs sources (Documentation/benchmarks.md)
bench-burst: all
	scripts/bench-burst.sh

# What CUDA tracing costs a launch-bound and a GPU-bound torch loop, on the
# H200 with .gpu/ carried (scripts/h200-cost.sh; through the device tool one
# call per loop: LOOP=launch, then LOOP=gpu, each inside the 600 s limit).
bench-cuda:
	$(if $(LOOP),bash scripts/h200-cost.sh $(LOOP),bash scripts/h200-cost.sh launch && bash scripts/h200-cost.sh gpu)

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean
	$(MAKE) -C user clean
	rm -rf $(BUILD)

# make install, install-dkms, deb, package-test: Documentation/install.rst
include $(TOP)/install.mk

.PHONY: mutate mutate-kmod spec-schema all modules modules-w1 modules-next debug-kernel modules-debug modules-debug-build modules-sign-build modules-unicast modules-unicast-build user selftests checkpatch test vmtest demo bench bench-icount bench-tracefs-vm bench-burst bench-cuda clean bench-nontarget
