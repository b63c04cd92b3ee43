#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# No command destroys its input or loses a user's file: an output that is an
# input (same inode, by any name) is refused with exit 2 before any work and
# the input is unchanged; a failed write leaves an existing output as it was;
# an output that cannot be created is said before long work; record keeps an
# earlier trace as NAME.old.
. "$(dirname "$0")/common.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
GEN="$(dirname "$0")/gentrace"

"$GEN" known "$T/t.trace"
sum0=$(sha256sum <"$T/t.trace")
unchanged() { [ "$(sha256sum <"$T/t.trace")" = "$sum0" ]; }

# every writer of export, by the trace's own name, a hard link and a symlink
ln "$T/t.trace" "$T/hard.trace"
ln -s t.trace "$T/sym.trace"
for opt in --csv --perfetto --perfetto-proto; do
	for n in t.trace hard.trace sym.trace; do
		"$GPT" export "$T/t.trace" $opt "$T/$n" >/dev/null 2>"$T/err"
		rc=$?
		check "export $opt onto the trace as $n: exit 2, trace unchanged, says why" \
			sh -c '[ "$1" -eq 2 ] && grep -q "an input of this command" "$2"' _ "$rc" "$T/err"
		check "export $opt onto the trace as $n: the trace is byte for byte the same" unchanged
	done
done
"$GPT" report "$T/t.trace" >/dev/null
check "the trace still reads after every refused export" [ $? -eq 0 ]

# two outputs of one export with the same name
"$GPT" export "$T/t.trace" --csv "$T/o" --perfetto "$T/o" >/dev/null 2>"$T/err"
rc=$?
check "export with one name for two outputs: exit 2, nothing written" \
	sh -c '[ "$1" -eq 2 ] && grep -q "two outputs" "$2" && [ ! -e "$3" ]' _ "$rc" "$T/err" "$T/o"

# an export that fails leaves the earlier output as it was, and no temporary file
echo "earlier csv" >"$T/keep.csv"
head -c 300 "$T/t.trace" >"$T/cut.trace"
"$GPT" export "$T/cut.trace" --csv "$T/keep.csv" >/dev/null 2>&1
rc=$?
check "a failed export (header cut) exits 1 and leaves the earlier output" \
	sh -c '[ "$1" -eq 1 ] && [ "$(cat "$2")" = "earlier csv" ]' _ "$rc" "$T/keep.csv"
check "a failed export leaves no temporary file" \
	sh -c '[ -z "$(ls -A "$1" | grep gpuprobe-out)" ]' _ "$T"

# a good export replaces the earlier output, private whatever its mode was
chmod 0644 "$T/keep.csv"
"$GPT" export "$T/t.trace" --csv "$T/keep.csv" >/dev/null 2>&1
rc=$?
check "export over an earlier 0644 output: exit 0, header line, now 0600 (it carries addresses)" \
	sh -c '[ "$1" -eq 0 ] && head -n1 "$2" | grep -q "^type," && [ "$(stat -c %a "$2")" = 600 ]' \
	_ "$rc" "$T/keep.csv"
"$GPT" export "$T/t.trace" --csv "$T/new.csv" >/dev/null 2>&1
check "a new export is private (0600: it carries DMA addresses)" \
	sh -c '[ "$(stat -c %a "$1")" = 600 ]' _ "$T/new.csv"
# a symlinked output: the link stays, the file it names is written
ln -s new.csv "$T/link.csv"
"$GPT" export "$T/t.trace" --csv "$T/link.csv" >/dev/null 2>&1
check "export through a symlink writes its target and keeps the link" \
	sh -c '[ -L "$1" ] && cmp -s "$1" "$2"' _ "$T/link.csv" "$T/new.csv"

# a dangling symlink: the file it names is created, the link kept
ln -s made.csv "$T/dangling.csv"
"$GPT" export "$T/t.trace" --csv "$T/dangling.csv" >/dev/null 2>&1
rc=$?
check "export through a dangling symlink creates the file it names" \
	sh -c '[ "$1" -eq 0 ] && [ -L "$2/dangling.csv" ] && head -n1 "$2/made.csv" | grep -q "^type,"' \
	_ "$rc" "$T"
# two spellings of one output
"$GPT" export "$T/t.trace" --perfetto "$T/two.out" --csv "$T/./two.out" >/dev/null 2>"$T/err"
rc=$?
check "export with one output spelled two ways: exit 2, nothing written" \
	sh -c '[ "$1" -eq 2 ] && grep -q "one file given as two outputs" "$2" && [ ! -e "$3" ]' \
	_ "$rc" "$T/err" "$T/two.out"
# a FIFO and a device are written in place, never replaced by a regular file
mkfifo "$T/fifo"
timeout 30 cat "$T/fifo" >"$T/fifo.out" &
reader=$!
"$GPT" export "$T/t.trace" --csv "$T/fifo" >/dev/null 2>&1
rc=$?
wait "$reader"
check "export into a FIFO: exit 0, the rows came through it, it is still a FIFO" \
	sh -c '[ "$1" -eq 0 ] && [ -p "$2" ] && head -n1 "$3" | grep -q "^type,"' _ "$rc" "$T/fifo" "$T/fifo.out"
if [ "$(id -u)" -eq 0 ] && mknod "$T/null" c 1 3 2>/dev/null; then
	"$GPT" export "$T/t.trace" --csv "$T/null" >/dev/null 2>&1
	rc=$?
	check "export into a character device (a /dev/null of our own): exit 0, still the device" \
		sh -c '[ "$1" -eq 0 ] && [ -c "$2" ]' _ "$rc" "$T/null"
else
	skip "export into a character device" "needs root to make one (mknod)"
