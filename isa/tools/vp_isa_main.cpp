// vp-isa: prints the instruction set reference (docs/isa.md) or a one-line
// listing, straight from the table.
#include <cstring>
#include <iostream>

#include "vp/isa/isa.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--markdown") == 0) {
    std::cout << vp::isa::reference_markdown();
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
  std::cerr << "usage: vp-isa [--list | --markdown]\n";
  return 2;
}
