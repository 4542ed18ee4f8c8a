// Python-literal values as they appear in ZeBu-style trace lines.
//
// A parsed line is a flat pre-order array of nodes (one arena reused for
// every line) so that reading a trace does not allocate per record. Views
// borrow from that arena and from the line text: they are valid until the
// next line is parsed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vp::trace {

enum class NodeKind : std::uint8_t {
  Int,     // 42, -1
  Float,   // 1.5, -2e3
  String,  // 'abc' or "abc" (text holds the unescaped contents)
  Bool,    // True / False (i holds 1 / 0)
  None,    // None
  Ident,   // any other bare word (the mnemonic is one)
  Enum,    // <DataFmt.FP16: 3>: text = "DataFmt.FP16", i = 3 when the value is an int
  List,    // [a, b] and (a, b)
  Dict,    // {k: v}: children are key, value, key, value, ...
};

const char* to_string(NodeKind kind);

struct Node {
  NodeKind kind = NodeKind::None;
  std::uint32_t size = 0;  // List: element count; Dict: pair count
  std::uint32_t next = 0;  // index one past this node's subtree
  std::int64_t i = 0;
  double f = 0.0;
  std::string_view text;  // String / Ident / Enum name
  std::string_view raw;   // the value's source text, exactly as written
};

// A read-only handle on one node of a parsed line.
class ValueView {
 public:
  ValueView() = default;
  ValueView(const std::vector<Node>* nodes, std::uint32_t index) : nodes_(nodes), index_(index) {}

  bool valid() const { return nodes_ != nullptr; }
  NodeKind kind() const { return node().kind; }
  bool is_int() const { return valid() && kind() == NodeKind::Int; }
  bool is_string() const { return valid() && kind() == NodeKind::String; }
  bool is_list() const { return valid() && kind() == NodeKind::List; }
  bool is_dict() const { return valid() && kind() == NodeKind::Dict; }

  std::int64_t as_int() const { return node().i; }
  double as_float() const { return node().kind == NodeKind::Float ? node().f : static_cast<double>(node().i); }
  std::string_view text() const { return node().text; }
  std::string_view raw() const { return node().raw; }
  std::uint32_t size() const { return node().size; }

  // List element / dict entry access by position (linear: dicts and lists in
  // trace lines hold a handful of entries).
  ValueView element(std::uint32_t pos) const;
  ValueView key_at(std::uint32_t pos) const { return element(2 * pos); }
  ValueView value_at(std::uint32_t pos) const { return element(2 * pos + 1); }

  // Dict lookup by string key; invalid view when absent or not a dict.
  ValueView find(std::string_view key) const;
  // Convenience: integer entry of a dict, or `fallback` when absent / not an int.
  std::int64_t get_int(std::string_view key, std::int64_t fallback) const;
  std::string_view get_string(std::string_view key, std::string_view fallback = {}) const;

  const Node& node() const { return (*nodes_)[index_]; }
  const std::vector<Node>* nodes() const { return nodes_; }
  std::uint32_t index() const { return index_; }

 private:
  const std::vector<Node>* nodes_ = nullptr;
  std::uint32_t index_ = 0;
};

// Structural equality (what Python's == says for the literals): kinds and
// values match recursively, dict entries compared in order.
bool equal(const ValueView& a, const ValueView& b);

// Appends the value as JSON (None -> null, Ident -> string, Enum -> its
// source text as a string, non-string dict keys -> their source text).
void append_json(std::string& out, const ValueView& v);
void append_json_string(std::string& out, std::string_view s);

}  // namespace vp::trace
