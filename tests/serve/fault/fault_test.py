#!/usr/bin/python3
"""The server under faults, nothing lost (issue 20, "Faults, nothing lost").

Starts `inferlab serve` on a temporary repository of one-Add models
(tools/serve/make_add_model.py: z = x + y over 1,000 float32) and drives
10,000 requests from several threads over raw keep-alive sockets, mixing:

  valid JSON and binary requests     200, z == numpy float32 x + y exactly, id echoed
  clients killed mid-request         half the body sent then closed; the whole
                                     request sent then closed before reading
  malformed bodies                   bad JSON, wrong shape, wrong data count,
                                     wrong binary_data_size, an
                                     Inference-Header-Content-Length beyond the
                                     body: 400; BYTES: 501
  oversize bodies                    413 (--http-max-input-size 65536)
  overload beyond the queue bound    200, 503, or 504 (a model with max_queue_size 2
                                     and a default queue timeout of 500 us)
  queue timeouts                     200, 503 or 504 (request parameter timeout
                                     1 to 1000 us, under the default when shorter)
  an unload mid-traffic, then load   requests to that model: 200, 404 or 503

and asserts, never durations: the server is alive at the end; every request
whose client stayed got exactly one complete HTTP answer (no close without an
answer, no bytes beyond the answer); every status is one documented for its
kind (docs/serve.md, "Errors"); every 200 carries the exact sums and its id;
the mix produced at least one 503 and one 504; the server's access log
(--access-log) shows no 500. A second server with
--queue-full-status 429 --retry-after-secs 3 checks 429 + Retry-After.
Last, SIGTERM under load: 8 threads sending, the first server is signalled;
every answer is 200 or 503 "shutting down"; a connection refused or closed
with no byte of an answer after the signal is counted as "not accepted";
a partial answer or a silent hang is a lost answer; the access log shows
exactly as many inference answers in this phase as the clients received (so
a close counted as "not accepted" did not swallow an answer); the server
exits 0 within --exit-timeout-secs (10) + 10 s.

  /usr/bin/python3 tests/serve/fault/fault_test.py --inferlab build/inferlab --source-dir .

Registered as ctest serve.fault (src/inferlab/serve/CMakeLists.txt). Loopback
only; servers killed in a finally block (and by PR_SET_PDEATHSIG if this
test is killed); the temporary directory removed.
The client side (raw keep-alive HTTP, the one-Add requests and checks) is
fault_client.py, the request kinds, their allowed statuses and the tally
fault_kinds.py, the server side (starting it, reading its access log)
fault_server.py, all in this folder.
"""

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fault_client import (READ_TIMEOUT, Connection, NoAnswer, binary_body, check_200,  # noqa: E402
                          http_request, inputs, json_body, simple_request)
from fault_server import Server, access_log_problems, sigterm_log_problems  # noqa: E402
from fault_kinds import (MAX_INPUT, MIXED_KINDS, PRESSURE_KINDS, Rng, Tally, Tickets,  # noqa: E402
                         exchange, sender)

EXIT_TIMEOUT = 10
RETRY_AFTER = 3


SMALL_QUEUE_CONFIG = """name: "add_small_queue"
dynamic_batching { default_queue_policy { max_queue_size: 2 default_timeout_microseconds: 500 allow_timeout_override: true } }
instance_group [{ count: 1 kind: KIND_CPU }]
"""



def repository_cycle(port, tickets, tally, stop):
    """Unloads add_unload at 20% and 60% of the requests, loads it back at 40%
    and 80%: each call answers 200 (unload once its accepted requests are
    answered)."""
    for fraction, action in ((0.2, "unload"), (0.4, "load"), (0.6, "unload"), (0.8, "load")):
        while not stop.is_set() and tickets.issued < fraction * tickets.total:
            time.sleep(0.01)
        if stop.is_set():
            break
        try:
            response = simple_request(port, "POST", "/v2/repository/models/add_unload/" + action, b"{}")
        except (OSError, NoAnswer) as e:
            tally.fail("repository_" + action, "no answer: %s" % e)
            continue
        if response.status != 200:
            tally.fail("repository_" + action, "status %d: %r" % (response.status, response.body[:200]))
        else:
            tally.count("repository_" + action, 200)


