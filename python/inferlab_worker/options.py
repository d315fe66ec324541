"""What `open` and `bind` accept: BackendOptions, and the model's declared inputs
and outputs with their symbolic dims fixed by input_shapes or by the bound shapes."""

from .errors import WorkerError

KNOWN_SETTINGS = ("mode",)


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
    if options.get("plan_cache_dir"):
        raise WorkerError("unsupported", "has no plan cache (asked for "
                                         f"{options['plan_cache_dir']})")
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
