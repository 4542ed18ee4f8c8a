#!/usr/bin/python3
# (Debian's interpreter on purpose: python3-torch/-onnx live in its
# dist-packages.)
"""A small GPT-style decoder in PyTorch, exported to ONNX with seeded inputs.

  gpt_decoder.py [OUT_DIR] [--seed 0] [--opset 17] [--calib 8] [--test 2]
                 [--layers 2] [--d-model 64] [--heads 4] [--context 16] [--vocab 64]
                 [--name gpt_decoder] [--no-exporter-folding] [--style plain|gpt2]

Two pre-LayerNorm decoder blocks (causal multi-head self-attention, a GELU
MLP of 4 x d_model), a final LayerNorm and the vocabulary head, over one
sequence of `context` tokens. The input is one-hot: row t holds the token
at position t (vocab columns) and the position itself (context columns),
so the token and position embeddings are one matrix on the chip's
crossbars. The attention is written as GPT-2's is: q, k, v viewed as
[T, heads, d] from x.shape, transposed to [heads, T, d], q @ k^T scaled by
1/sqrt(d), the causal mask added (a -1e4 upper triangle sliced to T from a
buffer), softmax, @ v, transposed back and viewed as [T, C]. The output is
the logits [T, vocab].

--style gpt2 writes the block as GPT-2's own code does instead: one Linear
layer of 3 x d_model for q, k and v, split (`c_attn(x).split(C, dim=1)`),
the mask as masked_fill of the entries above the diagonal with -inf from a
lower-triangular buffer of ones (`bias[:t, :t] == 0`), and the MLP's GELU
in its tanh form written out (0.5·x·(1 + tanh(sqrt(2/pi)·(x + 0.044715·x^3))),
with torch.pow), as GPT-2 and BERT compute it.

--no-exporter-folding exports with do_constant_folding=False: the views'
shapes stay Unsqueezes of the sizes and a Concat, the mask a Slice of the
whole buffer per axis, the head's weight a Transpose, as PyTorch writes them
unfolded; vp-cc folds them at import.

Writes, in export_models.py's layout (check_model.py reads it):
  OUT_DIR/gpt_decoder.onnx, OUT_DIR/gpt_decoder/calib_*.npy (token sequences
  drawn from the seed), OUT_DIR/gpt_decoder/test_*.npy, OUT_DIR/manifest.json
Same seed, same torch => byte-identical files.
"""

import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models  # noqa: E402  (atomic writes, the manifest's fields)



def build(args):
    import torch
    from torch import nn

    class NewGELU(nn.Module):
        """GELU's tanh form as GPT-2 writes it."""

        def forward(self, x):
            return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))

    class GPT2Attention(nn.Module):
        """One projection for q, k and v, split; the mask by masked_fill."""

        def __init__(self):
            super().__init__()
            c = args.d_model
            self.heads = args.heads
            self.c_attn = nn.Linear(c, 3 * c)
            self.c_proj = nn.Linear(c, c)
            self.register_buffer("bias", torch.tril(torch.ones(args.context, args.context)))

        def forward(self, x):
            t, c = x.shape
            h, d = self.heads, c // self.heads
            q, k, v = self.c_attn(x).split(c, dim=1)
            q = q.view(t, h, d).transpose(0, 1)
            k = k.view(t, h, d).transpose(0, 1)
            v = v.view(t, h, d).transpose(0, 1)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d))
            att = att.masked_fill(self.bias[:t, :t] == 0, float("-inf"))
            att = torch.softmax(att, dim=-1)
            y = (att @ v).transpose(0, 1).contiguous().view(t, c)
            return self.c_proj(y)

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            c = args.d_model
            self.heads = args.heads
            self.q = nn.Linear(c, c)
            self.k = nn.Linear(c, c)
            self.v = nn.Linear(c, c)
            self.proj = nn.Linear(c, c)
            mask = torch.triu(torch.full((args.context, args.context), -1e4), diagonal=1)
            self.register_buffer("mask", mask)

        def forward(self, x):
            t, c = x.shape
            h, d = self.heads, c // self.heads
            q = self.q(x).view(t, h, d).transpose(0, 1)
            k = self.k(x).view(t, h, d).transpose(0, 1)
            v = self.v(x).view(t, h, d).transpose(0, 1)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d))
            att = att + self.mask[:t, :t]
            att = torch.softmax(att, dim=-1)
            y = (att @ v).transpose(0, 1).reshape(t, c)
            return self.proj(y)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            c = args.d_model
            self.ln1 = nn.LayerNorm(c)
            gpt2 = args.style == "gpt2"
            self.attn = GPT2Attention() if gpt2 else CausalSelfAttention()
            self.ln2 = nn.LayerNorm(c)
            self.mlp = nn.Sequential(nn.Linear(c, 4 * c), NewGELU() if gpt2 else nn.GELU(), nn.Linear(4 * c, c))

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            c = args.d_model
            # Token rows, then position rows: one embedding matrix for the
            # one-hot pair the input holds.
            self.embed = nn.Parameter(torch.cat([torch.randn(args.vocab, c), 0.5 * torch.randn(args.context, c)]))
            self.blocks = nn.Sequential(*[Block() for _ in range(args.layers)])
            self.ln_f = nn.LayerNorm(c)
            self.head = nn.Linear(c, args.vocab, bias=False)

        def forward(self, x):
            return self.head(self.ln_f(self.blocks(x @ self.embed)))

    torch.manual_seed(args.seed)
    model = Decoder()
    with torch.no_grad():  # LayerNorms with their own gains and shifts, as after training
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    return model.eval()


