# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# Sourced by the shell selftests that run inside the test VMs (vm/,
# nested/, user/tests/vm_*.sh; copied to /gpuprobe/tests by vmtest.sh and
# nested.sh): numbered "ok N NAME" / "not ok N NAME" / "ok N NAME # SKIP
# REASON" lines (vm/run.sh counts each kind) and their tally, "N passed,
# N failed, N skipped", which finish prints last and returns non-zero on a
# failure.
PASSED=0
FAILED=0
SKIPPED=0
NT=0
pass() { NT=$((NT + 1)); echo "ok $NT $1"; PASSED=$((PASSED + 1)); }
fail() { NT=$((NT + 1)); echo "not ok $NT $1"; FAILED=$((FAILED + 1)); }
skip() { NT=$((NT + 1)); echo "ok $NT $1 # SKIP ${2:-no reason given}"; SKIPPED=$((SKIPPED + 1)); }
# the whole condition must be the command: `check N [ a ] && [ b ]` runs
# `[ b ]` outside check, unasserted
check() { _ktap_name=$1; shift; if "$@"; then pass "$_ktap_name"; else fail "$_ktap_name"; fi; }
finish() { echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"; [ "$FAILED" -eq 0 ]; }
