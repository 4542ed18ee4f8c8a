// Parse: ONNX ModelProto -> Graph, with shapes from ONNX's own shape
// inference and every initializer and Constant node as a constant value.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <set>
#include <unordered_map>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
// After onnx: <sys/mman.h> defines MAP_TYPE, a name onnx's parser.h uses.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fold_constants.h"
#include "squeeze_tokens.h"
#include "onnx_validate.h"
#include "vp/cc/passes.h"

namespace vp::cc {
namespace {

// Sizes are checked against the dimensions before anything is allocated
// (validate_onnx_model has bounded the dimensions themselves).
std::vector<float> tensor_floats(const onnx::TensorProto& t) {
  std::int64_t n = 1;
  for (auto d : t.dims()) n *= d;
  const auto count = static_cast<std::size_t>(n);
  const auto dt = t.data_type();
  const std::string& raw = t.raw_data();
  auto fail_count = [&](std::size_t have, const char* unit) {
    throw CompileError("initializer '" + t.name() + "' has " + std::to_string(have) + " " + unit + ", its dimensions say " +
                       std::to_string(count) + (unit[0] == 'r' ? " elements" : ""));
  };
  std::vector<float> out;
  auto from_raw = [&](auto sample) {
    using T = decltype(sample);
    if (raw.size() != count * sizeof(T)) fail_count(raw.size(), "raw bytes");
    out.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      T v;
      std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
      out[i] = static_cast<float>(v);
    }
  };
  auto from_typed = [&](const auto& field) {
    if (static_cast<std::size_t>(field.size()) != count) fail_count(static_cast<std::size_t>(field.size()), "values");
    out.resize(count);
    std::transform(field.begin(), field.end(), out.begin(), [](auto v) { return static_cast<float>(v); });
  };
  if (dt == onnx::TensorProto::FLOAT) {
    if (!raw.empty()) from_raw(float{});
    else from_typed(t.float_data());
  } else if (dt == onnx::TensorProto::INT64) {
    if (!raw.empty()) from_raw(std::int64_t{});
    else from_typed(t.int64_data());
  } else if (dt == onnx::TensorProto::INT32) {
    if (!raw.empty()) from_raw(std::int32_t{});
    else from_typed(t.int32_data());
  } else if (dt == onnx::TensorProto::BOOL) {  // Dropout's training_mode
    if (!raw.empty()) from_raw(std::uint8_t{});
    else from_typed(t.int32_data());
  } else if (dt == onnx::TensorProto::DOUBLE) {
    if (!raw.empty()) from_raw(double{});
    else from_typed(t.double_data());
  } else {
    throw CompileError("initializer '" + t.name() + "' has data type " +
                       onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(dt)) +
                       "; supported: float, double, int32, int64, bool");
  }
  return out;
}

std::vector<std::int64_t> type_dims(const onnx::TypeProto& tp) {
  std::vector<std::int64_t> d;
  if (!tp.has_tensor_type() || !tp.tensor_type().has_shape()) return d;
  for (const auto& dim : tp.tensor_type().shape().dim()) d.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  return d;
}

}  // namespace

// Activation view of ONNX dims: [N,C,H,W] -> C,H,W; [B,K] -> C=K, H=B; [K] -> C=K.
Shape shape_of_dims(const std::vector<std::int64_t>& d, const std::string& name) {
  Shape s;
  for (auto x : d) {
    if (x < 0) throw CompileError("tensor '" + name + "' has an unknown dimension after shape inference");
    if (x == 0) throw CompileError("tensor '" + name + "' has a zero-size dimension; every tensor needs elements");
  }
  if (d.size() == 4 || d.size() == 3) {
    if (d[0] != 1) throw CompileError("tensor '" + name + "' has batch " + std::to_string(d[0]) + "; only batch 1 is supported");
    s.c = d[1];
    s.h = d[2];
    s.w = d.size() == 4 ? d[3] : 1;
  } else if (d.size() == 2) {
    s.c = d[1];
    s.h = d[0];
  } else if (d.size() == 1) {
    s.c = d[0];
  } else if (!d.empty()) {
    throw CompileError("tensor '" + name + "' has rank " + std::to_string(d.size()) + "; supported ranks are 1 to 4");
  }
  return s;
}

namespace {

Graph import_model(std::string_view bytes, const std::string& name) {
  onnx::ModelProto model;
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT_MAX);
  if (bytes.empty()) throw CompileError(name + ": empty file; expected an ONNX model");
  if (bytes.size() > static_cast<std::size_t>(INT_MAX))
    throw CompileError(name + ": " + std::to_string(bytes.size()) + " bytes; a serialized ONNX model is below 2 GiB");
  if (!model.ParseFromCodedStream(&coded))
    throw CompileError(name + ": not an ONNX model (not a serialized ONNX ModelProto protobuf)");
  if (model.opset_import_size() == 0 && !model.has_graph())
    throw CompileError(name + ": not an ONNX model (no opset import and no graph)");
  validate_onnx_model(model, name);

