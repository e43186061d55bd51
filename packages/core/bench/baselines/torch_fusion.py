"""Baseline for `npm run bench -- fusion --baseline torch`: what a PyTorch user on CPUs would
run for N float32 tensors of 4 KiB with torch.distributed's Gloo backend, timed like Kolo's
fusion bench (each repetition from a barrier, medians on rank 0, the three ways rotating):

- separate: one `all_reduce(t, async_op=True)` per tensor, then every work's `wait()` (Gloo
  does not fuse them; Horovod's per-tensor `allreduce_async_` is this pattern);
- one: a single `all_reduce` of one tensor of N x 4 KiB;
- coalesced: `all_reduce_coalesced` over the N tensors (one flattened allreduce, as DDP's
  buckets do), where this torch still has it.

Prints BENCH {"tensors":..,"manyUs":..,"oneUs":..,"coalescedUs":..,"wrong":..} per N.
Started by packages/core/bench/drivers/fusion.mjs as:
torch_fusion.py RANK SIZE PORT REPS N1,N2,..."""
import json
import statistics
import sys
import time
import warnings

import torch
import torch.distributed as dist

ELEMENTS = 1024


def timed(fn) -> float:
    dist.barrier()
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e6


def main() -> None:
    rank, size, port, reps = (int(a) for a in sys.argv[1:5])
    counts = [int(n) for n in sys.argv[5].split(",")]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=size)
    coalesce = getattr(dist, "all_reduce_coalesced", None)
    warnings.filterwarnings("ignore")  # all_reduce_coalesced is deprecated
    base = size * (size + 1) / 2
    for n in counts:
        # Tensor i holds rank + 1 + (i % 3), as in Kolo's bench; reset before each repetition.
        start = [float(rank + 1 + (i % 3)) for i in range(n)]
        tensors = [torch.empty(ELEMENTS, dtype=torch.float32) for _ in range(n)]
        big = torch.empty(n * ELEMENTS, dtype=torch.float32)

        def reset() -> None:
            for t, v in zip(tensors, start):
                t.fill_(v)
            big.fill_(float(rank + 1))

        def many() -> None:
            works = [dist.all_reduce(t, async_op=True) for t in tensors]
            for w in works:
                w.wait()

        def one() -> None:
            dist.all_reduce(big)

        def coalesced() -> None:
            coalesce(tensors)

        ways = [("many", many), ("one", one)] + ([("coalesced", coalesced)] if coalesce else [])
        times = {name: [] for name, _ in ways}
        wrong = 0
        for r in range(reps + 2):  # two warm-up repetitions
            for k in range(len(ways)):
                name, fn = ways[(r + k) % len(ways)]
                reset()
                us = timed(fn)
                if r >= 2:
                    times[name].append(us)
                want = [base + size * (i % 3) for i in range(n)] if name != "one" else None
                if name == "one":
                    wrong += int((big != base).sum().item())
                else:
                    wrong += sum(int((t != w).sum().item()) for t, w in zip(tensors, want))
        if rank == 0:
            row = {"tensors": n, "bytes": n * ELEMENTS * 4, "wrong": wrong}
            for name, _ in ways:
                row[name + "Us"] = statistics.median(times[name])
            print("BENCH " + json.dumps(row), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
