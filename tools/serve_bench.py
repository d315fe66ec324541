#!/usr/bin/python3
"""The serving measurements of issue 20 (docs/performance.md, docs/serve.md),
rerun on this machine by `make bench`:

  A. wrk and `inferlab load` on the same endpoint (the one-Add model, binary
     body, byte-identical requests), alternated round by round at
     concurrency 1 and 8: the ratio of their medians of throughput and P50.
  B. Overhead: the server's P50 against `inferlab load --in-process` on the
     same model (binary and JSON bodies), concurrency 1, interleaved.
  C. Saturation: mobilenet_v2 on the native engine at concurrency 8, the
     server against --in-process with the same instances and threads.

Every side of a comparison runs in the same round, so drift hits both. The
figures are printed as a table and written as JSON (--json).

  tools/serve_bench.py --inferlab build/inferlab [--rounds 5] [--seconds 5]
"""

import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("INFERLAB_CACHE", os.path.expanduser("~/.cache/inferlab"))


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def make_repository(root, instances, threads):
    repo = os.path.join(root, "repository")
    subprocess.run([sys.executable, os.path.join(ROOT, "tools/serve/make_add_model.py"),
                    "--repository", repo, "--name", "add", "--elements", "1000"], check=True)
    # One thread: a 1,000-element Add gains nothing from a team, and waking
    # one would measure OpenMP, not the server. --in-process uses the same.
    with open(os.path.join(repo, "add", "config.pbtxt"), "w") as f:
        f.write('name: "add"\nparameters { key: "threads" value: { string_value: "1" } }\n')
    mobilenet = os.path.join(repo, "mobilenet_v2")
    os.makedirs(mobilenet)
    os.symlink(os.path.join(CACHE, "models/zoo/mobilenet_v2"), os.path.join(mobilenet, "1"))
    with open(os.path.join(mobilenet, "config.pbtxt"), "w") as f:
        f.write(f'name: "mobilenet_v2"\nbackend: "native"\n'
                f'instance_group [ {{ count: {instances} kind: KIND_CPU }} ]\n'
                f'parameters {{ key: "threads" value: {{ string_value: "{threads}" }} }}\n')
    return repo


class Server:
    def __init__(self, inferlab, repo, scratch):
        self.port_file = os.path.join(scratch, "server.json")
        env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
        self.process = subprocess.Popen(
            [inferlab, "serve", "--model-repository", repo, "--http-port", "0",
             "--json", self.port_file, "--http-thread-count", "2"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(scratch, "server.log"), "w"),
            env=env)
        deadline = time.time() + 120
        while not os.path.exists(self.port_file):
            if self.process.poll() is not None or time.time() > deadline:
                raise SystemExit("the server did not start: see server.log")
            time.sleep(0.1)
        for _ in range(50):  # the file may still be being written
            try:
                self.url = json.load(open(self.port_file))["http"]
                break
            except (json.JSONDecodeError, KeyError):
                time.sleep(0.1)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)


def run_load(inferlab, args):
    out = subprocess.run([inferlab, "load", *args, "--json", "-"], check=True,
                         capture_output=True, text=True).stdout
    result = json.loads(out)["result"]
    return {"rps": result["throughput"]["successes_per_s"],
            "samples_per_s": result["throughput"]["samples_per_s"],
            "p50_ms": result["latency_ms"]["p50"], "p99_ms": result["latency_ms"]["p99"],
            "errors": result["errors"], "client_cpu_percent": result["client_cpu"]["percent_of_core"]}


UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


