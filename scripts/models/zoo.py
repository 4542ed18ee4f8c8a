"""The reference models and their inputs, shared by export_models.py and
run_torch.py so that both build exactly the same network from the same seed.

Every model is created with weights=None (nothing can be downloaded here) and
initialised from torch.manual_seed(seed). A randomly initialised network has
trivial BatchNorm statistics (mean 0, var 1), which would make BN folding in
the compiler a no-op and let activations drift across fifty layers; so the
running statistics are re-estimated from a seeded batch of image-like inputs
(train-mode forward passes, cumulative average). The result behaves like a
trained network as far as ranges go: per-channel BN scales and shifts that are
not 1 and 0, activations of order one, which is what calibration and
quantization need to be exercised.
"""

import numpy as np
import torch
import torch.nn as nn

# ImageNet normalisation, as torchvision's pretrained models expect.
IMAGENET_MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
IMAGENET_STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)

# Seeds of the input streams, offsets from the model seed so that calibration,
# test and BN-statistics inputs are never the same images.
CALIB_STREAM = 1000
TEST_STREAM = 2000
BNSTAT_STREAM = 3000


class TinyCNN(nn.Module):
    """A few-layer CNN with the operators ResNet and MobileNet use (Conv with
    padding and stride, depthwise Conv, BN, ReLU, Clip, MaxPool, residual Add,
    Concat, GlobalAveragePool, Flatten, Gemm), small enough for fast tests."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=1, padding=1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU(inplace=True))
        self.pool = nn.MaxPool2d(2)
        self.dw = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1, groups=16, bias=False),
                                nn.BatchNorm2d(16), nn.ReLU6(inplace=True))
        self.pw = nn.Sequential(nn.Conv2d(16, 16, 1, bias=False), nn.BatchNorm2d(16))
        self.branch = nn.Sequential(nn.Conv2d(16, 8, 3, stride=2, padding=1),
                                    nn.ReLU(inplace=True))
        # count_include_pad=False: with the default, torch 1.13 exports an
        # explicit (all-zero) Pad before AveragePool, and Pad is not an
        # operator the compiler supports.
        self.side = nn.AvgPool2d(2, count_include_pad=False)
        self.head = nn.Sequential(nn.Conv2d(24, 32, 1), nn.ReLU(inplace=True))
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.pool(self.stem(x))
        x = torch.relu(x + self.pw(self.dw(x)))          # residual Add
        x = torch.cat([self.branch(x), self.side(x)], 1)  # Concat of two paths
        x = self.gap(self.head(x))
        return self.fc(torch.flatten(x, 1))


class MLP(nn.Module):
    """Two hidden layers on a flat input: Gemm, ReLU, LeakyReLU."""

    def __init__(self, d_in=64, d_hidden=128, num_classes=10):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(),
                                 nn.Linear(d_hidden, d_hidden), nn.LeakyReLU(0.1),
                                 nn.Linear(d_hidden, num_classes))

    def forward(self, x):
        return self.net(x)


class ActCNN(nn.Module):
    """A small CNN with the smooth activations of MobileNetV3 and
    EfficientNet: SiLU (exported as Sigmoid then Mul), Hardswish (HardSigmoid
    then Mul under opset 13), Hardsigmoid, Sigmoid and Tanh."""

    def __init__(self, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False),
                                  nn.BatchNorm2d(16), nn.SiLU())
        self.dw = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1, groups=16, bias=False),
                                nn.BatchNorm2d(16), nn.Hardswish())
        self.gate = nn.Sequential(nn.Conv2d(16, 8, 1), nn.Hardsigmoid())
        self.soft = nn.Sequential(nn.Conv2d(16, 8, 3, padding=1), nn.Sigmoid())
        self.tanh = nn.Sequential(nn.Conv2d(16, 8, 3, padding=1), nn.Tanh())
        self.head = nn.Sequential(nn.Conv2d(24, 32, 1), nn.SiLU())
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = self.dw(self.stem(x))
        x = torch.cat([self.gate(x), self.soft(x), self.tanh(x)], 1)
        x = self.gap(self.head(x))
        return self.fc(torch.flatten(x, 1))


def _torchvision(name):
    import torchvision.models as tvm
    return getattr(tvm, name)(weights=None)


# name -> (constructor, input shape, kind of input)
MODELS = {
    "resnet50": (lambda: _torchvision("resnet50"), (1, 3, 224, 224), "image"),
    "resnet18": (lambda: _torchvision("resnet18"), (1, 3, 224, 224), "image"),
    "mobilenet_v2": (lambda: _torchvision("mobilenet_v2"), (1, 3, 224, 224), "image"),
    "tiny_cnn": (TinyCNN, (1, 3, 32, 32), "image"),
    "mlp": (MLP, (1, 64), "vector"),
    "act_cnn": (ActCNN, (1, 3, 32, 32), "image"),
}


def _zoo_model(name, **kwargs):
    import torchvision.models as tvm
    return lambda: getattr(tvm, name)(weights=None, **kwargs)


def _vgg11_features():
    """VGG-11's eight convolutions and five poolings at 224x224, then a global
    average pooling: the part of VGG-11 one sidra-y1 holds (its classifier's
    123 M weights need a second chip), with its 3.2 MB maps."""
    import torchvision.models as tvm
    m = tvm.vgg11(weights=None)
    return torch.nn.Sequential(m.features, torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten())


def _vit(name=None, **kwargs):
    """torchvision's VisionTransformer (vit_b_16 by name, or a small one from
    its arguments) with the parameters that torchvision leaves at zero drawn
    from the seed: it starts the class token at 0, the position embedding at
    std 0.02 and the head's weights at 0, so an untrained ViT's logits are
    all its bias and its class token row holds almost nothing for the first
    LayerNorm to normalize. A trained ViT's class token and position
    embedding are of the patches' order; here they get std 0.5, the head
    std 0.1."""
    def build():
        import torchvision.models as tvm
        from torchvision.models.vision_transformer import VisionTransformer
        m = getattr(tvm, name)(weights=None) if name else VisionTransformer(**kwargs)
        with torch.no_grad():
            m.class_token.normal_(0.0, 0.5)
            m.encoder.pos_embedding.normal_(0.0, 0.5)
            m.heads.head.weight.normal_(0.0, 0.1)
        # In eval mode without gradients nn.MultiheadAttention takes its fused
        # fast path, which torch 1.13 cannot export; with gradients enabled it
        # computes the same attention from the ONNX operators.
        for block in m.encoder.layers:
            attention = block.self_attention
            def exportable(*args, _forward=attention.forward, **kw):
                with torch.enable_grad():
                    return _forward(*args, **kw)
            attention.forward = exportable
        return m
    return build


def _window_partition(x, ws):
    """[1, H, W, C] -> [H/ws x W/ws, ws x ws, C], as torchvision's Swin writes it."""
    b, h, w, c = x.shape
    x = x.view(b, h // ws, ws, w // ws, ws, c).permute(0, 1, 3, 2, 4, 5)
    return x.reshape(b * (h // ws) * (w // ws), ws * ws, c)


def _window_reverse(x, ws, h, w):
    c = x.shape[-1]
    x = x.view(1, h // ws, w // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5)
    return x.reshape(1, h, w, c)


class SwinLayoutBlock(torch.nn.Module):
    """A Swin block's layout around a per-window MLP in place of its
    attention: LayerNorm, the cyclic shift (torch.roll) in every second
    block, the window partition, two Linear layers and a GELU on the
    windows' pixels, the reverse partition and shift, the residual Add."""

    def __init__(self, dim, ws, shift):
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim)
        self.fc1 = torch.nn.Linear(dim, 2 * dim)
        self.fc2 = torch.nn.Linear(2 * dim, dim)
        self.ws, self.shift = ws, shift

    def forward(self, x):
        _, h, w, _ = x.shape
        y = self.norm(x)
        if self.shift:
            y = torch.roll(y, shifts=(-self.shift, -self.shift), dims=(1, 2))
        y = _window_partition(y, self.ws)
        y = self.fc2(torch.nn.functional.gelu(self.fc1(y)))
        y = _window_reverse(y, self.ws, h, w)
        if self.shift:
            y = torch.roll(y, shifts=(self.shift, self.shift), dims=(1, 2))
        return x + y


class SwinLayout(torch.nn.Module):
    """Swin-T's data movement without attention, for the tests of the pixel
    gathers (canonicalize_pixels.cpp): patches of 4 as channels-last tokens,
    blocks in windows of 4 (the second shifted by 2), a cyclic shift of the
    map that is not undone (so the pixels' order reaches the output), the
    patch merging (torchvision's PatchMerging: four strided Slices side by
    side in the channels), a block in windows of 2, LayerNorm and a
    classifier reading every pixel where it is (a wrong order costs more
    than under an average)."""

    def __init__(self, num_classes=10, dim=32):
        super().__init__()
        from torchvision.models.swin_transformer import PatchMerging
        self.embed = torch.nn.Conv2d(3, dim, kernel_size=4, stride=4)
        self.norm0 = torch.nn.LayerNorm(dim)
        self.blocks1 = torch.nn.Sequential(SwinLayoutBlock(dim, 4, 0), SwinLayoutBlock(dim, 4, 2))
        self.merge = PatchMerging(dim)
        self.block2 = SwinLayoutBlock(2 * dim, 2, 1)
        self.norm = torch.nn.LayerNorm(2 * dim)
        self.head = torch.nn.Linear(2 * dim * 16, num_classes)

    def forward(self, x):
        x = self.norm0(self.embed(x).permute(0, 2, 3, 1))
        x = self.blocks1(x)
        x = torch.roll(x, shifts=(1, -3), dims=(1, 2))
        x = self.block2(self.merge(x))
        x = self.norm(x).permute(0, 3, 1, 2)
        return self.head(torch.flatten(x, 1))


def _swin(name=None, **kwargs):
    """torchvision's SwinTransformer (swin_t by name, or a small one from its
    arguments) with its parameters redrawn from the seed at the scale of a
    trained network's: torchvision starts every Linear layer at std 0.02 and
    the relative position bias tables at std 0.02, which leaves an untrained
    Swin's attention uniform over each window (its bias and its shifted
    windows' mask then change next to nothing). Here each Linear layer's
    weights get std 1/sqrt(inputs) and biases std 0.1, the bias tables std 1,
    so the attention is peaked and the bias and the mask matter."""
    def build():
        import torchvision.models as tvm
        from torchvision.models.swin_transformer import SwinTransformer
        m = getattr(tvm, name)(weights=None) if name else SwinTransformer(**kwargs)
        with torch.no_grad():
            for mod in m.modules():
                if isinstance(mod, torch.nn.Linear):
                    mod.weight.normal_(0.0, mod.in_features ** -0.5)
                    if mod.bias is not None:
                        mod.bias.normal_(0.0, 0.1)
                if hasattr(mod, "relative_position_bias_table"):
                    mod.relative_position_bias_table.normal_(0.0, 1.0)
        return m
    return build


# torchvision's classification CNNs (export_zoo.py), each at the input size it
# is exported with. 224x224 is every model's native size except Inception-v3's
# (299); it takes 224 (it accepts anything from 75 up) so that all the zoo
# shares one image size. GoogLeNet and Inception-v3 without their auxiliary
# classifiers (eval mode never runs them) and with transform_input=False (the
# inputs are already ImageNet-normalised). export_zoo.py --size N exports at
# a smaller N where a model allows it.
ZOO = {
    "mobilenet_v3_small": (_zoo_model("mobilenet_v3_small"), (1, 3, 224, 224), "image"),
    "mobilenet_v3_large": (_zoo_model("mobilenet_v3_large"), (1, 3, 224, 224), "image"),
    "shufflenet_v2_x0_5": (_zoo_model("shufflenet_v2_x0_5"), (1, 3, 224, 224), "image"),
    "shufflenet_v2_x1_0": (_zoo_model("shufflenet_v2_x1_0"), (1, 3, 224, 224), "image"),
    "squeezenet1_0": (_zoo_model("squeezenet1_0"), (1, 3, 224, 224), "image"),
    "squeezenet1_1": (_zoo_model("squeezenet1_1"), (1, 3, 224, 224), "image"),
    "googlenet": (_zoo_model("googlenet", aux_logits=False, transform_input=False, init_weights=True),
                  (1, 3, 224, 224), "image"),
    "inception_v3": (_zoo_model("inception_v3", aux_logits=False, transform_input=False,
                                init_weights=True), (1, 3, 224, 224), "image"),
    "densenet121": (_zoo_model("densenet121"), (1, 3, 224, 224), "image"),
    "resnext50_32x4d": (_zoo_model("resnext50_32x4d"), (1, 3, 224, 224), "image"),
    "regnet_x_400mf": (_zoo_model("regnet_x_400mf"), (1, 3, 224, 224), "image"),
    "regnet_y_400mf": (_zoo_model("regnet_y_400mf"), (1, 3, 224, 224), "image"),
    "mnasnet0_5": (_zoo_model("mnasnet0_5"), (1, 3, 224, 224), "image"),
    "efficientnet_b0": (_zoo_model("efficientnet_b0"), (1, 3, 224, 224), "image"),
    "convnext_tiny": (_zoo_model("convnext_tiny"), (1, 3, 224, 224), "image"),
    "alexnet": (_zoo_model("alexnet"), (1, 3, 224, 224), "image"),
    "vgg11": (_zoo_model("vgg11"), (1, 3, 224, 224), "image"),
    "vgg16": (_zoo_model("vgg16"), (1, 3, 224, 224), "image"),
    "vgg19": (_zoo_model("vgg19"), (1, 3, 224, 224), "image"),
    "vgg11_features": (_vgg11_features, (1, 3, 224, 224), "image"),
    # Vision transformers (export them at --opset 17, where LayerNorm is one
    # operator): ViT-B/16, and one of its shape at 32x32 with patches of 8,
    # two layers of 4 heads of 16 and an MLP of 128, for the tests.
    "swin_layout": (SwinLayout, (1, 3, 32, 32), "image"),
    # Swin-T, and one of its shape at 32x32 with windows of 4: two stages of
    # two blocks (the second of each shifted), 2 and 4 heads of 16 channels.
    "swin_t": (_swin("swin_t"), (1, 3, 224, 224), "image"),
    "swin_tiny": (_swin(patch_size=[4, 4], embed_dim=32, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
                        num_classes=10), (1, 3, 32, 32), "image"),
    "vit_b_16": (_vit("vit_b_16"), (1, 3, 224, 224), "image"),
    "vit_tiny": (_vit(image_size=32, patch_size=8, num_layers=2, num_heads=4, hidden_dim=64, mlp_dim=128,
                      num_classes=10), (1, 3, 32, 32), "image"),
}


def spec(name):
    """(constructor, input shape, kind) of a reference or zoo model."""
    if name in MODELS:
        return MODELS[name]
    if name in ZOO:
        return ZOO[name]
    raise KeyError(f"unknown model '{name}' (known: {', '.join(list(MODELS) + list(ZOO))})")


def make_input(name, seed, stream, index, shape=None):
    """One seeded input for model `name` as float32 numpy, batch 1.

    Images: low-frequency colour noise (8x8-pixel blocks, bilinear-ish by a
    2x2 box blur) plus a little fine noise, in [0, 1], then ImageNet-
    normalised, so values span about [-2.1, 2.6] like real preprocessed
    images and neighbouring pixels correlate. Vectors: standard normal.
    Generated with numpy's PCG64 so they do not depend on the torch version.
    """
    _, default_shape, kind = spec(name)
    shape = tuple(shape or default_shape)
    rng = np.random.Generator(np.random.PCG64([seed, stream, index]))
    if kind == "vector":
        return rng.standard_normal(shape).astype(np.float32)
    n, c, h, w = shape
    block = 8 if h >= 64 else 4
    coarse = rng.random((n, c, h // block + 1, w // block + 1))
    img = np.repeat(np.repeat(coarse, block, axis=2), block, axis=3)
    img = (img[:, :, :-1, :-1] + img[:, :, 1:, :-1] + img[:, :, :-1, 1:] + img[:, :, 1:, 1:]) / 4
    img = img[:, :, :h, :w] + 0.05 * rng.standard_normal((n, c, h, w))
    img = np.clip(img, 0.0, 1.0).astype(np.float32)
    img = (img - IMAGENET_MEAN[None, :, None, None]) / IMAGENET_STD[None, :, None, None]
    return np.ascontiguousarray(img, dtype=np.float32)


def _randomize_bn_affine(model):
    # Fresh BNs have gamma 1 and beta 0, which makes folding trivial and lets
    # the exporter merge the identical initializers behind Identity nodes.
    # Seeded spread instead, drawn from the torch stream right after init.
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm) and m.affine:
                m.weight.uniform_(0.5, 1.5)
                m.bias.normal_(0.0, 0.1)


def _estimate_bn_stats(model, name, seed, batches, batch_size, shape):
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # cumulative average over all batches
    model.train()
    with torch.no_grad():
        for b in range(batches):
            x = np.concatenate([make_input(name, seed, BNSTAT_STREAM, b * batch_size + i, shape)
                                for i in range(batch_size)])
            model(torch.from_numpy(x))
    # Round the statistics to 16 significant bits so that float reduction
    # order (thread count, CPU) cannot change a single bit of the export.
    for m in bns:
        for t in (m.running_mean, m.running_var):
            t.copy_(torch.from_numpy(_round_mantissa(t.numpy(), 16)))
    model.eval()


def _round_mantissa(a, bits):
    m, e = np.frexp(a.astype(np.float64))
    return np.ldexp(np.round(m * (1 << bits)) / (1 << bits), e).astype(np.float32)


def build_model(name, seed=0, bn_batches=1, bn_batch_size=8, shape=None):
    """The model `name` in eval mode, deterministic for a given seed; `shape`
    is the input shape its BN statistics are estimated at (default its own)."""
    ctor = spec(name)[0]
    torch.manual_seed(seed)
    model = ctor()
    _randomize_bn_affine(model)
    _estimate_bn_stats(model, name, seed, bn_batches, bn_batch_size, shape)
    model.eval()
    return model