  Graph g;
  g.name = model.graph().name().empty() ? name : model.graph().name();
  for (const auto& op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") g.opset = static_cast<int>(op.version());
  // Unsupported operators first: the most useful thing to tell a user.
  for (const auto& np : model.graph().node()) {
    if (!op_from_onnx(np.op_type())) {
      const auto& ops = supported_ops();
      std::string list;
      for (const auto& o : ops) list += (list.empty() ? "" : ", ") + o;
      throw CompileError("node '" + np.name() + "' has unsupported op type '" + np.op_type() + "'; supported: " + list);
    }
  }
  if (g.opset < 1 || g.opset > 17)
    throw CompileError(name + ": opset " + std::to_string(g.opset) + " is not supported (opsets 11 to 17 are)");
  if (g.opset < 11) {
    // An older opset import is fine when every operator in the graph reads
    // the same under it as under opset 11: operators with a single version
    // (GlobalAveragePool), or whose later versions only added types.
    for (const auto& np : model.graph().node())
      if (!op_has(*op_from_onnx(np.op_type()), op_since_opset1))
        throw CompileError(name + ": opset " + std::to_string(g.opset) + " is not supported for node '" + np.name() +
                           "' (" + np.op_type() + "); opsets 11 to 17 are");
  }
  try {
    onnx::shape_inference::InferShapes(model);
    // Shape arithmetic of fixed shapes: constants, then inference again
    // (what read them gets its dimensions), until nothing more folds (a
    // round per link of a chain that alternates between a Shape and what
    // the Shape's input is computed from: Swin-T's masks take dozens).
    for (int round = 0; round < 64 && fold_shape_arithmetic(*model.mutable_graph()); ++round) {
      model.mutable_graph()->clear_value_info();
      onnx::shape_inference::InferShapes(model);
    }
    // A vision transformer's tokens as [T, C] matrices (squeeze_tokens.cpp).
    if (squeeze_token_batch(*model.mutable_graph())) {
      model.mutable_graph()->clear_value_info();
      onnx::shape_inference::InferShapes(model);
    }
  } catch (const CompileError&) {
    throw;
  } catch (const std::exception& e) {
    throw CompileError(name + ": shape inference failed: " + e.what());
  }
  const onnx::GraphProto& gp = model.graph();

  // The chip computes on quantized real numbers: graph inputs and outputs
  // must be float tensors (their int8 codes are the compiler's business).
  {
    std::vector<std::string> init_names;
    for (const auto& init : gp.initializer()) init_names.push_back(init.name());
    auto check_float = [&](const onnx::ValueInfoProto& vi, const char* what) {
      if (std::find(init_names.begin(), init_names.end(), vi.name()) != init_names.end()) return;
      const auto& tp = vi.type();
      if (!tp.has_tensor_type())
        throw CompileError(std::string("graph ") + what + " '" + vi.name() +
                           "' is not a tensor; only float tensors are supported");
      const auto et = tp.tensor_type().elem_type();
      if (et != onnx::TensorProto::FLOAT)
        throw CompileError(std::string("graph ") + what + " '" + vi.name() + "' has element type " +
                           onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(et)) +
                           "; only float (float32) inputs and outputs are supported");
    };
    for (const auto& vi : gp.input()) check_float(vi, "input");
    for (const auto& vi : gp.output()) check_float(vi, "output");
  }

  std::unordered_map<std::string, int> ids;
  auto value_id = [&](const std::string& n) -> int {
    auto it = ids.find(n);
    if (it != ids.end()) return it->second;
    Value v;
    v.name = n;
    const int id = g.add_value(std::move(v));
    ids[n] = id;
    return id;
  };
  for (const auto& init : gp.initializer()) {
    Value& v = g.val(value_id(init.name()));
    v.is_const = true;
    v.dims.assign(init.dims().begin(), init.dims().end());
    v.data = tensor_floats(init);
  }
  auto set_dims = [&](const onnx::ValueInfoProto& vi) {
    Value& v = g.val(value_id(vi.name()));
    if (!v.is_const) v.dims = type_dims(vi.type());
  };
  for (const auto& vi : gp.input()) set_dims(vi);
  for (const auto& vi : gp.value_info()) set_dims(vi);
  for (const auto& vi : gp.output()) set_dims(vi);
  for (const auto& vi : gp.input())
    if (!g.val(value_id(vi.name())).is_const) g.inputs.push_back(value_id(vi.name()));
  for (const auto& vi : gp.output()) g.outputs.push_back(value_id(vi.name()));