fi

# an output in a directory that does not exist: said before any work
"$GPT" export "$T/t.trace" --perfetto "$T/t.json" --csv "$T/nodir/x.csv" >/dev/null 2>"$T/err"
rc=$?
check "export to a missing directory: exit 1, names it, writes no other output" \
	sh -c '[ "$1" -eq 1 ] && grep -q "cannot create .*nodir/x.csv" "$2" && [ ! -e "$3" ]' \
	_ "$rc" "$T/err" "$T/t.json"
"$GPT" probe --api edu -d 0000:00:00.0 -o "$T/nodir/p.json" >/dev/null 2>"$T/err"
rc=$?
check "probe -o into a missing directory: exit 1 before any probe runs" \
	sh -c '[ "$1" -eq 1 ] && grep -q "cannot create .*nodir/p.json" "$2" && ! grep -q edu "$2"' \
	_ "$rc" "$T/err"

# explain: neither of its inputs may be its output
cat >"$T/p.json" <<'EOF'
{"tool": "gpuprobe-trace probe", "apis": []}
EOF
psum=$(sha256sum <"$T/p.json")
"$GPT" explain "$T/p.json" "$T/t.trace" -o "$T/t.trace" >/dev/null 2>"$T/err"
rc=$?
check "explain -o onto its trace: exit 2, trace unchanged" \
	sh -c '[ "$1" -eq 2 ] && grep -q "an input" "$2"' _ "$rc" "$T/err"
check "explain -o onto its trace: the trace is byte for byte the same" unchanged
"$GPT" explain "$T/p.json" "$T/t.trace" -o "$T/p.json" >/dev/null 2>"$T/err"
rc=$?
check "explain -o onto its probe file: exit 2, probe file unchanged" \
	sh -c '[ "$1" -eq 2 ] && [ "$(sha256sum <"$2")" = "$3" ]' _ "$rc" "$T/p.json" "$psum"

# "-" is standard output: the same CSV as written to a file, and no file made
"$GPT" export "$T/t.trace" --csv "$T/file.csv" >/dev/null 2>&1
mkdir "$T/cwd"
(cd "$T/cwd" && "$GPT" export "$T/t.trace" --csv - >"$T/stdout.csv" 2>"$T/err")
rc=$?
check "export --csv -: exit 0, the CSV on standard output, nothing left in the directory" \
	sh -c '[ "$1" -eq 0 ] && cmp -s "$2" "$3" && [ -z "$(ls -A "$4")" ]' \
	_ "$rc" "$T/file.csv" "$T/stdout.csv" "$T/cwd"

# a device is written in place and its write errors count: /dev/full fails every write (ENOSPC)
if [ -c /dev/full ]; then
	"$GPT" export "$T/t.trace" --csv /dev/full >/dev/null 2>"$T/err"
	rc=$?
	check "export --csv /dev/full: exit 1, says the device is full" \
		sh -c '[ "$1" -eq 1 ] && grep -q "cannot write /dev/full: No space left on device" "$2"' _ "$rc" "$T/err"
else
	skip "export to /dev/full fails" "no /dev/full"
fi

# an output that is a symlink loop cannot be resolved: refused, both links kept
ln -s loop-b "$T/loop-a"
ln -s loop-a "$T/loop-b"
"$GPT" export "$T/t.trace" --csv "$T/loop-a" >/dev/null 2>"$T/err"
rc=$?
check "export onto a symlink loop: exit 1, says why, both links stay links" \
	sh -c '[ "$1" -eq 1 ] && grep -q "Too many levels of symbolic links" "$2" && [ -L "$3" ] && [ -L "$4" ]' \
	_ "$rc" "$T/err" "$T/loop-a" "$T/loop-b"

# with standard input closed, the output's descriptor may be 0: still a good descriptor
"$GPT" export "$T/t.trace" --csv "$T/nostdin.csv" <&- >/dev/null 2>"$T/err"
rc=$?
check "export with standard input closed: exit 0, the same CSV" \
	sh -c '[ "$1" -eq 0 ] && cmp -s "$2" "$3"' _ "$rc" "$T/file.csv" "$T/nostdin.csv"

# record keeps an earlier trace as NAME.old (tracefs source: needs root and tracefs)
if [ "$(id -u)" -eq 0 ] && [ -d /sys/kernel/tracing/events/irq ] && [ -e /sys/bus/pci/devices ]; then
	bdf=$(basename "$(ls -d /sys/bus/pci/devices/* | head -n1)")
	cp "$T/t.trace" "$T/r.trace"
	"$GPT" record --source tracefs -d "$bdf" -o "$T/r.trace" -- true >/dev/null 2>"$T/err"
	rc=$?
	check "record over an existing trace keeps it as .old and says so" \
		sh -c '[ "$1" -eq 0 ] && [ "$(sha256sum <"$2.old")" = "$3" ] && grep -q "kept as" "$4"' \
		_ "$rc" "$T/r.trace" "$sum0" "$T/err"
	"$GPT" report "$T/r.trace" >/dev/null 2>&1
	check "record over an existing trace: the new trace reads" [ $? -eq 0 ]
	mkdir "$T/adir"
	"$GPT" record --source tracefs -d "$bdf" -o "$T/adir" -- touch "$T/ran" >/dev/null 2>"$T/err"
	rc=$?
	check "record -o a directory: exit 1 before the workload runs, says so" \
		sh -c '[ "$1" -eq 1 ] && grep -q "Is a directory" "$2" && [ ! -e "$3" ]' _ "$rc" "$T/err" "$T/ran"
else
	skip "record keeps an earlier trace as .old" "needs root and tracefs irq events"
fi
finish
