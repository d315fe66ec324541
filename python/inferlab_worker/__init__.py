"""InferLab's Python worker: hosts PyTorch for the `python` backend.

Started by InferLab (src/inferlab/backends/worker/) as

    /usr/bin/python3 <backends>/inferlab_worker --channel-fd N

with N one end of a SOCK_SEQPACKET socketpair, and speaks
docs/worker-protocol.md on it: JSON requests and replies, one datagram each,
tensor bytes in memfd arenas (the parent's holds inputs, this worker's holds
outputs). The parent sets the environment (threads, BLAS, ISA) before the
start; the worker only reports what it sees. Uses the standard library, numpy
and torch only.

The one idea: requests are handled one at a time, and any exception a request
raises becomes an `error` reply — the worker only exits on `close`, on the
channel closing, or when the model itself kills the process.

Modules: __main__ (start-up, main loop), channel (the socket), arena (tensor
bytes), environment (the hello record), model_loading, options (what open and
bind accept), requests (the handlers), errors.
"""
