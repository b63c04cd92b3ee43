#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The install/packaging tier of make test (make package-test; see
# Documentation/install.rst):
#   - make install / make uninstall into a DESTDIR; man pages render without
#     groff warnings; bash completion offers commands, options and BDFs
#   - make deb builds gpuprobe-dkms and gpuprobe-trace; lintian is clean
#     (errors and warnings; overrides are in debian/*.lintian-overrides)
#   - the unpacked gpuprobe-dkms goes through dkms add, build and install for
#     every kernel whose headers are installed (the second one through
#     autoinstall, as after a kernel upgrade), in a scratch root; dkms status
#   - the unpacked gpuprobe-trace runs info on this machine, and in the test
#     VM loads the DKMS-built module and records through it (installed_package)
#   - signatures on Debian's kernel booted with module.sig_enforce=1: unsigned
#     and untrusted-key modules refused with EKEYREJECTED (scripts/sign-test.sh)
#   - with KDIR BZIMAGE (a kernel built with CONFIG_MODULE_SIG=y): the module
#     signed with that kernel's key loads under enforcement
#
#   scripts/package-test.sh [KDIR BZIMAGE]
# Ends with "N passed, N failed, N skipped".  Build first (make).
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
OUT=$TOP/build/package-test
LOG=$OUT/logs
rm -rf "$OUT"
mkdir -p "$LOG"

# shellcheck source=scripts/tally.sh
. "$TOP/scripts/tally.sh"

# A VM run's "vmtest: N passed, N failed, N skipped" and exit status added
# to ours; its skips, which its log (shown here as "# " lines) holds, said
# again as ours, one line each
add_vm() {	# name status log
	add_summary "$1" "$2" "$3" 'vmtest: '
	skip_lines "$3" | sed "s|^|# SKIP $1: |"
}

VERSION=$(sed -n 's/^#define GPUPROBE_VERSION "\(.*\)"/\1/p' kmod/gpuprobe.h)

echo "# versions"
dkms_ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
deb_ver=$(dpkg-parsechangelog -S Version 2>/dev/null)
if [ -n "$VERSION" ] && [ "$dkms_ver" = "$VERSION" ] && [ "${deb_ver%%-*}" = "$VERSION" ]; then
	result "versions_agree_module_dkms_debian" pass
else
	result "versions_agree_module_dkms_debian" fail \
		"(kmod/gpuprobe.h '$VERSION', dkms.conf '$dkms_ver', debian/changelog '$deb_ver')"
fi

echo "# make install / uninstall"
D=$OUT/destdir
P=usr/local
want="$P/bin/gpuprobe-trace $P/lib/gpuprobe/gpuprobe-trace $P/lib/gpuprobe/libgpuprobe_opencl.so
$P/share/man/man1/gpuprobe-trace.1 $P/share/man/man4/gpuprobe.4
$P/share/bash-completion/completions/gpuprobe-trace $P/share/zsh/site-functions/_gpuprobe-trace
$P/include/linux/gpuprobe.h $P/share/doc/gpuprobe/install.rst"
if make -s install DESTDIR="$D" >"$LOG/install.log" 2>&1; then
	missing=""
	for f in $want; do [ -e "$D/$f" ] || missing="$missing $f"; done
	if [ -z "$missing" ] && [ -L "$D/$P/bin/gpuprobe-trace" ] &&
	   "$D/$P/bin/gpuprobe-trace" --version >"$LOG/install-version.log" 2>&1 &&
	   grep -q "^gpuprobe-trace " "$LOG/install-version.log"; then
		result "make_install_puts_every_file_in_place" pass
	else
		result "make_install_puts_every_file_in_place" fail "(missing:${missing:- none}; see $LOG)"
	fi
else
	result "make_install_puts_every_file_in_place" fail "(see $LOG/install.log)"
fi
make -s uninstall DESTDIR="$D" >"$LOG/uninstall.log" 2>&1
left=$(find "$D" -type f -o -type l 2>/dev/null)
if [ -z "$left" ]; then
	result "make_uninstall_removes_them" pass
else
	result "make_uninstall_removes_them" fail "(left: $(echo "$left" | head -n3 | tr '\n' ' '))"
fi

