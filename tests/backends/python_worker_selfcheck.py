#!/usr/bin/python3
"""Self-check of the python/inferlab_worker package without the C++ side.

A fake parent written in Python speaks docs/worker-protocol.md to a real
worker process: socketpair(SOCK_SEQPACKET), memfd arenas, fds by SCM_RIGHTS.
It checks hello, open (eager factory, state_dict, saved module, TorchScript),
run and staged bind/execute/fetch against PyTorch called directly, arena
growth on both sides, that errors are replies which leave the worker alive
(every InferLab error code, raised by a model, arrives with its code),
a worker crashing mid-run, an import failure, channel EOF and close. It
also estimates the per-call channel overhead (round trip minus the
worker's own conversion and execution time).

    python_worker_selfcheck.py [WORKER_DIR]     (default: python/inferlab_worker)

Exit status 0 when every check passes, 1 otherwise.
"""

import importlib
import json
import mmap
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(REPO, "tests", "backends", "data")
ALIGNMENT = 64
REPLY_TIMEOUT_S = 120
FP32_TOLERANCE = 1e-4
# InferLab's ErrorCode names in the order of src/inferlab/core/error.h (docs/worker-protocol.md).
ERROR_CODES = ("invalid_argument", "invalid_model", "unsupported", "io", "out_of_range",
               "limit_exceeded", "runtime", "not_found", "unavailable", "deadline_exceeded",
               "cancelled")
# The Python exception the worker reads as each code (tests/backends/data/raises_in_forward).
EXCEPTION_OF_CODE = {"io": "PermissionError", "out_of_range": "IndexError",
                     "limit_exceeded": "MemoryError", "runtime": "RuntimeError",
                     "not_found": "FileNotFoundError", "unavailable": "ConnectionRefusedError",
                     "deadline_exceeded": "TimeoutError", "cancelled": "CancelledError"}


# --------------------------------------------------------------- manifests --

def model_source(directory, **overrides):
    """What ModelSource::to_json sends for a model directory (absolute paths)."""
    manifest_path = os.path.join(directory, "model.json")
    with open(manifest_path, encoding="utf-8") as file:
        manifest = json.load(file)
    artifacts = manifest["artifacts"]

    def path_of(key):
        return os.path.join(directory, artifacts[key]) if key in artifacts else ""

    python = None
    if "python" in artifacts:
        spec = artifacts["python"]
        python = {"factory": spec.get("factory", ""),
                  "module_path": os.path.normpath(os.path.join(directory,
                                                               spec.get("module_path", "."))),
                  "state_dict": os.path.join(directory, spec["state_dict"])
                  if spec.get("state_dict") else "",
                  "saved_module": os.path.join(directory, spec["saved_module"])
                  if spec.get("saved_module") else "",
                  "kwargs": spec.get("kwargs", {})}

    def value_infos(entries):
        return [dict({key: value for key, value in entry.items() if key != "shape"},
                     dims=entry["shape"]) for entry in entries]

    source = {"name": manifest["name"], "directory": directory, "manifest_path": manifest_path,
              "onnx_path": path_of("onnx"), "torchscript_path": path_of("torchscript"),
              "python": python, "inputs": value_infos(manifest["inputs"]),
              "outputs": value_infos(manifest["outputs"]),
              "reference_inputs": {}, "reference_outputs": {}}
    source.update(overrides)
    return source


def options(**overrides):
    base = {"threads": 1, "inter_op_threads": 0, "parallel_execution": False, "opt_level": 3,
            "precision": "fp32", "device": "cpu", "input_shapes": {}, "extra_outputs": [],
            "node_timing": False, "settings": {}}
    base.update(overrides)
    return base


# ------------------------------------------------------------- fake parent --

