// The assembler: one pass over the source with fix-ups for names not yet
// defined, then the fix-ups. Every instruction is one word, so a label's
// value (its instruction index) is known the moment it is defined and only
// operands naming later labels or later .equ names need a second look.
//
// This file is the line loop: it reads each file line by line and hands
// each statement to the part that knows it: labels and `NAME = expr` to
// the symbols (symbols.cpp, expression.cpp), directives to directives.cpp
// and its neighbours, instructions to instructions.cpp. At the end the
// fix-ups are applied (fixups.cpp) and the program becomes an object
// (object_builder.cpp).
//
// Speed: files are read in one go, lines are scanned by hand (no regex, no
// streams), names are string_views into the file text, and .incbin maps
// the file and keeps a view.
#include "vp/as/assembler.h"

#include <cstring>

#include "assembly.h"
#include "directives.h"
#include "instructions.h"
#include "object_builder.h"

namespace vp::as {
namespace detail {
namespace {

class Assembler {
 public:
  Assembler(const Options& opt, Result& res) : a_(opt, res) {
    a_.read_file = [this](uint32_t file) { read_file(file); };
  }

  void run_file(const std::string& path) {
    try {
      predefine();
      std::string text;
      std::string err;
      if (!Sources::read_whole(path, &text, &err)) {
        a_.diag.error(Loc{}, "cannot read " + quote(path) + ": " + err);
        return;
      }
      const uint32_t idx = a_.sources.add(path, std::move(text));
      a_.sources.include_stack().push_back(Sources::canonical(path));
      read_file(idx);
      finish();
    } catch (const Stop&) {
    }
  }

  void run_string(std::string_view src, const std::string& name) {
    try {
      predefine();
      const uint32_t idx = a_.sources.add(name, std::string(src));
      a_.sources[idx].dir.clear();  // relative names resolve against the current directory
      a_.sources.include_stack().push_back(name);
      read_file(idx);
      finish();
    } catch (const Stop&) {
    }
  }

 private:
  // -D NAME=VALUE: .equ names known before the first line.
  void predefine() {
    for (const auto& [name, value] : a_.opt.defines) {
      Equ e;
      e.value = value;
      e.resolved = true;
      if (!a_.symbols.add_equ(a_.symbols.intern(name), e)) a_.diag.error(Loc{}, "-D " + name + " given twice");
    }
  }

  void read_file(uint32_t file) {
    const std::string& text = a_.sources[file].text;
    const char* p = text.data();
    const char* end = p + text.size();
    uint32_t line = 1;
    const Line saved = a_.line;  // of the .include line, when there is one
    while (p < end) {
      const char* eol = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (!eol) eol = end;
      a_.line.loc.file = file;
      a_.line.loc.line = line;
      a_.line.loc.line_off = static_cast<uint32_t>(p - text.data());
      a_.line.begin = p;
      ++a_.res.lines;
      statements(p, eol);
      p = eol + 1;
      ++line;
    }
    a_.line = saved;
  }

  // [label:]... [NAME = expr | directive ... | mnemonic ...]
  void statements(const char* p, const char* e) {
    e = code_end(p, e);
    while (e > p && is_space(e[-1])) --e;
    while (true) {
      while (p < e && is_space(*p)) ++p;
      if (p == e) return;
      if (!is_ident_start(*p)) {
        a_.error_at(p, "expected an instruction, directive or label, got " + quote(std::string_view(p, e - p)));
        return;
      }
      const char* ib = p;
      while (p < e && is_ident_char(*p)) ++p;
      std::string_view word(ib, p - ib);
      const char* q = p;
      while (q < e && is_space(*q)) ++q;
      if (q < e && *q == ':') {
        define_label(word, ib);
        p = q + 1;
        continue;
      }
      if (q < e && *q == '=' && !(q + 1 < e && q[1] == '=')) {
        a_.expr.define_equ(a_.line, word, ib, q + 1, e, a_.program.current_core());
        return;
      }
      if (word[0] == '.') {
        assemble_directive(a_, word, ib, p, e);
      } else {
        assemble_instruction(a_, word, ib, p, e);
      }
      return;
    }
  }

  void define_label(std::string_view name, const char* at) {
    const int core = a_.program.current_core();
    if (a_.program.mode() != Mode::Text || core < 0) {
      a_.error_at(at, "label " + quote(name) +
                          (core < 0 ? " outside a code section (labels name instruction indices; start one "
                                      "with .core CLUSTER, CU or .cp)"
                                    : " inside a data or cell section (labels name instruction indices; "
                                      "write .text to return to code)"));
      return;
    }
    const CoreBuild& c = a_.program.core(core);
    uint32_t first = 0;
    switch (a_.symbols.define_label(core, name, static_cast<uint32_t>(c.words.size()), &first)) {
      case Symbols::Define::kOk: break;
      case Symbols::Define::kIsEqu: a_.error_at(at, "label " + quote(name) + " is already defined by .equ"); break;
      case Symbols::Define::kDuplicate:
        a_.error_at(at, "duplicate label " + quote(name) + " in core " + core_name(c.id) +
                            " (first defined at index " + std::to_string(first) + ")");
        break;
    }
  }

  void finish() {
    a_.program.close_cells();
    a_.expr.start_final_pass();
    a_.fixups.resolve(a_.expr, a_.program, a_.diag);
    vp::obj::Object& o = a_.res.object;
    o.chip = chip_requirements(a_.program, a_.diag);
    if (a_.diag.any()) return;
    if (a_.opt.listing) a_.listing.render(a_.program, a_.sources, a_.res.listing);
    build_object(a_.program, a_.symbols, o);
  }

  Assembly a_;
};

}  // namespace
}  // namespace detail

Result assemble_file(const std::string& path, const Options& options) {
  Result r;
  detail::Assembler a(options, r);
  a.run_file(path);
  if (!r.ok()) r.object = vp::obj::Object{};
  return r;
}

Result assemble_string(std::string_view source, const std::string& name, const Options& options) {
  Result r;
  detail::Assembler a(options, r);
  a.run_string(source, name);
  if (!r.ok()) r.object = vp::obj::Object{};
  return r;
}

vp::obj::Object assemble_file_or_throw(const std::string& path, const Options& options) {
  Result r = assemble_file(path, options);
  if (!r.ok()) {
    std::string text = r.error_text();  // before the diagnostics are moved out
    throw AsmError(text, std::move(r.errors));
  }
  return std::move(r.object);
}

}  // namespace vp::as
