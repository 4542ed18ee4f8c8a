// One assembly run: the parts every statement works with, and the line
// being read. The line loop (assembler.cpp) fills `line`; instructions
// (instructions.cpp) and directives (directives.cpp and the files beside
// it) read their operands through the helpers here.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "expression.h"
#include "fixups.h"
#include "lexer.h"
#include "listing.h"
#include "program.h"
#include "source.h"
#include "symbols.h"
#include "vp/as/assembler.h"

namespace vp::as::detail {

struct Assembly {
  Assembly(const Options& options, Result& result)
      : opt(options), res(result), diag(sources, result, options.max_errors), expr(symbols, diag), program(diag) {}
  Assembly(const Assembly&) = delete;
  Assembly& operator=(const Assembly&) = delete;

  const Options& opt;
  Result& res;
  Sources sources;
  Diagnostics diag;
  Symbols symbols;
  Evaluator expr;
  Program program;
  Fixups fixups;
  Listing listing;

  Line line;                 // the line being read
  std::vector<Operand> ops;  // the operands of its statement (after split())
  // Reads the lines of a file added to `sources` (for .include).
  std::function<void(uint32_t file)> read_file;

  void error_at(const char* p, std::string msg) { diag.error(line, p, std::move(msg)); }

  // Splits [p, e) into `ops`; false (reported) when an operand is empty.
  bool split(const char* p, const char* e) {
    if (const char* empty = split_operands(p, e, ops)) {
      error_at(empty, "empty operand");
      return false;
    }
    return true;
  }

  // Evaluates [p, e) of the current line with the current core's labels.
  Ev eval(const char* p, const char* e, int64_t* v, bool immediate = false) {
    return expr.eval(line, p, e, program.current_core(), v, immediate);
  }

  // Opens core `id` (.core, .cp), giving a new core its label scope.
  void select_core(vp::obj::CoreId id) {
    if (program.select_core(id)) symbols.add_scope(id);
  }
};

}  // namespace vp::as::detail
