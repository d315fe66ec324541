#!/usr/bin/python3
"""InferLab's Python worker: hosts PyTorch for the `python` backend.

Started by InferLab (src/inferlab/backends/worker/) as

    /usr/bin/python3 inferlab_worker.py --channel-fd N

with N one end of a SOCK_SEQPACKET socketpair, and speaks
docs/worker-protocol.md on it: JSON requests and replies, one datagram each,
tensor bytes in memfd arenas (the parent's holds inputs, this worker's holds
outputs). The parent sets the environment (threads, BLAS, ISA) before the
start; the worker only reports what it sees. Uses the standard library, numpy
and torch only.

The one idea: requests are handled one at a time, and any exception a request
raises becomes an `error` reply — the worker only exits on `close`, on the
channel closing, or when the model itself kills the process.
"""

import argparse
import importlib
import json
import mmap
import os
import socket
import sys
import time
import traceback

MAX_MESSAGE_BYTES = 1 << 20
ALIGNMENT = 64
MIN_ARENA_BYTES = 1 << 16
MAX_ERROR_TEXT = 16 << 10
ENVIRONMENT_RECORD = ("OPENBLAS_CORETYPE", "ATEN_CPU_CAPABILITY", "OMP_NUM_THREADS",
                      "LD_LIBRARY_PATH")
KNOWN_SETTINGS = ("mode",)
MODES = ("eager", "torchscript", "compile")
CAPABILITIES = {"concurrent_run": False, "extra_outputs": False, "node_timing": False,
                "out_of_process": True}


class WorkerError(Exception):
    """A failure with one of InferLab's ErrorCode names (docs/worker-protocol.md)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def align_up(value, alignment):
    return (value + alignment - 1) // alignment * alignment


# ----------------------------------------------------------------- channel --

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


def error_message(code, text):
    if len(text) > MAX_ERROR_TEXT:
        text = text[:MAX_ERROR_TEXT] + " [...]"
    return {"type": "error", "code": code, "message": text}


# ----------------------------------------------------------------- tensors --

class DtypeTable:
    """Protocol dtype names <-> numpy storage types <-> torch dtypes."""

    def __init__(self, np, torch):
        # bfloat16 travels as int16 bits: numpy has no bfloat16.
        self.entries = {
            "float32": (np.float32, torch.float32), "float64": (np.float64, torch.float64),
            "float16": (np.float16, torch.float16), "bfloat16": (np.int16, torch.bfloat16),
            "int8": (np.int8, torch.int8), "int16": (np.int16, torch.int16),
            "int32": (np.int32, torch.int32), "int64": (np.int64, torch.int64),
            "uint8": (np.uint8, torch.uint8), "bool": (np.bool_, torch.bool),
        }
        self.names_by_torch = {torch_dtype: name for name, (_, torch_dtype) in self.entries.items()}
        self.torch = torch

    def numpy_type(self, name, what):
        if name not in self.entries:
            raise WorkerError("unsupported", f"{what}: dtype '{name}' has no PyTorch equivalent")
        return self.entries[name][0]

    def name_of(self, tensor, what):
        name = self.names_by_torch.get(tensor.dtype)
        if name is None:
            raise WorkerError("unsupported", f"{what}: PyTorch dtype {tensor.dtype} has no "
                                             "InferLab equivalent")
        return name

    def from_storage(self, array, name):
        """Torch view of a numpy array holding `name` elements."""
        tensor = self.torch.from_numpy(array)
        return tensor.view(self.torch.bfloat16) if name == "bfloat16" else tensor

    def to_storage(self, tensor):
        """Numpy view of a contiguous CPU tensor."""
        if tensor.dtype == self.torch.bfloat16:
            tensor = tensor.view(self.torch.int16)
        return tensor.numpy()


class PeerArena:
    """The parent's arena, mapped read-only; replaced when a message attaches a new one."""

    def __init__(self):
        self.mapping = None
        self.generation = None

    def replace(self, fd, header):
        try:
            if not isinstance(header, dict) or not isinstance(header.get("bytes"), int):
                raise WorkerError("invalid_argument", "'arena' needs integer 'bytes'")
            size = header["bytes"]
            mapping = mmap.mmap(fd, size, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ) \
                if size > 0 else None
        finally:
            os.close(fd)
        self.close()
        self.mapping = mapping
        self.generation = header.get("generation")

    def close(self):
        if self.mapping is not None:
            try:
                self.mapping.close()
            except BufferError:
                pass  # a view is still alive; the mapping goes with it
        self.mapping = None

    def view(self, np, storage_type, shape, offset, nbytes, what):
        count = 1
        for dim in shape:
            count *= dim
        if count * np.dtype(storage_type).itemsize != nbytes:
            raise WorkerError("invalid_argument", f"{what}: {nbytes} bytes do not hold shape "
                                                  f"{list(shape)}")
        if nbytes == 0:
            return np.empty(shape, dtype=storage_type)
        size = len(self.mapping) if self.mapping is not None else 0
        if offset % ALIGNMENT or offset < 0 or offset + nbytes > size:
            raise WorkerError("out_of_range", f"{what}: bytes [{offset}, {offset + nbytes}) are "
                                              f"not an aligned range of the {size}-byte arena")
        return np.frombuffer(self.mapping, dtype=storage_type, count=count,
                             offset=offset).reshape(shape)


