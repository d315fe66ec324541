"""Fixture for the python backend: forward() raises the error its input selects, so a
test can check every InferLab error code crosses from the Python worker to the parent.

input[0, 0] = i picks CODES[i] (the order of ErrorCode in src/inferlab/core/error.h);
input[0, 1] = 0 raises WorkerError(CODES[i]), 1 raises the Python exception the worker
maps to that code (BUILTIN_EXCEPTIONS; codes without one raise WorkerError anyway).
input[0, 0] < 0 returns 2 * input: the worker is still alive."""

import concurrent.futures

import torch
from inferlab_worker.errors import CODES, WorkerError

BUILTIN_EXCEPTIONS = {
    "io": lambda: PermissionError(13, "Permission denied", "/fixture/locked"),
    "out_of_range": lambda: IndexError("fixture: index 7 is out of bounds"),
    "limit_exceeded": lambda: MemoryError("fixture: cannot allocate"),
    "runtime": lambda: RuntimeError("fixture: forward failed"),
    "not_found": lambda: FileNotFoundError(2, "No such file or directory", "/fixture/missing"),
    "unavailable": lambda: ConnectionRefusedError(111, "Connection refused"),
    "deadline_exceeded": lambda: TimeoutError("fixture: timed out"),
    "cancelled": lambda: concurrent.futures.CancelledError("fixture: cancelled"),
}


class RaisesInForward(torch.nn.Module):
    def forward(self, x):
        index, form = int(x[0, 0].item()), int(x[0, 1].item())
        if index < 0:
            return x * 2
        code = CODES[index]
        if form == 1 and code in BUILTIN_EXCEPTIONS:
            raise BUILTIN_EXCEPTIONS[code]()
        raise WorkerError(code, f"fixture raised {code}")


def build():
    return RaisesInForward()
