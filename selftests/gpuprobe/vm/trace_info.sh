#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# gpuprobe-trace info: reports what the module says, or says it is not loaded.
fail() { echo "not ok $n $1"; rc=1; }
ok() { echo "ok $n $1"; }
rc=0
echo "TAP version 13"
echo "1..2"
rmmod gpuprobe 2>/dev/null

n=1
out=$(gpuprobe-trace info 2>&1)
echo "$out" | sed 's/^/# /'
if echo "$out" | grep -qi "not loaded" && echo "$out" | grep -q "insmod"; then
	ok "info_without_module_says_how_to_load"
else
	fail "info_without_module_says_how_to_load"
fi

n=2
insmod /gpuprobe/gpuprobe.ko || exit 1
ver=$(cat /sys/module/gpuprobe/version)
out=$(gpuprobe-trace info 2>&1)
echo "$out" | sed 's/^/# /'
if echo "$out" | grep -q "$ver" && echo "$out" | grep -q "$(uname -r)" &&
   echo "$out" | grep -qi "monotonic"; then
	ok "info_with_module_shows_version_release_clock"
else
	fail "info_with_module_shows_version_release_clock"
fi
rmmod gpuprobe
exit $rc
