#!/usr/bin/python3
"""`make soak`: the server's resident memory under steady load (issue 20).

Serves the one-Add model (tools/serve/make_add_model.py) with
`inferlab serve`, drives it for SOAK_MINUTES minutes with
`inferlab load URL --model add --concurrency 4 --duration S --body binary`
plus, beside it, a thread sending about 20 odd requests a second (bad
JSON, a wrong shape, an unknown model, a body over --http-max-input-size,
clients that close mid-body or before reading, and valid or cut-short
512 KiB binary requests to a 65,536-element Add, which the server reads
past its HTTP parser and decodes as views into the body), so that a leak on
an error path or in large bodies shows too, and samples the server's VmRSS from /proc/PID/status every
10 s. Fails (exit 1) when the RSS at the last minute exceeds the RSS at
minute 1 by 10 MB (10,000,000 bytes) or more, when a faulty request gets
another status than its documented one, or when the server dies or the load
succeeds at nothing. Prints every sample and the verdict.

  tools/serve/soak.py --inferlab build/inferlab [--minutes 10]
"""

import argparse
import collections
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

LIMIT_BYTES = 10_000_000
INTERVAL = 10.0
MAX_INPUT = 1 << 20  # the server's --http-max-input-size here
FAULTS_PER_SECOND = 20
LARGE_ELEMENTS = 65536  # 256 KiB per input: past the server's 64 KiB direct-read threshold


def vm_rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/%d/status" % pid)


def large_binary_request(kind):
    """A binary request to add_large (x = 1, y = 2), or its first half."""
    header = json.dumps({"inputs": [
        {"name": name, "shape": [LARGE_ELEMENTS], "datatype": "FP32",
         "parameters": {"binary_data_size": 4 * LARGE_ELEMENTS}} for name in ("x", "y")],
        "outputs": [{"name": "z", "parameters": {"binary_data": True}}]}).encode()
    ones = struct.pack("<f", 1.0) * LARGE_ELEMENTS
    twos = struct.pack("<f", 2.0) * LARGE_ELEMENTS
    body = header + ones + twos
    data = (("POST /v2/models/add_large/infer HTTP/1.1\r\nHost: 127.0.0.1\r\n"
             "Content-Type: application/octet-stream\r\nInference-Header-Content-Length: %d\r\n"
             "Content-Length: %d\r\n\r\n") % (len(header), len(body))).encode() + body
    if kind == "large_killed_half_body":
        return data[:len(data) // 2], False
    return data, True


def faulty_request(kind):
    """(bytes to send, whether the client stays for the answer)."""
    if kind.startswith("large_"):
        return large_binary_request(kind)
    x = json.dumps({"name": "x", "shape": [1000], "datatype": "FP32", "data": [1.0] * 1000})
    y = x.replace('"x"', '"y"')
    path, body, stays = "/v2/models/add/infer", None, True
    if kind == "bad_json":
        body = '{"inputs": [' + x
    elif kind == "wrong_shape":
        body = '{"inputs": [%s, %s]}' % (x.replace("[1000]", "[999]"), y)
    elif kind == "unknown_model":
        path, body = "/v2/models/nothing/infer", '{"inputs": [%s, %s]}' % (x, y)
    elif kind == "oversize":
        body = " " * (MAX_INPUT + 1)
    else:  # killed_half_body, killed_before_read
        body, stays = '{"inputs": [%s, %s]}' % (x, y), False
    data = ("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Content-Length: %d\r\n\r\n%s" % (path, len(body), body)).encode()
    if kind == "killed_half_body":
        data = data[:len(data) // 2]
    return data, stays


def send_fault(port, kind):
    """One faulty request on its own connection: its status, or 'client gone'."""
    data, stays = faulty_request(kind)
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        try:
            sock.sendall(data)
        except OSError:  # the 413 may come (and the socket close) before the whole body went
            pass
        if not stays:
            return "client gone"
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(65536)
            if not chunk:
                return "closed without an answer"
            answer += chunk
        status = answer.split(b" ", 2)[1].decode()
        if kind == "large_binary" and status == "200":
            return status if large_sums_are_right(sock, answer) else "200 with wrong sums"
        return status


def large_sums_are_right(sock, answer):
    """Reads the rest of a large_binary answer: is z all 3.0?"""
    head, body = answer.split(b"\r\n\r\n", 1)
    fields = dict(line.split(b": ", 1) for line in head.split(b"\r\n")[1:])
    fields = {k.lower(): v for k, v in fields.items()}
    length = int(fields[b"content-length"])
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            return False
        body += chunk
    z = body[int(fields[b"inference-header-content-length"]):]
    return z == struct.pack("<f", 3.0) * LARGE_ELEMENTS


def fault_stream(port, stop, counts):
    """About FAULTS_PER_SECOND faulty requests a second until `stop`."""
    kinds = ["bad_json", "wrong_shape", "unknown_model", "oversize", "killed_half_body", "killed_before_read",
             "large_binary", "large_killed_half_body"]
    n = 0
    while not stop.wait(1.0 / FAULTS_PER_SECOND):
        kind = kinds[n % len(kinds)]
        n += 1
        try:
            counts[(kind, send_fault(port, kind))] += 1
        except OSError as e:
            counts[(kind, "error: %s" % e.__class__.__name__)] += 1


EXPECTED_FAULTS = {"bad_json": "400", "wrong_shape": "400", "unknown_model": "404", "oversize": "413",
                   "killed_half_body": "client gone", "killed_before_read": "client gone",
                   "large_binary": "200", "large_killed_half_body": "client gone"}


def fault_problems(counts):
    print("faulty requests beside the load (kind, outcome: count):")
    for (kind, outcome), n in sorted(counts.items()):
        print("  %-20s %-26s %d" % (kind, outcome, n))
    wrong = sum(n for (kind, outcome), n in counts.items() if EXPECTED_FAULTS[kind] != outcome)
    return ["%d faulty requests got another outcome than their documented one" % wrong] if wrong else []


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
    stop_faults = threading.Event()
    fault_counts = collections.Counter()
    faults = None
    try:
        repo = os.path.join(workdir, "repo")
        make_model = os.path.join(source, "tools", "serve", "make_add_model.py")
        subprocess.run(["/usr/bin/python3", make_model, "--repository", repo, "--name", "add"], check=True)
        subprocess.run(["/usr/bin/python3", make_model, "--repository", repo, "--name", "add_large",
                        "--elements", str(LARGE_ELEMENTS)], check=True)
        env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
        portfile = os.path.join(workdir, "server.json")
        server_log = open(os.path.join(workdir, "server.log"), "wb")
        server = subprocess.Popen([inferlab, "serve", "--model-repository", repo, "--http-port", "0",
                                   "--http-max-input-size", str(MAX_INPUT), "--json", portfile],
                                  stdout=server_log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + 60
        while True:
            if server.poll() is not None:
                raise RuntimeError("the server exited with %s before listening" % server.returncode)
            try:
                with open(portfile) as f:
                    listening = json.load(f)
                url, port = listening["http"], int(listening["http_port"])
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
        faults = threading.Thread(target=fault_stream, args=(port, stop_faults, fault_counts))
        faults.start()
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
        stop_faults.set()
        faults.join()
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
        problems = fault_problems(fault_counts)
        for problem in problems:
            print("soak FAILED: " + problem)
        ok = ok and not problems
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
        stop_faults.set()
        if faults is not None:
            faults.join()
        for p in (load, server):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(workdir, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
