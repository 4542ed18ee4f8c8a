#!/usr/bin/python3
# (Debian's interpreter on purpose: python3-torch/-torchvision/-onnx live in
# its dist-packages.)
"""Export torchvision's classification CNNs to ONNX, with seeded calibration and test inputs.

  export_zoo.py [OUT_DIR] [--models googlenet,densenet121] [--size 96] [--seed 0]
                [--opset 13] [--calib 8] [--test 4] [--bn keep|fold]

The models of zoo.ZOO (mobilenet_v3_small/large, shufflenet_v2_x0_5/x1_0,
squeezenet1_0/1_1, googlenet, inception_v3, densenet121, resnext50_32x4d,
regnet_x_400mf, regnet_y_400mf, mnasnet0_5, efficientnet_b0, convnext_tiny,
alexnet, vgg11, vgg16, vgg19, vgg11_features), with random weights from the seed (nothing is downloaded)
and BN statistics estimated on seeded images, exactly as export_models.py
does for the reference models, and in the same layout:
  OUT_DIR/NAME.onnx, OUT_DIR/NAME/calib_*.npy, OUT_DIR/NAME/test_*.npy,
  OUT_DIR/manifest.json (default OUT_DIR: build/zoo).
Every model is exported at 224x224 unless --size N asks for N x N; a model
whose layers cannot take N (torchvision's own check, or an export error)
stops the run with its message.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models  # noqa: E402  (the export, the manifest, atomic writes)
import zoo  # noqa: E402


def size_option(p):
    p.add_argument("--size", type=int, default=0,
                   help="square input size N (default: each model's own, 224)")


if __name__ == "__main__":
    export_models.main(zoo.ZOO, default_out="build/zoo", doc=__doc__, extra_args=size_option)
