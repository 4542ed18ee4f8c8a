// vp-cc: ONNX model -> Sidra VP assembly (+ crossbar weight image).
//
//   vp-cc MODEL.onnx -o MODEL.asm [--chip NAME] [--set k=v]... [--calib X.npy]...
//         [--dump-ir DIR] [--report] [--io auto|on|off]
//   vp-cc MODEL.onnx --reference IN.npy -o OUT.npy   golden model (int8 output codes)
//   vp-cc MODEL.onnx --fp32 IN.npy -o OUT.npy        FP32 reference (dequantized form)
//   vp-cc MODEL.onnx --quantize-input IN.npy -o IN.bin   bytes for vp-run --input
//
// Every mode runs the same deterministic front end and calibration, so the
// reference and the compiled program agree on every scale.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "vp/as/assembler.h"
#include "vp/cc/npy.h"
#include "vp/cc/passes.h"

namespace {

const char* kUsage =
    "usage: vp-cc MODEL.onnx -o OUT.asm [--chip NAME] [--set key=value]... [--calib X.npy]...\n"
    "             [--dump-ir DIR] [--report] [--io auto|on|off]\n"
    "       vp-cc MODEL.onnx (--reference|--fp32|--quantize-input) IN.npy -o OUT\n";

using namespace vp::cc;

FTensor load_input(const Graph& g, const std::string& path) {
  const NpyArray a = read_npy(path);
  FTensor t;
  t.shape = g.val(g.inputs.at(0)).shape;
  t.data = a.as_float();
  if (static_cast<std::int64_t>(t.data.size()) != t.shape.numel())
    throw CompileError("'" + path + "' has " + std::to_string(t.data.size()) + " elements, input '" +
                       g.val(g.inputs[0]).name + "' needs " + std::to_string(t.shape.numel()));
  return t;
}

// Does the assembler in this build know .input/.output yet?
bool assembler_has_io() {
  const auto r = vp::as::assemble_string(".input \"x\", 0, 1, \"int8\", 1\n", "<probe>");
  return r.ok();
}

void dump(const std::string& dir, int i, const std::string& stage, const Graph& g) {
  if (dir.empty()) return;
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/" + std::to_string(i) + "-" + stage + ".json") << ir_json(g, stage) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::string model, out, chip = "sidra-y1", dump_dir, mode, mode_in, io = "auto";
  std::vector<std::string> sets, calib;
  bool report = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "vp-cc: " << a << " needs a value\n" << kUsage;
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "-o") out = next();
    else if (a == "--chip") chip = next();
    else if (a == "--set") sets.push_back(next());
    else if (a == "--calib") calib.push_back(next());
    else if (a == "--dump-ir") dump_dir = next();
    else if (a == "--report") report = true;
    else if (a == "--io") io = next();
    else if (a == "--reference" || a == "--fp32" || a == "--quantize-input") {
      mode = a;
      mode_in = next();
    } else if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "vp-cc: unknown option " << a << "\n" << kUsage;
      return 2;
    } else model = a;
  }
  if (model.empty() || out.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  try {
    const auto t0 = std::chrono::steady_clock::now();
    const Target target = load_target(chip, sets);
    Graph g = import_onnx(model);
    dump(dump_dir, 1, "parse", g);
    canonicalize(g);
    dump(dump_dir, 2, "canonical", g);
    std::vector<std::vector<FTensor>> sets_in;
    for (const auto& c : calib) sets_in.push_back({load_input(g, c)});
    if (sets_in.empty()) sets_in = default_calibration(g);
    quantize(g, sets_in);
    dump(dump_dir, 3, "quantized", g);

    if (mode == "--fp32") {
      const auto y = run_fp32(g, {load_input(g, mode_in)});
      write_npy(out, g.val(g.outputs[0]).dims, y[0].data);
      return 0;
    }
    if (mode == "--reference" || mode == "--quantize-input") {
      const QTensor q = quantize_input(g, 0, load_input(g, mode_in));
      if (mode == "--quantize-input") {
        const auto bytes = to_hwc(q);
        std::ofstream(out, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                   static_cast<std::streamsize>(bytes.size()));
        return 0;
      }
      const auto y = run_golden(g, {q});
      write_npy(out, g.val(g.outputs[0]).dims, y[0].data);
      return 0;
    }
    map_crossbars(g, target);
    dump(dump_dir, 4, "mapped", g);
    plan_memory(g, target);
    dump(dump_dir, 5, "planned", g);
    EmitOptions eo;
    eo.asm_path = out;
    eo.io_directives = io == "on" || (io == "auto" && assembler_has_io());
    const EmitResult r = emit_program(g, target, eo);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (report) std::cout << layer_report(g, target);
    std::fprintf(stderr, "vp-cc: %s -> %s: %d CUs, %lld instructions, %lld-byte weight image, %.2f s\n", model.c_str(),
                 out.c_str(), r.cores_used, static_cast<long long>(r.instructions),
                 static_cast<long long>(r.image_bytes), secs);
  } catch (const std::exception& e) {
    std::cerr << "vp-cc: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
