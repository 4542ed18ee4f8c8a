// vp-cc-modelgen: writes torchvision-shaped ResNet-18/50 ONNX models with
// seeded random weights (compiler benchmarks when no exported model exists),
// and seeded N(0, 1) float32 inputs as .npy.
//   vp-cc-modelgen resnet50|resnet18 OUT.onnx [--image N] [--classes N] [--seed N]
//   vp-cc-modelgen gap_head|gap_softmax OUT.onnx [--image N] [--classes N] [--seed N]
//       a small CNN whose graph ends in GlobalAveragePool then Flatten (the
//       head of SqueezeNet-like models), with a Softmax after it for gap_softmax
//   vp-cc-modelgen input OUT.npy [--image N] [--seed N]     a [1, 3, N, N] input
#include <fstream>
#include <iostream>
#include <random>
#include <vector>
#include <string>

#include "vp/cc/npy.h"
#include "vp/cc/onnx_builder.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: vp-cc-modelgen resnet50|resnet18|gap_head|gap_softmax OUT.onnx [--image N] [--classes N] [--seed N]\n";
    return 2;
  }
  const std::string which = argv[1], out = argv[2];
  int image = 224, classes = 1000;
  unsigned long long seed = 7;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--image") image = std::stoi(argv[i + 1]);
    else if (a == "--classes") classes = std::stoi(argv[i + 1]);
    else if (a == "--seed") seed = std::stoull(argv[i + 1]);
  }
  if (which == "input") {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> nd(0.f, 1.f);
    std::vector<float> x(static_cast<std::size_t>(3 * image * image));
    for (auto& v : x) v = nd(rng);
    vp::cc::write_npy(out, {1, 3, image, image}, x);
    return 0;
  }
  if (which == "gap_head" || which == "gap_softmax") {
    vp::cc::OnnxBuilder b(which, 13, seed);
    auto x = b.input("input", {1, 3, image, image});
    x = b.relu(b.conv(x, 3, 16, 3, 1, 1));
    x = b.relu(b.conv(x, 16, classes, 3, 2, 1));
    x = b.flatten(b.global_avgpool(x));
    b.output(which == "gap_softmax" ? b.softmax(x) : x);
    b.save(out);
    return 0;
  }
  const int depth = which == "resnet50" ? 50 : which == "resnet18" ? 18 : 0;
  if (!depth) {
    std::cerr << "vp-cc-modelgen: unknown model " << which << "\n";
    return 2;
  }
  const std::string bytes = vp::cc::resnet_onnx(depth, classes, image, seed);
  std::ofstream(out, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return 0;
}
