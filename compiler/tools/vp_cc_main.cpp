// vp-cc: ONNX model -> Sidra VP assembly (+ crossbar weight image).
//
//   vp-cc MODEL.onnx -o MODEL.asm [--chip NAME] [--set k=v]... [--calib X.npy]...
//         [--dump-ir DIR] [--report] [--io auto|on|off] [--replicate auto|none|N]
//   vp-cc MODEL.onnx --reference IN.npy -o OUT.npy   golden model (int8 output codes)
//   vp-cc MODEL.onnx --fp32 IN.npy -o OUT.npy        FP32 reference (dequantized form)
//   vp-cc MODEL.onnx --quantize-input IN.npy -o IN.bin   bytes for vp-run --input
//
// Every mode runs the same deterministic front end and calibration, so the
// reference and the compiled program agree on every scale.
#include <chrono>
#include <cmath>
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
    "usage: vp-cc MODEL.onnx -o OUT.asm [--chip NAME] [--set key=value]... [--calib X.npy[,X2.npy]]...\n"
    "             [--calib-percentile P] [--test IN.npy]... [--test-dir DIR] [--dump-ir DIR] [--report]\n"
    "             [--io auto|on|off] [--replicate auto|none|N]\n"
    "       vp-cc MODEL.onnx [--calib ...] (--reference|--fp32|--quantize-input) IN.npy -o OUT\n"
    "       vp-cc MODEL.onnx [--calib ...] --layer-error IN.npy   per layer: golden model vs FP32\n"
    "\n"
    "  --calib FILES    one calibration input per option (float32 .npy, the model's input shape;\n"
    "                   comma-separated for models with several inputs); default: 4 N(0,1) inputs\n"
    "  --test IN.npy    also write DIR/<stem>.in.bin (the int8 bytes vp-run reads) and\n"
    "                   DIR/<stem>.golden.bin (the golden model's output bytes, as vp-run writes them)\n"
    "  --test-dir DIR   where --test files go (default: the directory of -o)\n"
    "  --calib-percentile P   activation range = the P-th percentile of |x| (default 100: the maximum)\n"
    "  Compiling also writes OUT.io.json: per input and output the ONNX dims, the chip layout,\n"
    "  int8 scale, zero point, address and bytes.\n";

using namespace vp::cc;

