#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A test of the test harness itself (tier 1 of scripts/test.sh; no VM, a
# few seconds): the real tally.sh's add_summary on made-up logs and fake
# runners, the real user/tests/common.sh, run.sh and ktap.sh on made-up
# suites.  Each expectation is written out here by hand; none is taken from
# the code under test.  Ends with "harness: N passed, N failed, N skipped".
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
npass=0 nfail=0

expect() {	# name want got
	if [ "$2" = "$3" ]; then
		npass=$((npass + 1)); echo "ok - $1"
	else
		nfail=$((nfail + 1)); echo "not ok - $1: want '$2', got '$3'"
	fi
}

# tally NAME STATUS LOG [PREFIX]: "PASS FAIL SKIP" after add_summary in a
# fresh shell with the real tally.sh
tally() {
	bash -c '. "$1/scripts/tally.sh"; add_summary "$2" "$3" "$4" "${5:-}" >/dev/null
		echo "$PASS $FAIL $SKIP"' _ "$TOP" "$@"
}

log() {	# name lines...: a made-up log
	printf '%s\n' "${@:2}" >"$T/$1.log"
}

# ---- add_summary: the exit status counts ----
log ok "ok 1 a" "3 passed, 0 failed"
expect "a tier that exits 1 after '3 passed, 0 failed' fails" "3 1 0" "$(tally t 1 "$T/ok.log")"
expect "a tier that exits 0 after '3 passed, 0 failed' passes" "3 0 0" "$(tally t 0 "$T/ok.log")"
expect "a tier with no status at all fails" "3 1 0" "$(tally t "" "$T/ok.log")"
log two "3 passed, 2 failed, 0 skipped"
expect "a tier's own failures, exit 1: no extra failure" "3 2 0" "$(tally t 1 "$T/two.log")"

log nothing "0 passed, 0 failed, 0 skipped"
expect "a tier whose summary says it ran nothing fails" "0 1 0" "$(tally t 0 "$T/nothing.log")"
log uncounted "SKIP x: no device" "ok 1 y # SKIP no device" "2 passed, 0 failed, 1 skipped"
expect "a skip its runner printed but did not count is counted" "2 0 2" "$(tally t 0 "$T/uncounted.log")"

# the mutation runner runs every suite of user/tests/run.sh (a suite it
# does not know cannot kill a mutant, and tier 2b's kills would drift)
want=$(grep -oE '^\s*run_suite [a-z0-9-]+ ' "$TOP/user/tests/run.sh" | awk '{ print $2 }' |
	grep -v '^memcheck-' | sort -u | paste -sd' ')
have=$(grep -oE "^\s*suite\('[a-z0-9-]+'" "$TOP/scripts/mutate.py" | sed "s/.*suite('//; s/'//" |
	grep -v '^memcheck-' | grep -vx vm | sort -u | paste -sd' ')
expect "mutate.py's suites are run.sh's" "$want" "$have"

# ---- add_summary: the tier's own summary line, its last ----
log none "ok 1 a" "ok 2 b"
expect "a tier with no summary line fails" "0 1 0" "$(tally t 0 "$T/none.log")"
: >"$T/empty.log"
expect "a tier with an empty log fails" "0 1 0" "$(tally t 0 "$T/empty.log")"
expect "a tier with no log fails" "0 1 0" "$(tally t 0 "$T/missing.log")"
# a guest's tally printed inside a runner that then died
log died "7 passed, 0 failed" "vmtest: FAIL: the VM did not finish its command"
expect "a nested tally before a dying runner's last line is not the tier's" "0 1 0" \
	"$(tally t 0 "$T/died.log")"
log inner "    7 passed, 0 failed" "# vm: 7 passed, 0 failed, 0 skipped"
expect "without the runner's prefix ('vmtest: '), run.sh's '# vm:' line is not taken" "0 1 0" \
	"$(tally t 0 "$T/inner.log" "vmtest: ")"
log outer "9 passed, 0 failed" "# vm: 9 passed, 0 failed, 0 skipped" "vmtest: 2 passed, 1 failed, 0 skipped"
expect "the runner's own last line is taken, not the nested ones above it" "2 1 0" \
	"$(tally t 1 "$T/outer.log" "vmtest: ")"
log prefixed "x" "nested: 4 passed, 0 failed"
expect "a prefix is literal text at the start ('nested: ')" "4 0 0" "$(tally t 0 "$T/prefixed.log" "nested: ")"
log notstart "x" "# nested: 4 passed, 0 failed"
expect "a prefix not at the line's start is not the runner's" "0 1 0" "$(tally t 0 "$T/notstart.log" "nested: ")"
log make "make: Entering directory '/x'" "4 passed, 0 failed, 1 skipped" \
	"make: Leaving directory '/x'" "make: *** [Makefile:125: test] Error 1" ""
expect "make's own lines after the summary are not the tier's" "4 1 1" "$(tally t 2 "$T/make.log")"

