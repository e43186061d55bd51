"""Baseline: torch.distributed's allreduce over its Gloo backend (float32 sum, in place), what a
PyTorch user would run on CPUs. Timed like Kolo's bench: one warm-up, then the median of
per-iteration times on rank 0; prints BENCH {"bytes":..,"us":..,"wrong":..} per size.
Started by scripts/bench.mjs (`--baseline torch`) as: torch_allreduce.py RANK SIZE PORT MIN MAX
with a Python that has torch (KOLO_BENCH_PYTHON, default python3)."""
import json
import sys
import time

import torch
import torch.distributed as dist


def main() -> None:
    rank, size, port, min_bytes, max_bytes = (int(a) for a in sys.argv[1:6])
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=size)
    want = size * (size + 1) / 2
    nbytes = min_bytes
    while nbytes <= max_bytes:
        count = nbytes // 4
        iters = max(3, min(2000, (256 * 1024 * 1024) // nbytes // 4))
        data = torch.full((count,), float(rank + 1), dtype=torch.float32)
        dist.all_reduce(data)
        dist.barrier()
        times = []
        for _ in range(iters):
            data.fill_(float(rank + 1))
            t0 = time.perf_counter()
            dist.all_reduce(data)
            times.append((time.perf_counter() - t0) * 1e6)
        times.sort()
        wrong = int((data != want).sum().item())
        if rank == 0:
            print("BENCH " + json.dumps({"bytes": nbytes, "us": times[iters // 2], "wrong": wrong}), flush=True)
        nbytes *= 4
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
