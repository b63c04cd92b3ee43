#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One version for the whole project: GPUPROBE_VERSION in kmod/gpuprobe.h is
# the source (MODULE_VERSION takes it, user/Makefile makes the tool's
# version.h from it); dkms.conf, debian/changelog, the man pages and the
# README's dkms line are written by hand and must say the same.  With a
# built tool as $1, its --version and its Prometheus build_info too.
# Prints one line per place and "N passed, N failed"; exit 1 on a mismatch.
cd "$(dirname "$0")/.." || exit 2
tool=${1:-}
v=$(sed -n 's/^#define GPUPROBE_VERSION "\(.*\)"$/\1/p' kmod/gpuprobe.h)
pass=0 fail=0
agree() {	# what found
	if [ "$2" = "$v" ]; then
		pass=$((pass + 1)); echo "ok - $1 says $v"
	else
		fail=$((fail + 1)); echo "not ok - $1 says '$2', kmod/gpuprobe.h '$v'"
	fi
}
if [ -z "$v" ]; then
	echo "not ok - no GPUPROBE_VERSION in kmod/gpuprobe.h"
	echo "0 passed, 1 failed"
	exit 1
fi
agree "kmod/main.c MODULE_VERSION(GPUPROBE_VERSION)" \
	"$(grep -q '^MODULE_VERSION(GPUPROBE_VERSION);' kmod/main.c && echo "$v")"
agree dkms.conf "$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)"
agree debian/changelog "$(sed -n '1s/^gpuprobe (\([^)-]*\)[^)]*).*/\1/p' debian/changelog)"
for man in Documentation/gpuprobe-trace.1 Documentation/gpuprobe.4; do
	agree "$man" "$(sed -n 's/^\.TH .* "gpuprobe \([^"]*\)" .*/\1/p' "$man")"
done
agree "README.md's dkms status line" \
	"$(sed -n 's|.*# gpuprobe/\([^,]*\), .*|\1|p' README.md | head -n1)"
if [ -n "$tool" ]; then
	agree "$tool --version" "$("$tool" --version | sed -n '1s/^gpuprobe-trace \([^ ]*\) .*/\1/p')"
	agree "the trace header's tool version (user/version.h)" \
		"$(sed -n 's/^#define GPUPROBE_TRACE_VERSION "\(.*\)"$/\1/p' user/version.h)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
