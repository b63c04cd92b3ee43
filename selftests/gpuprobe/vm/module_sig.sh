#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Module signatures on a kernel booted with module.sig_enforce=1 (run by
# scripts/sign-test.sh, which puts the modules into /gpuprobe):
#   gpuprobe.ko           unsigned: refused, EKEYREJECTED, "unsigned module"
#   gpuprobe.otherkey.ko  signed with a key the kernel does not trust: refused,
#                         EKEYREJECTED, "module with unavailable key"
#   gpuprobe.signed.ko    signed by scripts/sign-module with a key the kernel
#                         trusts (its build key, standing for an enrolled MOK):
#                         loads, without the unsigned-module taint (E)
# and gpuprobe-trace info says that signatures are enforced.
# module_sig.expect says "trusted" when gpuprobe.signed.ko must load, or
# "untrusted" (Debian's kernel trusts only Debian's keys: no such module).
# Exit 0 pass, 1 fail, 4 skip.
cd /gpuprobe || exit 1
rc=0 n=0
ok() { echo "ok $n $1"; }
fail() { echo "not ok $n $1"; rc=1; }
is_signed() { tail -c 28 "$1" | grep -q 'Module signature appended'; }
loaded() { grep -q '^gpuprobe ' /proc/modules; }

# insmod's message and the kernel's reason for a refused module
refused_with() {	# module dmesg-reason
	dmesg -c >/dev/null
	out=$(insmod "/gpuprobe/$1" 2>&1)
	st=$?
	echo "# insmod $1: exit $st: $out"
	dmesg | grep -i 'rejected' | sed 's/^/# dmesg: /'
	if loaded; then
		rmmod gpuprobe
		return 1
	fi
	[ $st -ne 0 ] && echo "$out" | grep -q 'Key was rejected by service' &&
		dmesg | grep -q "Loading of $2 is rejected"
}

expect=$(cat module_sig.expect 2>/dev/null || echo untrusted)
echo "TAP version 13"
# a kernel that trusts none of our keys (Debian's) can only show refusals:
# the trusted half is the debug kernel's run (scripts/package-test.sh)
if [ "$expect" = trusted ]; then echo "1..6"; else echo "1..4"; fi
rmmod gpuprobe 2>/dev/null

n=1
enforce=$(cat /sys/module/module/parameters/sig_enforce 2>/dev/null)
if [ "$enforce" != Y ]; then
	echo "# sig_enforce is '${enforce:-absent}': boot with module.sig_enforce=1 (scripts/sign-test.sh does)"
	exit 4
fi
ok "kernel_enforces_signatures"

n=2
out=$(gpuprobe-trace info 2>&1)
echo "$out" | sed -n '1,3s/^/# /p'
if echo "$out" | grep -q 'this kernel enforces module signatures' &&
   echo "$out" | grep -q 'sign gpuprobe.ko'; then
	ok "info_says_signatures_are_enforced"
else
	fail "info_says_signatures_are_enforced"
fi

n=3
if is_signed gpuprobe.ko; then
	fail "unsigned_module_refused_ekeyrejected # gpuprobe.ko carries a signature"
elif refused_with gpuprobe.ko "unsigned module"; then
	ok "unsigned_module_refused_ekeyrejected"
else
	fail "unsigned_module_refused_ekeyrejected"
fi

n=4
if [ ! -f gpuprobe.otherkey.ko ] || ! is_signed gpuprobe.otherkey.ko; then
	fail "untrusted_key_refused_ekeyrejected # no signed gpuprobe.otherkey.ko"
elif refused_with gpuprobe.otherkey.ko "module with unavailable key"; then
	ok "untrusted_key_refused_ekeyrejected"
else
	fail "untrusted_key_refused_ekeyrejected"
fi

[ "$expect" = trusted ] || exit $rc
n=5
if [ ! -f gpuprobe.signed.ko ]; then
	fail "trusted_signature_loads # gpuprobe.signed.ko missing"
	n=6
	fail "info_shows_the_signed_module # no trusted module"
	exit $rc
fi
dmesg -c >/dev/null
out=$(insmod /gpuprobe/gpuprobe.signed.ko 2>&1)
st=$?
echo "# insmod gpuprobe.signed.ko: exit $st $out"
taint=$(cat /sys/module/gpuprobe/taint 2>/dev/null)
echo "# /sys/module/gpuprobe/taint: '$taint'"
dmesg | grep -iE 'gpuprobe|verif|rejected' | sed 's/^/# dmesg: /'
if [ $st -eq 0 ] && loaded && ! echo "$taint" | grep -q E; then
	ok "trusted_signature_loads"
else
	fail "trusted_signature_loads"
fi

n=6
ver=$(cat /sys/module/gpuprobe/version 2>/dev/null)
out=$(gpuprobe-trace info 2>&1)
vout=$(gpuprobe-trace --version 2>&1)
echo "$out" | sed -n '1,2s/^/# /p'
echo "$vout" | sed 's/^/# /'
if [ -n "$ver" ] && echo "$out" | grep -q "module source: gpuprobe $ver" &&
   echo "$vout" | grep -q "gpuprobe.ko $ver (loaded)"; then
	ok "info_shows_the_signed_module"
else
	fail "info_shows_the_signed_module"
fi
rmmod gpuprobe 2>/dev/null
exit $rc
