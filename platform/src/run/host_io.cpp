#include "vp/platform/host_io.h"

#include "vp/common/parse_number.h"
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

}  // namespace

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
  HostIo io;
  for (size_t i = 0; i < model.io.size(); ++i) (model.io[i].output ? io.output_bindings : io.input_bindings).push_back(i);

  std::vector<std::pair<std::string, TensorData>> bound;
  for (const auto& spec : inputs) {
    const size_t at = spec.rfind('@');
    if (at != std::string::npos) {
      ExplicitInput in;
      in.path = spec.substr(0, at);
      in.address = parse_number(spec.substr(at + 1), "--input " + spec);
      in.bytes = read_tensor_file(in.path).bytes;
      io.explicit_inputs.push_back(std::move(in));
    } else {
      bound.emplace_back(spec, read_tensor_file(spec));
    }
  }

  const size_t ni = io.input_bindings.size();
  if (!bound.empty() && ni == 0)
    throw HostIoError("--input " + bound.front().first +
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
      const auto& [path, t] = bound[f];
      const size_t k = stacked ? f : f % ni;
      const obj::IoBinding& b = model.io[io.input_bindings[k]];
      const uint64_t want = stacked ? b.bytes * io.batch : b.bytes;
      if (t.bytes.size() != want)
        throw HostIoError("--input " + path + " holds " + std::to_string(t.bytes.size()) + " bytes, but " +
                          describe(b) + " needs " + std::to_string(want) +
                          (stacked ? " for " + std::to_string(io.batch) + " batch elements" : std::string()));
      if (stacked) {
        for (uint32_t e = 0; e < io.batch; ++e)
          io.batch_inputs[e][k].assign(t.bytes.begin() + static_cast<long>(e * b.bytes),
                                       t.bytes.begin() + static_cast<long>((e + 1) * b.bytes));
      } else {
        io.batch_inputs[f / ni][k] = t.bytes;
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
    io.bound_outputs.push_back(BoundOutput{spec, io.output_bindings[next_output++]});
  }
  return io;
}

}  // namespace vp::platform
