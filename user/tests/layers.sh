#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The tree is the architecture (Documentation/user-layout.md): commands sit
# on top, so no file below cmd/ includes a header that lives in cmd/.
. "$(dirname "$0")/common.sh"
U=$(cd "$(dirname "$0")/.." && pwd)
cmd_headers=$(cd "$U/cmd" && ls ./*.h | sed 's|^\./||')
bad=""
for dir in lib analysis output source source/module source/tracefs remote workload probe; do
	for f in "$U/$dir"/*.[ch]; do
		[ -e "$f" ] || continue
		for h in $cmd_headers; do
			grep -q "^#include \"$h\"" "$f" && bad="$bad ${f#"$U"/}:$h"
		done
	done
done
check "no file below cmd/ includes a cmd/ header${bad:+ (found:$bad)}" [ -z "$bad" ]
check "explain's tests link its model, not its command (no cmd_explain in test_explain)" \
	sh -c '! nm "$1" | grep -q " T cmd_explain$"' _ "$(dirname "$0")/test_explain"
finish
