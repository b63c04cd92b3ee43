#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The installed files, not the build tree (run by scripts/package-test.sh):
# /gpuprobe/pkgroot holds the unpacked gpuprobe-trace package and the module
# DKMS built and installed from the gpuprobe-dkms package, at their installed
# paths.  The DKMS module loads, the installed gpuprobe-trace reports it
# (info, --version), and record finds the injection libraries installed
# beside it and records through the module.
# Exit 0 pass, 1 fail, 4 skip.
R=/gpuprobe/pkgroot
TOOL=$R/usr/bin/gpuprobe-trace
KO=$R/lib/modules/$(uname -r)/updates/dkms/gpuprobe.ko
rc=0 n=0
ok() { echo "ok $n $1"; }
fail() { echo "not ok $n $1"; rc=1; }

if [ ! -x "$TOOL" ]; then
	echo "# $TOOL missing: scripts/package-test.sh puts the package tree there"
	exit 4
fi
echo "TAP version 13"
echo "1..4"
rmmod gpuprobe 2>/dev/null

n=1
out=$(insmod "$KO" 2>&1)
st=$?
echo "# insmod $KO: exit $st $out"
if [ $st -eq 0 ] && grep -q '^gpuprobe ' /proc/modules; then
	ok "dkms_module_loads"
else
	fail "dkms_module_loads"
	exit 1
fi

n=2
ver=$(cat /sys/module/gpuprobe/version)
out=$("$TOOL" info 2>&1)
st=$?
echo "$out" | sed -n '1,2s/^/# /p'
if [ $st -eq 0 ] && echo "$out" | grep -q "module source: gpuprobe $ver, kernel $(uname -r)"; then
	ok "installed_info_reports_the_dkms_module"
else
	fail "installed_info_reports_the_dkms_module"
fi

n=3
out=$("$TOOL" --version 2>&1)
echo "$out" | sed 's/^/# /'
if echo "$out" | grep -q '^gpuprobe-trace ' && echo "$out" | grep -q "gpuprobe.ko $ver (loaded)"; then
	ok "installed_version_names_tool_and_module"
else
	fail "installed_version_names_tool_and_module"
fi

n=4
# without -q record warns when it finds no injection library
"$TOOL" record --source module -o /tmp/installed.trace -- sleep 0.2 \
	>/tmp/installed.out 2>&1
st=$?
sed 's/^/# /' /tmp/installed.out | head -n 8
if [ $st -eq 0 ] && ! grep -qi 'no application tracing libraries' /tmp/installed.out &&
   "$TOOL" report /tmp/installed.trace >/dev/null 2>&1; then
	ok "installed_record_finds_its_libraries"
else
	fail "installed_record_finds_its_libraries"
fi
rmmod gpuprobe
exit $rc