# ---- the test.sh idiom: a runner piped through tee, its status kept ----
printf '#!/bin/sh\necho "ok 1 a"\necho "2 passed, 0 failed, 0 skipped"\nexit 1\n' >"$T/runner"
chmod +x "$T/runner"
got=$(bash -c '. "$1/scripts/tally.sh"; "$2/runner" 2>&1 | tee "$2/tee.log" >/dev/null
	add_summary fake "${PIPESTATUS[0]}" "$2/tee.log" >/dev/null; echo "$PASS $FAIL $SKIP"' _ "$TOP" "$T")
expect "runner | tee; add_summary \${PIPESTATUS[0]}: its exit 1 fails" "2 1 0" "$got"
# every tier in test.sh and package-test.sh passes its runner's status
calls=$(grep -hE '^\s*(add_summary|add_vm) ' "$TOP/scripts/test.sh" "$TOP/scripts/package-test.sh")
bad=$(echo "$calls" | grep -vE '^\s*(add_summary|add_vm) \S+ ("\$\{PIPESTATUS\[0\]\}"|\$\?|\$st|"\$[a-z_]+_status"|"\$2") ')
expect "every add_summary/add_vm call in test.sh and package-test.sh passes an exit status" "" "$bad"
expect "test.sh has tiers to check ($(echo "$calls" | grep -c .) calls)" 1 "$([ "$(echo "$calls" | grep -c .)" -ge 15 ] && echo 1)"

# ---- vmlib.sh's vm_tally: nested.sh's and vmtest.sh's own summary ----
vt() { bash -c '. "$1/scripts/vmlib.sh"; shift; vm_tally "$@"' _ "$TOP" "$@"; }
expect "vm_tally: all well: the command's tally" "3 passed, 0 failed" "$(vt "3 passed, 0 failed" 0 0 0)"
expect "vm_tally: the host command exits 1 after 0 failed: one failure" "3 passed, 1 failed" \
	"$(vt "3 passed, 0 failed" 0 1 0)"
expect "vm_tally: the guest command exits 2: one failure" "3 passed, 1 failed, 1 skipped" \
	"$(vt "3 passed, 0 failed, 1 skipped" 0 0 2)"
expect "vm_tally: a non-zero exit its tally already counts: none more" "3 passed, 2 failed" \
	"$(vt "3 passed, 2 failed" 0 1 0)"
expect "vm_tally: a kernel problem: one failure" "3 passed, 1 failed" "$(vt "3 passed, 0 failed" 1 0 0)"
expect "vm_tally: no tally, a non-zero exit: a failure all the same" "0 passed, 1 failed" "$(vt "" 0 1 0)"
expect "vm_tally: no tally, all well: nothing" "" "$(vt "" 0 0 0)"
expect "nested.sh passes both commands' exit codes to vm_tally" 1 \
	"$(grep -c 'vm_tally "$summary" "$fail" "$host_rc" "$guest_rc"' "$TOP/scripts/nested.sh")"
expect "vmtest.sh passes the VM command's exit code to vm_tally" 1 \
	"$(grep -c 'vm_tally "$summary" "$fail" "$rc"' "$TOP/scripts/vmtest.sh")"

# ---- skips: counted, listed with their reasons, in the final line ----
log skips "SKIP serve + Prometheus: no prometheus" "    ok 3 inner # SKIP not this one (indented)" \
	"ok 4 serve_module # SKIP no IPv4" "vmtest: 5 passed, 0 failed, 2 skipped"
got=$(bash -c '. "$1/scripts/tally.sh"; result static_x skip "no second kernel" >/dev/null
	add_summary vm 0 "$2" "vmtest: " >/dev/null; print_skips
	echo "$PASS passed, $FAIL failed, $SKIP skipped"' _ "$TOP" "$T/skips.log")
expect "a tier's skips and a result skip show in the final line" "5 passed, 0 failed, 3 skipped" \
	"$(echo "$got" | tail -n1)"
expect "each skip listed once with its reason" \
	"# skipped: static_x: no second kernel|# skipped: vm: SKIP serve + Prometheus: no prometheus|# skipped: vm: ok 4 serve_module # SKIP no IPv4" \
	"$(echo "$got" | sed '$d' | paste -sd'|')"

# ---- user/tests/common.sh: check, skip, finish ----
mkdir -p "$T/tests"
cp "$TOP/user/tests/common.sh" "$T/tests/"
suite() {	# name body: a suite sourcing the real common.sh
	printf '#!/bin/sh\n. "$(dirname "$0")/common.sh"\n%s\nfinish\n' "$2" >"$T/tests/$1"
	chmod +x "$T/tests/$1"
}
suite mixed.sh 'check "true passes" true
check "false fails" false
check "a failing condition fails" sh -c "[ 1 -eq 1 ] && [ 1 -eq 2 ]"
skip "a skipped check" "for a reason"'
out=$("$T/tests/mixed.sh" 2>&1)
rc=$?
expect "common.sh: finish's line counts 1 pass, 2 failures, 1 skip" "1 passed, 2 failed, 1 skipped" \
	"$(echo "$out" | tail -n1)"
expect "common.sh: a failing command is a FAIL line" 1 "$(echo "$out" | grep -c '^FAIL false fails$')"
expect "common.sh: a skip is a SKIP line with its reason" 1 \
	"$(echo "$out" | grep -c '^SKIP a skipped check: for a reason$')"
expect "common.sh: finish exits non-zero on a failure" 1 "$([ $rc -ne 0 ] && echo 1)"
suite clean.sh 'check "true passes" true
skip "only skipped" "why"'
out=$("$T/tests/clean.sh" 2>&1)
expect "common.sh: no failure: exit 0, the skip still counted" "0 1 passed, 0 failed, 1 skipped" \
	"$? $(echo "$out" | tail -n1)"

# ---- user/tests/run.sh: the suites' tallies summed, their status counted ----
# a suite that prints a tool's tally, then dies before its own
printf '#!/bin/sh\necho "9 passed, 0 failed"\necho "then it stopped"\n' >"$T/tests/died.sh"
printf '#!/bin/sh\necho "1 passed, 0 failed, 0 skipped"\nexit 3\n' >"$T/tests/exit3.sh"
chmod +x "$T/tests/died.sh" "$T/tests/exit3.sh"
out=$("$TOP/user/tests/run.sh" "$T/tests/clean.sh" "$T/tests/exit3.sh" "$T/tests/died.sh" 2>&1)
rc=$?
expect "run.sh: sums, an exit 3 after 0 failed and a suite without its summary each fail" \
	"2 passed, 2 failed, 1 skipped" "$(echo "$out" | tail -n1)"
expect "run.sh: exits non-zero then" 1 "$([ $rc -ne 0 ] && echo 1)"
expect "run.sh: passes the skip's line through" 1 "$(echo "$out" | grep -c '^SKIP only skipped: why$')"
out=$("$TOP/user/tests/run.sh" "$T/tests/clean.sh" 2>&1)
expect "run.sh: a clean suite: exit 0, its skip in the final line" "0 1 passed, 0 failed, 1 skipped" \
	"$? $(echo "$out" | tail -n1)"

# ---- selftests/gpuprobe/ktap.sh (the VM shell tests) ----
out=$(sh -c '. "$1"; check "t" true; check "f" false; skip "s" "why"; finish; echo "rc $?"' _ \
	"$TOP/selftests/gpuprobe/ktap.sh")
expect "ktap.sh: numbered lines, a skip with its reason, its tally, a failing finish" \
	"ok 1 t|not ok 2 f|ok 3 s # SKIP why|1 passed, 1 failed, 1 skipped|rc 1" "$(echo "$out" | paste -sd'|')"

# ---- selftests/gpuprobe/vm/run.sh (inside the VM), on made-up tests ----
mkdir -p "$T/vm"
sed "s|^cd /gpuprobe/tests |cd '$T/vm' |" "$TOP/selftests/gpuprobe/vm/run.sh" >"$T/vm/run.sh"
printf '%s\n' whole comment cases plain died >"$T/vm/list"
vmtest() {	# name body
	printf '#!/bin/sh\n%s\n' "$2" >"$T/vm/$1"
	chmod +x "$T/vm/$1"
}
vmtest whole 'echo "1..0 # SKIP no IPv4"; exit 4'
vmtest comment 'echo "# sig_enforce is absent"; exit 4'
vmtest cases 'echo "ok 1 x"; echo "ok 2 y # SKIP no edu"; echo "not ok 3 z"; exit 1'
vmtest plain 'echo "ok 1 x"'
vmtest died 'echo "ok 1 x"; exit 139'
sh "$T/vm/run.sh" >"$T/vm.log" 2>&1
rc=$?
expect "vm/run.sh: cases counted, exit 4 a skip, a death after its last ok a failure" \
	"# vm: 3 passed, 2 failed, 3 skipped" "$(tail -n1 "$T/vm.log")"
expect "vm/run.sh: exits non-zero then" 1 "$([ $rc -ne 0 ] && echo 1)"
got=$(bash -c '. "$1/scripts/tally.sh"; add_summary vm 1 "$2" "# vm: " >/dev/null; print_skips' _ "$TOP" "$T/vm.log")
expect "vm/run.sh: one unindented line per skip, with its reason" \
	"# skipped: vm: ok 1 whole # SKIP no IPv4|# skipped: vm: ok 2 comment # SKIP sig_enforce is absent|# skipped: vm: # SKIP cases: ok 2 y # SKIP no edu" \
	"$(echo "$got" | paste -sd'|')"

echo "harness: $npass passed, $nfail failed, 0 skipped"
[ "$nfail" -eq 0 ]
