// io.json and the .input/.output directives from one description of the
// graph's inputs and outputs (io_bindings.h).
#include "vp/cc/io_bindings.h"

#include <cstdio>

namespace vp::cc {
namespace {

std::string real(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

// A name inside double quotes, for JSON and for the assembler alike: quote
// and backslash escaped, control characters as \u00XX / \xXX.
std::string quoted(const std::string& name, bool json) {
  std::string s = "\"";
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      s += '\\';
      s += ch;
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, json ? "\\u%04x" : "\\x%02x", c);
      s += b;
    } else {
      s += ch;
    }
  }
  return s + "\"";
}

std::string join(const std::vector<std::int64_t>& d) {
  std::string s;
  for (auto x : d) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

std::string dims_text(const std::vector<std::int64_t>& d) {
  std::string s;
  for (auto x : d) s += (s.empty() ? "" : "x") + std::to_string(x);
  return s.empty() ? "scalar" : s;
}

}  // namespace

bool channels_last_dims(const Shape& s, const std::vector<std::int64_t>& dims) {
  return dims.size() >= 3 && dims[0] == 1 && dims[1] == s.c && dims[2] == s.h &&
         (dims.size() == 3 ? s.w == 1 : dims.size() == 4 && dims[3] == s.w);
}

bool dims_describe_bytes(const Shape& s, const std::vector<std::int64_t>& dims) {
  std::int64_t n = 1;
  for (auto x : dims) n *= x;
  if (n != s.numel()) return false;
  if (s.c <= 1 || s.h * s.w <= 1) return true;
  const bool matrix = dims.size() == 2 && dims[0] == s.h && dims[1] == s.c && s.w == 1;
  return channels_last_dims(s, dims) || matrix;
}

namespace {

IoDesc describe(const Graph& g, int id, const std::string& name, const std::vector<std::int64_t>& dims,
                std::int64_t addr, bool output, bool softmax) {
  const Value& v = g.val(id);
  IoDesc d;
  d.name = name;
  d.output = output;
  d.dims = dims.empty() ? std::vector<std::int64_t>{v.shape.numel()} : dims;
  d.shape = v.shape;
  d.scale = v.scale;
  d.addr = addr;
  d.bytes = v.shape.numel();
  d.host_softmax = softmax;
  std::int64_t n = 1;
  for (auto x : d.dims) n *= x;
  if (n != d.bytes)
    throw CompileError(std::string(output ? "output '" : "input '") + name + "': dims " + dims_text(d.dims) +
                       " hold " + std::to_string(n) + " elements, the chip's tensor " + std::to_string(d.bytes));
  // The chip stores H x W x C. When both the channels and the pixels are
  // more than one, that is the graph's order only as channels-last, and only
  // if the graph's dims are the chip tensor's [1, C, H(, W)].
  if (v.shape.c > 1 && v.shape.h * v.shape.w > 1) {
    const bool same = channels_last_dims(v.shape, d.dims);
    if (!same && !dims_describe_bytes(v.shape, d.dims))
      throw CompileError(std::string(output ? "output '" : "input '") + name + "': dims " + dims_text(d.dims) +
                         " do not describe the chip's " + std::to_string(v.shape.h) + "x" + std::to_string(v.shape.w) +
                         "x" + std::to_string(v.shape.c) + " (HxWxC) bytes");
    d.channels_last = same;
  }
  d.image_dims = d.dims;
  d.image_bytes = d.bytes;
  // A stream of images: all of them, back to back, in one binding.
  if (g.batch > 1) {
    if (d.dims.size() >= 2 && d.dims[0] == 1) d.dims[0] = g.batch;
    else d.dims.insert(d.dims.begin(), g.batch);
    d.bytes *= g.batch;
  }
  return d;
}

}  // namespace

std::vector<std::int64_t> published_output_dims(const Graph& g, std::size_t i) {
  if (i < g.output_dims.size() && !g.output_dims[i].empty()) return g.output_dims[i];
  return g.val(g.outputs.at(i)).dims;
}

std::vector<IoDesc> io_descriptions(const Graph& g) {
  std::vector<IoDesc> out;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const Value& v = g.val(g.inputs[i]);
    out.push_back(describe(g, g.inputs[i], v.name, v.dims, g.input_plain.at(i), false, false));
  }
  for (std::size_t i = 0; i < g.outputs.size(); ++i) {
    const int id = g.outputs[i];
    const std::string name = i < g.output_names.size() ? g.output_names[i] : g.val(id).name;
    out.push_back(describe(g, id, name, published_output_dims(g, i), g.output_addr(i), true,
                           i < g.host_softmax.size() && g.host_softmax[i]));
  }
  return out;
}

std::string io_json(const Graph& g) {
  std::string s = "{\"model\": " + quoted(g.name, true) + ", \"batch\": " + std::to_string(g.batch) + ",\n \"inputs\": [";
  bool first = true, outputs = false;
  for (const IoDesc& d : io_descriptions(g)) {
    if (d.output && !outputs) {
      s += "],\n \"outputs\": [";
      outputs = true;
      first = true;
    }
    s += (first ? "\n  " : ",\n  ");
    first = false;
    s += "{\"name\": " + quoted(d.name, true) + ", \"dims\": [" + join(d.dims) + "], \"h\": " + std::to_string(d.shape.h) +
         ", \"w\": " + std::to_string(d.shape.w) + ", \"c\": " + std::to_string(d.shape.c) +
         ", \"layout\": \"hwc\", \"channels_last\": " + (d.channels_last ? "true" : "false") +
         ", \"dtype\": \"int8\", \"scale\": " + real(d.scale) + ", \"zero_point\": " + std::to_string(d.zero_point) +
         ", \"addr\": " + std::to_string(d.addr) + ", \"bytes\": " + std::to_string(d.bytes) +
         ", \"image_dims\": [" + join(d.image_dims) + "], \"image_bytes\": " + std::to_string(d.image_bytes) +
         ", \"host_softmax\": " + (d.host_softmax ? "true" : "false") + "}";
  }
  if (!outputs) s += "],\n \"outputs\": [";
  return s + "]}\n";
}

std::string io_directives(const Graph& g) {
  std::string s;
  std::size_t input = 0;
  for (const IoDesc& d : io_descriptions(g)) {
    const std::int64_t pointer = !d.output && input < g.input_pointer.size() ? g.input_pointer[input] : -1;
    input += d.output ? 0 : 1;
    s += std::string(d.output ? ".output " : ".input ") + quoted(d.name, false) + ", " + std::to_string(d.addr) +
         ", " + std::to_string(d.bytes) + ", \"int8\", " + join(d.dims);
    if (d.scale > 0) s += ", scale=" + real(d.scale) + ", zero_point=" + std::to_string(d.zero_point);
    if (d.channels_last) s += ", layout=channels_last";
    if (d.host_softmax) s += ", host_softmax=1";
    if (pointer >= 0) s += ", indirect=" + std::to_string(pointer);
    s += "\n";
  }
  return s;
}

}  // namespace vp::cc
