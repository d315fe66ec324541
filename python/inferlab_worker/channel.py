"""The SEQPACKET channel to the parent: JSON datagrams, fds by SCM_RIGHTS."""

import json
import os
import socket

from .errors import WorkerError

MAX_MESSAGE_BYTES = 1 << 20


class Channel:
    """The SEQPACKET socket: one JSON object per datagram, at most one fd with it."""

    def __init__(self, fd):
        self.sock = socket.socket(fileno=fd)

    def receive(self):
        """(message dict, fd or None); (None, None) when the parent is gone."""
        data, fds, flags, _ = socket.recv_fds(self.sock, MAX_MESSAGE_BYTES + 1, 1)
        if not data and not fds:
            return None, None
        for extra in fds[1:]:
            os.close(extra)
        fd = fds[0] if fds else None
        if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC) or len(data) > MAX_MESSAGE_BYTES:
            if fd is not None:
                os.close(fd)
            raise WorkerError("limit_exceeded", "request larger than 1 MiB or with several fds")
        try:
            message = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            if fd is not None:
                os.close(fd)
            raise WorkerError("invalid_argument", f"request is not JSON: {error}") from None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            if fd is not None:
                os.close(fd)
            raise WorkerError("invalid_argument", "request is not an object with a 'type'")
        return message, fd

    def send(self, message, fd=None):
        data = json.dumps(message, separators=(",", ":")).encode("utf-8")
        if len(data) > MAX_MESSAGE_BYTES:
            raise WorkerError("limit_exceeded", f"reply of {len(data)} bytes exceeds 1 MiB")
        if fd is None:
            self.sock.send(data)
        else:
            socket.send_fds(self.sock, [data], [fd])
