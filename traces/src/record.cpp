#include "vp/trace/record.hpp"

#include <fmt/format.h>

namespace vp::trace {

RecordParser::RecordParser() {
  literal_.set_top_level_names({"mnemonic", "mapping dict", "third element", "params dict"});
}

bool RecordParser::invalid(LiteralError& error, const ValueView& at, std::string message) const {
  error.column = at.valid() ? static_cast<std::uint32_t>(at.raw().data() - line_.data() + 1) : 1;
  error.at_end = false;
  error.message = std::move(message);
  return false;
}

bool RecordParser::parse(std::string_view line, TraceRecord& out, LiteralError& error) {
  line_ = line;
  // Checked first so that a line of prose gets this message rather than
  // one about what follows its first word.
  std::size_t first = 0;
  while (first < line.size() && (line[first] == ' ' || line[first] == '\t')) ++first;
  if (first == line.size() || line[first] != '[') {
    error.column = static_cast<std::uint32_t>(first + 1);
    error.at_end = false;
    error.message = "expected '[' opening a trace line [mnemonic, {mapping}, {timing}, {params}]";
    return false;
  }
  if (!literal_.parse(line, error)) return false;
  const ValueView root = literal_.root();
  if (!root.is_list() || root.raw().front() != '[')
    return invalid(error, root, "expected a line of the form [mnemonic, {mapping}, {timing}, {params}]");
  const std::uint32_t n = root.size();
  if (n != 3 && n != 4)
    return invalid(error, root,
                   fmt::format("expected 4 elements (mnemonic, mapping, timing, params) or 3 (assembly) but found {}", n));

  const ValueView mnem = root.element(0);
  if (mnem.kind() != NodeKind::Ident && mnem.kind() != NodeKind::String)
    return invalid(error, mnem, fmt::format("mnemonic: expected a bare word but found a {}", to_string(mnem.kind())));
  out.mnemonic = mnem.text();
  if (out.mnemonic.empty()) return invalid(error, mnem, "mnemonic: expected a non-empty name");

  out.mapping = root.element(1);
  if (!out.mapping.is_dict())
    return invalid(error, out.mapping, fmt::format("mapping: expected a dict but found a {}", to_string(out.mapping.kind())));
  out.params = root.element(n - 1);
  if (!out.params.is_dict())
    return invalid(error, out.params, fmt::format("params: expected a dict but found a {}", to_string(out.params.kind())));

  out.timed = n == 4;
  out.timing = {};
  out.inst_idx = -1;
  out.start = out.end = 0;
  if (out.timed) {
    out.timing = root.element(2);
    if (!out.timing.is_dict())
      return invalid(error, out.timing, fmt::format("timing: expected a dict {{'inst_idx': N, 'time': [start, end]}} but found a {}",
                                                    to_string(out.timing.kind())));
    const ValueView idx = out.timing.find("inst_idx");
    if (!idx.is_int()) return invalid(error, idx.valid() ? idx : out.timing, "field 'inst_idx': expected an integer");
    const ValueView time = out.timing.find("time");
    if (!time.is_list() || time.size() != 2 || !time.element(0).is_int() || !time.element(1).is_int())
      return invalid(error, time.valid() ? time : out.timing, "field 'time': expected [start, end] with two integers");
    out.inst_idx = idx.as_int();
    out.start = time.element(0).as_int();
    out.end = time.element(1).as_int();
    if (out.start < 0) return invalid(error, time, fmt::format("field 'time': start {} is negative", out.start));
    if (out.end < out.start)
      return invalid(error, time, fmt::format("field 'time': end {} is before start {}", out.end, out.start));
  }

  // Location and layer: whatever the mapping carries; absent fields keep -1.
  // One pass over the entries (this runs for every record).
  out.layer_id = out.chip = out.cluster = out.cu = out.pc = -1;
  out.layer_name = out.unit = {};
  out.has_location = false;
  const std::vector<Node>& nodes = literal_.nodes();
  std::uint32_t k = out.mapping.index() + 1;
  for (std::uint32_t e = 0; e < out.mapping.size(); ++e) {
    const Node& key = nodes[k];
    const Node& val = nodes[key.next];
    k = val.next;
    if (key.kind != NodeKind::String) continue;
    const std::string_view name = key.text;
    if (val.kind == NodeKind::Int) {
      if (name == "slyr") out.layer_id = val.i;
      else if (name == "chip") out.chip = val.i;
      else if (name == "cluster") out.cluster = val.i;
      else if (name == "cu") out.cu = val.i;
      else if (name == "pc") out.pc = val.i;
    } else if (val.kind == NodeKind::String) {
      if (name == "layer") {
        out.layer_name = val.text;
      } else if (name == "unit") {
        out.unit = val.text;
        out.has_location = true;
      }
    }
  }
  return true;
}

}  // namespace vp::trace
