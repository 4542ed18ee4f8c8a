#include "directives.h"

#include <climits>
#include <vector>

namespace vp::as::detail {
namespace {

using vp::obj::CoreId;

const std::vector<std::string_view>& directive_names() {
  static const std::vector<std::string_view> names = {
      ".equ",  ".include", ".core",  ".cp",    ".entry", ".data",  ".byte",   ".half",  ".word", ".dword",
      ".space", ".align",  ".ascii", ".asciz", ".incbin", ".xbar", ".chip",   ".layer", ".text",
      ".input", ".output"};
  return names;
}

void unknown_directive(Assembly& a, std::string_view word, const char* at) {
  a.error_at(at, "unknown directive " + quote(word) + did_you_mean(word, directive_names()));
}

void dir_equ(Assembly& a, const char* at, const char* p, const char* e) {
  while (p < e && is_space(*p)) ++p;
  const char* nb = p;
  if (p < e && is_ident_start(*p))
    while (p < e && is_ident_char(*p)) ++p;
  std::string_view name(nb, p - nb);
  while (p < e && is_space(*p)) ++p;
  if (name.empty() || p >= e || *p != ',') {
    a.error_at(name.empty() ? at : p, ".equ expects NAME, EXPRESSION");
    return;
  }
  a.expr.define_equ(a.line, name, nb, p + 1, e, a.program.current_core());
}

void dir_include(Assembly& a, const char* at, const char* p, const char* e) {
  if (!a.split(p, e) || !expect_count(a, ".include", at, 1, 1, "one quoted file name")) return;
  std::string name;
  if (!string_operand(a, a.ops[0], "file name", &name)) return;
  const std::string path = a.sources.resolve(name, a.line.loc.file, a.opt.include_dirs);
  if (path.empty()) {
    a.error_at(a.ops[0].at, "cannot find include file " + quote(name) + " (searched beside " +
                                quote(a.sources[a.line.loc.file].path) +
                                (a.opt.include_dirs.empty() ? "" : " and in -I folders") + ")");
    return;
  }
  const std::string canon = Sources::canonical(path);
  std::vector<std::string>& stack = a.sources.include_stack();
  for (const auto& s : stack)
    if (s == canon) {
      a.error_at(a.ops[0].at, "include cycle: " + quote(name) + " is already being assembled");
      return;
    }
  if (stack.size() > 64) {
    a.error_at(a.ops[0].at, "includes nested more than 64 deep");
    return;
  }
  std::string text, err;
  if (!Sources::read_whole(path, &text, &err)) {
    a.error_at(a.ops[0].at, "cannot read include file " + quote(path) + ": " + err);
    return;
  }
  const uint32_t idx = a.sources.add(path, std::move(text));
  stack.push_back(canon);
  a.read_file(idx);
  a.sources.include_stack().pop_back();
}

void dir_core(Assembly& a, const char* at, const char* p, const char* e) {
  if (!a.split(p, e)) return;
  if (a.ops.size() == 1 && iequals(a.ops[0].text, "cp")) return a.select_core(CoreId{-1, -1});
  if (!expect_count(a, ".core", at, 2, 2, "CLUSTER, CU (or cp)")) return;
  int64_t cl, cu;
  if (!now(a, a.ops[0], 0, INT32_MAX, "cluster", &cl) || !now(a, a.ops[1], 0, INT32_MAX, "CU", &cu)) return;
  a.select_core(CoreId{static_cast<int32_t>(cl), static_cast<int32_t>(cu)});
}

void dir_text(Assembly& a, const char* p, const char* e) {
  if (!no_operands(a, ".text", p, e)) return;
  if (a.program.current_core() < 0) {
    a.error_at(a.line.begin, ".text with no core selected (use .core CLUSTER, CU or .cp)");
    return;
  }
  a.program.close_cells();
  a.program.set_mode(Mode::Text);
}

void dir_entry(Assembly& a, const char* at, const char* p, const char* e) {
  if (!a.split(p, e) || !expect_count(a, ".entry", at, 1, 1, "a label or instruction index")) return;
  if (a.program.current_core() < 0) {
    a.error_at(at, ".entry with no core selected (use .core CLUSTER, CU or .cp first)");
    return;
  }
  CoreBuild& c = a.program.core(a.program.current_core());
  if (c.entry_set) {
    a.error_at(at, "second .entry for core " + core_name(c.id));
    return;
  }
  c.entry_set = true;
  // Resolved with the other fix-ups: an entry label usually comes later.
  Fixup fx;
  fx.kind = Fixup::Entry;
  fx.core = a.program.current_core();
  fx.b = a.ops[0].at;
  fx.e = a.ops[0].at + a.ops[0].text.size();
  fx.line = a.line;
  a.fixups.add(fx);
}

}  // namespace

void assemble_directive(Assembly& a, std::string_view word, const char* at, const char* p, const char* e) {
  char low[16];
  if (word.size() >= sizeof low) return unknown_directive(a, word, at);
  for (size_t i = 0; i < word.size(); ++i) low[i] = lower(word[i]);
  const std::string_view d(low, word.size());
  if (d == ".byte") return data_values(a, 1, at, p, e);
  if (d == ".half") return data_values(a, 2, at, p, e);
  if (d == ".word") return data_values(a, 4, at, p, e);
  if (d == ".dword") return data_values(a, 8, at, p, e);
  if (d == ".equ") return dir_equ(a, at, p, e);
  if (d == ".include") return dir_include(a, at, p, e);
  if (d == ".core") return dir_core(a, at, p, e);
  if (d == ".cp") return no_operands(a, d, p, e) ? a.select_core(CoreId{-1, -1}) : void();
  if (d == ".text") return dir_text(a, p, e);
  if (d == ".entry") return dir_entry(a, at, p, e);
  if (d == ".data") return dir_data(a, at, p, e);
  if (d == ".space") return dir_space(a, at, p, e);
  if (d == ".align") return dir_align(a, at, p, e);
  if (d == ".ascii") return dir_ascii(a, at, p, e, false);
  if (d == ".asciz") return dir_ascii(a, at, p, e, true);
  if (d == ".incbin") return dir_incbin(a, at, p, e);
  if (d == ".xbar") return dir_xbar(a, at, p, e);
  if (d == ".chip") return dir_chip(a, at, p, e);
  if (d == ".layer") return dir_layer(a, at, p, e);
  if (d == ".input") return dir_io(a, at, p, e, false);
  if (d == ".output") return dir_io(a, at, p, e, true);
  unknown_directive(a, word, at);
}

bool no_operands(Assembly& a, std::string_view d, const char* p, const char* e) {
  while (p < e && is_space(*p)) ++p;
  if (p != e) {
    a.error_at(p, std::string(d) + " takes no operands, got " + quote(std::string_view(p, e - p)));
    return false;
  }
  return true;
}

bool expect_count(Assembly& a, std::string_view d, const char* at, size_t lo, size_t hi, const char* usage) {
  if (a.ops.size() < lo || a.ops.size() > hi) {
    a.error_at(a.ops.empty() ? at : a.ops[0].at,
               std::string(d) + " expects " + usage + ", got " + std::to_string(a.ops.size()) + " operand" +
                   (a.ops.size() == 1 ? "" : "s"));
    return false;
  }
  return true;
}

bool now(Assembly& a, const Operand& o, int64_t lo, int64_t hi, const char* what, int64_t* v) {
  const Ev r = a.eval(o.at, o.at + o.text.size(), v, true);
  if (r != Ev::Ok) return false;
  if (*v < lo || *v > hi) {
    a.error_at(o.at, std::string(what) + " " + std::to_string(*v) + " out of range (expected " + std::to_string(lo) +
                         ".." + std::to_string(hi) + ")");
    return false;
  }
  return true;
}

bool string_operand(Assembly& a, const Operand& o, const char* what, std::string* out) {
  const char* bad = nullptr;
  switch (read_string(o.text, out, &bad)) {
    case StringRead::kOk: return true;
    case StringRead::kNotQuoted:
      a.error_at(o.at, std::string("expected a quoted ") + what + ", got " + quote(o.text));
      return false;
    case StringRead::kMalformed:
      a.error_at(bad, std::string("malformed ") + what + " " + quote(o.text));
      return false;
  }
  return false;
}

}  // namespace vp::as::detail
