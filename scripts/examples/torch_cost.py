# SPDX-License-Identifier: GPL-2.0
"""Two PyTorch loops for measuring what tracing costs (scripts/h200-cost.sh).

  torch_cost.py launch STEPS   launch-bound: a small CNN on a small batch,
                               SGD with per-parameter updates (foreach off),
                               a pinned host->device copy and a blocking event
                               sync each step: hundreds of CUDA API calls a
                               step, each kernel a few microseconds
  torch_cost.py gpu STEPS      GPU-bound: bf16 matrix products of 8192^2,
                               a few launches a step, milliseconds each

After a warm-up (cuDNN's algorithm choice, the caching allocator's first
allocations), STEPS steps are timed with the host's monotonic clock, ending
on a device sync, and one line is printed:

  torch_cost MODE steps N seconds S ms_per_step T

The warm-up runs before the timing so that a tracer's start-up (CUPTI's
initialisation, record's own start) is outside what is compared.
"""
import sys
import time

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "launch"
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 500
dev = torch.device("cuda")
torch.manual_seed(0)
torch.backends.cudnn.benchmark = False


def launch_setup():
    layers = []
    ch = 3
    for out in (16, 32, 32, 64, 64, 64):
        layers += [torch.nn.Conv2d(ch, out, 3, padding=1), torch.nn.BatchNorm2d(out),
                   torch.nn.ReLU()]
        ch = out
    model = torch.nn.Sequential(*layers, torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(),
                                torch.nn.Linear(ch, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9, foreach=False)
    batch = torch.randn(16, 3, 32, 32).pin_memory()
    labels = torch.randint(0, 10, (16,)).pin_memory()

    def step():
        x = batch.to(dev, non_blocking=True)
        y = labels.to(dev, non_blocking=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        done = torch.cuda.Event(blocking=True)
        done.record()
        done.synchronize()
    return step


def gpu_setup():
    a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)

    def step():
        c = a
        for _ in range(8):
            c = torch.matmul(c, b)
            c = c * (1.0 / 8192)
        done = torch.cuda.Event(blocking=True)
        done.record()
        done.synchronize()
    return step


step = launch_setup() if mode == "launch" else gpu_setup()
for _ in range(20):
    step()
torch.cuda.synchronize()
t0 = time.monotonic()
for _ in range(steps):
    step()
torch.cuda.synchronize()
t1 = time.monotonic()
print(f"torch_cost {mode} steps {steps} seconds {t1 - t0:.6f} "
      f"ms_per_step {(t1 - t0) * 1e3 / steps:.6f}", flush=True)
