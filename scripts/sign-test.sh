#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Proves module signing on a kernel that enforces it: builds gpuprobe.ko for
# KDIR, signs one copy with KDIR's own build key (certs/signing_key.pem and
# .x509, in the kernel's builtin trusted keyring: it plays the enrolled MOK)
# and one with a freshly generated key the kernel does not know, both with
# scripts/sign-module, and boots BZIMAGE with module.sig_enforce=1 to run the
# module_sig VM test (selftests/gpuprobe/vm/module_sig.sh): the trusted one
# loads, the unsigned and the other-key ones are refused with EKEYREJECTED.
#
#   scripts/sign-test.sh KDIR BZIMAGE   a kernel built with CONFIG_MODULE_SIG=y
#   scripts/sign-test.sh                Debian's kernel (the test VM's): trusts
#                                       Debian's keys only, so the refusals are
#                                       tested and the trusted load is skipped
# Ends with vmtest's "N passed, N failed, N skipped"; exit 0 when all passed.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
OUT=${SIGN_TEST_DIR:-$TOP/build/sign-test}

usage() {
	sed -n '3,17s/^# \{0,1\}//p' "$0"
}
case ${1:-} in -h|--help) usage; exit 0 ;; esac
[ $# -eq 0 ] || [ $# -eq 2 ] || { usage >&2; exit 2; }

rm -rf "$OUT"
mkdir -p "$OUT"
vmargs=()
if [ $# -eq 2 ]; then
	kdir=$(cd "$1" && pwd) bzimage=$2
	[ -r "$bzimage" ] || { echo "sign-test: $bzimage: no such kernel image" >&2; exit 2; }
	grep -q '^CONFIG_MODULE_SIG=y' "$kdir/.config" || {
		echo "sign-test: $kdir/.config has no CONFIG_MODULE_SIG=y: that kernel checks no signatures" >&2
		exit 2
	}
	for f in certs/signing_key.pem certs/signing_key.x509; do
		[ -r "$kdir/$f" ] || {
			echo "sign-test: $kdir/$f missing: build the kernel with CONFIG_MODULE_SIG=y (its build key)" >&2
			exit 2
		}
	done
	echo "sign-test: building gpuprobe.ko for $kdir" >&2
	make -s modules-sign-build KDIR_SIGN="$kdir" >"$OUT/build.log" 2>&1 || {
		tail -n 20 "$OUT/build.log" >&2
		echo "sign-test: the module does not build for $kdir (see $OUT/build.log)" >&2
		exit 1
	}
	moddir=$TOP/build/ksign
	scripts/sign-module -K "$kdir" -k "$kdir/certs/signing_key.pem" \
		-c "$kdir/certs/signing_key.x509" -o "$OUT/gpuprobe.signed.ko" "$moddir/kmod/gpuprobe.ko"
	echo trusted >"$OUT/module_sig.expect"
	vmargs=(-k "$bzimage")
else
	moddir=${MODDIR:-$TOP}
	kdir=""		# sign-module finds the headers of the module's release
	[ -f "$moddir/kmod/gpuprobe.ko" ] || { echo "sign-test: build first (make)" >&2; exit 2; }
	echo untrusted >"$OUT/module_sig.expect"
fi

# a new untrusted key every run: nothing can have enrolled it
scripts/sign-module ${kdir:+-K "$kdir"} -g "$OUT/otherkey" -o "$OUT/gpuprobe.otherkey.ko" \
	"$moddir/kmod/gpuprobe.ko"
extra="$OUT/gpuprobe.otherkey.ko $OUT/module_sig.expect"
[ -f "$OUT/gpuprobe.signed.ko" ] && extra="$extra $OUT/gpuprobe.signed.ko"

VM_EXTRA_FILES="$extra" MODDIR="$moddir" VMDIR="$TOP/build/vm-sign" \
	scripts/vmtest.sh -q -t "${SIGN_TEST_TIMEOUT:-900}" "${vmargs[@]}" \
	-a module.sig_enforce=1 -T module_sig
