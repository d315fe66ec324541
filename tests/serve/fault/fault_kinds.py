"""The request kinds the fault test's senders mix (valid, killed, malformed,
oversize, overload, timeouts, an unloaded model), the statuses each may be
answered with, one exchange on a keep-alive connection, and the tally of
outcomes. Used by fault_test.py."""

import collections
import json
import random
import sys
import threading
import time

import numpy as np

from fault_client import (ELEMENTS, Connection, NoAnswer, binary_body, check_200, http_request,
                          inputs, json_body)

MAX_INPUT = 65536  # the first server's --http-max-input-size

# Statuses allowed per kind (docs/serve.md "Errors", docs/errors.md). None: the
# client leaves, no answer is expected.
ALLOWED = {
    "valid_json": {200},
    "valid_binary": {200},
    "killed_half_body": None,
    "killed_before_read": None,
    "bad_json": {400},
    "wrong_shape": {400},
    "wrong_data_count": {400},
    "bytes_datatype": {501},
    "wrong_binary_size": {400},
    "header_length_beyond_body": {400},
    "oversize": {413},
    "overload": {200, 503, 504},  # 504: the config's default timeout passed
    "queue_timeout": {200, 503, 504},
    "unloaded_model": {200, 404, 503},
    "overload_429": {200, 429, 504},
}

MIXED_KINDS = [  # (kind, weight) for the mixed senders
    ("valid_json", 18), ("valid_binary", 22), ("killed_half_body", 5),
    ("killed_before_read", 5), ("bad_json", 4), ("wrong_shape", 3), ("wrong_data_count", 2),
    ("bytes_datatype", 3), ("wrong_binary_size", 4), ("header_length_beyond_body", 4),
    ("oversize", 4), ("unloaded_model", 12),
]
PRESSURE_KINDS = [("overload", 10), ("queue_timeout", 10), ("killed_before_read", 1)]


