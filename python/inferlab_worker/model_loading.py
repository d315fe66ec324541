"""Turning a model source into a callable: the mode (eager, torchscript, compile),
an eager module from a factory (+ state_dict) or a torch.save'd module, and a
TorchScript file, frozen and optimized where that applies."""

import importlib
import os
import sys

from .errors import WorkerError, last_line

MODES = ("eager", "torchscript", "compile")


def absolute(path, directory):
    return path if os.path.isabs(path) or not directory else os.path.join(directory, path)


def require_file(path, what):
    if not os.path.isfile(path):
        raise WorkerError("not_found", f"{what} '{path}' does not exist")
    return path


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


class OpenModel:
    """One model ready to run: the callable, its inputs/outputs and how it was made."""

    def __init__(self, name, module, inputs, outputs, device, configuration):
        self.name, self.module, self.device = name, module, device
        self.inputs, self.outputs, self.configuration = inputs, outputs, configuration
