#!/usr/bin/env python3
# Reproduces the per-phase, per-batch-size figures of GPU-RESULTS.md ("Why the batched demo is slower"):
#   tar xzf gpu-runs/demo-trt10.6-h200-2026-12-02-batched-logs.tgz -C /tmp && python3 examples/src/gpu/launch-phases.py /tmp/logs/launches.log
# Per phase and batch size: the launches' CUDA-event gpu_ms and the step's host time beyond it, from a demo launch log.
import json, statistics as st, sys, collections
rows = [json.loads(l) for l in open(sys.argv[1]) if '"gpu_ms"' in l]
for phase in ("decode", "prefill", "mixed"):
    rs = [r for r in rows if r.get("phase") == phase]
    g = sum(r["gpu_ms"] for r in rs); h = sum(r["host_ms"] for r in rs)
    print(f"{phase}: {len(rs)} launches, gpu_ms sum {g:.0f}, host_ms sum {h:.0f} (host beyond gpu {h-g:.0f} ms)")
    by = collections.defaultdict(list)
    for r in rs: by[r["batch_size"]].append(r)
    for b in sorted(by):
        v = by[b]
        print(f"  B={b:2d}: {len(v):4d} launches, gpu_ms p50 {st.median(r['gpu_ms'] for r in v):6.2f},"
              f" host beyond gpu p50 {st.median(r['host_ms']-r['gpu_ms'] for r in v):5.2f}")
# how many enqueues the launches took (the launch log's passes; absent: one)
passes = collections.Counter(r.get("passes", 1) for r in rows)
print("passes: " + ", ".join(f"{n}: {passes[n]} launches" for n in sorted(passes)))
