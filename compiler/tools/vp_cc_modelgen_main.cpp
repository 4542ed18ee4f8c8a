// vp-cc-modelgen: writes torchvision-shaped ResNet-18/50 ONNX models with
// seeded random weights (compiler benchmarks when no exported model exists).
//   vp-cc-modelgen resnet50|resnet18 OUT.onnx [--image N] [--classes N] [--seed N]
#include <fstream>
#include <iostream>
#include <string>

#include "vp/cc/onnx_builder.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: vp-cc-modelgen resnet50|resnet18 OUT.onnx [--image N] [--classes N] [--seed N]\n";
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
  const int depth = which == "resnet50" ? 50 : which == "resnet18" ? 18 : 0;
  if (!depth) {
    std::cerr << "vp-cc-modelgen: unknown model " << which << "\n";
    return 2;
  }
  const std::string bytes = vp::cc::resnet_onnx(depth, classes, image, seed);
  std::ofstream(out, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return 0;
}