class Tally:
    """Counts per kind and status, and the failures with their detail."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = collections.defaultdict(collections.Counter)
        self.failures = []

    def count(self, kind, outcome):
        with self.lock:
            self.counts[kind][outcome] += 1

    def fail(self, kind, message):
        with self.lock:
            self.counts[kind]["FAIL"] += 1
            self.failures.append("%s: %s" % (kind, message))

    def total(self, outcome=None):
        with self.lock:
            return sum(c[outcome] if outcome is not None else sum(c.values()) for c in self.counts.values())

    def print_table(self, title):
        with self.lock:
            outcomes = sorted({o for c in self.counts.values() for o in c},
                              key=lambda o: (isinstance(o, str), str(o)))
            width = max([len(k) for k in self.counts] + [len("total")]) + 2
            print(title)
            print("  " + "kind".ljust(width) + "".join(str(o).rjust(max(7, len(str(o)) + 2)) for o in outcomes) + "    total")
            totals = collections.Counter()
            for kind in sorted(self.counts):
                c = self.counts[kind]
                totals.update(c)
                print("  " + kind.ljust(width) + "".join(str(c[o]).rjust(max(7, len(str(o)) + 2)) for o in outcomes)
                      + str(sum(c.values())).rjust(9))
            print("  " + "total".ljust(width) + "".join(str(totals[o]).rjust(max(7, len(str(o)) + 2)) for o in outcomes)
                  + str(sum(totals.values())).rjust(9))
            sys.stdout.flush()


class Tickets:
    """Hands out at most `total` request tickets, none after the deadline."""

    def __init__(self, total, deadline):
        self.lock = threading.Lock()
        self.total, self.deadline, self.issued = total, deadline, 0
        self.bound_reached = False

    def take(self):
        with self.lock:
            if self.issued >= self.total:
                return None
            if time.monotonic() > self.deadline:
                self.bound_reached = True
                return None
            self.issued += 1
            return self.issued


def exchange(conn, tally, kind, data, check=None):
    """Sends one request and reads its answer on a keep-alive connection;
    counts the status, or the failure (no answer, extra bytes, wrong status,
    wrong outputs)."""
    try:
        conn.ensure()
    except OSError as e:
        tally.fail(kind, "cannot connect: %s" % e)
        return None
    try:
        conn.send(data)
    except OSError as e:
        # The answer may still be there (the server answers, then closes).
        pass_error = e
    else:
        pass_error = None
    try:
        response, extra = conn.read_response()
    except NoAnswer as e:
        conn.close()
        tally.fail(kind, "no complete answer (%s%s%s)" % (e, ", partial answer" if e.partial else "",
                                                         ", send failed: %s" % pass_error if pass_error else ""))
        return None
    if extra:
        conn.close()
        tally.fail(kind, "%d bytes after the answer (a second answer?): %r" % (len(extra), extra[:80]))
    allowed = ALLOWED[kind]
    if response.status not in allowed:
        tally.fail(kind, "status %d, documented %s: %s" % (response.status, sorted(allowed), response.body[:200]))
        return response
    if response.status != 200:
        try:
            error = json.loads(response.body)
            if not isinstance(error, dict) or not isinstance(error.get("error"), str):
                raise ValueError
        except ValueError:
            tally.fail(kind, "status %d body is not {\"error\": ...}: %r" % (response.status, response.body[:200]))
            return response
    elif check is not None:
        problem = check(response)
        if problem:
            tally.fail(kind, problem)
            return response
    tally.count(kind, response.status)
    return response


def run_kind(kind, conn, rng, tally, seq, port):
    rid = "%s-%d" % (kind, seq)
    x, y = inputs(rng)
    infer = "/v2/models/add/infer"
    if kind == "valid_json":
        exchange(conn, tally, kind, http_request(infer, json_body(x, y, rid)),
                 lambda r: check_200(r, rid, x, y))
    elif kind == "valid_binary":
        body, hlen = binary_body(x, y, rid)
        exchange(conn, tally, kind, http_request(infer, body, "application/octet-stream", hlen),
                 lambda r: check_200(r, rid, x, y))
    elif kind in ("overload", "queue_timeout"):
        params = {"timeout": rng.choice([1, 10, 100, 1000])} if kind == "queue_timeout" else {}
        path = "/v2/models/add_small_queue/infer"
        if rng.random() < 0.5:
            body, hlen = binary_body(x, y, rid, params)
            data = http_request(path, body, "application/octet-stream", hlen)
        else:
            data = http_request(path, json_body(x, y, rid, params))
        exchange(conn, tally, kind, data, lambda r: check_200(r, rid, x, y))
    elif kind == "unloaded_model":
        exchange(conn, tally, kind, http_request("/v2/models/add_unload/infer", json_body(x, y, rid)),
                 lambda r: check_200(r, rid, x, y))
    elif kind in ("killed_half_body", "killed_before_read"):
        model = rng.choice(["add", "add_small_queue"])
        body, hlen = binary_body(x, y, rid)
        data = http_request("/v2/models/%s/infer" % model, body, "application/octet-stream", hlen)
        if kind == "killed_half_body":
            data = data[:len(data) - len(body) // 2]
        try:
            conn.ensure()
            conn.send(data)
        except OSError as e:
            tally.fail(kind, "cannot send: %s" % e)
            conn.close()
            return
        conn.close(abortive=rng.random() < 0.3)
        tally.count(kind, "client gone")
    elif kind == "bad_json":
        body = json_body(x, y, rid)
        variant = rng.randrange(3)
        if variant == 0:
            body = body[:len(body) // 2]  # truncated
        elif variant == 1:
            body = b"{" + body  # not JSON
        else:
            body = b'{"id": "%s", "inputs": {"name": "x"}}' % rid.encode()  # inputs not an array
        exchange(conn, tally, kind, http_request(infer, body))
    elif kind == "wrong_shape":
        exchange(conn, tally, kind, http_request(
            infer, json_body(x[:ELEMENTS - 1], y, rid, xshape=[ELEMENTS - 1])))
    elif kind == "wrong_data_count":
        exchange(conn, tally, kind, http_request(infer, json_body(x, y, rid, xdata=x[:ELEMENTS - 1].tolist())))
    elif kind == "bytes_datatype":
        exchange(conn, tally, kind, http_request(
            infer, json_body(x, y, rid, datatype="BYTES", xdata=["a"] * ELEMENTS)))
    elif kind == "wrong_binary_size":
        sizes = rng.choice([(4 * ELEMENTS - 4, 4 * ELEMENTS), (4 * ELEMENTS - 4, 4 * ELEMENTS + 4),
                            (4 * ELEMENTS + 8, 4 * ELEMENTS)])
        body, hlen = binary_body(x, y, rid, sizes=sizes)
        exchange(conn, tally, kind, http_request(infer, body, "application/octet-stream", hlen))
    elif kind == "header_length_beyond_body":
        body, hlen = binary_body(x, y, rid)
        exchange(conn, tally, kind, http_request(
            infer, body, "application/octet-stream", len(body) + rng.choice([1, 100, 100000])))
    elif kind == "oversize":
        if rng.random() < 0.5:
            body = json_body(np.zeros(9000, np.float32), y, rid, xshape=[9000])
        else:
            body = b"\0" * (MAX_INPUT + 1 + rng.randrange(20000))
        assert len(body) > MAX_INPUT
        exchange(conn, tally, kind, http_request(infer, body))
    else:
        raise AssertionError(kind)


def sender(port, kinds, tickets, tally, seed, errors):
    rng = Rng(random.Random(seed), np.random.default_rng(seed))
    names = [k for k, _ in kinds]
    weights = [w for _, w in kinds]
    conn = Connection(port)
    try:
        while True:
            seq = tickets.take()
            if seq is None:
                break
            kind = rng.rng.choices(names, weights)[0]
            run_kind(kind, conn, rng, tally, seq, port)
        extra = conn.trailing_bytes()
        if extra:
            tally.fail("connection", "%d bytes after the last answer: %r" % (len(extra), extra[:80]))
    except Exception as e:  # a bug in the test itself: report, do not hang
        errors.append("sender %d: %r" % (seed, e))
        raise
    finally:
        conn.close()


class Rng:
    """random.Random's choices plus numpy's float32 normals, one object."""

    def __init__(self, rng, nrng):
        self.rng, self.nrng = rng, nrng

    def standard_normal(self, n):
        return self.nrng.standard_normal(n)

    def random(self):
        return self.rng.random()

    def choice(self, seq):
        return self.rng.choice(seq)

    def randrange(self, n):
        return self.rng.randrange(n)
