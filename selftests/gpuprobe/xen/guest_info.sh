#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What a Xen guest sees: its mode, the hypervisor, its interrupts.
echo "# mode $XEN_MODE, hypervisor $(cat /sys/hypervisor/type 2>/dev/null)"
lspci 2>/dev/null
grep -E 'xen|MSI|edu|nvme' /proc/interrupts