def run_wrk(url, body, concurrency, seconds):
    threads = min(concurrency, 2)
    out = subprocess.run(
        ["wrk", f"-t{threads}", f"-c{concurrency}", f"-d{seconds}s", "--latency", "-s",
         os.path.join(ROOT, "tools/wrk/infer_binary.lua"), url + "/v2/models/add/infer", "--", body],
        check=True, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    value, unit = re.search(r"^\s+50%\s+([\d.]+)(us|ms|s)\s*$", out, re.M).groups()
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return {"rps": rps, "p50_ms": float(value) * UNITS[unit],
            "errors": int(errors.group(1)) if errors else 0}


def median_of(rounds, key):
    return statistics.median(r[key] for r in rounds)


def compare_wrk(inferlab, server, body, rounds, seconds):
    rows = []
    for concurrency in (1, 8):
        wrk_rounds, load_rounds = [], []
        # Unrecorded: both clients and the server's connections warmed up.
        run_wrk(server.url, body, concurrency, 2)
        run_load(inferlab, [server.url, "--model", "add", "--body", "binary",
                            "--concurrency", str(concurrency), "--duration", "2"])
        for _ in range(rounds):
            wrk_rounds.append(run_wrk(server.url, body, concurrency, seconds))
            load_rounds.append(run_load(inferlab, [server.url, "--model", "add", "--body", "binary",
                                                   "--concurrency", str(concurrency),
                                                   "--duration", str(seconds), "--warmup", "0.5"]))
        rows.append({"concurrency": concurrency, "wrk": wrk_rounds, "load": load_rounds,
                     "throughput_ratio": median_of(wrk_rounds, "rps") / median_of(load_rounds, "rps"),
                     "p50_ratio": median_of(wrk_rounds, "p50_ms") / median_of(load_rounds, "p50_ms")})
    return rows


def overhead(inferlab, server, model_path, rounds, seconds):
    sides = {"binary": [], "json": [], "in_process": []}
    for _ in range(rounds):
        for body in ("binary", "json"):
            sides[body].append(run_load(inferlab, [server.url, "--model", "add", "--body", body,
                                                   "--duration", str(seconds), "--warmup", "0.5"]))
        sides["in_process"].append(run_load(inferlab, ["--in-process", model_path, "--threads", "1",
                                                       "--duration", str(seconds), "--warmup", "0.5"]))
    in_process = median_of(sides["in_process"], "p50_ms")
    return {"rounds": sides, "in_process_p50_ms": in_process,
            "binary_overhead_us": (median_of(sides["binary"], "p50_ms") - in_process) * 1e3,
            "json_overhead_us": (median_of(sides["json"], "p50_ms") - in_process) * 1e3}


def saturation(inferlab, server, instances, threads, rounds, seconds):
    shape = ["--shape", "input=1,3,224,224"]
    served, local = [], []
    for _ in range(rounds):
        served.append(run_load(inferlab, [server.url, "--model", "mobilenet_v2", "--body", "binary",
                                          "--concurrency", "8", "--duration", str(seconds), *shape]))
        local.append(run_load(inferlab, ["--in-process", os.path.join(CACHE, "models/zoo/mobilenet_v2"),
                                         "--instances", str(instances), "--threads", str(threads),
                                         "--concurrency", "8", "--duration", str(seconds), *shape]))
    return {"server": served, "in_process": local,
            "ratio": median_of(served, "samples_per_s") / median_of(local, "samples_per_s"),
            "server_p99_ms": median_of(served, "p99_ms"), "in_process_p99_ms": median_of(local, "p99_ms")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inferlab", default=os.path.join(ROOT, "build/inferlab"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--instances", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--parts", default="wrk,overhead,saturation",
                        help="which measurements, comma-separated (default all three)")
    parser.add_argument("--json", help="write every figure to this file")
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="inferlab-serve-bench")
    try:
        repo = make_repository(scratch, args.instances, args.threads)
        server = Server(args.inferlab, repo, scratch)
        try:
            body = os.path.join(scratch, "add.bin")
            subprocess.run([args.inferlab, "load", server.url, "--model", "add", "--body", "binary",
                            "--save-body", body], check=True, capture_output=True)
            seconds = int(args.seconds)
            parts = args.parts.split(",")
            report = {"cpu": cpu_name(), "cores": os.cpu_count(), "rounds": args.rounds}
            if "wrk" in parts:
                report["wrk"] = compare_wrk(args.inferlab, server, body, args.rounds, seconds)
            if "overhead" in parts:
                report["overhead"] = overhead(args.inferlab, server,
                                              os.path.join(repo, "add/1/model.onnx"), args.rounds,
                                              args.seconds)
            if "saturation" in parts:
                report["saturation"] = saturation(args.inferlab, server, args.instances,
                                                  args.threads, args.rounds, args.seconds)
        finally:
            server.stop()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"CPU: {report['cpu']}, {report['cores']} cores; {args.rounds} rounds, medians")
    for row in report.get("wrk", []):
        print(f"wrk/load at concurrency {row['concurrency']}: throughput "
              f"{median_of(row['wrk'], 'rps'):.0f}/{median_of(row['load'], 'rps'):.0f} req/s = "
              f"{row['throughput_ratio']:.3f}, P50 {median_of(row['wrk'], 'p50_ms') * 1e3:.0f}/"
              f"{median_of(row['load'], 'p50_ms') * 1e3:.0f} us = {row['p50_ratio']:.3f}")
    o = report.get("overhead")
    if o:
        print(f"overhead over in-process (P50 {o['in_process_p50_ms'] * 1e3:.1f} us): binary "
              f"{o['binary_overhead_us']:.1f} us, JSON {o['json_overhead_us']:.1f} us")
    s = report.get("saturation")
    if s:
        print(f"mobilenet_v2 concurrency 8: server {median_of(s['server'], 'samples_per_s'):.1f} / "
              f"in-process {median_of(s['in_process'], 'samples_per_s'):.1f} samples/s = "
              f"{s['ratio']:.3f}; P99 {s['server_p99_ms']:.1f} / {s['in_process_p99_ms']:.1f} ms")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