def sequence(args, stream, index):
    """One-hot [T, vocab + T] of a token sequence drawn from (seed, stream, index)."""
    rng = np.random.default_rng([args.seed, stream, index])
    tokens = rng.integers(0, args.vocab, size=args.context)
    x = np.zeros((args.context, args.vocab + args.context), dtype=np.float32)
    x[np.arange(args.context), tokens] = 1
    x[np.arange(args.context), args.vocab + np.arange(args.context)] = 1
    return x


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out_dir", nargs="?", default="build/models")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--opset", type=int, default=17)
    p.add_argument("--calib", type=int, default=8)
    p.add_argument("--test", type=int, default=2)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--context", type=int, default=16)
    p.add_argument("--vocab", type=int, default=64)
    p.add_argument("--name", default="gpt_decoder")
    p.add_argument("--no-exporter-folding", action="store_true")
    p.add_argument("--style", choices=["plain", "gpt2"], default="plain",
                   help="gpt2: one q/k/v projection split, masked_fill(-inf), GELU's tanh form")
    args = p.parse_args()
    NAME = args.name
    if args.d_model % args.heads:
        sys.exit("gpt_decoder.py: --d-model must be a multiple of --heads")

    import onnx
    import torch
    t0 = time.monotonic()
    model = build(args)
    os.makedirs(args.out_dir, exist_ok=True)
    final = os.path.join(args.out_dir, NAME + ".onnx")
    tmp = export_models.atomic_path(final)
    dummy = torch.from_numpy(sequence(args, 2, 0))
    try:
        with torch.no_grad():
            torch.onnx.export(model, dummy, tmp, opset_version=args.opset, input_names=["input"],
                              output_names=["logits"], do_constant_folding=not args.no_exporter_folding,
                              dynamic_axes=None)
        m = onnx.load(tmp)
        onnx.checker.check_model(m, full_check=True)
        os.replace(tmp, final)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    in_dir = os.path.join(args.out_dir, NAME)
    os.makedirs(in_dir, exist_ok=True)
    for i in range(args.calib):
        export_models.save_npy(os.path.join(in_dir, f"calib_{i:03d}.npy"), sequence(args, 1, i))
    for i in range(args.test):
        export_models.save_npy(os.path.join(in_dir, f"test_{i:03d}.npy"), sequence(args, 2, i))
    ops = sorted({n.op_type for n in m.graph.node})
    shape = [args.context, args.vocab + args.context]
    entry = {
        "onnx": NAME + ".onnx",
        "sha256": export_models.sha256(final),
        "input": {"name": "input", "shape": shape, "dtype": "float32"},
        "output": {"name": "logits", "shape": [args.context, args.vocab], "dtype": "float32"},
        "calib": [f"{NAME}/calib_{i:03d}.npy" for i in range(args.calib)],
        "test": [f"{NAME}/test_{i:03d}.npy" for i in range(args.test)],
        "seed": args.seed, "opset": args.opset, "ops": ops, "nodes": len(m.graph.node),
        "exporter_folding": not args.no_exporter_folding, "style": args.style,
        "decoder": {"layers": args.layers, "d_model": args.d_model, "heads": args.heads,
                    "context": args.context, "vocab": args.vocab},
    }
    manifest_path = os.path.join(args.out_dir, "manifest.json")
    manifest = {}
    if os.path.exists(manifest_path):  # keep entries of models not re-exported
        with open(manifest_path) as f:
            manifest = json.load(f)
    manifest.setdefault("models", {})[NAME] = entry
    export_models.save_text(manifest_path, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    print(f"gpt_decoder.py: {NAME}: {len(m.graph.node)} nodes {ops}, {time.monotonic() - t0:.1f} s")


if __name__ == "__main__":
    main()
