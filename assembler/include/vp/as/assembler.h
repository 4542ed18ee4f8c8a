// The Sidra VP assembler as a library: source text in, vp::obj::Object out,
// entirely in memory. vp-as, vp-objdump (for .s input), vp-run, the tests
// and the fuzzer all call these functions. Syntax: docs/assembler.md.
//
// Errors never throw: they come back as a list of diagnostics, each
// `file:line:col: error: message`, up to Options::max_errors of them.
// (`namespace asm` is impossible in C++, hence vp::as, after the tool.)
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vp/obj/object.h"

namespace vp::as {

struct Diagnostic {
  std::string file;  // as named on the command line or in .include; "<command line>" for -D
  uint32_t line = 0, col = 0;  // 1-based; 0 when not tied to a position
  std::string message;
  std::string source_line;  // the offending line, for a caret display
  // "file:line:col: error: message" (one line, no newline).
  std::string headline() const;
  // The headline, then the source line and a caret under the column.
  std::string format() const;
};

struct Options {
  std::vector<std::string> include_dirs;                 // -I, searched after the including file's folder
  std::vector<std::pair<std::string, int64_t>> defines;  // -D NAME=VALUE, like .equ
  size_t max_errors = 50;                                // stop after this many
  bool listing = false;                                  // fill Result::listing
  // Cap on the bytes produced by .space/.byte/... (not .incbin, which is a
  // view); the fuzzer lowers it so hostile input cannot exhaust memory.
  uint64_t max_literal_bytes = uint64_t{1} << 34;
};

struct Result {
  obj::Object object;              // meaningful only when ok()
  std::vector<Diagnostic> errors;  // in the order found
  bool truncated = false;          // stopped at max_errors
  std::string listing;             // per instruction: location, core, index, word, source
  uint64_t lines = 0;              // source lines read, includes counted
  bool ok() const { return errors.empty(); }
  // Every diagnostic formatted, one after the other (empty when ok()).
  std::string error_text() const;
};

// Assembles the file at `path` (read in one go; .include and .incbin
// resolve against its folder, then Options::include_dirs).
Result assemble_file(const std::string& path, const Options& options = {});
// Assembles `source`; `name` is used in diagnostics; relative includes
// resolve against the current directory, then Options::include_dirs.
Result assemble_string(std::string_view source, const std::string& name = "<input>",
                       const Options& options = {});

// Convenience for callers that just want the object (vp-run): throws
// AsmError carrying all diagnostics; what() is Result::error_text().
struct AsmError : std::runtime_error {
  std::vector<Diagnostic> diagnostics;
  AsmError(const std::string& what, std::vector<Diagnostic> d)
      : std::runtime_error(what), diagnostics(std::move(d)) {}
};
obj::Object assemble_file_or_throw(const std::string& path, const Options& options = {});

// Source text that assembles back to a byte-identical object (vp-objdump
// --asm): .chip, .layer, every core's text with its labels and entry, every
// data segment and cell program (as .byte lines).
std::string to_source(const obj::Object& obj);

}  // namespace vp::as
