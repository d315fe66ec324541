"""The request handlers: open, bind, execute, fetch, run and close, one request at
a time; whatever a request raises becomes an `error` reply."""

import os
import sys
import time
import traceback

from .arena import ALIGNMENT, DtypeTable, OwnArena, PeerArena, align_up
from .environment import torch_devices
from .errors import WorkerError, error_code_of, error_message, last_line
from .model_loading import (OpenModel, choose_mode, load_python_model, load_torchscript_model,
                            schema_inputs)
from .options import check_shape, fixed_dims, parse_options, value_infos, with_symbols

CAPABILITIES = {"concurrent_run": False, "extra_outputs": False, "node_timing": False,
                "out_of_process": True}


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
        self.forward_calls = 0  # model.module calls since the worker started
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
        calls_before = self.forward_calls
        execute_ns = self.execute_bound()
        return {"type": "executed", "execute_ns": execute_ns,
                "engine_runs": self.forward_calls - calls_before}, None

    def execute_bound(self):
        model = self.require_model("execute")
        if self.bound is None:
            raise WorkerError("invalid_argument", "'execute' before inputs were bound")
        torch = self.torch
        self.results = None
        with torch.inference_mode():
            start = time.perf_counter_ns()
            self.forward_calls += 1  # what each reply's engine_runs counts
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
        calls_before = self.forward_calls
        execute_ns = self.execute_bound()
        start = time.perf_counter_ns()
        reply, fd = self.write_outputs()
        reply.update(convert_in_ns=convert_in_ns, execute_ns=execute_ns,
                     engine_runs=self.forward_calls - calls_before,
                     convert_out_ns=time.perf_counter_ns() - start)
        return reply, fd

    def close(self, request):
        self.model = self.bound = self.results = None
        self.peer_arena.close()
        return {"type": "closed"}, None