warnings=$( { for m in Documentation/gpuprobe-trace.1 Documentation/gpuprobe.4; do
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$m" >/dev/null; done; } 2>&1)
if [ -z "$warnings" ]; then
	result "man_pages_render_without_warnings" pass
else
	result "man_pages_render_without_warnings" fail "($warnings)"
fi

# bash completion, driven as bash drives it
comp() {
	bash -c 'source /usr/share/bash-completion/bash_completion
		source completion/gpuprobe-trace.bash
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_gpuprobe_trace; echo "${COMPREPLY[*]}"' comp "$@" 2>/dev/null
}
if [ ! -r /usr/share/bash-completion/bash_completion ]; then
	result "bash_completion_commands_options_bdfs" skip "no bash-completion package"
else
	bdf=$(ls /sys/bus/pci/devices 2>/dev/null | head -n1)
	c1=$(comp gpuprobe-trace "") c2=$(comp gpuprobe-trace record --) c3=$(comp gpuprobe-trace record --source "")
	c4=$(comp gpuprobe-trace info -d "")
	if echo "$c1" | grep -qw record && echo "$c1" | grep -qw compare &&
	   echo "$c2" | grep -q -- --no-inject && [ "$c3" = "auto module tracefs xentrace" ] &&
	   { [ -z "$bdf" ] || echo "$c4" | grep -q -- "$bdf"; }; then
		result "bash_completion_commands_options_bdfs" pass
	else
		result "bash_completion_commands_options_bdfs" fail "(got '$c1' / '$c2' / '$c3' / '$c4')"
	fi
fi
if command -v zsh >/dev/null; then
	if zsh -n completion/_gpuprobe-trace; then
		result "zsh_completion_parses" pass
	else
		result "zsh_completion_parses" fail
	fi
fi

echo "# Debian packages"
DEBS=$TOP/build/deb
if make -s deb >"$LOG/deb.log" 2>&1 && [ -f "$DEBS/gpuprobe-dkms_${VERSION}_all.deb" ] &&
   ls "$DEBS"/gpuprobe-trace_"${VERSION}"_*.deb >/dev/null 2>&1; then
	result "debs_build_with_debhelper_and_dh_dkms" pass
else
	result "debs_build_with_debhelper_and_dh_dkms" fail "(see $LOG/deb.log)"
	tail -n 15 "$LOG/deb.log"
	echo "package: $PASS passed, $FAIL failed, $SKIP skipped"
	exit 1
fi
DKMS_DEB=$DEBS/gpuprobe-dkms_${VERSION}_all.deb
TRACE_DEB=$(ls "$DEBS"/gpuprobe-trace_"${VERSION}"_*.deb)

lintian -I --pedantic --display-experimental --show-overrides --fail-on error,warning \
	"$DEBS"/gpuprobe_"${VERSION}"_*.changes >"$LOG/lintian.log" 2>&1
st=$?
sed 's/^/# lintian: /' "$LOG/lintian.log" | grep -v 'root privileges'
if [ $st -eq 0 ]; then
	result "lintian_clean" pass
else
	result "lintian_clean" fail "(see $LOG/lintian.log)"
fi

dpkg-deb -c "$DKMS_DEB" >"$LOG/dkms-deb.contents"
dpkg-deb -c "$TRACE_DEB" >"$LOG/trace-deb.contents"
dpkg-deb -e "$DKMS_DEB" "$OUT/dkms-control"
missing=""
for f in "usr/src/gpuprobe-$VERSION/dkms.conf" "usr/src/gpuprobe-$VERSION/kmod/main.c" \
	 "usr/src/gpuprobe-$VERSION/include/uapi/linux/gpuprobe.h"; do
	grep -q " \./$f\$" "$LOG/dkms-deb.contents" || missing="$missing $f"
done
for f in usr/bin/gpuprobe-trace usr/lib/gpuprobe/gpuprobe-trace usr/lib/gpuprobe/libgpuprobe_opencl.so \
	 usr/share/man/man1/gpuprobe-trace.1.gz usr/share/man/man4/gpuprobe.4.gz \
	 usr/share/bash-completion/completions/gpuprobe-trace \
	 usr/share/zsh/vendor-completions/_gpuprobe-trace usr/include/linux/gpuprobe.h; do
	grep -qE " \./$f( ->.*)?\$" "$LOG/trace-deb.contents" || missing="$missing $f"
done
if [ -z "$missing" ] && grep -q 'common.postinst' "$OUT/dkms-control/postinst" &&
   grep -q 'dkms remove' "$OUT/dkms-control/prerm"; then
	result "debs_hold_their_files_and_dkms_maintainer_scripts" pass
else
	result "debs_hold_their_files_and_dkms_maintainer_scripts" fail "(missing:${missing:- none})"
fi

echo "# DKMS, from the unpacked gpuprobe-dkms (scratch root $OUT/root)"
R=$OUT/root
mkdir -p "$R/var/lib/dkms"
dpkg-deb -x "$DKMS_DEB" "$R"
dpkg-deb -x "$TRACE_DEB" "$R"
DKMS=(dkms --dkmstree "$R/var/lib/dkms" --sourcetree "$R/usr/src" --installtree "$R/lib/modules")
kernels=""
for m in /lib/modules/*/; do
	k=$(basename "$m")
	[ -e "$m/build/include" ] && kernels="$kernels $k"
done
if [ -z "$kernels" ]; then
	result "dkms_builds_for_every_kernel" fail "(no kernel headers: run scripts/deps.sh)"
elif ! "${DKMS[@]}" add -m gpuprobe -v "$VERSION" >"$LOG/dkms-add.log" 2>&1; then
	result "dkms_add" fail "(see $LOG/dkms-add.log)"
else
	first=1
	for k in $kernels; do
		mkdir -p "$R/lib/modules/$k"
		if [ $first = 1 ]; then
			# as the package's postinst does for the running/newest kernel
			"${DKMS[@]}" build -m gpuprobe -v "$VERSION" -k "$k" >"$LOG/dkms-$k.log" 2>&1 &&
				"${DKMS[@]}" install -m gpuprobe -v "$VERSION" -k "$k" --no-depmod \
					>>"$LOG/dkms-$k.log" 2>&1
			how="build+install"
		else
			# as /etc/kernel/postinst.d/dkms does when a kernel is installed
			"${DKMS[@]}" autoinstall -k "$k" --no-depmod >"$LOG/dkms-$k.log" 2>&1
			how="autoinstall"
		fi
		# compressed where the kernel compresses its modules (6.12: .ko.xz)
		ko=$(ls "$R/lib/modules/$k/updates/dkms/gpuprobe.ko"* 2>/dev/null | head -n1)
		if [ -n "$ko" ] && [ "$(modinfo -F version "$ko")" = "$VERSION" ] &&
		   [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$k" ]; then
			result "dkms_${how/+/_}_for_$k" pass
		else
			result "dkms_${how/+/_}_for_$k" fail "(see $LOG/dkms-$k.log)"
			grep -v "readelf: Warning" "$LOG/dkms-$k.log" | tail -n 15
		fi
		first=0
	done
	"${DKMS[@]}" status >"$LOG/dkms-status.log" 2>&1
	# (dkms's readelf looks for the compiler in a vmlinux the headers lack)
	grep -v "readelf: Warning" "$LOG/dkms-status.log" | sed 's/^/# dkms status: /'
	bad=""
	for k in $kernels; do
		grep -v "readelf: Warning" "$LOG/dkms-status.log" |
			grep -qxF "gpuprobe/$VERSION, $k, $(uname -m): installed" || bad="$bad $k"
	done
	if [ -z "$bad" ]; then
		result "dkms_status_shows_it_installed_for_every_kernel" pass
	else
		result "dkms_status_shows_it_installed_for_every_kernel" fail "(not for:$bad)"
	fi
fi

echo "# the installed gpuprobe-trace"
if "$R/usr/bin/gpuprobe-trace" info >"$LOG/installed-info.log" 2>&1 &&
   grep -q '^module source:' "$LOG/installed-info.log"; then
	result "installed_info_runs_here" pass
else
	result "installed_info_runs_here" fail "(see $LOG/installed-info.log)"
fi
sed -n '1,3s/^/# /p' "$LOG/installed-info.log"

rm -rf "$OUT/pkgroot" && mv "$R" "$OUT/pkgroot"
VM_EXTRA_FILES="$OUT/pkgroot" VMDIR="$TOP/build/vm-pkg" \
	scripts/vmtest.sh -q -t 600 -T installed_package >"$LOG/vm-installed.log" 2>&1
st=$?
sed 's/^/# /' "$LOG/vm-installed.log" | grep -E '^# +(not )?ok |# +# |vmtest:'
add_vm "vm_installed_package" $st "$LOG/vm-installed.log"

echo "# module signatures under module.sig_enforce=1 (Debian's kernel)"
scripts/sign-test.sh >"$LOG/sign-stock.log" 2>&1
st=$?
sed 's/^/# /' "$LOG/sign-stock.log" | grep -E '^# +(not )?ok |sign-module:|vmtest:'
add_vm "vm_module_sig_debian_kernel" $st "$LOG/sign-stock.log"

if [ $# -eq 2 ]; then
	echo "# module signatures on $2 (CONFIG_MODULE_SIG=y, its build key trusted)"
	scripts/sign-test.sh "$1" "$2" >"$LOG/sign-trusted.log" 2>&1
	st=$?
	sed 's/^/# /' "$LOG/sign-trusted.log" | grep -E '^# +(not )?ok |sign-module:|sign-test:|vmtest:'
	add_vm "vm_module_sig_trusted_key" $st "$LOG/sign-trusted.log"
else
	result "signed_module_loads_under_enforcement" skip \
		"no kernel with CONFIG_MODULE_SIG=y given (scripts/package-test.sh KDIR BZIMAGE)"
fi

echo "package: $PASS passed, $FAIL failed, $SKIP skipped"
[ "$FAIL" -eq 0 ]
