// vp-isa: prints the instruction set reference (docs/isa.md) or a one-line
// listing, straight from the table, or writes the operand header the
// simulator is compiled against.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "vp/common/atomic_file.h"
#include "vp/isa/isa.h"

namespace {

// What was printed reached standard output: a full disk or a closed pipe
// (`vp-isa --markdown > /dev/full`) is an error, not a silent success.
int stdout_status() {
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::cerr << "vp-isa: cannot write to standard output: " << std::strerror(errno ? errno : EIO) << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--markdown") == 0) {
    std::cout << vp::isa::reference_markdown();
    return stdout_status();
  }
  if (argc == 3 && std::strcmp(argv[1], "--operands-header") == 0) {
    // Rewritten only when the text changes, so a relinked vp-isa does not
    // make everything that includes the header recompile.
    const std::string text = vp::isa::operands_header();
    std::ifstream old(argv[2], std::ios::binary);
    std::ostringstream current;
    current << old.rdbuf();
    if (old && current.str() == text) return 0;
    try {
      vp::common::write_file_atomically(argv[2], text);  // never a half-written header
    } catch (const vp::common::OutputError& e) {
      std::cerr << "vp-isa: " << e.what() << "\n";
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
    return stdout_status();
  }
  std::cerr << "usage: vp-isa [--list | --markdown | --operands-header FILE]\n";
  return 2;
}
