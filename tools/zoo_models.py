"""InferLab's zoo models as PyTorch modules: the constructors the export uses
(random weights from fixed seeds, rescaled to unit-std activations) and the
factories a model directory names (`zoo_models:resnet50`, ...).

tools/export_models.py imports this file, and copies it into every zoo model
directory (CACHE/models/zoo/<arch>/zoo_models.py), where the `python` backend
imports it to rebuild the architecture and then loads `weights.pt` into it.
It needs only torch and torchvision; keep it self-contained.

    build_image_model(arch, bn)  the exported image model (seeded, calibrated)
    build_encoder()              the exported BERT-base-like encoder (seeded)
    resnet50(), mobilenet_v2(), efficientnet_b0(), encoder()
                                 the bare eval-mode architectures, parameters
                                 left uninitialized (a state_dict follows)
"""

import contextlib

import numpy as np

IMAGE_ARCHS = ("resnet50", "mobilenet_v2", "efficientnet_b0")
IMAGE_SHAPE = (3, 224, 224)
ENCODER = dict(vocab=30522, layers=12, d_model=768, heads=12, ffn=3072, seq=128)
CALIBRATION_SEED = 42


def calibration_batch():
    """Random images, independent of the test inputs, that set the scales."""
    import torch
    rng = np.random.default_rng(CALIBRATION_SEED)
    return torch.from_numpy(rng.random((2,) + IMAGE_SHAPE, dtype=np.float32))


def scale_weights_to_unit_activations(model, calibration):
    """Divides each Conv/Linear's weights by the std of its output (LSUV-like,
    in one pass: each hook also rescales the output the next layer sees).
    torchvision's default init shrinks mobilenet_v2's and efficientnet_b0's
    logits to ~1e-10, which would make an accuracy test meaningless."""
    import torch

    def rescale(module, inputs, output):
        std = output.std()
        module.weight.div_(std)
        if module.bias is not None:
            module.bias.div_(std)
        return output / std

    layers = [m for m in model.modules() if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))]
    handles = [layer.register_forward_hook(rescale) for layer in layers]
    with torch.no_grad():
        model(calibration)
    for handle in handles:
        handle.remove()


def randomize_batch_norm(model, calibration, generator):
    """Gives every BatchNormalization random affine parameters and running
    statistics near those of its actual input (mean shifted, variance scaled
    by 0.6-1.4), so BN is far from identity yet the signal survives depth."""
    import torch

    def randomize(module, inputs):
        x = inputs[0]
        channels = module.num_features
        mean = x.mean(dim=(0, 2, 3))
        var = x.var(dim=(0, 2, 3)) + 1e-3

        def noise():
            return torch.rand(channels, generator=generator)

        module.running_mean.copy_(mean + 0.2 * var.sqrt() * (noise() - 0.5))
        module.running_var.copy_(var * (0.6 + 0.8 * noise()))
        module.weight.copy_(0.5 + noise())
        module.bias.copy_(0.6 * (noise() - 0.5))

    norms = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    handles = [norm.register_forward_pre_hook(randomize) for norm in norms]
    with torch.no_grad():
        model(calibration)
    for handle in handles:
        handle.remove()


def build_image_model(arch, bn):
    import torch
    import torchvision
    torch.manual_seed(0)
    model = getattr(torchvision.models, arch)(weights=None).eval()
    calibration = calibration_batch()
    scale_weights_to_unit_activations(model, calibration)
    if bn:
        randomize_batch_norm(model, calibration, torch.Generator().manual_seed(1))
    return model


def _encoder_class():
    import torch

    class Encoder(torch.nn.Module):
        """Token + learned positional embedding, then a post-norm encoder."""

        def __init__(self):
            super().__init__()
            d_model = ENCODER["d_model"]
            self.token_embedding = torch.nn.Embedding(ENCODER["vocab"], d_model)
            positions = torch.randn(1, ENCODER["seq"], d_model) * 0.02
            self.position_embedding = torch.nn.Parameter(positions)
            layer = torch.nn.TransformerEncoderLayer(d_model, ENCODER["heads"], ENCODER["ffn"],
                                                     activation="gelu", batch_first=True)
            self.encoder = torch.nn.TransformerEncoder(layer, ENCODER["layers"],
                                                       enable_nested_tensor=False)

        def forward(self, input_ids):
            return self.encoder(self.token_embedding(input_ids) + self.position_embedding)

    return Encoder


def build_encoder():
    import torch
    torch.manual_seed(0)
    model = _encoder_class()()
    # TransformerEncoder deep-copies one layer: without this every layer holds
    # the same weights and the exporter stores them once.
    with torch.no_grad():
        for layer in model.encoder.layers:
            for name, param in layer.named_parameters():
                if param.dim() > 1:
                    torch.nn.init.xavier_uniform_(param)
                elif "norm" in name and name.endswith("weight"):
                    param.uniform_(0.8, 1.2)
                else:
                    param.uniform_(-0.05, 0.05)
    return model.eval()


# ---------------------------------------------------------------- factories


@contextlib.contextmanager
def _parameters_left_uninitialized():
    """Makes torch.nn.init's in-place initializers no-ops for the duration:
    the factories' parameters are overwritten by load_state_dict anyway, and
    initializing 86 M encoder parameters would cost about a second."""
    import torch
    init = torch.nn.init
    names = [name for name in dir(init) if name.endswith("_") and not name.startswith("_")]
    saved = {name: getattr(init, name) for name in names}
    try:
        for name in names:
            setattr(init, name, lambda tensor, *args, **kwargs: tensor)
        yield
    finally:
        for name, function in saved.items():
            setattr(init, name, function)


def _bare_image_model(arch):
    import torchvision
    with _parameters_left_uninitialized():
        return getattr(torchvision.models, arch)(weights=None).eval()


def resnet50():
    return _bare_image_model("resnet50")


def mobilenet_v2():
    return _bare_image_model("mobilenet_v2")


def efficientnet_b0():
    return _bare_image_model("efficientnet_b0")


def encoder():
    with _parameters_left_uninitialized():
        return _encoder_class()().eval()
