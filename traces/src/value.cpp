#include "vp/trace/value.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace vp::trace {

const char* to_string(NodeKind kind) {
  switch (kind) {
    case NodeKind::Int: return "int";
    case NodeKind::Float: return "float";
    case NodeKind::String: return "string";
    case NodeKind::Bool: return "bool";
    case NodeKind::None: return "None";
    case NodeKind::Ident: return "name";
    case NodeKind::Enum: return "enum";
    case NodeKind::List: return "list";
    case NodeKind::Dict: return "dict";
  }
  return "?";
}

ValueView ValueView::element(std::uint32_t pos) const {
  const Node& n = node();
  const std::uint32_t count = n.kind == NodeKind::Dict ? 2 * n.size : n.size;
  if ((n.kind != NodeKind::List && n.kind != NodeKind::Dict) || pos >= count) return {};
  std::uint32_t idx = index_ + 1;
  for (std::uint32_t k = 0; k < pos; ++k) idx = (*nodes_)[idx].next;
  return {nodes_, idx};
}

ValueView ValueView::find(std::string_view key) const {
  if (!is_dict()) return {};
  std::uint32_t idx = index_ + 1;
  for (std::uint32_t k = 0; k < node().size; ++k) {
    const Node& kn = (*nodes_)[idx];
    const std::uint32_t vidx = kn.next;
    if (kn.kind == NodeKind::String && kn.text == key) return {nodes_, vidx};
    idx = (*nodes_)[vidx].next;
  }
  return {};
}

std::int64_t ValueView::get_int(std::string_view key, std::int64_t fallback) const {
  const ValueView v = find(key);
  return v.is_int() ? v.as_int() : fallback;
}

std::string_view ValueView::get_string(std::string_view key, std::string_view fallback) const {
  const ValueView v = find(key);
  return v.is_string() ? v.text() : fallback;
}

bool equal(const ValueView& a, const ValueView& b) {
  if (a.valid() != b.valid()) return false;
  if (!a.valid()) return true;
  const Node& x = a.node();
  const Node& y = b.node();
  if (x.kind != y.kind) return false;
  switch (x.kind) {
    case NodeKind::Int:
    case NodeKind::Bool: return x.i == y.i;
    case NodeKind::Float: return x.f == y.f || (std::isnan(x.f) && std::isnan(y.f));
    case NodeKind::None: return true;
    case NodeKind::String:
    case NodeKind::Ident: return x.text == y.text;
    case NodeKind::Enum: return x.text == y.text && x.i == y.i;
    case NodeKind::List:
    case NodeKind::Dict: {
      if (x.size != y.size) return false;
      const std::uint32_t count = x.kind == NodeKind::Dict ? 2 * x.size : x.size;
      for (std::uint32_t k = 0; k < count; ++k)
        if (!equal(a.element(k), b.element(k))) return false;
      return true;
    }
  }
  return false;
}

namespace {

void append_int(std::string& out, std::int64_t v) {
  char tmp[24];
  const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
  out.append(tmp, static_cast<std::size_t>(r.ptr - tmp));
}

bool needs_escape(std::string_view s) {
  for (const char c : s)
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return true;
  return false;
}

void append_json_node(std::string& out, const std::vector<Node>& nodes, std::uint32_t idx);

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  if (!needs_escape(s)) {
    out.append(s);
    out.push_back('"');
    return;
  }
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20) {
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(u));
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

void append_json(std::string& out, const ValueView& v) {
  if (!v.valid()) {
    out += "null";
    return;
  }
  append_json_node(out, *v.nodes(), v.index());
}

namespace {

void append_json_node(std::string& out, const std::vector<Node>& nodes, std::uint32_t idx) {
  const Node& n = nodes[idx];
  switch (n.kind) {
    case NodeKind::Int: append_int(out, n.i); return;
    case NodeKind::Float:
      // JSON has no inf/nan; keep the value readable as a string instead.
      if (std::isfinite(n.f)) fmt::format_to(std::back_inserter(out), "{}", n.f);
      else append_json_string(out, n.raw);
      return;
    case NodeKind::Bool: out += n.i ? "true" : "false"; return;
    case NodeKind::None: out += "null"; return;
    case NodeKind::String:
    case NodeKind::Ident: append_json_string(out, n.text); return;
    case NodeKind::Enum: append_json_string(out, n.raw); return;
    case NodeKind::List: {
      out.push_back('[');
      std::uint32_t child = idx + 1;  // children follow in pre-order; next skips a subtree
      for (std::uint32_t k = 0; k < n.size; ++k) {
        if (k) out.push_back(',');
        append_json_node(out, nodes, child);
        child = nodes[child].next;
      }
      out.push_back(']');
      return;
    }
    case NodeKind::Dict: {
      out.push_back('{');
      std::uint32_t child = idx + 1;
      for (std::uint32_t k = 0; k < n.size; ++k) {
        if (k) out.push_back(',');
        const Node& key = nodes[child];
        append_json_string(out, key.kind == NodeKind::String ? key.text : key.raw);
        out.push_back(':');
        child = key.next;
        append_json_node(out, nodes, child);
        child = nodes[child].next;
      }
      out.push_back('}');
      return;
    }
  }
}

}  // namespace

}  // namespace vp::trace
