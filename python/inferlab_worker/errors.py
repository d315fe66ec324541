"""The worker's one error type and how any failure becomes an `error` reply."""

import traceback

MAX_ERROR_TEXT = 16 << 10


class WorkerError(Exception):
    """A failure with one of InferLab's ErrorCode names (docs/worker-protocol.md)."""

    def __init__(self, code, message):
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
    if isinstance(error, MemoryError):
        return "limit_exceeded"
    if isinstance(error, (IndexError, KeyError)):
        return "out_of_range"
    if isinstance(error, OSError):
        return "io"
    return "runtime"