  int unnamed = 0;
  for (const auto& np : gp.node()) {
    if (!np.domain().empty() && np.domain() != "ai.onnx")
      throw CompileError("node '" + np.name() + "': operator domain '" + np.domain() + "' is not supported");
    const OpKind kind = *op_from_onnx(np.op_type());
    if (op_def(kind).role == OpRole::constant) {
      Value& v = g.val(value_id(np.output(0)));
      v.is_const = true;
      for (const auto& a : np.attribute()) {
        if (a.name() == "value") {
          v.dims.assign(a.t().dims().begin(), a.t().dims().end());
          v.data = tensor_floats(a.t());
        } else if (a.name() == "value_float") {
          v.data = {a.f()};
        } else if (a.name() == "value_floats") {
          v.data.assign(a.floats().begin(), a.floats().end());
          v.dims = {static_cast<std::int64_t>(v.data.size())};
        } else if (a.name() == "value_int") {
          v.data = {static_cast<float>(a.i())};
        } else if (a.name() == "value_ints") {
          for (auto x : a.ints()) v.data.push_back(static_cast<float>(x));
          v.dims = {static_cast<std::int64_t>(v.data.size())};
        } else {
          throw CompileError("Constant node '" + np.name() + "': attribute '" + a.name() + "' is not supported");
        }
      }
      continue;
    }
    Node n;
    n.name = np.name().empty() ? np.op_type() + "_" + std::to_string(unnamed++) : np.name();
    n.op = kind;
    for (const auto& i : np.input()) n.in.push_back(i.empty() ? -1 : value_id(i));
    for (const auto& o : np.output()) n.out.push_back(value_id(o));
    for (const auto& a : np.attribute()) {
      if (a.type() == onnx::AttributeProto::INT) n.ints[a.name()] = {a.i()};
      else if (a.type() == onnx::AttributeProto::INTS) n.ints[a.name()].assign(a.ints().begin(), a.ints().end());
      else if (a.type() == onnx::AttributeProto::FLOAT) n.floats[a.name()] = a.f();
      else if (a.type() == onnx::AttributeProto::STRING && a.name() == "mode" && n.op == OpKind::Pad) {
        if (a.s() != "constant") n.ints["mode"] = {1};  // reflect, edge: refused by canonicalize
      } else if (a.type() == onnx::AttributeProto::STRING && a.name() == "auto_pad") {
        // Resolved into pads by canonicalize, from the inferred output shape.
        if (a.s() == "SAME_UPPER") n.ints["auto_pad"] = {kAutoPadSameUpper};
        else if (a.s() == "SAME_LOWER") n.ints["auto_pad"] = {kAutoPadSameLower};
        else if (a.s() == "VALID") n.ints["auto_pad"] = {kAutoPadValid};
        else if (a.s() != "NOTSET")
          throw CompileError("node '" + n.name + "' (" + op_name(n.op) + "): auto_pad " + a.s() + " is not supported");
      }
    }
    if (n.op == OpKind::Gelu)
      throw CompileError("node '" + n.name + "' (Gelu): an opset-20 operator; opsets 11 to 17 are supported, where "
                         "GELU is written with Erf (as PyTorch exports it)");
    // fold_shape_arithmetic computed every one it could.
    // Except a Gather of a matrix's rows (a class token, x[:, 0] after
    // squeeze_tokens.cpp), which canonicalize makes a pooling.
    const bool rows = n.op == OpKind::Gather && n.in.size() == 2 && n.in[0] >= 0 && !g.val(n.in[0]).is_const;
    if (op_def(n.op).role == OpRole::fold && !rows) {
      // Every input a constant: the fold itself declined (a result past its
      // size limit, an attribute it does not compute).
      const bool constant_inputs = std::all_of(n.in.begin(), n.in.end(), [&](int v) { return v < 0 || g.val(v).is_const; });
      throw CompileError("node '" + n.name + "' (" + op_name(n.op) + "): supported only on constants and tensor shapes " +
                         "(computed at import); " +
                         (constant_inputs ? "its inputs are constants, but its result is not computed at import (more "
                                            "than 262,144 values, or an attribute such as ScatterND's reduction that "
                                            "the import does not compute)"
                                          : "it reads an activation"));
    }
    // An Identity of a constant is that constant: PyTorch's exporter writes
    // one initializer once and every other parameter equal to it (zero
    // biases of MobileNetV3, SqueezeNet, EfficientNet) as an Identity of it.
    if (n.op == OpKind::Identity && n.in.size() == 1 && n.in[0] >= 0 && g.val(n.in[0]).is_const &&
        n.out.size() == 1 && std::find(g.outputs.begin(), g.outputs.end(), n.out[0]) == g.outputs.end()) {
      const Value src = g.val(n.in[0]);
      Value& v = g.val(n.out[0]);
      v.is_const = true;
      v.dims = src.dims;
      v.data = src.data;
      continue;
    }
    g.nodes.push_back(std::move(n));
  }
  for (auto& v : g.values) {
    if (v.is_const) continue;
    if (v.dims.empty() && g.producer(static_cast<int>(&v - g.values.data())) < 0 &&
        std::find(g.inputs.begin(), g.inputs.end(), static_cast<int>(&v - g.values.data())) == g.inputs.end())
      continue;  // unused optional
    // The element count, checked before anything multiplies the dims
    // (inference follows a Pad's or Reshape's constants, whatever they hold).
    long long count = 1;
    for (const auto d : v.dims) {
      if (d > 0 && count > kMaxTensorElements / d)
        throw CompileError("tensor '" + v.name + "' has more than " + std::to_string(kMaxTensorElements) +
                           " elements; at most " + std::to_string(kMaxTensorElements) + " are supported");
      if (d > 0) count *= d;
    }
    // Views of more than 4 dimensions between layout operators (a channel
    // shuffle's 5-D, a window partition's 6-D), and stacks of matrices
    // ([heads, T, d] or [windows, heads, T, d] between an attention's
    // Reshapes, Transposes and MatMuls, [windows, T, C] after a partition):
    // canonicalize makes them one operator, reads them on the chip's layout,
    // or refuses them (canonicalize.cpp checks none is left).
    if (v.dims.size() > 4 || (v.dims.size() >= 3 && v.dims[0] != 1)) {
      const int p = g.producer(static_cast<int>(&v - g.values.data()));
      const OpKind k = p >= 0 ? g.nodes[static_cast<std::size_t>(p)].op : OpKind::Identity;
      if (p >= 0 && (k == OpKind::Reshape || k == OpKind::Transpose || k == OpKind::Slice || k == OpKind::Concat ||
                     k == OpKind::Pad || k == OpKind::Gather || k == OpKind::MatMul || k == OpKind::Mul ||
                     k == OpKind::Div || k == OpKind::Add || k == OpKind::Where || k == OpKind::Softmax ||
                     k == OpKind::LayerNormalization || k == OpKind::Erf || k == OpKind::Dropout)) {
        v.shape = Shape{0, 0, 0};
        continue;
      }
    }
    v.shape = shape_of_dims(v.dims, v.name);
    if (v.shape.numel() > kMaxTensorElements)
      throw CompileError("tensor '" + v.name + "' has " + std::to_string(v.shape.numel()) + " elements; at most " +
                         std::to_string(kMaxTensorElements) + " are supported");
  }
  validate_graph(g, name);
  for (int o : g.outputs) {
    g.output_names.push_back(g.val(o).name);
    g.output_dims.push_back(g.val(o).dims);
  }
  return g;
}

