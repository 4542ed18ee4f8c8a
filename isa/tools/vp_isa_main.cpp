// vp-isa: prints the instruction set reference (docs/isa.md) or a one-line
// listing, straight from the table, or writes the operand header the
// simulator is compiled against.
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "vp/isa/isa.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--markdown") == 0) {
    std::cout << vp::isa::reference_markdown();
    return 0;
  }
  if (argc == 3 && std::strcmp(argv[1], "--operands-header") == 0) {
    // Rewritten only when the text changes, so a relinked vp-isa does not
    // make everything that includes the header recompile.
    const std::string text = vp::isa::operands_header();
    std::ifstream old(argv[2], std::ios::binary);
    std::ostringstream current;
    current << old.rdbuf();
    if (old && current.str() == text) return 0;
    std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) {
      std::cerr << "vp-isa: cannot write " << argv[2] << "\n";
      return 1;
    }
    return 0;
  }
  if (argc == 1 || (argc == 2 && std::strcmp(argv[1], "--list") == 0)) {
    for (const auto& in : vp::isa::instructions()) {
      std::cout << in.mnemonic;
      for (size_t i = 0; i < in.fields.size(); ++i) std::cout << (i ? ", " : " ") << in.fields[i].name;
      std::cout << "\t; " << vp::isa::unit_name(in.unit) << ": " << in.semantics << "\n";
    }
    return 0;
  }
  std::cerr << "usage: vp-isa [--list | --markdown | --operands-header FILE]\n";
  return 2;
}
