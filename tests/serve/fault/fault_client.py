"""The client side of serve.fault (fault_test.py): keep-alive HTTP/1.1 on raw
sockets (Connection, NoAnswer when an answer is incomplete), and the one-Add
model's requests (JSON and binary bodies) and the check of its 200 answers.
"""

import json
import socket

import numpy as np

ELEMENTS = 1000
READ_TIMEOUT = 30.0  # a client waiting this long for an answer has lost it


class NoAnswer(Exception):
    """The connection ended or timed out before a complete answer."""

    def __init__(self, what, partial):
        super().__init__(what)
        self.partial = partial  # some bytes of an answer had arrived


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body


class Connection:
    """One keep-alive HTTP/1.1 connection on a raw socket."""

    def __init__(self, port):
        self.port = port
        self.sock = None
        self.buf = b""

    def ensure(self):
        if self.sock is None:
            self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=READ_TIMEOUT)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.buf = b""

    def close(self, abortive=False):
        if self.sock is not None:
            if abortive:  # RST instead of FIN
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            self.sock.close()
            self.sock = None
            self.buf = b""

    def send(self, data):
        self.sock.sendall(data)

    def _fill(self, got_any):
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            raise NoAnswer("no answer within %.0f s" % READ_TIMEOUT, got_any)
        except OSError as e:
            raise NoAnswer("connection error while reading: %s" % e, got_any)
        if not chunk:
            raise NoAnswer("connection closed", got_any)
        self.buf += chunk

    def read_response(self):
        """One complete answer; NoAnswer otherwise. Returns (Response, extra)
        where extra is whatever bytes followed the answer (must be none)."""
        while b"\r\n\r\n" not in self.buf:
            self._fill(bool(self.buf))
        head, _, rest = self.buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
            raise NoAnswer("not an HTTP status line: %r" % lines[0][:80], True)
        status = int(parts[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" not in headers:
            raise NoAnswer("answer without Content-Length: %r" % head[:200], True)
        length = int(headers["content-length"])
        self.buf = rest
        while len(self.buf) < length:
            self._fill(True)
        body, self.buf = self.buf[:length], self.buf[length:]
        extra, self.buf = self.buf, b""
        if headers.get("connection", "").lower() == "close":
            self.close()
        return Response(status, headers, body), extra

    def trailing_bytes(self, wait=0.2):
        """Bytes the server sends after the last answer (must be none)."""
        if self.sock is None:
            return b""
        self.sock.settimeout(wait)
        try:
            data = self.sock.recv(65536)
        except (socket.timeout, OSError):
            data = b""
        self.sock.settimeout(READ_TIMEOUT)
        return data


def http_request(path, body, content_type="application/json", header_length=None,
                 content_length=None):
    head = ["POST %s HTTP/1.1" % path, "Host: 127.0.0.1", "Content-Type: " + content_type,
            "Content-Length: %d" % (len(body) if content_length is None else content_length)]
    if header_length is not None:
        head.append("Inference-Header-Content-Length: %d" % header_length)
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def simple_request(port, method, path, body=b""):
    """A one-off request on its own connection (repository and health calls)."""
    conn = Connection(port)
    try:
        conn.ensure()
        head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (
            method, path, len(body))
        conn.send(head.encode() + body)
        return conn.read_response()[0]
    finally:
        conn.close()


def inputs(rng):
    x = rng.standard_normal(ELEMENTS).astype(np.float32)
    y = rng.standard_normal(ELEMENTS).astype(np.float32)
    return x, y


def json_body(x, y, rid, parameters=None, xshape=None, xdata=None, datatype="FP32"):
    request = {
        "id": rid,
        "inputs": [
            {"name": "x", "shape": xshape or [ELEMENTS], "datatype": datatype,
             "data": x.tolist() if xdata is None else xdata},
            {"name": "y", "shape": [ELEMENTS], "datatype": "FP32", "data": y.tolist()},
        ],
    }
    if parameters:
        request["parameters"] = parameters
    return json.dumps(request).encode()


def binary_body(x, y, rid, parameters=None, sizes=(4 * ELEMENTS, 4 * ELEMENTS)):
    params = {"binary_data_output": True}
    params.update(parameters or {})
    header = json.dumps({
        "id": rid,
        "inputs": [
            {"name": "x", "shape": [ELEMENTS], "datatype": "FP32", "parameters": {"binary_data_size": sizes[0]}},
            {"name": "y", "shape": [ELEMENTS], "datatype": "FP32", "parameters": {"binary_data_size": sizes[1]}},
        ],
        "parameters": params,
    }).encode()
    return header + x.tobytes() + y.tobytes(), len(header)


def check_200(response, rid, x, y):
    """None when the 200 carries the exact sums and the id, else what is wrong."""
    expected = x + y  # float32 + float32 in numpy: the IEEE sum the engine computes
    body = response.body
    if "inference-header-content-length" in response.headers:
        hlen = int(response.headers["inference-header-content-length"])
        header = json.loads(body[:hlen])
        raw = body[hlen:]
        outputs = header.get("outputs", [])
        if len(outputs) != 1 or outputs[0].get("name") != "z":
            return "outputs %r" % outputs
        size = outputs[0].get("parameters", {}).get("binary_data_size")
        if size != 4 * ELEMENTS or len(raw) != size:
            return "binary output of %r bytes (declared %r)" % (len(raw), size)
        got = np.frombuffer(raw, dtype=np.float32)
    else:
        header = json.loads(body)
        outputs = header.get("outputs", [])
        if len(outputs) != 1 or outputs[0].get("name") != "z":
            return "outputs %r" % [o.get("name") for o in outputs]
        if outputs[0].get("datatype") != "FP32" or outputs[0].get("shape") != [ELEMENTS]:
            return "output z is %s %s" % (outputs[0].get("datatype"), outputs[0].get("shape"))
        got = np.array(outputs[0]["data"], dtype=np.float64).astype(np.float32)
    if header.get("id") != rid:
        return "id %r echoed for request %r" % (header.get("id"), rid)
    if got.shape != expected.shape or not np.array_equal(got, expected):
        bad = int(np.sum(got != expected)) if got.shape == expected.shape else -1
        return "output z differs from numpy x + y (%d elements)" % bad
    return None
