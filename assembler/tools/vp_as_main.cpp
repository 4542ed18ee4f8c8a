// vp-as: assembles Sidra VP assembly into a .vpo object.
//   vp-as in.s [-o out.vpo] [-I dir]... [-D NAME[=VALUE]]... [--listing[=FILE]] [--max-errors N]
// Errors go to stderr as file:line:col: error: message; the exit code is 1
// and no output file is written: the object and the listing file are
// written to temporaries and renamed into place together, only when both
// are complete. Exit codes: 0 ok, 1 errors in the source or a failed
// output, 2 usage.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "vp/as/assembler.h"
#include "vp/common/atomic_file.h"
#include "vp/common/parse_number.h"

namespace {

int usage() {
  std::fputs(
      "usage: vp-as INPUT.s [-o OUTPUT.vpo] [-I DIR]... [-D NAME[=VALUE]]... [--listing[=FILE]] [--max-errors N]\n",
      stderr);
  return 2;
}


}  // namespace

int main(int argc, char** argv) {
  vp::as::Options opt;
  std::string in, out, listing_file;
  bool listing = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> const char* {
      if (a.size() > std::strlen(flag)) return argv[i] + std::strlen(flag);
      if (i + 1 >= argc) return nullptr;
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      usage();
      return 0;
    } else if (a.rfind("-o", 0) == 0) {
      const char* v = value("-o");
      if (!v) return usage();
      out = v;
    } else if (a.rfind("-I", 0) == 0) {
      const char* v = value("-I");
      if (!v) return usage();
      opt.include_dirs.push_back(v);
    } else if (a.rfind("-D", 0) == 0) {
      const char* v = value("-D");
      if (!v) return usage();
      std::string d = v;
      const size_t eq = d.find('=');
      int64_t n = 1;
      if (eq != std::string::npos) {
        try {
          n = vp::common::parse_int(d.substr(eq + 1), "-D " + d.substr(0, eq));
        } catch (const std::exception& e) {
          std::fprintf(stderr, "vp-as: %s\n", e.what());
          return 2;
        }
      }
      // The name as the source would spell it (docs/assembler.md, names):
      // -D 1abc=5 or -D =5 defined a name no line could use.
      const std::string name = d.substr(0, eq);
      const auto start = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
      bool ok = !name.empty() && start(name[0]);
      for (char c : name) ok = ok && (start(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '$');
      if (!ok) {
        std::fprintf(stderr, "vp-as: -D %s: '%s' is not a name (a letter, '_' or '.', then letters, digits, '_', '.', '$')\n",
                     d.c_str(), name.c_str());
        return 2;
      }
      opt.defines.emplace_back(name, n);
    } else if (a == "--listing") {
      listing = true;
    } else if (a.rfind("--listing=", 0) == 0) {
      listing = true;
      listing_file = a.substr(10);
    } else if (a == "--max-errors") {
      if (i + 1 >= argc) return usage();
      try {
        opt.max_errors = static_cast<size_t>(vp::common::parse_uint(argv[++i], "--max-errors", 1000000));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "vp-as: %s\n", e.what());
        return 2;
      }
      if (opt.max_errors == 0) {
        std::fputs("vp-as: --max-errors: expected a count of at least 1, got 0\n", stderr);
        return 2;
      }
    } else if (!a.empty() && a[0] == '-' && a != "-") {
      std::fprintf(stderr, "vp-as: unknown option %s\n", a.c_str());
      return usage();
    } else if (in.empty()) {
      in = a;
    } else {
      return usage();
    }
  }
  if (in.empty()) return usage();
  if (out.empty()) {
    const size_t dot = in.rfind('.');
    const size_t slash = in.rfind('/');
    out = (dot != std::string::npos && (slash == std::string::npos || dot > slash) ? in.substr(0, dot) : in) + ".vpo";
  }
  opt.listing = listing;
  vp::as::Result r = vp::as::assemble_file(in, opt);
  if (!r.ok()) {
    std::fputs(r.error_text().c_str(), stderr);
    std::fprintf(stderr, "vp-as: %zu error%s; %s not written\n", r.errors.size(), r.errors.size() == 1 ? "" : "s",
                 out.c_str());
    return 1;
  }
  // A source with neither an instruction nor a crossbar cell program (empty,
  // only comments, names, metadata or data) would load and run as a program
  // that does nothing: no object is written for it. Cell programs alone are
  // a model to deploy. (The library assembles such sources: tests and tools
  // build partial programs in memory.)
  if (r.object.cells.empty() &&
      std::none_of(r.object.texts.begin(), r.object.texts.end(), [](const auto& t) { return !t.words.empty(); })) {
    std::fprintf(stderr,
                 "%s: error: no code: %s (start a core with .core CLUSTER, CU or .cp)\nvp-as: 1 error; %s not written\n",
                 in.c_str(),
                 r.object.texts.empty() ? "no instruction in any core and no crossbar cell program"
                                        : "the cores declared have no instructions and there is no crossbar cell program",
                 out.c_str());
    return 1;
  }
  // Both outputs are complete in their temporaries before either is
  // renamed into place: a listing that cannot be written leaves no object
  // (and an existing object unchanged), and the reverse.
  try {
    const bool listing_to_file = listing && !listing_file.empty();
    if (vp::common::same_file(in, out) || (listing_to_file && vp::common::same_file(in, listing_file)))
      throw vp::common::OutputError("refusing to write an output over the input " + in);
    vp::common::AtomicFile object_file(out);
    vp::obj::write_object(r.object, object_file.stream(), out);
    std::unique_ptr<vp::common::AtomicFile> listing_out;
    if (listing_to_file) {
      listing_out = std::make_unique<vp::common::AtomicFile>(listing_file);
      listing_out->write(r.listing);
    }
    // A rename that fails puts back the one before it (commit_together).
    vp::common::commit_together(listing_out ? std::vector<vp::common::AtomicFile*>{listing_out.get(), &object_file}
                                            : std::vector<vp::common::AtomicFile*>{&object_file});
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vp-as: %s\n", e.what());
    return 1;
  }
  if (listing && listing_file.empty()) {
    std::fputs(r.listing.c_str(), stdout);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
      std::fprintf(stderr, "vp-as: cannot write the listing to standard output: %s\n", std::strerror(errno));
      return 1;
    }
  }
  return 0;
}