// One graph input from a float .npy in ONNX order (any dtype numpy writes
// for real numbers is converted).
FTensor load_input(const Graph& g, const std::string& path, std::size_t index = 0) {
  if (index >= g.inputs.size())
    throw CompileError("'" + path + "': the model has " + std::to_string(g.inputs.size()) + " input(s)");
  const Value& v = g.val(g.inputs[index]);
  const NpyArray a = read_npy(path);
  const auto data = a.as_float();
  if (static_cast<std::int64_t>(data.size()) != v.shape.numel())
    throw CompileError("'" + path + "' has " + std::to_string(data.size()) + " elements, input '" + v.name +
                       "' needs " + std::to_string(v.shape.numel()));
  return from_onnx_order(v, data);
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const auto comma = s.find(',', start);
    out.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// "dir/name.ext" -> "name"
std::string stem_of(const std::string& path) { return std::filesystem::path(path).stem().string(); }

void write_bytes(const std::string& path, const std::vector<std::int8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw CompileError("cannot write '" + path + "'");
}

// OUT.io.json: what a host needs to feed the compiled model and read it back.
std::string io_json(const Graph& g) {
  auto one = [&](int id, std::int64_t addr, bool softmax) {
    const Value& v = g.val(id);
    std::string dims;
    for (auto d : v.dims) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
    char scale[64];
    std::snprintf(scale, sizeof scale, "%.17g", v.scale);
    return "{\"name\": \"" + v.name + "\", \"dims\": [" + dims + "], \"h\": " + std::to_string(v.shape.h) +
           ", \"w\": " + std::to_string(v.shape.w) + ", \"c\": " + std::to_string(v.shape.c) +
           ", \"layout\": \"hwc\", \"dtype\": \"int8\", \"scale\": " + scale + ", \"zero_point\": 0, \"addr\": " +
           std::to_string(addr) + ", \"bytes\": " + std::to_string(v.shape.numel()) +
           ", \"host_softmax\": " + (softmax ? "true" : "false") + "}";
  };
  std::string s = "{\"model\": \"" + g.name + "\",\n \"inputs\": [";
  for (std::size_t i = 0; i < g.inputs.size(); ++i)
    s += (i ? ",\n  " : "\n  ") + one(g.inputs[i], g.input_plain[i], false);
  s += "],\n \"outputs\": [";
  for (std::size_t i = 0; i < g.outputs.size(); ++i)
    s += (i ? ",\n  " : "\n  ") + one(g.outputs[i], g.val(g.outputs[i]).buf.addr, g.host_softmax[i]);
  return s + "]}\n";
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
  std::string model, out, chip = "sidra-y1", dump_dir, mode, mode_in, io = "auto", replicate = "auto";
  std::string test_dir;
  std::vector<std::string> sets, calib, tests;
  bool report = false;
  double percentile = 100.0;
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
    else if (a == "--calib-percentile") percentile = std::stod(next());
    else if (a == "--test") tests.push_back(next());
    else if (a == "--test-dir") test_dir = next();
    else if (a == "--dump-ir") dump_dir = next();
    else if (a == "--report") report = true;
    else if (a == "--io") io = next();
    else if (a == "--replicate") replicate = next();
    else if (a == "--reference" || a == "--fp32" || a == "--quantize-input" || a == "--layer-error") {
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
  if (model.empty() || (out.empty() && mode != "--layer-error")) {
    std::cerr << kUsage;
    return 2;
  }
  try {
    const auto t0 = std::chrono::steady_clock::now();
    auto since = [](std::chrono::steady_clock::time_point a) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
    };
    const Target target = load_target(chip, sets);
    Graph g = import_onnx(model);
    dump(dump_dir, 1, "parse", g);
    canonicalize(g);
    dump(dump_dir, 2, "canonical", g);
    std::vector<std::vector<FTensor>> sets_in;
    for (const auto& c : calib) {
      const auto files = split_commas(c);
      if (files.size() != g.inputs.size())
        throw CompileError("--calib " + c + ": " + std::to_string(files.size()) + " file(s) for a model with " +
                           std::to_string(g.inputs.size()) + " input(s)");
      std::vector<FTensor> set;
      for (std::size_t i = 0; i < files.size(); ++i) set.push_back(load_input(g, files[i], i));
      sets_in.push_back(std::move(set));
    }
    if (sets_in.empty()) sets_in = default_calibration(g);
    const double t_front = since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    quantize(g, sets_in, percentile);
    const double t_quant = since(t1);
    dump(dump_dir, 3, "quantized", g);

    if (mode == "--fp32") {
      const auto y = run_fp32(g, {load_input(g, mode_in)});
      write_npy(out, g.val(g.outputs[0]).dims, to_onnx_order(g.val(g.outputs[0]), y[0]));
      return 0;
    }
    if (mode == "--layer-error") {
      // Where INT8 loses accuracy: each layer's golden-model output,
      // dequantized, against the FP32 interpreter on the same input.
      const FTensor x = load_input(g, mode_in);
      const auto f = run_fp32_all(g, {x});
      const auto q = run_golden_all(g, {quantize_input(g, 0, x)});
      std::printf("%-40s %-18s %10s %10s %9s %9s\n", "layer", "op", "cosine", "max err", "err/max", "saturated");
      for (const Node& n : g.nodes) {
        const int id = n.out[0];
        const FTensor d = dequantize(g, id, q[static_cast<std::size_t>(id)]);
        const auto& r = f[static_cast<std::size_t>(id)].data;
        double ab = 0, aa = 0, bb = 0, err = 0, mx = 0;
        std::size_t sat = 0;
        for (std::size_t i = 0; i < r.size() && i < d.data.size(); ++i) {
          ab += double(r[i]) * d.data[i];
          aa += double(r[i]) * r[i];
          bb += double(d.data[i]) * d.data[i];
          err = std::max(err, std::fabs(double(r[i]) - d.data[i]));
          mx = std::max(mx, std::fabs(double(r[i])));
          const int c = q[static_cast<std::size_t>(id)].data[i];
          sat += c == 127 || c == -128;
        }
        std::printf("%-40.40s %-18s %10.6f %10.4g %8.2f%% %8.3f%%\n", n.name.c_str(), op_name(n.op).c_str(),
                    aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 1.0, err, mx > 0 ? 100 * err / mx : 0.0,
                    r.empty() ? 0.0 : 100.0 * double(sat) / double(r.size()));
      }
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
      write_npy(out, g.val(g.outputs[0]).dims, to_onnx_order(g.val(g.outputs[0]), y[0]));
      return 0;
    }
    const auto t2 = std::chrono::steady_clock::now();
    map_crossbars(g, target, MapOptions{parse_replicate(replicate)});
    dump(dump_dir, 4, "mapped", g);
    plan_memory(g, target);
    dump(dump_dir, 5, "planned", g);
    EmitOptions eo;
    eo.asm_path = out;
    if (const auto parent = std::filesystem::path(out).parent_path(); !parent.empty())
      std::filesystem::create_directories(parent);
    eo.io_directives = io == "on" || (io == "auto" && assembler_has_io());
    const EmitResult r = emit_program(g, target, eo);
    const double t_back = since(t2);
    const auto t3 = std::chrono::steady_clock::now();
    std::filesystem::path io_path(out);
    io_path.replace_extension(".io.json");
    std::ofstream(io_path) << io_json(g);
    if (!tests.empty()) {
      if (g.inputs.size() != 1) throw CompileError("--test needs a model with one input");
      const std::string dir = !test_dir.empty() ? test_dir : std::filesystem::path(out).parent_path().string();
      if (!dir.empty()) std::filesystem::create_directories(dir);
      const std::string pre = dir.empty() ? "" : dir + "/";
      for (const auto& tpath : tests) {
        const QTensor q = quantize_input(g, 0, load_input(g, tpath));
        write_bytes(pre + stem_of(tpath) + ".in.bin", to_hwc(q));
        write_bytes(pre + stem_of(tpath) + ".golden.bin", to_hwc(run_golden(g, {q})[0]));
      }
    }
    const double t_tests = since(t3);
    const double secs = since(t0);
    if (report) std::cout << layer_report(g, target);
    std::fprintf(stderr,
                 "vp-cc: %s -> %s: %d CUs, %lld instructions, %lld-byte weight image, %.2f s "
                 "(parse+canonicalize %.2f s, calibrate+quantize %.2f s on %zu input(s), map+plan+emit %.2f s",
                 model.c_str(), out.c_str(), r.cores_used, static_cast<long long>(r.instructions),
                 static_cast<long long>(r.image_bytes), secs, t_front, t_quant, sets_in.size(), t_back);
    if (!tests.empty()) std::fprintf(stderr, ", %zu test input(s) %.2f s", tests.size(), t_tests);
    std::fprintf(stderr, ")\n");
  } catch (const std::exception& e) {
    std::cerr << "vp-cc: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
