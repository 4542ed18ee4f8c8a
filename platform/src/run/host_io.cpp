#include "vp/platform/host_io.h"

#include <cstring>

#include "vp/common/parse_number.h"
#include "vp/platform/float_io.h"
#include "vp/platform/tensor_file.h"

namespace vp::platform {

namespace {

// An address or a byte count: decimal or 0x hexadecimal, no sign, no wrap
// (a leading 0 is decimal, not octal).
uint64_t parse_number(const std::string& text, const std::string& spec) {
  try {
    return common::parse_uint(text, spec);
  } catch (const common::NumberError& e) {
    throw HostIoError(e.what());
  }
}

// "FILE@ADDR:BYTES[:DTYPE]"
ExplicitOutput parse_explicit_output(const std::string& spec, size_t at) {
  ExplicitOutput o;
  o.path = spec.substr(0, at);
  const std::string rest = spec.substr(at + 1);
  const size_t c1 = rest.find(':');
  if (c1 == std::string::npos) throw HostIoError("--output " + spec + ": expected FILE@ADDR:BYTES[:DTYPE] or FILE");
  o.address = parse_number(rest.substr(0, c1), "--output " + spec);
  const size_t c2 = rest.find(':', c1 + 1);
  o.bytes = parse_number(rest.substr(c1 + 1, c2 == std::string::npos ? std::string::npos : c2 - c1 - 1),
                         "--output " + spec);
  if (c2 != std::string::npos) {
    const std::string t = rest.substr(c2 + 1);
    if (t != "int8" && t != "uint8" && t != "int16" && t != "int32" && t != "float32")
      throw HostIoError("--output " + spec + ": dtype must be int8, uint8, int16, int32 or float32");
    o.npy_dtype = npy_dtype(t);
  }
  return o;
}

std::string shape_text(const std::vector<uint64_t>& s) {
  std::string t = "(";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

// The bytes a bound input file gives binding `b` for `elements` batch
// elements (1, or the batch for a stacked file): the codes as they are, or
// float32 values quantized by the binding's host view.
std::vector<uint8_t> input_bytes(const std::string& what, TensorData& t, const obj::IoBinding& b, uint64_t elements,
                                 bool stacked) {
  const std::string codes = npy_dtype(b.dtype);
  const bool is_float = t.npy && t.dtype.size() >= 2 && t.dtype[1] == 'f';
  // numpy writes int8 as "|i1", vp-run as "<i1": the byte order mark aside
  // (the reader takes only '<' and '|'), they are the same dtype.
  const bool is_codes = t.npy && t.dtype.size() >= 2 && t.dtype.substr(1) == codes.substr(1);
  if (is_float && !is_codes && !b.quantized())
    throw HostIoError(what + ": " + t.dtype + " values for " + describe(b) +
                      ", which has no scale to quantize them with; give its " + b.dtype +
                      " codes (a raw file or a " + codes + " .npy), or a model compiled by vp-cc, whose bindings "
                      "carry the scale");
  if (!t.npy || !b.quantized() || is_codes) {
    const uint64_t want = b.bytes * elements;
    if (t.bytes.size() != want)
      throw HostIoError(what + " holds " + std::to_string(t.bytes.size()) + " bytes, but " + describe(b) +
                        " needs " + std::to_string(want) +
                        (stacked ? " for " + std::to_string(elements) + " batch elements" : std::string()));
    return std::move(t.bytes);
  }
  if (t.dtype != "<f4")
    throw HostIoError(what + ": dtype " + t.dtype + " for " + describe(b) + "; expected float32 (<f4) values or " +
                      b.dtype + " (" + codes + ") codes (convert with numpy's astype(np.float32))");
  // The model's shape, or a batch of it: [E, dims...], or dims with the
  // first dimension E times larger (E stacked [1, ...] tensors).
  std::vector<uint64_t> want = b.shape.empty() ? std::vector<uint64_t>{element_count(b)} : b.shape;
  bool ok = t.shape == want;
  std::string forms = shape_text(want);
  if (elements > 1) {
    std::vector<uint64_t> lead = want, times = want;
    lead.insert(lead.begin(), elements);
    times[0] *= elements;
    ok = t.shape == lead || t.shape == times;
    forms = shape_text(lead) + " or " + shape_text(times);
  }
  if (!ok)
    throw HostIoError(what + ": float32 shape " + shape_text(t.shape) + ", but " + describe(b) + " needs " + forms +
                      (elements > 1 ? " for " + std::to_string(elements) + " batch elements" : std::string()) +
                      " (the model's own shape and order)");
  std::vector<float> values(t.bytes.size() / 4);
  std::memcpy(values.data(), t.bytes.data(), values.size() * 4);
  return quantize_binding(b, values.data(), values.size(), what);
}

}  // namespace

std::pair<std::string, std::string> split_output_suffix(const std::string& spec) {
  const size_t colon = spec.rfind(':');
  if (colon != std::string::npos) {
    const std::string t = spec.substr(colon + 1);
    if (t == "int8" || t == "uint8" || t == "int16" || t == "int32" || t == "float32") return {spec.substr(0, colon), t};
  }
  return {spec, ""};
}

std::string npy_dtype(const std::string& dtype) {
  if (dtype == "uint8") return "|u1";
  if (dtype == "int16") return "<i2";
  if (dtype == "int32") return "<i4";
  if (dtype == "float32") return "<f4";
  return "<i1";
}

std::string describe(const obj::IoBinding& b) {
  std::string shape;
  for (uint64_t d : b.shape) shape += (shape.empty() ? " " : "x") + std::to_string(d);
  return std::string(b.output ? "output" : "input") + " '" + b.name + "' (" + std::to_string(b.bytes) + " bytes, " +
         b.dtype + shape + ")";
}

HostIo plan_host_io(const obj::Object& model, const std::vector<std::string>& inputs,
                    const std::vector<std::string>& outputs, uint32_t batch) {
  std::vector<ExplicitInput> explicit_inputs;
  std::vector<BoundInput> bound;
  for (const auto& spec : inputs) {
    const size_t at = spec.rfind('@');
    if (at != std::string::npos) {
      ExplicitInput in;
      in.path = spec.substr(0, at);
      in.address = parse_number(spec.substr(at + 1), "--input " + spec);
      in.bytes = read_tensor_file(in.path).bytes;
      explicit_inputs.push_back(std::move(in));
    } else {
      bound.push_back({"--input " + spec, read_tensor_file(spec)});
    }
  }
  HostIo io = plan_host_io(model, std::move(bound), outputs, batch);
  io.explicit_inputs = std::move(explicit_inputs);
  return io;
}

HostIo plan_host_io(const obj::Object& model, std::vector<BoundInput> bound, const std::vector<std::string>& outputs,
                    uint32_t batch) {
  HostIo io;
  for (size_t i = 0; i < model.io.size(); ++i) (model.io[i].output ? io.output_bindings : io.input_bindings).push_back(i);

  const size_t ni = io.input_bindings.size();
  if (!bound.empty() && ni == 0)
    throw HostIoError(bound.front().what +
                      ": the model declares no inputs (.input); give the address as FILE@ADDR");
  io.batch = batch ? batch : 1;
  bool stacked = false;
  if (ni) {
    if (batch == 0) {
      if (bound.size() % ni != 0)
        throw HostIoError(std::to_string(bound.size()) + " bound --input files for a model with " + std::to_string(ni) +
                          " inputs: give a multiple of " + std::to_string(ni) + " (one file per input and batch element)");
      io.batch = bound.empty() ? 1 : static_cast<uint32_t>(bound.size() / ni);
    } else if (bound.size() == ni * batch) {
      stacked = false;
    } else if (bound.size() == ni && batch > 1) {
      stacked = true;
    } else if (!bound.empty()) {
      throw HostIoError("--batch " + std::to_string(batch) + " with " + std::to_string(bound.size()) +
                        " bound --input files for a model with " + std::to_string(ni) + " inputs: give " +
                        std::to_string(ni * batch) + " files (one per input and element) or " + std::to_string(ni) +
                        " files holding all " + std::to_string(batch) + " elements each");
    }
  }
  if (!bound.empty()) {
    io.batch_inputs.assign(io.batch, std::vector<std::vector<uint8_t>>(ni));
    for (size_t f = 0; f < bound.size(); ++f) {
      const size_t k = stacked ? f : f % ni;
      const obj::IoBinding& b = model.io[io.input_bindings[k]];
      const std::vector<uint8_t> bytes = input_bytes(bound[f].what, bound[f].data, b, stacked ? io.batch : 1, stacked);
      if (stacked) {
        for (uint32_t e = 0; e < io.batch; ++e)
          io.batch_inputs[e][k].assign(bytes.begin() + static_cast<long>(e * b.bytes),
                                       bytes.begin() + static_cast<long>((e + 1) * b.bytes));
      } else {
        io.batch_inputs[f / ni][k] = bytes;
      }
    }
  }

  size_t next_output = 0;
  for (const auto& spec : outputs) {
    const size_t at = spec.rfind('@');
    if (at != std::string::npos) {
      io.explicit_outputs.push_back(parse_explicit_output(spec, at));
      continue;
    }
    if (next_output >= io.output_bindings.size())
      throw HostIoError("--output " + spec + ": the model declares " + std::to_string(io.output_bindings.size()) +
                        " outputs (.output) and every one is taken; give FILE@ADDR:BYTES[:DTYPE]");
    BoundOutput o{split_output_suffix(spec).first, io.output_bindings[next_output++]};
    const obj::IoBinding& b = model.io[o.binding];
    const std::string want = split_output_suffix(spec).second;
    if (want.empty()) {
      o.as_float = b.quantized() && o.path.size() >= 4 && o.path.compare(o.path.size() - 4, 4, ".npy") == 0;
    } else if (want == "float32" && b.dtype != "float32") {
      if (!b.quantized())
        throw HostIoError("--output " + spec + ": " + describe(b) +
                          " has no scale to dequantize its codes with; drop :float32 to write the codes");
      o.as_float = true;
    } else if (want != b.dtype) {
      throw HostIoError("--output " + spec + ": " + describe(b) + " holds " + b.dtype + " codes; give FILE:" +
                        b.dtype + " for them" + (b.quantized() ? " or FILE:float32 for the values" : ""));
    }
    io.bound_outputs.push_back(std::move(o));
  }
  return io;
}

}  // namespace vp::platform
