# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# The "% of base" tables' shared checks (sourced; copied to /gpuprobe/tests
# by vmtest.sh and nested.sh): nested/base_table.sh (bare metal against a
# guest with edu passed through) and vm/container_table.sh (against a
# container).  Each side runs `gpuprobe-trace probe --api edu --rounds R`;
# what one run of it must do to the device is worked out here from R, not
# read from the probe's output.
# usage: . probe_table.sh, then probe_table_rounds R

# R rounds: R samples of each probe, the DMA verify R/10 (rounded up); one
# interrupt per raise and 2 per verify; 16 map/unmap pairs per mapbench
# sample and 2 per verify (user/probe/probe_edu.c)
probe_table_rounds() {	# R
	R=$1
	RD=$(((R + 9) / 10))
	GIRQS=$((R + 2 * RD))
	MAPS=$((16 * R + 2 * RD))
	PROBES="write.noop irq.round_trip dma.verify.2KiB map_unmap.4KiB"
}

# "name n" of every probe of a probe JSON, in order
probe_counts() {	# json
	awk -F'"' '/"name":/ { name = $4 } /"n":/ { n = $3; gsub(/[: ,]/, "", n); print name, n }' "$1"
}
counts_match() {	# json
	probe_counts "$1" >/tmp/counts
	printf '%s\n' "write.noop $R" "irq.round_trip $R" "dma.verify.2KiB $RD" "map_unmap.4KiB $R" |
		cmp -s - /tmp/counts && return 0
	echo "# $1: samples per probe:"
	sed 's/^/#   /' /tmp/counts
	return 1
}
# The edu driver's counters (its debugfs stats file) moved by exactly one
# probe run from BEFORE to AFTER (BEFORE /dev/null: a freshly bound device).
stats_match() {	# after-file [before-file]
	for kv in "irq_raised $R" "irq_handled $GIRQS" "dma_irqs $((2 * RD))" "dma_maps $MAPS" \
		  "dma_unmaps $MAPS" "dma_transfers $((2 * RD))" "verify_failures 0"; do
		k=${kv% *}
		a=$(awk -v k="$k" '$1 == k { print $2 }' "$1")
		b=$(awk -v k="$k" '$1 == k { print $2 }' "${2:-/dev/null}")
		[ "$k ${a:-none}" = "$kv" ] && [ -z "$b" ] && continue
		[ -n "$a" ] && [ -n "$b" ] && [ "$k $((a - b))" = "$kv" ] && continue
		echo "# $1: expected $kv, got ${a:-none}${b:+ - $b}"
		return 1
	done
}
# compare's text output has a row for every probe of the table and no
# probe of one file without a counterpart in the other
compare_rows_match() {	# compare.txt
	for p in $PROBES; do
		grep -q "^  $p " "$1" || { echo "# $1: no row for $p"; return 1; }
	done
	! grep -q "no counterpart" "$1"
}
# The table: the base's p50 and, for each compare output (all against the
# same base), the run's p50 and its % of base, one column pair per TITLE.
probe_table() {	# TITLE compare.txt [TITLE compare.txt ...]
	titles=
	files=
	while [ $# -ge 2 ]; do
		titles="$titles $1"
		files="$files $2"
		shift 2
	done
	# shellcheck disable=SC2086 # the file list
	awk -v titles="$titles" 'FNR == 1 { f++ } /^  [a-z]/ && $1 != "probe" {
			base[$1] = $2; run[f, $1] = $3; pct[f, $1] = $4; if (f == 1) order[n++] = $1 }
		END {
			nt = split(titles, t, " ")
			line = sprintf("%-18s %10s", "probe", "base p50")
			for (j = 1; j <= nt; j++)
				line = line sprintf(" %12s %10s", t[j], "% of base")
			print line
			for (i = 0; i < n; i++) {
				p = order[i]
				line = sprintf("%-18s %10s", p, base[p])
				for (j = 1; j <= nt; j++)
					line = line sprintf(" %12s %10s", run[j, p], pct[j, p])
				print line
			}
		}' $files
}
