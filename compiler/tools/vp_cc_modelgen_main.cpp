// vp-cc-modelgen: writes torchvision-shaped ResNet-18/50 ONNX models with
// seeded random weights (compiler benchmarks when no exported model exists),
// and seeded N(0, 1) float32 inputs as .npy.
//   vp-cc-modelgen resnet50|resnet18 OUT.onnx [--image N] [--classes N] [--seed N]
//   vp-cc-modelgen gap_head|gap_softmax OUT.onnx [--image N] [--classes N] [--seed N]
//       a small CNN whose graph ends in GlobalAveragePool then Flatten (the
//       head of SqueezeNet-like models), with a Softmax after it for gap_softmax
//   vp-cc-modelgen input OUT.npy [--image N] [--seed N] [--count K]
//                                      K stacked [1, 3, N, N] inputs (default 1), for a stream
#include <exception>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "vp/cc/npy.h"
#include "vp/cc/onnx_builder.h"
#include "vp/common/atomic_file.h"
#include "vp/common/parse_number.h"

namespace {

constexpr const char* kUsage =
    "usage: vp-cc-modelgen resnet50|resnet18|gap_head|gap_softmax OUT.onnx [--image N] [--classes N] [--seed N]\n"
    "       vp-cc-modelgen input OUT.npy [--image N] [--seed N] [--count K]\n";

// The options, parsed strictly: an unknown option, a missing value or a
// number out of range is a usage error, never a wrapped size.
struct Options {
  unsigned image = 224, classes = 1000, count = 1;
  unsigned long long seed = 7;
};

Options parse_options(int argc, char** argv, bool resnet, bool classes_ok) {
  Options o;
  for (int i = 3; i < argc; i += 2) {
    const std::string a = argv[i];
    if (a != "--image" && a != "--classes" && a != "--seed" && a != "--count")
      throw std::invalid_argument("unknown option '" + a + "'");
    if (i + 1 >= argc) throw std::invalid_argument(a + ": expected a value");
    const char* v = argv[i + 1];
    // A ResNet halves the image five times: below 32 pixels a stage would
    // have no pixels left. 4096 keeps every tensor well inside memory.
    if (a == "--image") {
      o.image = static_cast<unsigned>(vp::common::parse_uint(v, "--image", 4096));
      const unsigned least = resnet ? 32 : 1;
      if (o.image < least)
        throw std::invalid_argument("--image: expected " + std::to_string(least) + " .. 4096 pixels, got " + v);
    } else if (a == "--classes") {
      if (!classes_ok) throw std::invalid_argument("--classes: only for resnet50, resnet18, gap_head and gap_softmax");
      o.classes = static_cast<unsigned>(vp::common::parse_uint(v, "--classes", 100000));
      if (o.classes == 0) throw std::invalid_argument("--classes: expected 1 .. 100000, got 0");
    } else if (a == "--count") {
      if (resnet || classes_ok) throw std::invalid_argument("--count: only for input");
      // A stream's images (vp-cc --batch): 4096 bounds the file, not the chip.
      o.count = static_cast<unsigned>(vp::common::parse_uint(v, "--count", 4096));
      if (o.count == 0) throw std::invalid_argument("--count: expected 1 .. 4096, got 0");
    } else {
      o.seed = vp::common::parse_uint(v, "--seed");
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string which = argv[1], out = argv[2];
  const int depth = which == "resnet50" ? 50 : which == "resnet18" ? 18 : 0;
  const bool gap = which == "gap_head" || which == "gap_softmax";
  if (!depth && !gap && which != "input") {
    std::cerr << "vp-cc-modelgen: unknown model '" << which
              << "' (expected resnet50, resnet18, gap_head, gap_softmax or input)\n"
              << kUsage;
    return 2;
  }
  Options o;
  try {
    o = parse_options(argc, argv, depth != 0, depth != 0 || gap);
  } catch (const std::exception& e) {
    std::cerr << "vp-cc-modelgen: " << e.what() << "\n" << kUsage;
    return 2;
  }
  try {
    if (gap) {
      const auto n = std::int64_t{o.image}, classes = std::int64_t{o.classes};
      vp::cc::OnnxBuilder b(which, 13, o.seed);
      auto x = b.input("input", {1, 3, n, n});
      x = b.relu(b.conv(x, 3, 16, 3, 1, 1));
      x = b.relu(b.conv(x, 16, classes, 3, 2, 1));
      x = b.flatten(b.global_avgpool(x));
      b.output(which == "gap_softmax" ? b.softmax(x) : x);
      b.save(out);  // whole or not at all
      return 0;
    }
    if (!depth) {
      std::mt19937_64 rng(o.seed);
      std::normal_distribution<float> nd(0.f, 1.f);
      const auto n = std::int64_t{o.image}, k = std::int64_t{o.count};
      // One generator for all images: the first is the one --count 1 gives.
      std::vector<float> x(static_cast<std::size_t>(k * 3 * n * n));
      for (auto& v : x) v = nd(rng);
      vp::cc::write_npy(out, {k, 3, n, n}, x);
      return 0;
    }
    const std::string bytes =
        vp::cc::resnet_onnx(depth, static_cast<int>(o.classes), static_cast<int>(o.image), o.seed);
    vp::common::write_file_atomically(out, bytes);  // whole or not at all
  } catch (const std::exception& e) {
    std::cerr << "vp-cc-modelgen: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
