#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Installs what gpuprobe needs to build and test, from Debian's packages.
# Idempotent: does nothing when everything is present.
set -eu

PKGS="build-essential pkg-config qemu-system-x86 linux-image-amd64
linux-headers-amd64 linux-source-6.1 busybox-static cpio kmod xz-utils
python3-yaml libnl-genl-3-dev libtracefs-dev libtraceevent-dev trace-cmd python3
ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd clinfo"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done

if [ -z "$missing" ]; then
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing" >&2
	echo "deps: run as root (or: sudo $0) to install them" >&2
	exit 1
fi

echo "deps: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >&2
