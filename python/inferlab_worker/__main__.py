"""Start-up of the worker: `python3 <dir>/inferlab_worker --channel-fd N`.

Run that way, Python puts this directory itself first on sys.path, where our
module names (requests, environment, options...) would shadow what a model's
own code imports. So the directory is swapped for its parent (where the old
single-file worker put sys.path[0]) and the package is loaded from this
directory by path, never looked up by name: a stale inferlab_worker.py beside
it cannot be picked up instead.
"""

import argparse
import importlib.util
import os
import sys
import time

PACKAGE = "inferlab_worker"


def import_package():
    """Registers this directory as the package PACKAGE (a no-op under `python3 -m`)."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [os.path.dirname(here) if entry and os.path.abspath(entry) == here else entry
                   for entry in sys.path]
    if PACKAGE in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(PACKAGE, os.path.join(here, "__init__.py"),
                                                  submodule_search_locations=[here])
    package = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = package
    spec.loader.exec_module(package)


def main():
    import_package()
    from inferlab_worker.channel import Channel
    from inferlab_worker.environment import environment_record
    from inferlab_worker.errors import error_message, last_line
    from inferlab_worker.requests import Worker

    parser = argparse.ArgumentParser(description="InferLab's PyTorch worker")
    parser.add_argument("--channel-fd", type=int, required=True)
    args = parser.parse_args()
    channel = Channel(args.channel_fd)
    if sys.stdout is not None:
        sys.stdout.reconfigure(line_buffering=True)  # a crash keeps what the model printed
    start = time.perf_counter()
    try:
        import numpy as np
        import torch
    except Exception as error:  # noqa: BLE001 (any import failure is reported, then exit)
        channel.send(error_message("unavailable", f"cannot import PyTorch with "
                                                  f"{sys.executable}: {last_line(error)}"))
        return 1
    import_ms = (time.perf_counter() - start) * 1000.0
    worker = Worker(channel, np, torch)
    channel.send({"type": "hello", "backend": "python", "version": f"torch {torch.__version__}",
                  "pid": os.getpid(), "devices": worker.devices, "import_ms": import_ms,
                  "configuration": environment_record(torch, np, import_ms)})
    return worker.serve()


if __name__ == "__main__":
    sys.exit(main())
