// Averaged reads (vp-cc --average-reads): the compiler's mitigation of read
// noise. A Conv whose MVMs fire N times into the same sums reads each
// column N times; the noise of independent reads shrinks by sqrt(N) in the
// average, at N times the crossbar time and read energy of the layer.
// emit_conv.cpp fires the reads and scales bias and shift; N a power of two
// keeps an exact crossbar's bytes equal to the golden model's:
// round((N s) M / 2^(S + log2 N)) = round(s M / 2^S).
#include <algorithm>

#include "vp/cc/passes.h"
#include "vp/common/parse_number.h"

namespace vp::cc {

int parse_layer_value(const std::string& option, const std::string& text, int lo, int hi, bool power_of_two,
                      std::vector<std::string>& layers) {
  const std::size_t colon = text.find(':');
  const std::string count = text.substr(0, colon);
  const auto bad = [&](const std::string& why) {
    return CompileError(option + " '" + text + "': " + why);
  };
  const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
  int n = 0;
  try {
    n = static_cast<int>(common::parse_int(count, option, lo, hi));
  } catch (const common::NumberError&) {
    throw bad("expected N or N:LAYER,LAYER,... with N " + std::string(power_of_two ? "a power of two " : "") +
              "from " + range);
  }
  if (power_of_two && (n & (n - 1)) != 0)
    throw bad("N must be a power of two (1, 2, 4, 8 or 16), so the average is a shift");
  layers = layer_names_after_colon(option, text);
  return n;
}

std::vector<std::string> layer_names_after_colon(const std::string& option, const std::string& text) {
  std::vector<std::string> layers;
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos) return layers;
  std::size_t at = colon + 1;
  while (true) {
    const std::size_t comma = text.find(',', at);
    const std::string name = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (name.empty()) throw CompileError(option + " '" + text + "': an empty layer name");
    layers.push_back(name);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return layers;
}

int parse_layer_count(const std::string& option, const std::string& text, std::vector<std::string>& layers) {
  return parse_layer_value(option, text, 1, 16, true, layers);
}

std::vector<Node*> named_convs(Graph& g, const std::vector<std::string>& layers, const std::string& option) {
  for (const std::string& name : layers) {
    const auto it = std::find_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.name == name; });
    if (it == g.nodes.end() || it->op != OpKind::Conv)
      throw CompileError(option + ": '" + name + "' is not a Conv layer of the model (see --report)");
  }
  std::vector<Node*> out;
  for (Node& n : g.nodes)
    if (n.op == OpKind::Conv && (layers.empty() || std::find(layers.begin(), layers.end(), n.name) != layers.end()))
      out.push_back(&n);
  return out;
}

void set_average_reads(Graph& g, int reads, const std::vector<std::string>& layers) {
  for (Node* n : named_convs(g, layers, "--average-reads")) n->reads = reads;
}

}  // namespace vp::cc
