#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Installs what gpuprobe needs to build and test, from Debian's packages.
# Idempotent: does nothing when everything is present.
set -eu

PKGS="build-essential pkg-config rsync libmicrohttpd-dev prometheus
protobuf-compiler libiberty-dev qemu-system-x86 linux-image-amd64
linux-headers-amd64 linux-source-6.1 linux-source-6.12 python3-jsonschema
flex bison libelf-dev bc libssl-dev busybox-static cpio kmod xz-utils
python3-yaml libnl-genl-3-dev libtracefs-dev libtraceevent-dev libzstd-dev libxxhash-dev xxhash zstd trace-cmd python3
ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo libjansson-dev
dkms dh-dkms debhelper lintian mokutil openssl bash-completion man-db zsh valgrind"
# `deps.sh xen`: also the nested Xen testbed's (scripts/xen.sh, not in make
# test): the hypervisor (its multiboot image is loaded by QEMU, nothing
# boots it here: without recommends no grub entry comes with it), xl and
# the daemons, the HVM device model.
if [ "${1:-}" = xen ]; then
	PKGS="$PKGS xen-hypervisor-4.17-amd64 xen-utils-4.17 qemu-system-xen"
fi

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done

# A second, newer kernel for the module's other code paths (the dma:
# tracepoints of 6.12+): the newest image and headers in bookworm-backports.
BP=/etc/apt/sources.list.d/gpuprobe-backports.sources
next_kernel_missing() {
	for h in /usr/src/linux-headers-*+bpo-amd64 /usr/src/linux-headers-*+deb12-amd64; do
		[ -d "$h" ] || continue
		v=${h#/usr/src/linux-headers-}
		[ -r "/boot/vmlinuz-$v" ] && return 1
	done
	return 0
}

install_next_kernel() {
	if [ ! -f "$BP" ]; then
		printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' >"$BP"
	fi
	apt-get update -q >&2
	img=$(apt-cache depends linux-image-amd64/bookworm-backports 2>/dev/null |
		awk '/Depends: linux-image-/ { print $2; exit }')
	hdr=$(apt-cache depends linux-headers-amd64/bookworm-backports 2>/dev/null |
		awk '/Depends: linux-headers-/ { print $2; exit }')
	if [ -z "$img" ] || [ -z "$hdr" ]; then
		echo "deps: bookworm-backports has no kernel: the second VM tier will be skipped" >&2
		return 0
	fi
	echo "deps: installing the second test kernel: $img $hdr" >&2
	apt-get install -y -q --no-install-recommends "$img" "$hdr" >&2
}

if [ -z "$missing" ] && ! next_kernel_missing; then
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (and/or the backports kernel)" >&2
	echo "deps: run as root (or: sudo $0) to install them" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
if [ -n "$missing" ]; then
	echo "deps: installing:$missing" >&2
	apt-get update -q >&2
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing >&2
fi
if next_kernel_missing; then
	install_next_kernel
fi
