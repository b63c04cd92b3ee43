#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The JSON inputs of `compare` and `explain` (probe outputs) fuzzed:
# truncated escapes, huge numbers, deep nesting, and random cuts and flips
# of a real probe output (seeded).  Each must end in a clean error (exit 1,
# a message naming an offset) or be read; never a crash.
. "$(dirname "$0")/common.sh"
RUN=$(cd "$(dirname "$0")/../../Documentation/results/h200-2026-11-29" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# clean: exit 0 or 1 (no signal, no 2+), and an exit 1 says where
clean() {	# clean NAME FILE
	"$GPT" compare "$RUN/probe.json" "$2" >/dev/null 2>"$T/c.err"
	c=$?
	"$GPT" explain "$2" "$RUN/probe.trace" >/dev/null 2>"$T/e.err"
	e=$?
	[ $c -le 1 ] && [ $e -le 1 ] && [ $e -ne 3 ] || { echo "    $1: compare $c, explain $e"; return 1; }
	if [ $c -eq 1 ] && ! grep -q . "$T/c.err"; then echo "    $1: compare silent"; return 1; fi
	return 0
}

python3 - "$T" <<'PY'
import sys
t = sys.argv[1]
cases = {
    "escape-cut": '{"apis": [{"api": "cu\\u12',
    "escape-bad": '{"apis": [{"api": "\\x"}]}',
    "escape-end": '{"apis": "\\',
    "surrogate": '{"apis": [{"api": "\\ud800"}]}',
    "huge-int": '{"apis": [{"api": "cuda", "status": "ok", "tid": 99999999999999999999999999}]}',
    "huge-real": '{"apis": [{"api": "cuda", "status": "ok", "windows": [{"start_ns": 1e999}]}]}',
    "negative": '{"apis": [{"api": "cuda", "status": "ok", "windows": [{"start_ns": -5, "end_ns": -1e300}]}]}',
    "deep-array": '{"apis": ' + "[" * 100000 + "]" * 100000 + "}",
    "deep-object": '{"apis": [' + '{"a":' * 50000 + "1" + "}" * 50000 + "]}",
    "nul": '{"apis": [{"api": "a\\u0000b"}]}',
    "wrong-types": '{"apis": {"probes": 3}, "pid": "x"}',
    "empty": '',
    "dup-keys": '{"apis": [], "apis": []}',
}
for name, text in cases.items():
    open(f"{t}/{name}.json", "w").write(text)
PY
for name in escape-cut escape-bad escape-end huge-int huge-real deep-array deep-object empty dup-keys; do
	"$GPT" compare "$RUN/probe.json" "$T/$name.json" >/dev/null 2>"$T/err"
	rc=$?
	check "compare $name: exit 1 naming an offset" sh -c "[ $rc -eq 1 ] && grep -q offset '$T/err'"
done
bad=0
for name in surrogate negative nul wrong-types; do
	clean "$name" "$T/$name.json" || bad=$((bad + 1))
done
check "odd but valid documents: read or refused cleanly" [ $bad -eq 0 ]

# random cuts and flips of the real probe output
python3 - "$RUN/probe-traced.json" "$T" <<'PY'
import random, sys
data = open(sys.argv[1], "rb").read()
rng = random.Random(20261130)
for i in range(60):
    b = bytearray(data)
    if i % 2:
        b = b[: rng.randrange(len(b))]
    for _ in range(rng.randrange(1, 6)):
        if b:
            b[rng.randrange(len(b))] = rng.choice(b'\\"{}[]:,0123456789eE+-.x\x00\xff')
    open(f"{sys.argv[2]}/fuzz{i}.json", "wb").write(bytes(b))
PY
bad=0
for i in $(seq 0 59); do
	clean "fuzz$i" "$T/fuzz$i.json" || bad=$((bad + 1))
done
check "60 seeded cuts and flips of a probe output: clean errors or read, never a crash" [ $bad -eq 0 ]
finish
