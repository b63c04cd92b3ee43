#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host side of the merged host + guest test (scripts/nested.sh; the guest
# command: guest_agent.sh).  Starts the inner VM, waits for its agent, then
# one `record --guest vsock:3` of both sides (tracefs on each) while the
# guest's edu driver raises N interrupts.  Then, exactly: N vfio-msi
# interrupts of edu on the host, N guest interrupts, N pairs, none unpaired,
# no order violation, two machines and a clock error bound.
# usage: merged_tests.sh N
N=$1
. /gpuprobe/tests/ktap.sh

echo "nested-merged-test-token" >/tmp/token
chmod 600 /tmp/token
inner-vm >/out/inner-vm.log 2>&1 &
q=$!
i=0
while :; do	# until the guest's agent listens (its boot takes 15-40 s)
	gpuprobe-trace record -q --source tracefs -d "$EDU" -o /out/merged.trace \
		--guest vsock:3 --token-file /tmp/token --guest-source tracefs \
		--guest-target 0000:00:01.0 --guest-command "sh /gpuprobe/tests/edu_raise.sh irq:$N" \
		2>/out/record.err && break
	i=$((i + 1))
	[ $i -lt 60 ] && kill -0 $q 2>/dev/null || break
	sleep 3
done
check "record --guest wrote the merged trace (agent reached after $i tries)" [ -s /out/merged.trace ]
wait $q
tail -n 3 /out/record.err
gpuprobe-trace report --json /out/merged.trace >/out/merged.json
gpuprobe-trace report /out/merged.trace >/out/merged.txt
sed -n '/^passthrough/,/^$/p' /out/merged.txt
# the first "key": value of report --json (the passthrough object's)
v() { awk -v k="\"$1\":" '$1 == k { v = $2; sub(/,$/, "", v); print v; exit }' /out/merged.json; }
paired=$(v irq_paired)
uh=$(v irq_unpaired_host)
ug=$(v irq_unpaired_guest)
viol=$(v order_violations)
bound=$(v clock_error_ns)
roles=$(grep -c '"role": "' /out/merged.json)
echo "# N=$N: paired $paired, unpaired host $uh, guest $ug, order violations $viol, clock bound $bound ns, machines $roles"
check "two machines" [ "$roles" = 2 ]
check "N=$N interrupts paired host -> guest" [ "$paired" = "$N" ]
check "no host interrupt unpaired" [ "$uh" = 0 ]
check "no guest interrupt unpaired" [ "$ug" = 0 ]
check "no order violation" [ "$viol" = 0 ]
check "a clock error bound stored" [ "${bound:-0}" -gt 0 ]
finish
