#!/usr/bin/python3
"""`make soak`: the server's resident memory under steady load (issue 20).

Serves the one-Add model (tools/serve/make_add_model.py) with
`inferlab serve`, drives it for SOAK_MINUTES minutes with
`inferlab load URL --model add --concurrency 4 --duration S --body binary`,
and samples the server's VmRSS from /proc/PID/status every 10 s. Fails
(exit 1) when the RSS at the last minute exceeds the RSS at minute 1 by
10 MB (10,000,000 bytes) or more, or when the server dies or the load
succeeds at nothing. Prints every sample and the verdict.

  tools/serve/soak.py --inferlab build/inferlab [--minutes 10]
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

LIMIT_BYTES = 10_000_000
INTERVAL = 10.0


def vm_rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/%d/status" % pid)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inferlab", required=True)
    parser.add_argument("--minutes", type=float, default=float(os.environ.get("SOAK_MINUTES", "10")))
    args = parser.parse_args()
    if args.minutes < 2:
        parser.error("--minutes must be at least 2 (minute 1 is the baseline)")
    inferlab = os.path.abspath(args.inferlab)
    source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    workdir = tempfile.mkdtemp(prefix="inferlab-soak-")
    server = load = None
    ok = False
    try:
        repo = os.path.join(workdir, "repo")
        subprocess.run(["/usr/bin/python3", os.path.join(source, "tools", "serve", "make_add_model.py"),
                        "--repository", repo, "--name", "add"], check=True)
        env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
        portfile = os.path.join(workdir, "server.json")
        server_log = open(os.path.join(workdir, "server.log"), "wb")
        server = subprocess.Popen([inferlab, "serve", "--model-repository", repo, "--http-port", "0",
                                   "--json", portfile], stdout=server_log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while True:
            if server.poll() is not None:
                raise RuntimeError("the server exited with %s before listening" % server.returncode)
            try:
                with open(portfile) as f:
                    url = json.load(f)["http"]
                break
            except (OSError, ValueError, KeyError):
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not listen within 60 s")
                time.sleep(0.05)
        seconds = int(round(args.minutes * 60))
        print("soak: %s, server pid %d, %g minute(s) of inferlab load --concurrency 4 --body binary"
              % (url, server.pid, args.minutes))
        sys.stdout.flush()
        load_out = os.path.join(workdir, "load.txt")
        load = subprocess.Popen([inferlab, "load", url, "--model", "add", "--concurrency", "4",
                                 "--duration", str(seconds), "--warmup", "0", "--body", "binary",
                                 "--json", os.path.join(workdir, "load.json")],
                                stdout=open(load_out, "wb"), stderr=subprocess.STDOUT, env=env)
        start = time.monotonic()
        samples = []  # (seconds since the load started, VmRSS KiB)
        print("  %8s %12s" % ("time", "VmRSS"))
        while True:
            t = time.monotonic() - start
            if server.poll() is not None:
                raise RuntimeError("the server died (exit status %s) at %.0f s" % (server.returncode, t))
            rss = vm_rss_kib(server.pid)
            samples.append((t, rss))
            print("  %7.0fs %9d KiB" % (t, rss))
            sys.stdout.flush()
            if t >= seconds - 0.5:
                break
            next_t = len(samples) * INTERVAL
            time.sleep(max(0.0, min(next_t, seconds) - (time.monotonic() - start)))
        rc = load.wait(timeout=120)
        with open(load_out) as f:
            report = f.read()
        print("inferlab load (exit %d):" % rc)
        print("\n".join("  " + line for line in report.rstrip().splitlines()))
        if rc != 0:
            raise RuntimeError("inferlab load exited %d (no request succeeded)" % rc)
        # Minute 1: the sample nearest 60 s; the last minute: the last sample.
        baseline = min(samples, key=lambda s: abs(s[0] - 60))
        last = samples[-1]
        growth = (last[1] - baseline[1]) * 1024
        ok = growth < LIMIT_BYTES
        print("VmRSS at minute 1 (%.0f s): %d KiB; at minute %g (%.0f s): %d KiB; growth %+.2f MB (limit < 10 MB): %s"
              % (baseline[0], baseline[1], args.minutes, last[0], last[1], growth / 1e6, "PASS" if ok else "FAIL"))
        server.send_signal(signal.SIGTERM)
        rc = server.wait(timeout=60)
        if rc != 0:
            print("the server exited %d after SIGTERM" % rc)
            ok = False
    except Exception as e:
        print("soak FAILED: %s" % e)
        ok = False
    finally:
        for p in (load, server):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(workdir, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
