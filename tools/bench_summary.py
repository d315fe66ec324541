#!/usr/bin/python3
"""Summarize `inferlab bench` result files (docs/bench-schema.md) for
docs/performance.md: per point, native against onnxruntime as a speedup
(onnxruntime P50 / native P50, with the bootstrap interval of the bench's
ratio inverted), peak memory above the child's baseline, and the geometric
mean of the speedups with the lowest lower bound.

usage: tools/bench_summary.py RESULT.json... [--flops N --peak-gflops G]
With --flops (FLOPs per run) and --peak-gflops, native's and onnxruntime's
throughput are also given as a share of that peak.
"""
import argparse
import json
import math
import sys


def backend(point, name):
    for b in point["backends"]:
        if b["name"] == name:
            return b
    return None


def rows(paths):
    for path in paths:
        with open(path) as f:
            doc = json.load(f)
        for point in doc["points"]:
            native = backend(point, "native")
            ort = backend(point, "onnxruntime")
            if not native or not ort or native["status"] != "ok" or ort["status"] != "ok":
                print(f"{path}: a backend failed at {point['point']}", file=sys.stderr)
                continue
            ratio = native["ratio_to_reference"]
            yield {
                "model": doc["model"]["name"],
                "point": point["point"],
                "native_ms": native["headline_ms"],
                "ort_ms": ort["headline_ms"],
                "speedup": 1.0 / ratio["value"],
                "interval": [1.0 / ratio["interval"][1], 1.0 / ratio["interval"][0]],
                "native_mib": native["memory_mib"]["peak_above_before_open"],
                "ort_mib": ort["memory_mib"]["peak_above_before_open"],
                "noise": [b["name"] for b in (native, ort) if b.get("noise_warning")],
            }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results", nargs="+")
    parser.add_argument("--flops", type=float, default=0)
    parser.add_argument("--peak-gflops", type=float, default=0)
    args = parser.parse_args()
    table = list(rows(args.results))
    if not table:
        sys.exit("no comparable points")
    print("| model | threads | shapes | native P50 ms | onnxruntime P50 ms | speedup (ORT / native) [95%] "
          "| peak MiB native / ORT |" + (" % of peak native / ORT |" if args.flops else ""))
    print("|---|---|---|---|---|---|---|" + ("---|" if args.flops else ""))
    for r in table:
        shapes = ", ".join(f"{k} {'x'.join(map(str, v))}" for k, v in r["point"]["shapes"].items())
        line = (f"| {r['model']} | {r['point']['threads']} | {shapes} | {r['native_ms']:.3f} | "
                f"{r['ort_ms']:.3f} | {r['speedup']:.3f} [{r['interval'][0]:.3f}, "
                f"{r['interval'][1]:.3f}] | +{r['native_mib']:.0f} / +{r['ort_mib']:.0f} |")
        if args.flops and args.peak_gflops:
            share = [args.flops / (ms * 1e6) / args.peak_gflops * 100
                     for ms in (r["native_ms"], r["ort_ms"])]
            line += f" {share[0]:.1f}% / {share[1]:.1f}% |"
        if r["noise"]:
            line += " (noise warning: " + ", ".join(r["noise"]) + ")"
        print(line)
    geomean = math.exp(sum(math.log(r["speedup"]) for r in table) / len(table))
    lowest = min(table, key=lambda r: r["interval"][0])
    print(f"\n{len(table)} ratios: geometric mean speedup {geomean:.3f}; lowest lower bound "
          f"{lowest['interval'][0]:.3f} ({lowest['model']}, {lowest['point']['threads']} threads)")


if __name__ == "__main__":
    main()
