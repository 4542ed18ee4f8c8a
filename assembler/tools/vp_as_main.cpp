// vp-as: assembles Sidra VP assembly into a .vpo object.
//   vp-as in.s [-o out.vpo] [-I dir]... [-D NAME[=VALUE]]... [--listing[=FILE]] [--max-errors N]
// Errors go to stderr as file:line:col: error: message; the exit code is 1
// and no output file is written (the object is written to a temporary and
// renamed only when complete).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "vp/as/assembler.h"

namespace {

int usage() {
  std::fputs(
      "usage: vp-as INPUT.s [-o OUTPUT.vpo] [-I DIR]... [-D NAME[=VALUE]]... [--listing[=FILE]] [--max-errors N]\n",
      stderr);
  return 2;
}

bool parse_int(const char* s, int64_t* v) {
  if (!*s) return false;
  errno = 0;
  char* end = nullptr;
  const bool neg = *s == '-';
  const unsigned long long u = std::strtoull(neg ? s + 1 : s, &end, 0);
  if (errno || *end) return false;
  *v = neg ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
  return true;
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
      if (eq != std::string::npos && !parse_int(d.c_str() + eq + 1, &n)) {
        std::fprintf(stderr, "vp-as: -D %s: value is not a number\n", v);
        return 2;
      }
      opt.defines.emplace_back(d.substr(0, eq), n);
    } else if (a == "--listing") {
      listing = true;
    } else if (a.rfind("--listing=", 0) == 0) {
      listing = true;
      listing_file = a.substr(10);
    } else if (a == "--max-errors" && i + 1 < argc) {
      int64_t n = 0;
      if (!parse_int(argv[++i], &n) || n < 1) return usage();
      opt.max_errors = static_cast<size_t>(n);
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
  try {
    vp::obj::write_object(r.object, out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vp-as: %s\n", e.what());
    return 1;
  }
  if (listing) {
    if (listing_file.empty()) {
      std::fputs(r.listing.c_str(), stdout);
    } else {
      FILE* f = std::fopen(listing_file.c_str(), "w");
      if (!f || std::fwrite(r.listing.data(), 1, r.listing.size(), f) != r.listing.size()) {
        std::fprintf(stderr, "vp-as: cannot write listing %s\n", listing_file.c_str());
        if (f) std::fclose(f);
        return 1;
      }
      std::fclose(f);
    }
  }
  return 0;
}
