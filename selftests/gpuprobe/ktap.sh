# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by the shell selftests that run inside the test VMs (vm/,
# nested/, user/tests/vm_*.sh; copied to /gpuprobe/tests by vmtest.sh and
# nested.sh): numbered "ok N NAME" / "not ok N NAME" lines and their count.
PASSED=0
FAILED=0
NT=0
pass() { NT=$((NT + 1)); echo "ok $NT $1"; PASSED=$((PASSED + 1)); }
fail() { NT=$((NT + 1)); echo "not ok $NT $1"; FAILED=$((FAILED + 1)); }
check() { _ktap_name=$1; shift; if "$@"; then pass "$_ktap_name"; else fail "$_ktap_name"; fi; }
finish() { echo "$PASSED passed, $FAILED failed"; [ "$FAILED" -eq 0 ]; }
