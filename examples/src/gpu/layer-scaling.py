#!/usr/bin/env python3
# Where a decode step's GPU time grows with its batch: per layer (launches profiled with -Dtrtrace.demo.trt.profile)
# and per kernel (launches recorded with -Dtrtrace.kernels.sample), from a demo launch log:
#   python3 examples/src/gpu/layer-scaling.py /tmp/logs/launches.log
# Decode-only launches are grouped by batch size (1, 2-4, 5-8, 9-16); for each layer or kernel, the median over the
# group's launches of its time in one launch, then the largest group's slowest entries beside their B = 1 time.
import collections, json, re, statistics as st, sys

GROUPS = ((1, 1), (2, 4), (5, 8), (9, 16))


def group(b):
    for lo, hi in GROUPS:
        if lo <= b <= hi:
            return f"{lo}-{hi}" if lo != hi else str(lo)
    return None


def table(title, per_launch):
    # per_launch: group -> list of {name: ms}
    if not per_launch:
        print(f"{title}: none in this log")
        return
    print(f"{title}: launches per batch group " + ", ".join(f"B={g}: {len(v)}" for g, v in per_launch.items()))
    totals = {g: st.median(sum(m.values()) for m in v) for g, v in per_launch.items()}
    print("  total per launch (median ms): " + ", ".join(f"B={g} {t:.3f}" for g, t in totals.items()))
    medians = {}
    for g, launches in per_launch.items():
        names = {n for m in launches for n in m}
        medians[g] = {n: st.median(m.get(n, 0.0) for m in launches) for n in names}
    top_group = list(per_launch)[-1]
    base = medians.get("1", {})
    print(f"  slowest at B={top_group} (median ms per launch; at B=1; ratio):")
    for n, ms in sorted(medians[top_group].items(), key=lambda e: -e[1])[:15]:
        b1 = base.get(n)
        ratio = f"{ms / b1:5.1f}x" if b1 else "   - "
        print(f"    {ms:8.3f}  {b1 if b1 is not None else float('nan'):8.3f}  {ratio}  {n[:110]}")


def main(path):
    launches = {}
    kernels = {}
    for line in open(path):
        r = json.loads(line)
        if "kernels" in r:
            kernels[r["launch_id"]] = r
        elif "launch_id" in r:
            launches[r["launch_id"]] = r
    layers = collections.OrderedDict((f"{lo}-{hi}" if lo != hi else str(lo), []) for lo, hi in GROUPS)
    kern = collections.OrderedDict((k, []) for k in layers)
    for lid, r in launches.items():
        if r.get("phase") != "decode" or r.get("status") != "ok":
            continue
        g = group(r["batch_size"])
        if g is None:
            continue
        if r.get("layers"):
            m = collections.defaultdict(float)
            for t in r["layers"]:
                m[t["name"]] += t.get("ms", 0.0)
            layers[g].append(m)
        k = kernels.get(lid)
        if k is not None and k.get("complete", True):
            m = collections.defaultdict(float)
            for a in k["kernels"]:
                # one name per kernel template: the block index and the digits of tile sizes kept, arguments dropped
                m[re.sub(r"\(.*", "", a["name"])] += a["ms"]
            kern[g].append(m)
    table("decode launches with a layer table", {g: v for g, v in layers.items() if v})
    table("decode launches with kernel records", {g: v for g, v in kern.items() if v})


if __name__ == "__main__":
    main(sys.argv[1])
