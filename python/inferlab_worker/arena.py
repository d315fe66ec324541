"""Tensor bytes in memfd arenas: the parent's (inputs, read-only) and this worker's
(outputs), plus the dtype table that maps protocol names to numpy and torch types.

numpy and torch are passed in rather than imported: the worker imports them only
after the channel is up, so that a failing import can still be reported.
"""

import mmap
import os

from .errors import WorkerError

ALIGNMENT = 64
MIN_ARENA_BYTES = 1 << 16


def align_up(value, alignment):
    return (value + alignment - 1) // alignment * alignment


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