class OwnArena:
    """This worker's output arena: a memfd that grows by replacement (new generation)."""

    def __init__(self):
        self.fd = None
        self.mapping = None
        self.generation = 0
        self.announced = False  # the parent has this generation (a reply carried its fd)

    def reserve(self, nbytes):
        """Makes room for `nbytes`; returns the header + fd to attach until announced."""
        if self.mapping is not None and len(self.mapping) >= nbytes:
            if self.announced:
                return None, None
            return {"generation": self.generation, "bytes": len(self.mapping)}, self.fd
        size = max(MIN_ARENA_BYTES, align_up(nbytes + nbytes // 2, 4096))
        fd = os.memfd_create("inferlab-python-worker-outputs", os.MFD_CLOEXEC)
        os.ftruncate(fd, size)
        mapping = mmap.mmap(fd, size, flags=mmap.MAP_SHARED,
                            prot=mmap.PROT_READ | mmap.PROT_WRITE)
        self.close()
        self.fd, self.mapping = fd, mapping
        self.generation += 1
        self.announced = False
        return {"generation": self.generation, "bytes": size}, fd

    def close(self):
        if self.mapping is not None:
            self.mapping.close()
        if self.fd is not None:
            os.close(self.fd)
        self.fd = self.mapping = None


# ------------------------------------------------------------ environment --

def mapped_blas_libraries():
    """Paths of the BLAS/LAPACK libraries actually mapped into this process."""
    paths = set()
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            path = line.split()[-1] if line.count(" ") >= 5 else ""
            base = os.path.basename(path)
            if path.startswith("/") and ("blas" in base or "lapack" in base):
                paths.add(path)
    return sorted(paths)


def openblas_details(paths):
    """OpenBLAS's own account of itself (core, build, threading), when it is loaded."""
    import ctypes
    for path in paths:
        try:
            library = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
            corename, config = library.openblas_get_corename, library.openblas_get_config
        except (OSError, AttributeError):
            continue
        corename.restype = config.restype = ctypes.c_char_p
        parallel = {0: "sequential", 1: "pthreads", 2: "openmp"}
        return {"library": path, "corename": corename().decode(), "config": config().decode(),
                "num_threads": library.openblas_get_num_threads(),
                "parallel": parallel.get(library.openblas_get_parallel(), "unknown")}
    return None


def build_summary(torch):
    """The lines of torch.__config__.show() that say how PyTorch computes."""
    summary, capability = {}, None
    for line in torch.__config__.show().splitlines():
        line = line.strip(" -\t")
        if line.startswith("CPU capability usage:"):
            capability = line.split(":", 1)[1].strip()
        elif line.startswith("Build settings:"):
            for item in line.split(":", 1)[1].split(", "):
                key, _, value = item.partition("=")
                if key.strip() in ("BLAS_INFO", "LAPACK_INFO", "USE_MKLDNN", "USE_OPENMP",
                                   "USE_CUDA", "TORCH_VERSION", "BUILD_TYPE"):
                    summary[key.strip()] = value.strip()
        elif line and not line.startswith("PyTorch built with"):
            summary.setdefault("components", []).append(line)
    cpu = getattr(getattr(torch.backends, "cpu", None), "get_cpu_capability", None)
    return summary, (cpu() if cpu else capability)


def environment_record(torch, np, import_ms):
    build, capability = build_summary(torch)
    blas_libraries = mapped_blas_libraries()
    return {
        "torch_version": torch.__version__,
        "numpy_version": np.__version__,
        "python_version": sys.version.split()[0],
        "python_executable": sys.executable,
        "build": build,
        "cpu_capability": capability,
        "parallel_info": [line.strip() for line in torch.__config__.parallel_info().splitlines()
                          if line.strip()],
        "default_threads": torch.get_num_threads(),
        "default_interop_threads": torch.get_num_interop_threads(),
        "mkldnn": bool(torch.backends.mkldnn.is_available()),
        "compile_available": hasattr(torch, "compile"),
        "environment": {name: os.environ.get(name) for name in ENVIRONMENT_RECORD},
        "blas_libraries": blas_libraries,
        "openblas": openblas_details(blas_libraries),
        "import_ms": import_ms,
    }


def torch_devices(torch):
    devices = ["cpu"]
    if torch.cuda.is_available():
        devices += [f"cuda:{index}" for index in range(torch.cuda.device_count())]
    return devices


# ------------------------------------------------------------------ models --

def absolute(path, directory):
    return path if os.path.isabs(path) or not directory else os.path.join(directory, path)


def require_file(path, what):
    if not os.path.isfile(path):
        raise WorkerError("io", f"{what} '{path}' does not exist")
    return path


def last_line(error):
    lines = "".join(traceback.format_exception_only(type(error), error)).strip().splitlines()
    return lines[-1] if lines else type(error).__name__


def import_factory(factory, module_path):
    module_name, _, function_name = factory.partition(":")
    if not module_name or not function_name:
        raise WorkerError("invalid_model", f"python factory '{factory}' is not 'module:function'")
    if module_path not in sys.path:
        sys.path.insert(0, module_path)
    try:
        function = importlib.import_module(module_name)
    except Exception as error:  # the module's own import errors are the model's fault
        raise WorkerError("invalid_model", f"cannot import factory module '{module_name}' from "
                                           f"{module_path}: {last_line(error)}") from None
    for part in function_name.split("."):
        if not hasattr(function, part):
            raise WorkerError("invalid_model", f"factory module '{module_name}' has no "
                                               f"'{function_name}'")
        function = getattr(function, part)
    return function


def load_python_model(torch, spec, directory):
    """PyTorch eager module from a factory (+ state_dict) or a torch.save'd module."""
    module_path = absolute(spec.get("module_path") or ".", directory)
    factory, saved_module = spec.get("factory") or "", spec.get("saved_module") or ""
    if factory:
        function = import_factory(factory, module_path)
        try:
            model = function(**(spec.get("kwargs") or {}))
        except Exception as error:
            raise WorkerError("invalid_model", f"factory '{factory}' failed: "
                                               f"{last_line(error)}") from None
        if spec.get("state_dict"):
            path = require_file(absolute(spec["state_dict"], directory), "state_dict")
            try:
                model.load_state_dict(torch.load(path, map_location="cpu"))
            except Exception as error:
                raise WorkerError("invalid_model", f"state_dict '{path}' does not fit factory "
                                                   f"'{factory}': {last_line(error)}") from None
    elif saved_module:
        if module_path not in sys.path:
            sys.path.insert(0, module_path)
        path = require_file(absolute(saved_module, directory), "saved_module")
        try:
            model = torch.load(path, map_location="cpu")
        except Exception as error:
            raise WorkerError("invalid_model", f"cannot load saved_module '{path}': "
                                               f"{last_line(error)}") from None
    else:
        raise WorkerError("invalid_model", "artifacts.python needs 'factory' or 'saved_module'")
    if not callable(model):
        raise WorkerError("invalid_model", f"python artifact gave a {type(model).__name__}, "
                                           "not a callable module")
    if hasattr(model, "eval"):
        model.eval()
    return model


def load_torchscript_model(torch, path, opt_level, details):
    """torch.jit.load + eval, frozen (opt_level >= 1) and optimized (>= 2) where that applies."""
    require_file(path, "TorchScript file")
    try:
        model = torch.jit.load(path, map_location="cpu")
    except Exception as error:
        raise WorkerError("invalid_model", f"cannot load TorchScript file '{path}': "
                                           f"{last_line(error)}") from None
    model.eval()
    details["frozen"] = details["optimized_for_inference"] = False
    if opt_level >= 1:
        try:
            model = torch.jit.freeze(model)
            details["frozen"] = True
        except Exception as error:
            details["frozen"] = f"not applicable: {last_line(error)}"
    if opt_level >= 2:
        try:
            model = torch.jit.optimize_for_inference(model)
            details["optimized_for_inference"] = True
        except Exception as error:
            details["optimized_for_inference"] = f"not applicable: {last_line(error)}"
    return model


def choose_mode(torch, source, settings):
    has_python, has_script = bool(source.get("python")), bool(source.get("torchscript_path"))
    mode = settings.get("mode") or ("eager" if has_python else "torchscript")
    name = source.get("name") or "model"
    if mode not in MODES:
        raise WorkerError("invalid_argument", f"setting mode='{mode}' is not one of "
                                              f"{', '.join(MODES)}")
    if mode == "compile" and not hasattr(torch, "compile"):
        raise WorkerError("unsupported", f"mode=compile needs torch.compile (PyTorch 2.0 or "
                                         f"later); the installed PyTorch is {torch.__version__}")
    if mode in ("eager", "compile") and not has_python:
        raise WorkerError("unsupported", f"model '{name}' has no Python form for mode={mode} "
                                         "(manifest key artifacts.python)")
    if mode == "torchscript" and not has_script:
        raise WorkerError("unsupported", f"model '{name}' has no TorchScript file for "
                                         "mode=torchscript (manifest key artifacts.torchscript)")
    return mode


def schema_inputs(module):
    """Input descriptions of a bare TorchScript file (no manifest): names from forward()."""
    try:
        arguments = module.forward.schema.arguments[1:]
    except AttributeError:
        return []
    return [{"name": argument.name, "dtype": "undefined", "dims": None} for argument in arguments]


# ----------------------------------------------------------------- options --

def parse_options(options, devices):
    """BackendOptions JSON -> what this worker applies; refuses what it cannot honour."""
    if not isinstance(options, dict):
        raise WorkerError("invalid_argument", "'options' is not an object")
    settings = options.get("settings") or {}
    for key in settings:
        if key not in KNOWN_SETTINGS:
            raise WorkerError("invalid_argument", f"unknown setting '{key}' (known: "
                                                  f"{', '.join(KNOWN_SETTINGS)})")
    precision = options.get("precision") or "fp32"
    if precision != "fp32":
        raise WorkerError("unsupported", f"precision '{precision}' is not supported (fp32 only)")
    device = options.get("device") or "cpu"
    if device == "cuda":
        device = "cuda:0"
    if device not in devices:
        raise WorkerError("unsupported", f"device '{device}' is not available (devices: "
                                         f"{', '.join(devices)})")
    if options.get("extra_outputs"):
        raise WorkerError("unsupported", "extra_outputs are not supported (PyTorch modules do "
                                         "not expose intermediate values by name)")
    if options.get("node_timing"):
        raise WorkerError("unsupported", "node_timing is not supported")
    if options.get("parallel_execution"):
        raise WorkerError("unsupported", "parallel_execution is not supported (PyTorch runs "
                                         "one operator at a time)")
    return settings, device


def fixed_dims(specs, input_shapes, model_name):
    """Manifest ValueInfos with symbolic dims fixed by options.input_shapes."""
    by_name = {spec["name"]: spec for spec in specs}
    for name in input_shapes:
        if name not in by_name:
            raise WorkerError("invalid_argument", f"input_shapes names '{name}', not an input of "
                                                  f"model '{model_name}'")
    symbols = {}  # a symbol fixed through one input is fixed everywhere
    for spec in specs:
        for declared, size in zip(spec.get("dims") or [], input_shapes.get(spec["name"]) or []):
            if isinstance(declared, str) and declared:
                symbols.setdefault(declared, size)
    result = []
    for spec in specs:
        dims, shape = spec.get("dims"), input_shapes.get(spec["name"])
        if dims is not None:
            dims = [symbols.get(dim, dim) if isinstance(dim, str) else dim for dim in dims]
        if shape is not None:
            if dims is not None and len(dims) != len(shape):
                raise WorkerError("invalid_argument", f"input_shapes['{spec['name']}'] has rank "
                                                      f"{len(shape)}, the model's is {len(dims)}")
            for declared, size in zip(dims or [], shape):
                if isinstance(declared, int) and declared != size:
                    raise WorkerError("invalid_argument", f"input_shapes['{spec['name']}'] = "
                                                          f"{shape} conflicts with dims {dims}")
            dims = list(shape)
        result.append(dict(spec, dims=dims))
    return result, symbols


def with_symbols(specs, symbols):
    return [dict(spec, dims=[symbols.get(dim, dim) if isinstance(dim, str) else dim
                             for dim in spec["dims"]]) if spec.get("dims") else spec
            for spec in specs]


def value_infos(specs):
    return [{"name": spec["name"], "dtype": spec["dtype"], "dims": spec.get("dims")}
            for spec in specs]


class OpenModel:
    """One model ready to run: the callable, its inputs/outputs and how it was made."""

    def __init__(self, name, module, inputs, outputs, device, configuration):
        self.name, self.module, self.device = name, module, device
        self.inputs, self.outputs, self.configuration = inputs, outputs, configuration


# ------------------------------------------------------------------ worker --

class Worker:
    """Handles one request at a time; state: the open model, bound inputs, last results."""

    def __init__(self, channel, np, torch):
        self.channel, self.np, self.torch = channel, np, torch
        self.dtypes = DtypeTable(np, torch)
        self.devices = torch_devices(torch)
        self.peer_arena, self.own_arena = PeerArena(), OwnArena()
        self.model = None
        self.owned_inputs = {}  # name -> numpy array reused while dtype and shape stay
        self.inter_op_fixed = False
        self.bound = None
        self.results = None
        self.handlers = {"open": self.open, "bind": self.bind, "execute": self.execute,
                         "fetch": self.fetch, "run": self.run, "close": self.close}

    def serve(self):
        while True:
            try:
                message, fd = self.channel.receive()
            except WorkerError as error:
                self.send(error_message(error.code, str(error)))
                continue
            except (ConnectionError, OSError):
                return 0
            if message is None:
                return 0
            reply, reply_fd = self.handle(message, fd)
            if not self.send(reply, reply_fd):
                return 0
            if message["type"] == "close":
                return 0

    def send(self, reply, fd=None):
        try:
            self.channel.send(reply, fd)
            if "arena" in reply:
                self.own_arena.announced = True
        except WorkerError as error:
            self.channel.send(error_message(error.code, str(error)))
        except (ConnectionError, OSError):
            return False
        return True

    def handle(self, message, fd):
        try:
            if "arena" in message:
                if fd is None:
                    raise WorkerError("invalid_argument", "'arena' given without a descriptor")
                fd, arena_fd = None, fd
                self.peer_arena.replace(arena_fd, message["arena"])
            handler = self.handlers.get(message["type"])
            if handler is None:
                raise WorkerError("invalid_argument", f"unknown request type '{message['type']}'")
            return handler(message)
        except WorkerError as error:
            return error_message(error.code, str(error)), None
        except Exception as error:  # the model's or PyTorch's: report it, stay alive
            traceback.print_exc(file=sys.stderr)
            return error_message(error_code_of(error), f"{type(error).__name__}: "
                                                        f"{last_line(error)}"), None
        finally:
            if fd is not None:
                os.close(fd)

    # -- open --------------------------------------------------------------
    def open(self, request):
        torch, source = self.torch, request.get("model")
        if not isinstance(source, dict):
            raise WorkerError("invalid_argument", "'open' needs a 'model' object")
        settings, device = parse_options(request.get("options") or {}, self.devices)
        options = request.get("options") or {}
        name = source.get("name") or "model"
        mode = choose_mode(torch, source, settings)
        input_shapes = options.get("input_shapes") or {}
        if source.get("inputs"):  # checked before loading: a typo fails fast
            fixed_dims(source["inputs"], input_shapes, name)
        self.model = self.bound = self.results = None
        self.owned_inputs = {}
        threads = self.apply_threads(options)

        start = time.perf_counter()
        details = {"mode": mode, "device": device, "inference_mode": True}
        directory = source.get("directory") or ""
        if mode == "torchscript":
            details["artifact"] = source["torchscript_path"]
            module = load_torchscript_model(torch, source["torchscript_path"],
                                            int(options.get("opt_level", 3)), details)
        else:
            spec = source["python"]
            details["artifact"] = spec.get("factory") or spec.get("saved_module")
            module = load_python_model(torch, spec, directory)
            if mode == "compile":
                module = torch.compile(module)
        if device != "cpu":
            module = module.to(device)
        load_ms = (time.perf_counter() - start) * 1000.0

        input_specs = source.get("inputs") or (schema_inputs(module) if mode == "torchscript"
                                               else [])
        inputs, symbols = fixed_dims(input_specs, input_shapes, name)
        outputs = with_symbols(source.get("outputs") or [], symbols)
        details.update(threads)
        details["worker_pid"] = os.getpid()
        details["torch_version"] = torch.__version__
        self.model = OpenModel(name, module, inputs, outputs, device, details)
        return {"type": "opened", "inputs": value_infos(inputs), "outputs": value_infos(outputs),
                "capabilities": CAPABILITIES, "configuration": details, "load_ms": load_ms}, None

    def apply_threads(self, options):
        torch = self.torch
        threads = int(options.get("threads") or 0)
        inter_op = int(options.get("inter_op_threads") or 0)
        if threads < 0 or inter_op < 0:
            raise WorkerError("invalid_argument", f"threads={threads}, inter_op_threads="
                                                  f"{inter_op}: must be 0 (all cores) or more")
        torch.set_num_threads(threads or len(os.sched_getaffinity(0)))
        # PyTorch fixes the inter-op pool at the first call (a second call aborts the
        # process), so later opens must ask for the size it already has.
        wanted = inter_op or 1
        if not self.inter_op_fixed:
            torch.set_num_interop_threads(wanted)
            self.inter_op_fixed = True
        elif wanted != torch.get_num_interop_threads():
            raise WorkerError("unsupported", f"inter_op_threads={wanted}: this worker's "
                                             "inter-op pool is fixed at "
                                             f"{torch.get_num_interop_threads()}")
        return {"threads": torch.get_num_threads(),
                "inter_op_threads": torch.get_num_interop_threads()}

    # -- bind / execute / fetch ------------------------------------------------
    def require_model(self, request_type):
        if self.model is None:
            raise WorkerError("invalid_argument", f"'{request_type}' before a model was opened")
        return self.model

    def bind(self, request):
        start = time.perf_counter_ns()
        self.bind_inputs(request.get("inputs"))
        return {"type": "bound", "convert_in_ns": time.perf_counter_ns() - start}, None

    def bind_inputs(self, tensors):
        model = self.require_model("bind")
        if not isinstance(tensors, list):
            raise WorkerError("invalid_argument", "'inputs' is not a tensor list")
        self.bound = self.results = None
        by_name = {}
        for entry in tensors:
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                raise WorkerError("invalid_argument", "an input tensor has no 'name'")
            if entry["name"] in by_name:
                raise WorkerError("invalid_argument", f"input '{entry['name']}' given twice")
            by_name[entry["name"]] = entry
        expected = [spec["name"] for spec in model.inputs]
        for name in by_name:
            if name not in expected:
                raise WorkerError("invalid_argument", f"model '{model.name}' has no input "
                                                      f"'{name}' (inputs: {', '.join(expected)})")
        missing = [name for name in expected if name not in by_name]
        if missing:
            raise WorkerError("invalid_argument", f"model '{model.name}' needs input "
                                                  f"'{missing[0]}', which was not given")
        symbols = {}
        self.bound = [self.convert_input(spec, by_name[spec["name"]], symbols)
                      for spec in model.inputs]

    def convert_input(self, spec, entry, symbols):
        name, dtype, shape = spec["name"], entry.get("dtype"), entry.get("shape")
        what = f"input '{name}'"
        if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
            raise WorkerError("invalid_argument", f"{what}: 'shape' is not a list of sizes")
        if spec["dtype"] != "undefined" and dtype != spec["dtype"]:
            raise WorkerError("invalid_argument", f"{what} is {dtype}, the model expects "
                                                  f"{spec['dtype']}")
        check_shape(what, shape, spec.get("dims"), symbols)
        storage_type = self.dtypes.numpy_type(dtype, what)
        view = self.peer_arena.view(self.np, storage_type, shape, entry.get("offset", -1),
                                    entry.get("bytes", -1), what)
        owned = self.owned_inputs.get(name)
        if owned is None or owned.dtype != storage_type or owned.shape != tuple(shape):
            owned = self.np.empty(shape, dtype=storage_type)
            self.owned_inputs[name] = owned
        self.np.copyto(owned, view)
        del view  # no export may outlive the call: the arena can be replaced next time
        tensor = self.dtypes.from_storage(owned, dtype)
        return tensor if self.model.device == "cpu" else tensor.to(self.model.device)

    def execute(self, request):
        return {"type": "executed", "execute_ns": self.execute_bound()}, None

    def execute_bound(self):
        model = self.require_model("execute")
        if self.bound is None:
            raise WorkerError("invalid_argument", "'execute' before inputs were bound")
        torch = self.torch
        self.results = None
        with torch.inference_mode():
            start = time.perf_counter_ns()
            results = model.module(*self.bound)
            if model.device != "cpu":
                torch.cuda.synchronize()
            execute_ns = time.perf_counter_ns() - start
        self.results = results
        return execute_ns

    def fetch(self, request):
        start = time.perf_counter_ns()
        reply, fd = self.write_outputs()
        reply["convert_out_ns"] = time.perf_counter_ns() - start
        return reply, fd

    def write_outputs(self):
        model = self.require_model("fetch")
        if self.results is None:
            raise WorkerError("invalid_argument", "'fetch' before a successful 'execute'")
        arrays = []
        for name, tensor in self.named_results(model):
            what = f"output '{name}' of model '{model.name}'"
            dtype = self.dtypes.name_of(tensor, what)
            arrays.append((name, dtype, self.dtypes.to_storage(tensor.detach().cpu().contiguous())))
        total = sum(align_up(array.nbytes, ALIGNMENT) for _, _, array in arrays)
        header, fd = self.own_arena.reserve(total)
        described, offset = [], 0
        for name, dtype, array in arrays:
            if array.nbytes:
                target = self.np.frombuffer(self.own_arena.mapping, dtype=array.dtype,
                                            count=array.size, offset=offset)
                self.np.copyto(target.reshape(array.shape), array)
                del target
            described.append({"name": name, "dtype": dtype, "shape": list(array.shape),
                              "offset": offset, "bytes": array.nbytes})
            offset += align_up(array.nbytes, ALIGNMENT)
        reply = {"type": "outputs", "outputs": described}
        if header is not None:
            reply["arena"] = header
        return reply, fd

    def named_results(self, model):
        results, torch = self.results, self.torch
        names = [spec["name"] for spec in model.outputs]
        if isinstance(results, dict):
            missing = [name for name in names if name not in results]
            if missing or not names:
                raise WorkerError("invalid_model", f"model '{model.name}' returned a dict "
                                                   f"without output '{(missing or ['?'])[0]}'")
            results = [results[name] for name in names]
        elif isinstance(results, (tuple, list)):
            results = list(results)
        else:
            results = [results]
        if names and len(results) != len(names):
            raise WorkerError("invalid_model", f"model '{model.name}' returned {len(results)} "
                                               f"outputs; the manifest lists {len(names)} "
                                               f"({', '.join(names)})")
        if not names:
            names = ["output"] if len(results) == 1 else [f"output{i}" for i in range(len(results))]
        for name, result in zip(names, results):
            if not isinstance(result, torch.Tensor):
                raise WorkerError("invalid_model", f"output '{name}' of model '{model.name}' "
                                                   f"is a {type(result).__name__}, not a tensor")
        return list(zip(names, results))

    def run(self, request):
        start = time.perf_counter_ns()
        self.bind_inputs(request.get("inputs"))
        convert_in_ns = time.perf_counter_ns() - start
        execute_ns = self.execute_bound()
        start = time.perf_counter_ns()
        reply, fd = self.write_outputs()
        reply.update(convert_in_ns=convert_in_ns, execute_ns=execute_ns,
                     convert_out_ns=time.perf_counter_ns() - start)
        return reply, fd

    def close(self, request):
        self.model = self.bound = self.results = None
        self.peer_arena.close()
        return {"type": "closed"}, None


def check_shape(what, shape, dims, symbols):
    """Rank and static dims as declared; a symbol takes one size across all inputs."""
    if dims is None:
        return
    if len(shape) != len(dims):
        raise WorkerError("invalid_argument", f"{what} has shape {shape}, rank {len(shape)}; "
                                              f"the model expects rank {len(dims)} {dims}")
    for axis, (size, dim) in enumerate(zip(shape, dims)):
        if isinstance(dim, int) and dim >= 0 and size != dim:
            raise WorkerError("invalid_argument", f"{what} has shape {shape}; dim {axis} must "
                                                  f"be {dim} (model dims {dims})")
        if isinstance(dim, str) and dim:
            known = symbols.setdefault(dim, (size, what))
            if known[0] != size:
                raise WorkerError("invalid_argument", f"{what} has {dim}={size} (dim {axis}) "
                                                      f"but {known[1]} has {dim}={known[0]}")


def error_code_of(error):
    if isinstance(error, MemoryError):
        return "limit_exceeded"
    if isinstance(error, (IndexError, KeyError)):
        return "out_of_range"
    if isinstance(error, OSError):
        return "io"
    return "runtime"


# -------------------------------------------------------------------- main --

def main():
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
        channel.send(error_message("unsupported", f"cannot import PyTorch with "
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
