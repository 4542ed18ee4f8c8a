// Programs for the SystemC model tests, written in the chip's assembly and
// assembled by vp-as's library, so a test reads as the program it runs.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "vp/as/assembler.h"
#include "vp/hw/cu/core_module.h"

namespace vp::hw::test {

// The text of the first core of an assembled program.
inline std::vector<uint64_t> assemble_text(const std::string& src) {
  as::Result r = as::assemble_string(src, "test.s");
  if (!r.ok()) throw std::runtime_error(r.error_text());
  return r.object.texts.at(0).words;
}

// Loads the program into the core's instruction memory at 0.
inline void load_text(CoreModule& m, const std::string& src) {
  const std::vector<uint64_t> w = assemble_text(src);
  std::string why;
  if (!m.core().load_program(w.data(), w.size(), 0, &why)) throw std::runtime_error(why);
}

}  // namespace vp::hw::test
