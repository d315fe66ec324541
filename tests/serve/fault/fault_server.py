"""The server side of serve.fault (fault_test.py): `inferlab serve` started in
a child process (killed with this test by PR_SET_PDEATHSIG), and what its
access log says about the faults and the SIGTERM phase.
"""

import collections
import ctypes
import json
import os
import signal
import subprocess
import time

_LIBC = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def die_with_parent():
    """In the server's child process before exec: SIGKILL it when this test
    dies, so a test killed by ctest's TIMEOUT (where `finally` never runs)
    leaves no server behind. Servers start while no sender thread runs."""
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class Server:
    def __init__(self, inferlab, repository, workdir, name, extra):
        self.portfile = os.path.join(workdir, name + ".json")
        self.logpath = os.path.join(workdir, name + ".log")
        self.log = open(self.logpath, "wb")
        env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
        self.proc = subprocess.Popen(
            [inferlab, "serve", "--model-repository", repository, "--http-port", "0",
             "--http-address", "127.0.0.1", "--json", self.portfile] + extra,
            stdout=self.log, stderr=subprocess.STDOUT, env=env, preexec_fn=die_with_parent)
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("server %s exited with %s before listening:\n%s" % (name, self.proc.returncode, self.log_tail()))
            try:
                with open(self.portfile) as f:
                    self.port = int(json.load(f)["http_port"])
                break
            except (OSError, ValueError, KeyError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("server %s did not listen within 60 s:\n%s" % (name, self.log_tail()))
            time.sleep(0.05)

    def log_tail(self, lines=30):
        if not self.log.closed:
            self.log.flush()
        try:
            with open(self.logpath, "rb") as f:
                return b"\n".join(f.read().splitlines()[-lines:]).decode("utf-8", "replace")
        except OSError:
            return ""

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def access_log_problems(server):
    """The server's own view of the faults (--access-log): its statuses, and
    no 500 (a handler that threw) among them."""
    statuses = collections.Counter()
    with open(server.logpath, "rb") as f:
        for line in f:
            fields = line.decode("utf-8", "replace").split('"')
            if line.startswith(b"A ") and len(fields) == 3 and fields[2].split():
                statuses[fields[2].split()[0]] += 1
    print("access log statuses: " + ", ".join("%s %d" % kv for kv in sorted(statuses.items())))
    if not statuses:
        return ["the access log has no request lines"]
    return ["the access log shows %d answers with status 500" % statuses["500"]] if statuses["500"] else []


def sigterm_log_problems(server, offset, tally):
    """The server's side of "none lost": the inference answers its access log
    shows from `offset` on (the SIGTERM phase alone sends inferences to this
    server then) are exactly the answers its clients received. More would
    mean an answer the server gave never reached its client, e.g. a
    connection closed under it, which the clients counted as not accepted."""
    server.log.flush()
    logged = 0
    with open(server.logpath, "rb") as f:
        f.seek(offset)
        for line in f:
            if line.startswith(b"A ") and b'"POST /v2/models/add/infer"' in line:
                logged += 1
    received = sum(tally.counts[kind][status] for kind in tally.counts for status in (200, 503))
    print("SIGTERM phase: the server logged %d inference answers, its clients received %d" % (logged, received))
    if logged != received:
        return ["SIGTERM phase: the access log shows %d inference answers, the clients received %d" % (
            logged, received)]
    return []