def main_phase(server, total, bound, mixed_threads, pressure_threads, seed):
    tally = Tally()
    tickets = Tickets(total, time.monotonic() + bound)
    errors = []
    stop = threading.Event()
    threads = [threading.Thread(target=sender, args=(server.port, MIXED_KINDS, tickets, tally, seed + i, errors))
               for i in range(mixed_threads)]
    threads += [threading.Thread(target=sender, args=(server.port, PRESSURE_KINDS, tickets, tally, seed + 100 + i, errors))
                for i in range(pressure_threads)]
    cycle = threading.Thread(target=repository_cycle, args=(server.port, tickets, tally, stop))
    start = time.monotonic()
    for t in threads + [cycle]:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    cycle.join()
    return tally, tickets, errors, time.monotonic() - start


def overload_429_phase(server, total, threads_count, seed):
    """A second server with --queue-full-status 429: overload answers 200,
    429 (each with Retry-After: RETRY_AFTER) or 504 (the default timeout)."""
    tally = Tally()
    tickets = Tickets(total, time.monotonic() + 30)
    errors = []

    def run(i):
        rng = Rng(random.Random(seed + i), np.random.default_rng(seed + i))
        conn = Connection(server.port)
        try:
            while True:
                seq = tickets.take()
                if seq is None:
                    break
                x, y = inputs(rng)
                rid = "overload_429-%d" % seq
                body, hlen = binary_body(x, y, rid)
                response = exchange(conn, tally, "overload_429",
                                    http_request("/v2/models/add_small_queue/infer", body,
                                                 "application/octet-stream", hlen),
                                    lambda r: check_200(r, rid, x, y))
                if response is not None and response.status == 429:
                    if response.headers.get("retry-after") != str(RETRY_AFTER):
                        tally.fail("overload_429", "429 with Retry-After %r, expected %r" % (
                            response.headers.get("retry-after"), str(RETRY_AFTER)))
        except Exception as e:
            errors.append("429 sender %d: %r" % (i, e))
            raise
        finally:
            conn.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(threads_count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return tally, tickets, errors


def sigterm_phase(server, threads_count, seed):
    """8 threads sending valid requests; SIGTERM; every answer 200 or 503
    "shutting down"; refused or closed with no answer after the signal: "not
    accepted"; exit 0 within EXIT_TIMEOUT + 10 s."""
    tally = Tally()
    signalled = threading.Event()
    answered = [0]
    lock = threading.Lock()
    errors = []

    def run(i):
        rng = Rng(random.Random(seed + i), np.random.default_rng(seed + i))
        conn = Connection(server.port)
        n = 0
        try:
            while True:
                n += 1
                kind = "sigterm_json" if n % 2 else "sigterm_binary"
                rid = "sigterm-%d-%d" % (i, n)
                x, y = inputs(rng)
                if kind == "sigterm_json":
                    data = http_request("/v2/models/add/infer", json_body(x, y, rid))
                else:
                    body, hlen = binary_body(x, y, rid)
                    data = http_request("/v2/models/add/infer", body, "application/octet-stream", hlen)
                sent_after_signal = signalled.is_set()
                try:
                    conn.ensure()
                except OSError as e:
                    if signalled.is_set():
                        tally.count(kind, "not accepted")
                        return
                    tally.fail(kind, "cannot connect before the signal: %s" % e)
                    return
                try:
                    conn.send(data)
                except OSError:
                    pass  # read what there is
                try:
                    response, extra = conn.read_response()
                except NoAnswer as e:
                    conn.close()
                    if signalled.is_set() and not e.partial and "no answer within" not in str(e):
                        tally.count(kind, "not accepted")
                        return
                    tally.fail(kind, "lost answer (%s%s, request sent %s the signal)" % (
                        e, ", partial" if e.partial else "", "after" if sent_after_signal else "before"))
                    return
                if extra:
                    tally.fail(kind, "%d bytes after the answer: %r" % (len(extra), extra[:80]))
                    conn.close()
                if response.status == 200:
                    problem = check_200(response, rid, x, y)
                    if problem:
                        tally.fail(kind, problem)
                    else:
                        tally.count(kind, 200)
                elif response.status == 503 and signalled.is_set() and b"shutting down" in response.body:
                    tally.count(kind, 503)
                elif response.status == 503 and signalled.is_set():
                    tally.fail(kind, "503 after the signal without docs/serve.md's \"the server is "
                               "shutting down\" (every new inference once draining): %r" % response.body[:200])
                else:
                    tally.fail(kind, "status %d (%s the signal): %r" % (
                        response.status, "after" if signalled.is_set() else "before", response.body[:200]))
                with lock:
                    answered[0] += 1
        except Exception as e:
            errors.append("sigterm sender %d: %r" % (i, e))
            raise
        finally:
            conn.close()

    threads = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(threads_count)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 20
    while answered[0] < 400 and time.monotonic() < deadline and all(t.is_alive() for t in threads):
        time.sleep(0.01)
    answered_before = answered[0]
    signalled.set()
    server.proc.send_signal(signal.SIGTERM)
    try:
        rc = server.proc.wait(timeout=EXIT_TIMEOUT + 10)
    except subprocess.TimeoutExpired:
        rc = None
    for t in threads:
        t.join(timeout=READ_TIMEOUT + 5)
    if any(t.is_alive() for t in threads):
        errors.append("a SIGTERM-phase sender did not finish")
    return tally, rc, answered_before, errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inferlab", required=True, help="the inferlab binary")
    parser.add_argument("--source-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
    parser.add_argument("--requests", type=int, default=10000)
    parser.add_argument("--bound", type=float, default=120.0, help="seconds the requests may take at most")
    parser.add_argument("--mixed-threads", type=int, default=6)
    parser.add_argument("--pressure-threads", type=int, default=12)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    print("seed %d (--seed %d reproduces the mix)" % (seed, seed))
    inferlab = os.path.abspath(args.inferlab)
    workdir = tempfile.mkdtemp(prefix="inferlab-fault-")
    servers = []
    problems = []
    try:
        repo = os.path.join(workdir, "repo")
        make_add = os.path.join(args.source_dir, "tools", "serve", "make_add_model.py")
        for name in ("add", "add_small_queue", "add_unload"):
            subprocess.run(["/usr/bin/python3", make_add, "--repository", repo, "--name", name], check=True)
        with open(os.path.join(repo, "add_small_queue", "config.pbtxt"), "w") as f:
            f.write(SMALL_QUEUE_CONFIG)

        wall = time.monotonic()
        server = Server(inferlab, repo, workdir, "server", [
            "--model-control-mode", "explicit", "--load-model", "add", "--load-model", "add_small_queue",
            "--load-model", "add_unload", "--http-max-input-size", str(MAX_INPUT),
            "--exit-timeout-secs", str(EXIT_TIMEOUT), "--access-log"])
        servers.append(server)

        # 1. 10,000 requests of every kind.
        tally, tickets, errors, seconds = main_phase(server, args.requests, args.bound,
                                                     args.mixed_threads, args.pressure_threads, seed)
        tally.print_table("faults: %d requests, %d mixed + %d pressure threads (%.1f s, not asserted)" % (
            tickets.issued, args.mixed_threads, args.pressure_threads, seconds))
        problems += errors + tally.failures
        if tickets.bound_reached:
            problems.append("bound reached: only %d of %d requests sent within %.0f s" % (
                tickets.issued, args.requests, args.bound))
        if server.proc.poll() is not None:
            problems.append("the server died during the faults (exit status %s)" % server.proc.returncode)
        else:
            live = simple_request(server.port, "GET", "/v2/health/live")
            if live.status != 200:
                problems.append("health/live after the faults: %d" % live.status)
            for model in ("add", "add_small_queue", "add_unload"):
                ready = simple_request(server.port, "GET", "/v2/models/%s/ready" % model)
                if ready.status != 200:
                    problems.append("model %s not ready after the faults: %d %r" % (model, ready.status, ready.body))
        overload = tally.counts["overload"][503] + tally.counts["queue_timeout"][503]
        timeouts = tally.counts["queue_timeout"][504]
        if overload == 0:
            problems.append("the mix produced no 503 (overload beyond the queue bound)")
        if timeouts == 0:
            problems.append("the mix produced no 504 (queue timeout)")
        if tally.counts["unloaded_model"][404] + tally.counts["unloaded_model"][503] == 0:
            print("note: no request reached add_unload while it was unloaded")
        problems += access_log_problems(server)
        if tickets.bound_reached or problems:
            raise SystemExit(1)

        # 2. 429 + Retry-After on a second server.
        server429 = Server(inferlab, repo, workdir, "server429", [
            "--model-control-mode", "explicit", "--load-model", "add_small_queue",
            "--queue-full-status", "429", "--retry-after-secs", str(RETRY_AFTER),
            "--exit-timeout-secs", str(EXIT_TIMEOUT)])
        servers.append(server429)
        tally429, tickets429, errors = overload_429_phase(server429, 1500, 12, seed + 1000)
        tally429.print_table("overload with --queue-full-status 429 --retry-after-secs %d" % RETRY_AFTER)
        problems += errors + tally429.failures
        if tally429.counts["overload_429"][429] == 0:
            problems.append("the 429 phase produced no 429")
        if tickets429.bound_reached:
            problems.append("the 429 phase did not finish within 30 s")
        server429.proc.send_signal(signal.SIGTERM)
        try:
            rc = server429.proc.wait(timeout=EXIT_TIMEOUT + 10)
            if rc != 0:
                problems.append("the 429 server exited with %s on SIGTERM" % rc)
        except subprocess.TimeoutExpired:
            problems.append("the 429 server did not exit within %d s of SIGTERM" % (EXIT_TIMEOUT + 10))

        # 3. SIGTERM under load on the first server, after all its faults.
        if server.proc.poll() is not None:
            problems.append("the server died before the SIGTERM phase (exit status %s)" % server.proc.returncode)
        else:
            server.log.flush()
            log_offset = os.path.getsize(server.logpath)
            tally_term, rc, before, errors = sigterm_phase(server, 8, seed + 2000)
            tally_term.print_table("SIGTERM under load: 8 threads, signal after %d answers" % before)
            problems += errors + tally_term.failures
            problems += sigterm_log_problems(server, log_offset, tally_term)
            if rc is None:
                problems.append("the server did not exit within --exit-timeout-secs %d + 10 s of SIGTERM" % EXIT_TIMEOUT)
            elif rc != 0:
                problems.append("the server exited with status %d after SIGTERM" % rc)
            else:
                print("server exited 0 after SIGTERM")
        print("wall time %.1f s (not asserted)" % (time.monotonic() - wall))
    except SystemExit:
        pass
    finally:
        try:
            for s in servers:
                s.kill()
            if problems:
                print("\nFAILED: %d problem(s)" % len(problems))
                for p in problems[:40]:
                    print("  " + p)
                if len(problems) > 40:
                    print("  ... and %d more" % (len(problems) - 40))
                for s in servers:
                    print("\nlast lines of %s:\n%s" % (os.path.basename(s.logpath), s.log_tail()))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    if problems:
        sys.exit(1)
    print("PASSED")


if __name__ == "__main__":
    main()
