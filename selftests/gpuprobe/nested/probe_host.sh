gpuprobe-trace record --source tracefs -d $EDU -o /out/t.trace -- inner-vm &
p=$!
while kill -0 $p 2>/dev/null; do grep vfio /proc/interrupts >> /out/irqs.txt; sleep 0.5; done
wait $p; echo "record rc $?"
ls /sys/kernel/tracing/events/kvm/ | tr '\n' ' ' > /out/kvm-events.txt
for e in kvm_msi_set_irq kvm_set_irq kvm_apic_accept_irq kvm_inj_virq kvm_entry; do cat /sys/kernel/tracing/events/kvm/$e/format; done > /out/kvm-formats.txt
gpuprobe-trace report /out/t.trace > /out/report.txt 2>&1
gpuprobe-trace export /out/t.trace --csv /out/t.csv