// Every error names the file, whichever step found it.
Graph import_onnx_view(std::string_view bytes, const std::string& name) {
  try {
    return import_model(bytes, name);
  } catch (const CompileError& e) {
    const std::string m = e.what();
    if (m.compare(0, name.size() + 1, name + ":") == 0) throw;
    throw CompileError(name + ": " + m);
  }
}

}  // namespace

Graph import_onnx_bytes(const std::string& bytes, const std::string& name) { return import_onnx_view(bytes, name); }

Graph import_onnx(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw CompileError(path + ": is a directory; expected an ONNX model file");
  // A device or pipe (/dev/zero) could be read for ever.
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw CompileError(path + ": is not a regular file; expected an ONNX model file");
  // Parsed straight from the page cache: a ResNet-50 is 100 MB, and a copy
  // of it costs a tenth of the parse.
  struct Mapping {
    int fd = -1;
    void* p = MAP_FAILED;
    std::size_t n = 0;
    ~Mapping() {
      if (p != MAP_FAILED) munmap(p, n);
      if (fd >= 0) close(fd);
    }
  } m;
  m.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (m.fd < 0) throw CompileError(path + ": cannot open (" + std::strerror(errno) + ")");
  struct stat st {};
  if (fstat(m.fd, &st) != 0) throw CompileError(path + ": cannot read (" + std::strerror(errno) + ")");
  m.n = static_cast<std::size_t>(st.st_size);
  if (m.n > 0) m.p = mmap(nullptr, m.n, PROT_READ, MAP_PRIVATE, m.fd, 0);
  if (m.p != MAP_FAILED) return import_onnx_view(std::string_view(static_cast<const char*>(m.p), m.n), path);
  // Empty, or a file system without mmap: read it.
  std::string bytes;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t got = read(m.fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw CompileError(path + ": cannot read (" + std::strerror(errno) + ")");
    if (got == 0) break;
    bytes.append(chunk, static_cast<std::size_t>(got));
  }
  return import_onnx_view(bytes, path);
}

}  // namespace vp::cc
