"""The environment record of the `hello` reply: what PyTorch, BLAS and the
process environment look like from inside the worker. The parent sets the
environment before the start; this only reports what it sees."""

import os
import sys

ENVIRONMENT_RECORD = ("OPENBLAS_CORETYPE", "ATEN_CPU_CAPABILITY", "OMP_NUM_THREADS",
                      "LD_LIBRARY_PATH")


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