class FakeParent:
    """The parent side of the protocol: one worker, one input arena."""

    def __init__(self, worker_path, env=None):
        parent_end, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock = parent_end
        self.sock.settimeout(REPLY_TIMEOUT_S)
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [sys.executable, worker_path, "--channel-fd", str(child_end.fileno())],
            pass_fds=[child_end.fileno()], stdout=self.stderr, stderr=self.stderr, env=env)
        child_end.close()
        self.arena_fd, self.arena, self.generation = None, None, 0
        self.peer_arena = None

    def receive(self):
        data, fds, _, _ = socket.recv_fds(self.sock, (1 << 20) + 1, 1)
        if not data:
            return None, None
        return json.loads(data), (fds[0] if fds else None)

    def request(self, message, fd=None):
        data = json.dumps(message).encode()
        if fd is None:
            self.sock.send(data)
        else:
            socket.send_fds(self.sock, [data], [fd])
        reply, reply_fd = self.receive()
        if reply is not None and "arena" in reply:
            assert reply_fd is not None, "reply has 'arena' but no descriptor"
            if self.peer_arena is not None:
                self.peer_arena.close()
            self.peer_arena = mmap.mmap(reply_fd, reply["arena"]["bytes"], prot=mmap.PROT_READ)
            os.close(reply_fd)
        return reply

    def tensor_list(self, tensors):
        """Writes {name: ndarray} into the input arena; (tensor list, arena header, fd)."""
        arrays = [(name, np.ascontiguousarray(array)) for name, array in tensors.items()]
        total = sum((array.nbytes + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT for _, array in arrays)
        header = fd = None
        if self.arena is None or len(self.arena) < max(total, 1):
            if self.arena is not None:
                self.arena.close()
                os.close(self.arena_fd)
            self.generation += 1
            size = max(total, 4096)
            self.arena_fd = os.memfd_create("selfcheck-inputs", os.MFD_CLOEXEC)
            os.ftruncate(self.arena_fd, size)
            self.arena = mmap.mmap(self.arena_fd, size)
            header, fd = {"generation": self.generation, "bytes": size}, self.arena_fd
        described, offset = [], 0
        for name, array in arrays:
            self.arena[offset:offset + array.nbytes] = array.tobytes()
            described.append({"name": name, "dtype": str(array.dtype), "shape": list(array.shape),
                              "offset": offset, "bytes": array.nbytes})
            offset += (array.nbytes + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
        return described, header, fd

    def with_inputs(self, message, tensors):
        described, header, fd = self.tensor_list(tensors)
        message = dict(message, inputs=described)
        if header is not None:
            message["arena"] = header
        return self.request(message, fd)

    def outputs(self, reply):
        result = {}
        for entry in reply["outputs"]:
            array = np.frombuffer(self.peer_arena, dtype=entry["dtype"], offset=entry["offset"],
                                  count=int(np.prod(entry["shape"], dtype=np.int64)))
            result[entry["name"]] = array.reshape(entry["shape"]).copy()
        return result

    def stderr_text(self):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def wait(self):
        try:
            return self.process.wait(timeout=REPLY_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()

    def shutdown(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.sock.close()
        if self.arena is not None:
            self.arena.close()
            os.close(self.arena_fd)
        if self.peer_arena is not None:
            self.peer_arena.close()


# ------------------------------------------------------------------ checks --

class Checks:
    def __init__(self):
        self.failures = 0

    def expect(self, condition, what, detail=""):
        print(f"{'ok  ' if condition else 'FAIL'} {what}{'' if condition else ': ' + str(detail)}",
              flush=True)
        if not condition:
            self.failures += 1
        return condition

    def expect_error(self, reply, code, fragment, what):
        ok = (reply is not None and reply.get("type") == "error" and reply.get("code") == code
              and fragment in reply.get("message", ""))
        return self.expect(ok, what, reply)


def relative_error(actual, reference):
    reference = np.asarray(reference, dtype=np.float64)
    scale = max(1.0, float(np.max(np.abs(reference))) if reference.size else 0.0)
    return float(np.max(np.abs(np.asarray(actual, dtype=np.float64) - reference))) / scale


def direct_torch(directory, factory, inputs, **kwargs):
    """The fixture run in this process: what the worker's answer must equal."""
    module_name, function_name = factory.split(":")
    sys.path.insert(0, directory)
    try:
        module = importlib.import_module(module_name)
    finally:
        sys.path.remove(directory)
    model = getattr(module, function_name)(**kwargs).eval()
    with torch.inference_mode():
        result = model(*[torch.from_numpy(array) for array in inputs])
    results = result if isinstance(result, (tuple, list)) else [result]
    return [tensor.numpy().copy() for tensor in results]


def check_hello(checks, parent):
    hello, _ = parent.receive()
    checks.expect(hello is not None and hello["type"] == "hello", "worker says hello", hello)
    checks.expect(hello["backend"] == "python" and hello["version"] == f"torch {torch.__version__}",
                  "hello names backend python and the torch version", hello.get("version"))
    checks.expect(hello["pid"] == parent.process.pid and "cpu" in hello["devices"],
                  "hello carries the worker pid and devices", hello)
    configuration = hello["configuration"]
    checks.expect(set(configuration["environment"]) == {"OPENBLAS_CORETYPE",
                                                        "ATEN_CPU_CAPABILITY", "OMP_NUM_THREADS",
                                                        "LD_LIBRARY_PATH"},
                  "hello records the torch environment variables", configuration["environment"])
    checks.expect(isinstance(configuration["blas_libraries"], list)
                  and configuration["blas_libraries"] and configuration["cpu_capability"],
                  "hello records the mapped BLAS library and CPU capability", configuration)
    checks.expect(hello["import_ms"] > 0, "hello reports import_ms", hello["import_ms"])
    return hello


def check_tiny_mlp(checks, parent):
    directory = os.path.join(DATA, "tiny_mlp")
    opened = parent.request({"type": "open", "model": model_source(directory),
                             "options": options(threads=1)})
    checks.expect(opened["type"] == "opened", "open tiny_mlp (eager factory)", opened)
    checks.expect(opened["inputs"] == [{"name": "input", "dtype": "float32", "dims": ["batch", 8]}]
                  and opened["outputs"][0]["dims"] == ["batch", 4],
                  "opened lists the manifest's inputs and outputs", opened)
    configuration = opened["configuration"]
    checks.expect(configuration["mode"] == "eager" and configuration["threads"] == 1
                  and configuration["worker_pid"] == parent.process.pid
                  and opened["capabilities"]["out_of_process"], "opened configuration", opened)
    checks.expect(opened["load_ms"] > 0, "opened reports load_ms", opened)

    x = np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32)
    expected = direct_torch(directory, "tiny_mlp_model:build", [x])[0]
    reply = parent.with_inputs({"type": "run"}, {"input": x})
    checks.expect(reply["type"] == "outputs" and all(
        reply[key] > 0 for key in ("convert_in_ns", "execute_ns", "convert_out_ns")),
        "run replies outputs with timings", reply)
    got = parent.outputs(reply)["output"]
    checks.expect(got.shape == (3, 4) and relative_error(got, expected) <= 1e-6,
                  "run matches PyTorch called directly", relative_error(got, expected))

    bound = parent.with_inputs({"type": "bind"}, {"input": x * 2})
    executed = parent.request({"type": "execute"})
    fetched = parent.request({"type": "fetch"})
    expected2 = direct_torch(directory, "tiny_mlp_model:build", [x * 2])[0]
    checks.expect(bound["type"] == "bound" and executed["type"] == "executed"
                  and fetched["type"] == "outputs"
                  and relative_error(parent.outputs(fetched)["output"], expected2) <= 1e-6,
                  "staged bind/execute/fetch matches", (bound, executed, fetched))
    again = parent.request({"type": "execute"})
    checks.expect(again["type"] == "executed", "execute repeats on the bound inputs", again)

    big = np.random.default_rng(1).standard_normal((5000, 8)).astype(np.float32)
    reply = parent.with_inputs({"type": "run"}, {"input": big})
    expected_big = direct_torch(directory, "tiny_mlp_model:build", [big])[0]
    checks.expect(reply.get("arena", {}).get("generation") == 2 and parent.generation == 2
                  and relative_error(parent.outputs(reply)["output"], expected_big) <= 1e-6,
                  "both arenas grow (new generation, fd attached) and results stay right", reply)
    return x, expected


def check_errors_keep_worker_alive(checks, parent, x, expected):
    run = {"type": "run"}
    checks.expect_error(parent.with_inputs(run, {"inputs": x}), "invalid_argument",
                        "no input 'inputs'", "unknown input name is invalid_argument")
    checks.expect_error(parent.with_inputs(run, {"input": x.astype(np.float64)}),
                        "invalid_argument", "input 'input' is float64", "wrong dtype")
    checks.expect_error(parent.with_inputs(run, {"input": x[:, :5]}), "invalid_argument",
                        "dim 1 must be 8", "wrong static dim")
    checks.expect_error(parent.with_inputs(run, {"input": x.reshape(3, 8, 1)}),
                        "invalid_argument", "rank 3", "wrong rank")
    checks.expect_error(parent.with_inputs(run, {}), "invalid_argument",
                        "needs input 'input'", "missing input")
    checks.expect_error(parent.request({"type": "launch"}), "invalid_argument",
                        "unknown request type 'launch'", "unknown request type")
    parent.sock.send(b"{not json")
    checks.expect_error(parent.receive()[0], "invalid_argument", "not JSON", "malformed JSON")
    reply = parent.with_inputs(run, {"input": x})
    checks.expect(reply["type"] == "outputs"
                  and relative_error(parent.outputs(reply)["output"], expected) <= 1e-6,
                  "the worker still runs after those errors", reply)


def check_open_errors(checks, parent):
    tiny = model_source(os.path.join(DATA, "tiny_mlp"))
    cases = [
        (options(settings={"mod": "eager"}), "invalid_argument", "unknown setting 'mod'"),
        (options(settings={"mode": "jit"}), "invalid_argument", "mode='jit'"),
        (options(settings={"mode": "compile"}), "unsupported", "torch.compile"),
        (options(settings={"mode": "torchscript"}), "unsupported", "artifacts.torchscript"),
        (options(precision="fp16"), "unsupported", "precision 'fp16'"),
        (options(device="cuda:3"), "unsupported", "device 'cuda:3'"),
        (options(extra_outputs=["hidden"]), "unsupported", "extra_outputs"),
        (options(node_timing=True), "unsupported", "node_timing"),
        (options(input_shapes={"x": [1, 8]}), "invalid_argument", "input_shapes names 'x'"),
    ]
    for option_set, code, fragment in cases:
        reply = parent.request({"type": "open", "model": tiny, "options": option_set})
        checks.expect_error(reply, code, fragment, f"open refuses: {fragment}")
    if not hasattr(torch, "compile"):
        reply = parent.request({"type": "open", "model": tiny,
                                "options": options(settings={"mode": "compile"})})
        checks.expect(torch.__version__ in reply.get("message", ""),
                      "compile refusal names the installed version", reply)
    broken = dict(tiny, python=dict(tiny["python"], factory="no_such_module:build"))
    checks.expect_error(parent.request({"type": "open", "model": broken, "options": options()}),
                        "invalid_model", "no_such_module", "a factory module that is missing")
    reply = parent.request({"type": "execute"})
    checks.expect_error(reply, "invalid_argument", "before a model was opened",
                        "a failed open leaves no model behind")


def check_two_heads(checks, parent):
    directory = os.path.join(DATA, "two_heads")
    opened = parent.request({"type": "open", "model": model_source(directory),
                             "options": options(threads=2, input_shapes={"features": [2, 8]})})
    checks.expect(opened["type"] == "opened" and opened["inputs"][0]["dims"] == [2, 8]
                  and opened["inputs"][1]["dims"] == [2, 4] and opened["outputs"][0]["dims"]
                  == [2, 3], "input_shapes fixes a symbol for every input and output", opened)
    features = np.random.default_rng(2).standard_normal((2, 8)).astype(np.float32)
    ids = np.array([[0, 1, 2, 3], [9, 8, 7, 6]], dtype=np.int64)
    expected = direct_torch(directory, "two_heads_model:build", [features, ids])
    reply = parent.with_inputs({"type": "run"}, {"token_ids": ids, "features": features})
    got = parent.outputs(reply)
    checks.expect([entry["name"] for entry in reply["outputs"]] == ["scores", "embedding_sum"]
                  and relative_error(got["scores"], expected[0]) <= 1e-6
                  and relative_error(got["embedding_sum"], expected[1]) <= 1e-6,
                  "two inputs (any order) and a tuple of two outputs, named by the manifest",
                  reply)
    checks.expect_error(parent.with_inputs({"type": "run"}, {"features": features,
                                                             "token_ids": ids[:1]}),
                        "invalid_argument", "dim 0 must be 2", "a fixed symbol is checked")
    reply = parent.with_inputs({"type": "run"}, {"features": features, "token_ids": ids + 50})
    checks.expect(reply.get("type") == "error" and reply.get("code") == "out_of_range"
                  and "IndexError" in reply.get("message", ""),
                  "an exception inside forward() is an error reply", reply)
    reply = parent.with_inputs({"type": "run"}, {"features": features, "token_ids": ids})
    checks.expect(reply["type"] == "outputs", "the worker runs again after forward() raised",
                  reply)
    parent.request({"type": "open", "model": model_source(directory),
                    "options": options(threads=2)})
    checks.expect_error(parent.with_inputs({"type": "run"}, {"features": features,
                                                             "token_ids": ids[:1]}),
                        "invalid_argument", "batch=1", "a symbol takes one size across inputs")


def make_variant_dir(root):
    """tiny_mlp with its own weights (state_dict), a saved module and a TorchScript file."""
    directory = os.path.join(root, "tiny_variants")
    os.makedirs(directory)
    shutil.copy(os.path.join(DATA, "tiny_mlp", "tiny_mlp_model.py"), directory)
    sys.path.insert(0, directory)
    try:
        module = importlib.import_module("tiny_mlp_model")
    finally:
        sys.path.remove(directory)
    model = module.build().eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.mul_(-3.0).add_(0.25)
    torch.save(model.state_dict(), os.path.join(directory, "weights.pt"))
    torch.save(model, os.path.join(directory, "whole.pt"))
    torch.jit.trace(model, torch.zeros(1, 8)).save(os.path.join(directory, "model.torchscript.pt"))
    manifest = {"format": "inferlab-model", "version": 1, "name": "tiny_variants",
                "artifacts": {"torchscript": "model.torchscript.pt",
                              "python": {"factory": "tiny_mlp_model:build", "module_path": ".",
                                         "state_dict": "weights.pt", "kwargs": {}}},
                "inputs": [{"name": "input", "dtype": "float32", "shape": ["batch", 8]}],
                "outputs": [{"name": "output", "dtype": "float32", "shape": ["batch", 4]}]}
    with open(os.path.join(directory, "model.json"), "w", encoding="utf-8") as file:
        json.dump(manifest, file)
    return directory, model


def check_variants(checks, parent, root):
    directory, model = make_variant_dir(root)
    x = np.random.default_rng(3).standard_normal((4, 8)).astype(np.float32)
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    source = model_source(directory)
    saved = dict(source, python=dict(source["python"], factory="", state_dict="",
                                     saved_module=os.path.join(directory, "whole.pt")))
    bare = dict(source, python=None, inputs=[], outputs=[])
    variants = [("eager factory + state_dict", source, {}),
                ("saved module", saved, {}),
                ("torchscript (frozen, optimized)", source, {"mode": "torchscript"}),
                ("torchscript opt_level 0", source, {"mode": "torchscript"}),
                ("bare TorchScript file (no manifest)", bare, {})]
    for index, (what, model_json, settings) in enumerate(variants):
        opt_level = 0 if "opt_level 0" in what else 3
        opened = parent.request({"type": "open", "model": model_json,
                                 "options": options(settings=settings, opt_level=opt_level)})
        if not checks.expect(opened["type"] == "opened", f"open {what}", opened):
            continue
        if "torchscript" in what:
            checks.expect(opened["configuration"]["frozen"] is (opt_level > 0),
                          f"{what}: frozen as opt_level says", opened["configuration"])
        reply = parent.with_inputs({"type": "run"}, {"input": x})
        got = parent.outputs(reply) if reply["type"] == "outputs" else {}
        error = relative_error(got["output"], expected) if "output" in got else None
        checks.expect(error is not None and error <= FP32_TOLERANCE,
                      f"{what} matches PyTorch at FP32", (error, reply))
    garbage = os.path.join(directory, "garbage.pt")
    with open(garbage, "wb") as file:
        file.write(b"not a TorchScript archive")
    reply = parent.request({"type": "open", "model": dict(bare, torchscript_path=garbage),
                            "options": options()})
    checks.expect_error(reply, "invalid_model", "cannot load TorchScript file",
                        "a corrupt TorchScript file is invalid_model")


def check_error_codes(checks, parent):
    """Every error code, raised in forward() as WorkerError and as the Python exception
    the worker maps to it, is an error reply with that code; the worker lives on."""
    opened = parent.request({"type": "open", "options": options(),
                             "model": model_source(os.path.join(DATA, "raises_in_forward"))})
    checks.expect(opened["type"] == "opened", "open raises_in_forward", opened)
    run = {"type": "run"}
    for index, code in enumerate(ERROR_CODES):
        reply = parent.with_inputs(run, {"input": np.array([[index, 0]], np.float32)})
        checks.expect_error(reply, code, f"fixture raised {code}",
                            f"WorkerError('{code}') in forward() is a '{code}' reply")
        if code in EXCEPTION_OF_CODE:
            reply = parent.with_inputs(run, {"input": np.array([[index, 1]], np.float32)})
            checks.expect_error(reply, code, EXCEPTION_OF_CODE[code],
                                f"{EXCEPTION_OF_CODE[code]} in forward() is a '{code}' reply")
    reply = parent.with_inputs(run, {"input": np.array([[-1, 3]], np.float32)})
    checks.expect(reply["type"] == "outputs"
                  and parent.outputs(reply)["output"].tolist() == [[-2.0, 6.0]],
                  "the worker still runs after every error code", reply)


def check_channel_overhead(checks, parent, iterations=300):
    """Round trip minus the worker's own figures, median over `iterations` runs."""
    parent.request({"type": "open", "model": model_source(os.path.join(DATA, "tiny_mlp")),
                    "options": options(threads=1)})
    x = np.ones((1, 8), dtype=np.float32)
    parent.with_inputs({"type": "bind"}, {"input": x})
    run_overhead, execute_overhead, run_total = [], [], []
    described, _, _ = parent.tensor_list({"input": x})
    run_message = {"type": "run", "inputs": described}
    for _ in range(iterations):
        start = time.perf_counter_ns()
        reply = parent.request(run_message)
        elapsed = time.perf_counter_ns() - start
        run_total.append(elapsed)
        run_overhead.append(elapsed - reply["convert_in_ns"] - reply["execute_ns"]
                            - reply["convert_out_ns"])
        start = time.perf_counter_ns()
        reply = parent.request({"type": "execute"})
        execute_overhead.append(time.perf_counter_ns() - start - reply["execute_ns"])
    figures = {"run_round_trip_us": statistics.median(run_total) / 1000,
               "run_channel_us": statistics.median(run_overhead) / 1000,
               "execute_channel_us": statistics.median(execute_overhead) / 1000}
    print("channel overhead (median of %d, tiny_mlp 1x8): %s" % (
        iterations, ", ".join(f"{key} {value:.1f}" for key, value in figures.items())))
    checks.expect(all(value > 0 for value in figures.values()), "channel overhead measured",
                  figures)


def check_crash(checks, worker_path):
    parent = FakeParent(worker_path)
    try:
        parent.receive()
        opened = parent.request({"type": "open", "options": options(),
                                 "model": model_source(os.path.join(DATA, "crashes_in_forward"))})
        checks.expect(opened["type"] == "opened", "open crashes_in_forward", opened)
        reply = parent.with_inputs({"type": "run"}, {"input": np.ones((1, 4), np.float32)})
        status = parent.wait()
        checks.expect(reply is None and status == 3, "a worker dying mid-run: channel EOF, "
                      "exit status 3", (reply, status))
        checks.expect("deliberate crash inside forward()" in parent.stderr_text(),
                      "its stderr says why", parent.stderr_text()[-500:])
    finally:
        parent.shutdown()


def check_import_failure(checks, worker_path, root):
    fake = os.path.join(root, "fake_torch")
    os.makedirs(fake)
    with open(os.path.join(fake, "torch.py"), "w", encoding="utf-8") as file:
        file.write("raise ImportError('libtorch_cpu.so: cannot open shared object file')\n")
    env = dict(os.environ, PYTHONPATH=fake)
    parent = FakeParent(worker_path, env=env)
    try:
        message, _ = parent.receive()
        status = parent.wait()
        checks.expect(message is not None and message["type"] == "error"
                      and message["code"] == "unavailable"
                      and "libtorch_cpu.so" in message["message"] and status == 1,
                      "torch failing to import: an 'unavailable' error instead of hello, exit 1",
                      (message, status))
    finally:
        parent.shutdown()


def check_eof_and_close(checks, worker_path):
    parent = FakeParent(worker_path)
    parent.receive()
    parent.sock.shutdown(socket.SHUT_RDWR)
    checks.expect(parent.wait() == 0, "channel EOF: the worker exits 0")
    parent.shutdown()

    parent = FakeParent(worker_path)
    try:
        parent.receive()
        reply = parent.request({"type": "close"})
        checks.expect(reply == {"type": "closed"} and parent.wait() == 0,
                      "close: 'closed', then exit 0", reply)
    finally:
        parent.shutdown()


def main():
    worker_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "python",
                                                                      "inferlab_worker")
    checks = Checks()
    root = tempfile.mkdtemp(prefix="inferlab-worker-selfcheck-")
    parent = FakeParent(worker_path)
    try:
        check_hello(checks, parent)
        x, expected = check_tiny_mlp(checks, parent)
        check_errors_keep_worker_alive(checks, parent, x, expected)
        check_open_errors(checks, parent)
        check_two_heads(checks, parent)
        check_variants(checks, parent, root)
        check_error_codes(checks, parent)
        check_channel_overhead(checks, parent)
        checks.expect(parent.request({"type": "close"}) == {"type": "closed"}
                      and parent.wait() == 0, "close after all that")
    except Exception as error:  # a protocol break: report it with the worker's stderr
        checks.expect(False, "protocol conversation", f"{type(error).__name__}: {error}\n"
                      f"worker stderr:\n{parent.stderr_text()[-4000:]}")
    finally:
        parent.shutdown()
    check_crash(checks, worker_path)
    check_import_failure(checks, worker_path, root)
    check_eof_and_close(checks, worker_path)
    shutil.rmtree(root, ignore_errors=True)
    print(f"{checks.failures} failure(s)")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
