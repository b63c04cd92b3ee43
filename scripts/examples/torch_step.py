# SPDX-License-Identifier: GPL-2.0
"""A small PyTorch training loop: the kind of workload gpuprobe-trace records.

Each step copies a pinned batch host->device, runs forward/backward/optimizer
on an MLP, and synchronises (blocking), so the GPU's interrupts, the pinning
and the copies all show up.  Prints what it did, for the report to be checked
against.
"""
import sys
import time

import torch

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 50
# "blocking": wait on a blocking-sync CUDA event (the thread sleeps until the
# GPU's interrupt) instead of torch.cuda.synchronize(), which spins
blocking = len(sys.argv) > 2 and sys.argv[2] == "blocking"
dev = torch.device("cuda")
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(4096, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)
).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
batch = torch.randn(512, 4096).pin_memory()   # 8 MiB, pinned
target = torch.randn(512, 1024).pin_memory()
t0 = time.monotonic()
for _ in range(steps):
    x = batch.to(dev, non_blocking=True)
    y = target.to(dev, non_blocking=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if blocking:
        done = torch.cuda.Event(blocking=True)
        done.record()
        done.synchronize()
    else:
        torch.cuda.synchronize()
t1 = time.monotonic()
print(f"{'blocking' if blocking else 'spinning'} sync: {steps} steps in {t1 - t0:.3f} s, {steps * (batch.numel() + target.numel()) * 4 / 2**20:.0f} MiB copied H2D, loss {loss.item():.4f}")
