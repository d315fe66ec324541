"""The worker's one error type and how any failure becomes an `error` reply."""

import concurrent.futures
import traceback

MAX_ERROR_TEXT = 16 << 10

# InferLab's ErrorCode names as they cross the wire (src/inferlab/backends/tensor_wire.cc,
# docs/worker-protocol.md). The parent reads a name it does not know as "runtime".
CODES = ("invalid_argument", "invalid_model", "unsupported", "io", "out_of_range",
         "limit_exceeded", "runtime", "not_found", "unavailable", "deadline_exceeded",
         "cancelled")

# Exceptions a model (or PyTorch) raises, most specific first: the OSError
# subclasses come before OSError itself.
EXCEPTION_CODES = (
    (MemoryError, "limit_exceeded"),
    ((IndexError, KeyError), "out_of_range"),
    (FileNotFoundError, "not_found"),
    (TimeoutError, "deadline_exceeded"),
    (ConnectionError, "unavailable"),
    (concurrent.futures.CancelledError, "cancelled"),
    (OSError, "io"),
)


class WorkerError(Exception):
    """A failure with one of InferLab's ErrorCode names (CODES). Model code may
    raise it too, to choose the code the parent sees."""

    def __init__(self, code, message):
        if code not in CODES:
            raise ValueError(f"'{code}' is not an InferLab error code (one of {', '.join(CODES)})")
        super().__init__(message)
        self.code = code


def error_message(code, text):
    if len(text) > MAX_ERROR_TEXT:
        text = text[:MAX_ERROR_TEXT] + " [...]"
    return {"type": "error", "code": code, "message": text}


def last_line(error):
    lines = "".join(traceback.format_exception_only(type(error), error)).strip().splitlines()
    return lines[-1] if lines else type(error).__name__


def error_code_of(error):
    if isinstance(error, WorkerError):
        return error.code
    for types, code in EXCEPTION_CODES:
        if isinstance(error, types):
            return code
    return "runtime"
