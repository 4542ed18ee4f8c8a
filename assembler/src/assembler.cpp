// The assembler: one pass over the source with fix-ups for names not yet
// defined, then the fix-ups. Every instruction is one word, so a label's
// value (its instruction index) is known the moment it is defined and only
// operands naming later labels or later .equ names need a second look.
//
// Operand parsing is driven entirely by the ISA table (vp::isa::InstrInfo::
// fields): the kind of each field decides whether a register, an
// expression, a branch target or a named choice is expected, and the field's
// min/max give the range. There is no per-mnemonic code here.
//
// Speed: files are read in one go, lines are scanned by hand (no regex, no
// streams), names are string_views into the file text, and .incbin maps
// the file and keeps a view.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "vp/as/assembler.h"
#include "vp/common/suggest.h"
#include "vp/isa/isa.h"

namespace vp::as {
namespace {

using vp::isa::Field;
using vp::isa::FieldKind;
using vp::isa::InstrInfo;
using vp::obj::Bytes;
using vp::obj::CoreId;
using vp::obj::DataSegment;

constexpr uint32_t kNoFile = UINT32_MAX;

struct Loc {
  uint32_t file = kNoFile;
  uint32_t line = 0;
  uint32_t col = 0;
  uint32_t line_off = 0;  // offset of the line's first character in the file text
};

struct SourceFile {
  std::string path;  // as given
  std::string dir;   // folder for relative .include/.incbin ("" = cwd)
  std::string text;
};

struct Stop {};  // thrown when max_errors is reached

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
inline bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}
inline bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9') || c == '$'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

std::string closest(std::string_view word, const std::vector<std::string_view>& candidates) {
  vp::common::Nearest nearest(word, std::max<size_t>(2, word.size() / 2), vp::common::Case::kInsensitive);
  for (auto c : candidates) nearest.offer(c);
  return nearest.best();
}

std::string quote(std::string_view s) {
  if (s.size() > 60) return "'" + std::string(s.substr(0, 57)) + "...'";
  return "'" + std::string(s) + "'";
}

const std::unordered_map<std::string_view, const InstrInfo*>& mnemonic_table() {
  static const auto table = [] {
    std::unordered_map<std::string_view, const InstrInfo*> m;
    for (const auto& in : vp::isa::instructions()) m.emplace(in.mnemonic, &in);
    return m;
  }();
  return table;
}

const std::vector<std::string_view>& directive_names() {
  static const std::vector<std::string_view> names = {
      ".equ",  ".include", ".core",  ".cp",    ".entry", ".data",  ".byte",   ".half",  ".word", ".dword",
      ".space", ".align",  ".ascii", ".asciz", ".incbin", ".xbar", ".chip",   ".layer", ".text",
      ".input", ".output"};
  return names;
}

std::string operand_names(const InstrInfo& in) {
  std::string s;
  for (size_t i = 0; i < in.fields.size(); ++i) s += (i ? ", " : "") + in.fields[i].name;
  return s;
}

std::string core_name(CoreId c) {
  return c.is_control() ? "cp" : "c" + std::to_string(c.cluster) + "." + std::to_string(c.cu);
}

// A piece of a data segment or cell program: owned bytes or a view.
struct Piece {
  std::vector<uint8_t> owned;
  Bytes view;
  bool is_view = false;
  uint64_t size() const { return is_view ? view.size : owned.size(); }
};

class Assembler {
 public:
  Assembler(const Options& opt, Result& res) : opt_(opt), res_(res) {}

  void run_file(const std::string& path) {
    try {
      predefine();
      std::string text;
      std::string err;
      if (!read_whole(path, &text, &err)) {
        add_error(Loc{}, "cannot read " + quote(path) + ": " + err);
        return;
      }
      const uint32_t idx = add_file(path, std::move(text));
      include_stack_.push_back(canonical(path));
      process(idx);
      finish();
    } catch (const Stop&) {
    }
  }

  void run_string(std::string_view src, const std::string& name) {
    try {
      predefine();
      const uint32_t idx = add_file(name, std::string(src));
      files_[idx].dir.clear();
      include_stack_.push_back(name);
      process(idx);
      finish();
    } catch (const Stop&) {
    }
  }

 private:
  // ---- diagnostics --------------------------------------------------------
  void add_error(const Loc& loc, std::string msg) {
    Diagnostic d;
    if (loc.file == kNoFile) {
      d.file = "<command line>";
    } else {
      const SourceFile& f = files_[loc.file];
      d.file = f.path;
      d.line = loc.line;
      d.col = loc.col;
      if (loc.line_off <= f.text.size()) {
        const char* b = f.text.data() + loc.line_off;
        const char* e = static_cast<const char*>(std::memchr(b, '\n', f.text.size() - loc.line_off));
        d.source_line.assign(b, e ? e : f.text.data() + f.text.size());
        if (!d.source_line.empty() && d.source_line.back() == '\r') d.source_line.pop_back();
      }
    }
    d.message = std::move(msg);
    res_.errors.push_back(std::move(d));
    if (res_.errors.size() >= opt_.max_errors) {
      res_.truncated = true;
      throw Stop{};
    }
  }

  Loc loc_at(const char* p) const {
    Loc l = cur_;
    l.col = static_cast<uint32_t>(p - line_begin_) + 1;
    return l;
  }
  void error_at(const char* p, std::string msg) { add_error(loc_at(p), std::move(msg)); }

  // ---- files ----------------------------------------------------------------
  static bool read_whole(const std::string& path, std::string* out, std::string* err) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      *err = std::strerror(errno);
      return false;
    }
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      *err = "not a regular file";
      return false;
    }
    out->resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < out->size()) {
      const ssize_t k = ::read(fd, out->data() + got, out->size() - got);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) break;
      got += static_cast<size_t>(k);
    }
    ::close(fd);
    out->resize(got);
    return true;
  }

  static std::string dir_of(const std::string& path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
  }

  static std::string canonical(const std::string& path) {
    char buf[PATH_MAX];
    if (::realpath(path.c_str(), buf)) return buf;
    return path;
  }

  static bool exists(const std::string& p) {
    struct stat st{};
    return ::stat(p.c_str(), &st) == 0;
  }

  // Resolves a quoted file name: absolute, else beside the including file,
  // else each -I folder. Returns "" when nothing exists.
  std::string resolve(const std::string& name) const {
    if (!name.empty() && name[0] == '/') return exists(name) ? name : std::string();
    const std::string here = files_[cur_.file].dir + name;
    if (exists(here)) return here;
    for (const auto& d : opt_.include_dirs) {
      std::string p = d.empty() || d.back() == '/' ? d + name : d + "/" + name;
      if (exists(p)) return p;
    }
    return {};
  }

  uint32_t add_file(const std::string& path, std::string text) {
    files_.push_back(SourceFile{path, dir_of(path), std::move(text)});
    return static_cast<uint32_t>(files_.size() - 1);
  }

  void predefine() {
    for (const auto& [name, value] : opt_.defines) {
      Equ e;
      e.value = value;
      e.resolved = true;
      if (!equs_.emplace(intern(name), e).second) add_error(Loc{}, "-D " + name + " given twice");
    }
  }

  std::string_view intern(const std::string& s) {
    interned_.push_back(s);
    return interned_.back();
  }

  // ---- the line loop ----------------------------------------------------------
  void process(uint32_t file) {
    const std::string& text = files_[file].text;
    const char* p = text.data();
    const char* end = p + text.size();
    uint32_t line = 1;
    const Loc saved = cur_;
    const char* saved_begin = line_begin_;
    while (p < end) {
      const char* eol = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (!eol) eol = end;
      cur_.file = file;
      cur_.line = line;
      cur_.line_off = static_cast<uint32_t>(p - text.data());
      line_begin_ = p;
      line_end_ = eol;
      ++res_.lines;
      do_line(p, eol);
      p = eol + 1;
      ++line;
    }
    cur_ = saved;
    line_begin_ = saved_begin;
  }

  // Where the line's code ends: at ';', '#', '//' outside quotes.
  static const char* code_end(const char* p, const char* e) {
    char q = 0;
    for (; p < e; ++p) {
      const char c = *p;
      if (q) {
        if (c == '\\' && p + 1 < e) ++p;
        else if (c == q) q = 0;
        continue;
      }
      if (c == ';' || c == '#') return p;
      if (c == '/' && p + 1 < e && p[1] == '/') return p;
      if (c == '"' || c == '\'') q = c;
    }
    return e;
  }

  void do_line(const char* p, const char* e) {
    e = code_end(p, e);
    while (e > p && is_space(e[-1])) --e;
    while (true) {
      while (p < e && is_space(*p)) ++p;
      if (p == e) return;
      if (!is_ident_start(*p)) {
        error_at(p, "expected an instruction, directive or label, got " + quote(std::string_view(p, e - p)));
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
        define_equ(word, ib, q + 1, e);
        return;
      }
      if (word[0] == '.') {
        directive(word, ib, p, e);
      } else {
        instruction(word, ib, p, e);
      }
      return;
    }
  }

  // ---- operands -------------------------------------------------------------------
  struct Operand {
    std::string_view text;  // trimmed
    const char* at;         // start in the line (for columns)
  };

  // Splits at top-level commas (not inside parentheses or quotes).
  bool split(const char* p, const char* e, std::vector<Operand>& out) {
    out.clear();
    while (p < e && is_space(*p)) ++p;
    if (p == e) return true;
    const char* start = p;
    int depth = 0;
    char q = 0;
    auto push = [&](const char* b, const char* x) {
      while (b < x && is_space(*b)) ++b;
      while (x > b && is_space(x[-1])) --x;
      out.push_back(Operand{std::string_view(b, x - b), b});
    };
    for (; p < e; ++p) {
      const char c = *p;
      if (q) {
        if (c == '\\' && p + 1 < e) ++p;
        else if (c == q) q = 0;
        continue;
      }
      if (c == '"' || c == '\'') q = c;
      else if (c == '(') ++depth;
      else if (c == ')') --depth;
      else if (c == ',' && depth == 0) {
        push(start, p);
        start = p + 1;
      }
    }
    push(start, e);
    for (const auto& o : out)
      if (o.text.empty()) {
        error_at(o.at, "empty operand");
        return false;
      }
    return true;
  }

  // ---- expressions ---------------------------------------------------------------
  enum class Ev { Ok, Unresolved, Error };

  struct ExprState {
    const char* p;
    const char* e;
    const char* base;  // line start, for columns
    Loc loc;           // of the line
    int scope;         // core whose labels are visible (-1: none)
    bool final_pass;   // undefined names are errors
    bool immediate;    // undefined names are errors "defined before use"
    bool unresolved = false;
    bool failed = false;
  };

  void expr_error(ExprState& s, const char* at, std::string msg) {
    if (s.failed) return;
    s.failed = true;
    Loc l = s.loc;
    l.col = static_cast<uint32_t>(at - s.base) + 1;
    add_error(l, std::move(msg));
  }

  static void skip_ws(ExprState& s) {
    while (s.p < s.e && is_space(*s.p)) ++s.p;
  }

  // Evaluates the whole of [p, e) as one expression.
  Ev eval(const char* p, const char* e, int scope, int64_t* out, bool immediate = false) {
    ExprState s{p, e, line_begin_, cur_, scope, final_pass_, immediate};
    const Ev r = eval_in(s, out);
    if (r == Ev::Unresolved && immediate && !final_pass_) {
      error_at(p, "expression " + quote(trim(std::string_view(p, e - p))) +
                      " depends on names defined later; this directive needs its value here");
      return Ev::Error;
    }
    return r;
  }

  Ev eval_in(ExprState& s, int64_t* out) {
    const char* start = s.p;
    skip_ws(s);
    if (s.p == s.e) {
      expr_error(s, s.p, "expected an expression");
      return Ev::Error;
    }
    const int64_t v = binary(s, 0);
    skip_ws(s);
    if (!s.failed && s.p < s.e)
      expr_error(s, s.p, "unexpected " + quote(std::string_view(s.p, s.e - s.p)) + " in expression " +
                             quote(trim(std::string_view(start, s.e - start))));
    if (s.failed) return Ev::Error;
    if (s.unresolved) return Ev::Unresolved;
    *out = v;
    return Ev::Ok;
  }

  static int precedence(const char* p, const char* e, int* len) {
    *len = 1;
    switch (*p) {
      case '|': return 1;
      case '^': return 2;
      case '&': return 3;
      case '<':
      case '>':
        if (p + 1 < e && p[1] == p[0]) {
          *len = 2;
          return 4;
        }
        return -1;
      case '+':
      case '-': return 5;
      case '*':
      case '/':
      case '%': return 6;
      default: return -1;
    }
  }

  int64_t binary(ExprState& s, int min_prec) {
    int64_t lhs = unary(s);
    while (!s.failed) {
      skip_ws(s);
      if (s.p >= s.e) break;
      int len;
      const int prec = precedence(s.p, s.e, &len);
      if (prec < 0 || prec < min_prec) break;
      const char* op = s.p;
      s.p += len;
      const int64_t rhs = binary(s, prec + 1);
      if (s.failed) return 0;
      const auto ul = static_cast<uint64_t>(lhs), ur = static_cast<uint64_t>(rhs);
      switch (*op) {
        case '|': lhs = static_cast<int64_t>(ul | ur); break;
        case '^': lhs = static_cast<int64_t>(ul ^ ur); break;
        case '&': lhs = static_cast<int64_t>(ul & ur); break;
        case '+': lhs = static_cast<int64_t>(ul + ur); break;
        case '-': lhs = static_cast<int64_t>(ul - ur); break;
        case '*': lhs = static_cast<int64_t>(ul * ur); break;
        case '/':
        case '%':
          if (s.unresolved) break;
          if (rhs == 0) {
            expr_error(s, op, "division by zero");
            return 0;
          }
          if (rhs == -1) lhs = *op == '/' ? static_cast<int64_t>(0 - ul) : 0;
          else lhs = *op == '/' ? lhs / rhs : lhs % rhs;
          break;
        case '<':
        case '>':
          if (s.unresolved) break;
          if (rhs < 0 || rhs > 63) {
            expr_error(s, op, "shift count " + std::to_string(rhs) + " outside 0..63");
            return 0;
          }
          lhs = *op == '<' ? static_cast<int64_t>(ul << rhs) : (lhs >> rhs);
          break;
        default: break;
      }
    }
    return lhs;
  }

  int64_t unary(ExprState& s) {
    skip_ws(s);
    if (s.p >= s.e) {
      expr_error(s, s.p, "expected a number, name or '(' at the end of the expression");
      return 0;
    }
    const char c = *s.p;
    if (c == '-') {
      ++s.p;
      return static_cast<int64_t>(0 - static_cast<uint64_t>(unary(s)));
    }
    if (c == '+') {
      ++s.p;
      return unary(s);
    }
    if (c == '~') {
      ++s.p;
      return static_cast<int64_t>(~static_cast<uint64_t>(unary(s)));
    }
    return primary(s);
  }

  int64_t primary(ExprState& s) {
    const char c = *s.p;
    if (c == '(') {
      const char* open = s.p;
      ++s.p;
      const int64_t v = binary(s, 0);
      skip_ws(s);
      if (s.failed) return 0;
      if (s.p >= s.e || *s.p != ')') {
        expr_error(s, open, "missing ')' for this '('");
        return 0;
      }
      ++s.p;
      return v;
    }
    if (is_digit(c)) return number(s);
    if (c == '\'') {
      const char* at = s.p;
      ++s.p;
      int v = 0;
      if (s.p >= s.e || !unescape(s.p, s.e, &v) || s.p >= s.e || *s.p != '\'') {
        expr_error(s, at, "malformed character literal");
        return 0;
      }
      ++s.p;
      return v;
    }
    if (is_ident_start(c)) {
      const char* b = s.p;
      while (s.p < s.e && is_ident_char(*s.p)) ++s.p;
      return lookup(s, std::string_view(b, s.p - b), b);
    }
    expr_error(s, s.p, "expected a number, name or '(', got " + quote(std::string_view(s.p, s.e - s.p)));
    return 0;
  }

  // Reads one (possibly escaped) character of a string or char literal.
  static bool unescape(const char*& p, const char* e, int* out) {
    if (p >= e) return false;
    if (*p != '\\') {
      *out = static_cast<unsigned char>(*p++);
      return true;
    }
    ++p;
    if (p >= e) return false;
    const char c = *p++;
    switch (c) {
      case 'n': *out = '\n'; return true;
      case 't': *out = '\t'; return true;
      case 'r': *out = '\r'; return true;
      case '0': *out = 0; return true;
      case '\\': *out = '\\'; return true;
      case '\'': *out = '\''; return true;
      case '"': *out = '"'; return true;
      case 'x': {
        int v = 0, n = 0;
        while (p < e && n < 2) {
          const char h = lower(*p);
          if (is_digit(h)) v = v * 16 + (h - '0');
          else if (h >= 'a' && h <= 'f') v = v * 16 + (h - 'a' + 10);
          else break;
          ++p;
          ++n;
        }
        if (!n) return false;
        *out = v;
        return true;
      }
      default: return false;
    }
  }

  int64_t number(ExprState& s) {
    const char* b = s.p;
    uint64_t v = 0;
    int base = 10;
    if (*s.p == '0' && s.p + 1 < s.e && (lower(s.p[1]) == 'x' || lower(s.p[1]) == 'b')) {
      base = lower(s.p[1]) == 'x' ? 16 : 2;
      s.p += 2;
    }
    const char* digits = s.p;
    bool overflow = false;
    while (s.p < s.e) {
      const char ch = lower(*s.p);
      int d;
      if (is_digit(ch)) d = ch - '0';
      else if (ch >= 'a' && ch <= 'f' && base == 16) d = ch - 'a' + 10;
      else if (ch == '_') {
        ++s.p;
        continue;
      } else break;
      if (d >= base) break;
      if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) overflow = true;
      v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
      ++s.p;
    }
    if (s.p < s.e && is_ident_char(*s.p)) {
      while (s.p < s.e && is_ident_char(*s.p)) ++s.p;
      expr_error(s, b, "malformed number " + quote(std::string_view(b, s.p - b)));
      return 0;
    }
    if (s.p == digits) {
      expr_error(s, b, "malformed number " + quote(std::string_view(b, s.p - b)));
      return 0;
    }
    if (overflow) {
      expr_error(s, b, "number " + quote(std::string_view(b, s.p - b)) + " does not fit in 64 bits");
      return 0;
    }
    return static_cast<int64_t>(v);
  }

  int64_t lookup(ExprState& s, std::string_view name, const char* at) {
    if (s.scope >= 0) {
      const auto& labels = cores_[static_cast<size_t>(s.scope)].labels;
      auto it = labels.find(name);
      if (it != labels.end()) return it->second;
    }
    auto it = equs_.find(name);
    if (it != equs_.end()) {
      Equ& q = it->second;
      if (q.resolved) return q.value;
      if (q.bad) {
        s.failed = true;  // already reported where it was defined
        return 0;
      }
      if (q.busy) {
        expr_error(s, at, ".equ " + quote(name) + " is defined in terms of itself");
        return 0;
      }
      // Evaluate the pending definition where it was written.
      q.busy = true;
      ExprState inner{q.expr_b, q.expr_e, files_[q.loc.file].text.data() + q.loc.line_off, q.loc, q.scope,
                      s.final_pass, false};
      int64_t v = 0;
      const Ev r = eval_in(inner, &v);
      q.busy = false;
      if (r == Ev::Ok) {
        q.resolved = true;
        q.value = v;
        return v;
      }
      if (r == Ev::Error) {
        q.bad = true;
        s.failed = true;  // reported at the definition
        return 0;
      }
      s.unresolved = true;
      return 0;
    }
    if (s.final_pass || s.immediate) {
      std::string msg = "undefined name " + quote(name);
      if (s.immediate && !s.final_pass) msg += " (this directive needs names defined before it)";
      for (const auto& c : cores_)
        if (static_cast<int>(&c - cores_.data()) != s.scope && c.labels.count(name)) {
          msg += "; " + quote(name) + " is a label of core " + core_name(c.id) + " (labels are per core)";
          break;
        }
      expr_error(s, at, msg);
      return 0;
    }
    s.unresolved = true;
    return 0;
  }

  // ---- labels and .equ ----------------------------------------------------------------
  void define_label(std::string_view name, const char* at) {
    if (mode_ != Mode::Text || cur_core_ < 0) {
      error_at(at, "label " + quote(name) +
                       (cur_core_ < 0 ? " outside a code section (labels name instruction indices; start one "
                                        "with .core CLUSTER, CU or .cp)"
                                      : " inside a data or cell section (labels name instruction indices; "
                                        "write .text to return to code)"));
      return;
    }
    if (equs_.count(name)) {
      error_at(at, "label " + quote(name) + " is already defined by .equ");
      return;
    }
    CoreBuild& c = cores_[static_cast<size_t>(cur_core_)];
    auto [it, fresh] = c.labels.emplace(name, static_cast<uint32_t>(c.words.size()));
    if (!fresh) {
      error_at(at, "duplicate label " + quote(name) + " in core " + core_name(c.id) + " (first defined at index " +
                       std::to_string(it->second) + ")");
      return;
    }
    all_labels_.insert(name);
  }

  void define_equ(std::string_view name, const char* at, const char* b, const char* e) {
    if (all_labels_.count(name)) {
      error_at(at, quote(name) + " is already defined as a label");
      return;
    }
    if (equs_.count(name)) {
      error_at(at, ".equ " + quote(name) + " is already defined");
      return;
    }
    Equ q;
    q.expr_b = b;
    q.expr_e = e;
    q.loc = cur_;
    q.scope = cur_core_;
    int64_t v = 0;
    const Ev r = eval(b, e, cur_core_, &v);
    if (r == Ev::Error) q.bad = true;
    if (r == Ev::Ok) {
      q.value = v;
      q.resolved = true;
    }
    equs_.emplace(name, q);
  }

  // ---- instructions ----------------------------------------------------------------------
  void instruction(std::string_view word, const char* at, const char* p, const char* e) {
    char low[32];
    const InstrInfo* info = nullptr;
    if (word.size() < sizeof low) {
      for (size_t i = 0; i < word.size(); ++i) low[i] = lower(word[i]);
      const auto& t = mnemonic_table();
      auto it = t.find(std::string_view(low, word.size()));
      if (it != t.end()) info = it->second;
    }
    if (!info) {
      std::vector<std::string_view> names;
      for (const auto& in : vp::isa::instructions()) names.push_back(in.mnemonic);
      const std::string near = closest(word, names);
      error_at(at, "unknown instruction " + quote(word) + (near.empty() ? "" : "; did you mean '" + near + "'?"));
      return;
    }
    if (cur_core_ < 0) {
      error_at(at, "instruction " + quote(word) +
                       " outside a code section (start one with .core CLUSTER, CU or .cp)");
      return;
    }
    if (mode_ != Mode::Text) {
      error_at(at, "instruction " + quote(word) + " inside a " + (mode_ == Mode::Xbar ? "cell program" : "data") +
                       " section (write .text to return to the code of core " +
                       core_name(cores_[static_cast<size_t>(cur_core_)].id) + ")");
      return;
    }
    if (!split(p, e, ops_)) return;
    const auto& fields = info->fields;
    if (ops_.size() != fields.size()) {
      error_at(ops_.empty() ? at : ops_[0].at,
               quote(info->mnemonic) + " takes " + std::to_string(fields.size()) + " operand" +
                   (fields.size() == 1 ? "" : "s") + (fields.empty() ? "" : " (" + operand_names(*info) + ")") +
                   ", got " + std::to_string(ops_.size()));
      return;
    }
    CoreBuild& core = cores_[static_cast<size_t>(cur_core_)];
    uint64_t w = uint64_t{static_cast<uint8_t>(info->opcode)} << vp::isa::kOpcodeShift;
    const uint32_t index = static_cast<uint32_t>(core.words.size());
    bool ok = true;
    for (size_t i = 0; i < fields.size(); ++i) {
      const Field& f = fields[i];
      const Operand& o = ops_[i];
      int64_t v = 0;
      if (vp::isa::is_register(f.kind)) {
        if (!parse_register(o.text, &v)) {
          error_at(o.at, "expected register r0..r31 for operand '" + f.name + "' of '" + info->mnemonic + "', got " +
                             quote(o.text));
          ok = false;
          continue;
        }
      } else if (f.kind == FieldKind::Enum) {
        const vp::isa::EnumValue* ev = nullptr;
        char buf[32];
        if (o.text.size() < sizeof buf) {
          for (size_t k = 0; k < o.text.size(); ++k) buf[k] = lower(o.text[k]);
          ev = f.enums->by_name(std::string_view(buf, o.text.size()));
        }
        if (!ev) {
          std::string choices;
          for (const auto& x : f.enums->values) choices += (choices.empty() ? "" : ", ") + x.name;
          error_at(o.at, "expected one of " + choices + " for operand '" + f.name + "' of '" + info->mnemonic +
                             "', got " + quote(o.text));
          ok = false;
          continue;
        }
        v = ev->value;
      } else {
        const Ev r = eval(o.at, o.at + o.text.size(), cur_core_, &v);
        if (r == Ev::Error) {
          ok = false;
          continue;
        }
        if (r == Ev::Unresolved) {
          Fixup fx;
          fx.kind = Fixup::Field;
          fx.core = cur_core_;
          fx.index = index;
          fx.info = info;
          fx.field = static_cast<uint8_t>(i);
          fx.b = o.at;
          fx.e = o.at + o.text.size();
          fx.loc = loc_at(o.at);
          fx.line_begin = line_begin_;
          fixups_.push_back(fx);
          continue;
        }
        if (!check_field(f, *info, v, o.at, o.text)) {
          ok = false;
          continue;
        }
      }
      w |= (static_cast<uint64_t>(v) & ((uint64_t{1} << f.width) - 1)) << f.shift;
    }
    if (!ok) {
      // Keep indices stable for later labels; drop fix-ups of this word.
      while (!fixups_.empty() && fixups_.back().kind == Fixup::Field && fixups_.back().core == cur_core_ &&
             fixups_.back().index == index)
        fixups_.pop_back();
    }
    core.words.push_back(w);
    if (opt_.listing) listing_.push_back(ListEntry{cur_core_, index, cur_});
  }

  static bool parse_register(std::string_view t, int64_t* v) {
    if (t.size() == 4 && iequals(t, "zero")) {
      *v = 0;
      return true;
    }
    if (t.size() < 2 || t.size() > 3 || lower(t[0]) != 'r') return false;
    int n = 0;
    for (size_t i = 1; i < t.size(); ++i) {
      if (!is_digit(t[i])) return false;
      n = n * 10 + (t[i] - '0');
    }
    if (t.size() == 3 && t[1] == '0') return false;  // no r05
    if (n >= vp::isa::kRegisterCount) return false;
    *v = n;
    return true;
  }

  bool check_field(const Field& f, const InstrInfo& info, int64_t v, const char* at, std::string_view text) {
    if (v >= f.min_value() && v <= f.max_value()) return true;
    const char* what = f.kind == FieldKind::Target ? "branch target " : "immediate ";
    std::string msg = what + std::to_string(v);
    if (trim(text) != std::to_string(v)) msg += " (" + quote(trim(text)) + ")";
    msg += " out of range for operand '" + f.name + "' of '" + info.mnemonic + "' (expected " +
           std::to_string(f.min_value()) + ".." + std::to_string(f.max_value()) + ")";
    error_at(at, msg);
    return false;
  }

  // ---- directives -------------------------------------------------------------------------
  void directive(std::string_view word, const char* at, const char* p, const char* e) {
    char low[16];
    if (word.size() >= sizeof low) return unknown_directive(word, at);
    for (size_t i = 0; i < word.size(); ++i) low[i] = lower(word[i]);
    const std::string_view d(low, word.size());
    if (d == ".byte") return data_values(1, at, p, e);
    if (d == ".half") return data_values(2, at, p, e);
    if (d == ".word") return data_values(4, at, p, e);
    if (d == ".dword") return data_values(8, at, p, e);
    if (d == ".equ") return dir_equ(at, p, e);
    if (d == ".include") return dir_include(at, p, e);
    if (d == ".core") return dir_core(at, p, e);
    if (d == ".cp") return no_operands(d, p, e) ? select_core(CoreId{-1, -1}) : void();
    if (d == ".text") return dir_text(at, p, e);
    if (d == ".entry") return dir_entry(at, p, e);
    if (d == ".data") return dir_data(at, p, e);
    if (d == ".space") return dir_space(at, p, e);
    if (d == ".align") return dir_align(at, p, e);
    if (d == ".ascii") return dir_ascii(at, p, e, false);
    if (d == ".asciz") return dir_ascii(at, p, e, true);
    if (d == ".incbin") return dir_incbin(at, p, e);
    if (d == ".xbar") return dir_xbar(at, p, e);
    if (d == ".chip") return dir_chip(at, p, e);
    if (d == ".layer") return dir_layer(at, p, e);
    if (d == ".input") return dir_io(at, p, e, false);
    if (d == ".output") return dir_io(at, p, e, true);
    unknown_directive(word, at);
  }

  void unknown_directive(std::string_view word, const char* at) {
    const std::string near = closest(word, directive_names());
    error_at(at, "unknown directive " + quote(word) + (near.empty() ? "" : "; did you mean '" + near + "'?"));
  }

  bool no_operands(std::string_view d, const char* p, const char* e) {
    while (p < e && is_space(*p)) ++p;
    if (p != e) {
      error_at(p, std::string(d) + " takes no operands, got " + quote(std::string_view(p, e - p)));
      return false;
    }
    return true;
  }

  bool expect_count(std::string_view d, const char* at, size_t lo, size_t hi, const char* usage) {
    if (ops_.size() < lo || ops_.size() > hi) {
      error_at(ops_.empty() ? at : ops_[0].at,
               std::string(d) + " expects " + usage + ", got " + std::to_string(ops_.size()) + " operand" +
                   (ops_.size() == 1 ? "" : "s"));
      return false;
    }
    return true;
  }

  // Evaluates an operand that must be known now and lie in [lo, hi].
  bool now(const Operand& o, int64_t lo, int64_t hi, const char* what, int64_t* v) {
    const Ev r = eval(o.at, o.at + o.text.size(), cur_core_, v, true);
    if (r != Ev::Ok) return false;
    if (*v < lo || *v > hi) {
      error_at(o.at, std::string(what) + " " + std::to_string(*v) + " out of range (expected " + std::to_string(lo) +
                         ".." + std::to_string(hi) + ")");
      return false;
    }
    return true;
  }

  bool string_operand(const Operand& o, const char* what, std::string* out) {
    std::string_view t = o.text;
    if (t.size() < 2 || t.front() != '"' || t.back() != '"') {
      error_at(o.at, std::string("expected a quoted ") + what + ", got " + quote(t));
      return false;
    }
    out->clear();
    const char* p = t.data() + 1;
    const char* e = t.data() + t.size() - 1;
    while (p < e) {
      int c = 0;
      const char* at = p;
      if (*p == '"' || !unescape(p, e, &c)) {
        error_at(at, std::string("malformed ") + what + " " + quote(t));
        return false;
      }
      out->push_back(static_cast<char>(c));
    }
    return true;
  }

  void dir_equ(const char* at, const char* p, const char* e) {
    while (p < e && is_space(*p)) ++p;
    const char* nb = p;
    if (p < e && is_ident_start(*p))
      while (p < e && is_ident_char(*p)) ++p;
    std::string_view name(nb, p - nb);
    while (p < e && is_space(*p)) ++p;
    if (name.empty() || p >= e || *p != ',') {
      error_at(name.empty() ? at : p, ".equ expects NAME, EXPRESSION");
      return;
    }
    define_equ(name, nb, p + 1, e);
  }

  void dir_include(const char* at, const char* p, const char* e) {
    if (!split(p, e, ops_) || !expect_count(".include", at, 1, 1, "one quoted file name")) return;
    std::string name;
    if (!string_operand(ops_[0], "file name", &name)) return;
    const std::string path = resolve(name);
    if (path.empty()) {
      error_at(ops_[0].at, "cannot find include file " + quote(name) + " (searched beside " +
                               quote(files_[cur_.file].path) + (opt_.include_dirs.empty() ? "" : " and in -I folders") +
                               ")");
      return;
    }
    const std::string canon = canonical(path);
    for (const auto& s : include_stack_)
      if (s == canon) {
        error_at(ops_[0].at, "include cycle: " + quote(name) + " is already being assembled");
        return;
      }
    if (include_stack_.size() > 64) {
      error_at(ops_[0].at, "includes nested more than 64 deep");
      return;
    }
    std::string text, err;
    if (!read_whole(path, &text, &err)) {
      error_at(ops_[0].at, "cannot read include file " + quote(path) + ": " + err);
      return;
    }
    const uint32_t idx = add_file(path, std::move(text));
    include_stack_.push_back(canon);
    const char* saved_end = line_end_;
    process(idx);
    line_end_ = saved_end;
    include_stack_.pop_back();
  }

  void dir_core(const char* at, const char* p, const char* e) {
    if (!split(p, e, ops_)) return;
    if (ops_.size() == 1 && iequals(ops_[0].text, "cp")) return select_core(CoreId{-1, -1});
    if (!expect_count(".core", at, 2, 2, "CLUSTER, CU (or cp)")) return;
    int64_t cl, cu;
    if (!now(ops_[0], 0, INT32_MAX, "cluster", &cl) || !now(ops_[1], 0, INT32_MAX, "CU", &cu)) return;
    select_core(CoreId{static_cast<int32_t>(cl), static_cast<int32_t>(cu)});
  }

  void select_core(CoreId id) {
    close_block();
    auto it = core_index_.find(id);
    if (it == core_index_.end()) {
      it = core_index_.emplace(id, static_cast<int>(cores_.size())).first;
      cores_.emplace_back();
      cores_.back().id = id;
      cores_.back().words.reserve(1024);
    }
    cur_core_ = it->second;
    mode_ = Mode::Text;
  }

  void dir_text(const char*, const char* p, const char* e) {
    if (!no_operands(".text", p, e)) return;
    if (cur_core_ < 0) {
      error_at(line_begin_, ".text with no core selected (use .core CLUSTER, CU or .cp)");
      return;
    }
    close_block();
    mode_ = Mode::Text;
  }

  void dir_entry(const char* at, const char* p, const char* e) {
    if (!split(p, e, ops_) || !expect_count(".entry", at, 1, 1, "a label or instruction index")) return;
    if (cur_core_ < 0) {
      error_at(at, ".entry with no core selected (use .core CLUSTER, CU or .cp first)");
      return;
    }
    CoreBuild& c = cores_[static_cast<size_t>(cur_core_)];
    if (c.entry_set) {
      error_at(at, "second .entry for core " + core_name(c.id));
      return;
    }
    c.entry_set = true;
    Fixup fx;
    fx.kind = Fixup::Entry;
    fx.core = cur_core_;
    fx.b = ops_[0].at;
    fx.e = ops_[0].at + ops_[0].text.size();
    fx.loc = loc_at(ops_[0].at);
    fx.line_begin = line_begin_;
    fixups_.push_back(fx);
  }

  void dir_data(const char* at, const char* p, const char* e) {
    if (!split(p, e, ops_)) return;
    close_block();
    mode_ = Mode::None;  // until the directive is known to be good
    if (ops_.empty()) {
      error_at(at, ".data expects global, ADDR | sram, CLUSTER, ADDR | local, ADDR");
      return;
    }
    SegBuild s;
    int64_t addr = 0, cl = 0;
    const std::string_view kind = ops_[0].text;
    if (iequals(kind, "global")) {
      if (!expect_count(".data global", at, 2, 2, "global, ADDR")) return;
      if (!now(ops_[1], 0, INT64_MAX, "address", &addr)) return;
      s.space = DataSegment::Space::Global;
    } else if (iequals(kind, "sram")) {
      if (!expect_count(".data sram", at, 3, 3, "sram, CLUSTER, ADDR")) return;
      if (!now(ops_[1], 0, INT32_MAX, "cluster", &cl) || !now(ops_[2], 0, INT64_MAX, "address", &addr)) return;
      s.space = DataSegment::Space::Sram;
      s.core = CoreId{static_cast<int32_t>(cl), -1};
    } else if (iequals(kind, "local")) {
      if (!expect_count(".data local", at, 2, 2, "local, ADDR")) return;
      if (cur_core_ < 0) {
        error_at(at, ".data local with no core selected (local is the scratchpad of the current core)");
        return;
      }
      if (!now(ops_[1], 0, INT64_MAX, "address", &addr)) return;
      s.space = DataSegment::Space::Local;
      s.core = cores_[static_cast<size_t>(cur_core_)].id;
    } else {
      error_at(ops_[0].at, "expected global, sram or local for .data, got " + quote(kind));
      return;
    }
    s.address = static_cast<uint64_t>(addr);
    s.loc = cur_;
    segs_.push_back(std::move(s));
    mode_ = Mode::Data;
  }

  // The current data piece to append literal bytes to.
  std::vector<uint8_t>* literal_target(const char* at, const char* what) {
    if (mode_ == Mode::Data) {
      SegBuild& s = segs_.back();
      if (s.piece.is_view) {
        // Literals after an .incbin continue in a new segment right after it.
        SegBuild n;
        n.space = s.space;
        n.core = s.core;
        n.address = s.address + s.piece.size();
        n.loc = cur_;
        segs_.push_back(std::move(n));
      }
      return &segs_.back().piece.owned;
    }
    if (mode_ == Mode::Xbar) {
      CellBuild& c = cells_.back();
      if (c.pieces.empty() || c.pieces.back().is_view) c.pieces.emplace_back();
      return &c.pieces.back().owned;
    }
    error_at(at, std::string(what) + " outside a data section (start one with .data global|sram|local, ...)");
    return nullptr;
  }

  bool budget(const char* at, uint64_t n) {
    if (n > opt_.max_literal_bytes || literal_bytes_ > opt_.max_literal_bytes - n) {
      error_at(at, "more than " + std::to_string(opt_.max_literal_bytes) + " bytes of literal data");
      return false;
    }
    literal_bytes_ += n;
    return true;
  }

  void data_values(int size, const char* at, const char* p, const char* e) {
    static const char* const names[] = {"", ".byte", ".half", "", ".word", "", "", "", ".dword"};
    const char* name = names[size];
    if (mode_ == Mode::Xbar && size != 1) {
      error_at(at, std::string(name) + " inside a cell program (level bytes are given with .byte or .incbin)");
      return;
    }
    std::vector<uint8_t>* out = literal_target(at, name);
    if (!out) return;
    if (!split(p, e, ops_)) return;
    if (ops_.empty()) {
      error_at(at, std::string(name) + " expects a list of expressions");
      return;
    }
    if (!budget(at, ops_.size() * static_cast<uint64_t>(size))) return;
    const int64_t lo = mode_ == Mode::Xbar ? 0 : (size == 8 ? INT64_MIN : -(int64_t{1} << (8 * size - 1)));
    const int64_t hi = size == 8 ? INT64_MAX : (int64_t{1} << (8 * size)) - 1;
    out->reserve(out->size() + ops_.size() * static_cast<size_t>(size));
    for (const Operand& o : ops_) {
      int64_t v = 0;
      const uint64_t off = out->size();
      const Ev r = eval(o.at, o.at + o.text.size(), cur_core_, &v, mode_ == Mode::Xbar);
      if (r == Ev::Unresolved) {
        Fixup fx;
        fx.kind = Fixup::Data;
        fx.core = cur_core_;
        fx.seg = segs_.size() - 1;
        fx.offset = off;
        fx.size = static_cast<uint8_t>(size);
        fx.lo = lo;
        fx.hi = hi;
        fx.b = o.at;
        fx.e = o.at + o.text.size();
        fx.loc = loc_at(o.at);
        fx.line_begin = line_begin_;
        fixups_.push_back(fx);
      } else if (r == Ev::Ok && (v < lo || v > hi)) {
        error_at(o.at, std::string(mode_ == Mode::Xbar ? "cell level " : "value ") + std::to_string(v) +
                           " out of range for " + name + " (expected " + std::to_string(lo) + ".." +
                           std::to_string(hi) + ")");
      }
      const auto u = static_cast<uint64_t>(r == Ev::Ok ? v : 0);
      for (int i = 0; i < size; ++i) out->push_back(static_cast<uint8_t>(u >> (8 * i)));
    }
  }

  void dir_space(const char* at, const char* p, const char* e) {
    std::vector<uint8_t>* out = literal_target(at, ".space");
    if (!out || !split(p, e, ops_) || !expect_count(".space", at, 1, 2, "N[, FILL]")) return;
    int64_t n = 0, fill = 0;
    if (!now(ops_[0], 0, INT64_MAX, "size", &n)) return;
    if (ops_.size() == 2 && !now(ops_[1], mode_ == Mode::Xbar ? 0 : -128, 255, "fill byte", &fill)) return;
    if (!budget(at, static_cast<uint64_t>(n))) return;
    out->resize(out->size() + static_cast<size_t>(n), static_cast<uint8_t>(fill));
  }

  void dir_align(const char* at, const char* p, const char* e) {
    if (mode_ != Mode::Data) {
      error_at(at, ".align outside a data section");
      return;
    }
    if (!split(p, e, ops_) || !expect_count(".align", at, 1, 1, "a power of two")) return;
    int64_t n = 0;
    if (!now(ops_[0], 1, int64_t{1} << 20, "alignment", &n)) return;
    if (n & (n - 1)) {
      error_at(ops_[0].at, ".align " + std::to_string(n) + " is not a power of two");
      return;
    }
    std::vector<uint8_t>* out = literal_target(at, ".align");
    const SegBuild& s = segs_.back();
    const uint64_t here = s.address + out->size();
    const uint64_t pad = (static_cast<uint64_t>(n) - here % static_cast<uint64_t>(n)) % static_cast<uint64_t>(n);
    if (!budget(at, pad)) return;
    out->resize(out->size() + pad, 0);
  }

  void dir_ascii(const char* at, const char* p, const char* e, bool nul) {
    const char* name = nul ? ".asciz" : ".ascii";
    if (mode_ == Mode::Xbar) {
      error_at(at, std::string(name) + " inside a cell program");
      return;
    }
    std::vector<uint8_t>* out = literal_target(at, name);
    if (!out || !split(p, e, ops_)) return;
    if (ops_.empty()) {
      error_at(at, std::string(name) + " expects quoted strings");
      return;
    }
    std::string s;
    for (const Operand& o : ops_) {
      if (!string_operand(o, "string", &s)) return;
      if (!budget(at, s.size() + 1)) return;
      out->insert(out->end(), s.begin(), s.end());
      if (nul) out->push_back(0);
    }
  }

  void dir_incbin(const char* at, const char* p, const char* e) {
    if (mode_ != Mode::Data && mode_ != Mode::Xbar) {
      error_at(at, ".incbin outside a data section or cell program");
      return;
    }
    if (!split(p, e, ops_) || !expect_count(".incbin", at, 1, 3, "\"FILE\"[, OFFSET[, LENGTH]]")) return;
    std::string name;
    if (!string_operand(ops_[0], "file name", &name)) return;
    int64_t off = 0, len = -1;
    if (ops_.size() >= 2 && !now(ops_[1], 0, INT64_MAX, "offset", &off)) return;
    if (ops_.size() == 3 && !now(ops_[2], 0, INT64_MAX, "length", &len)) return;
    const std::string path = resolve(name);
    if (path.empty()) {
      error_at(ops_[0].at, "cannot find .incbin file " + quote(name));
      return;
    }
    std::shared_ptr<const vp::obj::MappedFile> m;
    auto it = maps_.find(path);
    if (it != maps_.end()) {
      m = it->second;
    } else {
      try {
        m = vp::obj::map_file(path);
      } catch (const std::exception& ex) {
        error_at(ops_[0].at, std::string("cannot read .incbin file: ") + ex.what());
        return;
      }
      maps_.emplace(path, m);
      backing_->parts.push_back(m);
    }
    const auto uoff = static_cast<uint64_t>(off);
    if (uoff > m->size) {
      error_at(ops_[1].at, ".incbin offset " + std::to_string(off) + " beyond the end of " + quote(name) + " (" +
                               std::to_string(m->size) + " bytes)");
      return;
    }
    const uint64_t n = len < 0 ? m->size - uoff : static_cast<uint64_t>(len);
    if (n > m->size - uoff) {
      error_at(ops_[2].at, ".incbin length " + std::to_string(n) + " beyond the end of " + quote(name) + " (" +
                               std::to_string(m->size - uoff) + " bytes after the offset)");
      return;
    }
    if (n == 0) return;
    Piece piece;
    piece.is_view = true;
    piece.view = Bytes{m->data + uoff, n};
    if (mode_ == Mode::Xbar) {
      cells_.back().pieces.push_back(std::move(piece));
      return;
    }
    SegBuild& s = segs_.back();
    if (s.piece.size() == 0) {
      s.piece = std::move(piece);
      return;
    }
    SegBuild nseg;
    nseg.space = s.space;
    nseg.core = s.core;
    nseg.address = s.address + s.piece.size();
    nseg.loc = cur_;
    nseg.piece = std::move(piece);
    segs_.push_back(std::move(nseg));
  }

  void dir_xbar(const char* at, const char* p, const char* e) {
    close_block();
    mode_ = Mode::None;
    if (!split(p, e, ops_) || !expect_count(".xbar", at, 7, 7, "CLUSTER, CU, XBAR, ROW0, COL0, ROWS, COLS")) return;
    int64_t v[7];
    static const char* const what[7] = {"cluster", "CU", "crossbar", "first row", "first column", "rows", "columns"};
    static const int64_t hi[7] = {INT32_MAX, INT32_MAX, 255, 1 << 20, 1 << 20, 1 << 20, 1 << 20};
    for (int i = 0; i < 7; ++i)
      if (!now(ops_[static_cast<size_t>(i)], i >= 5 ? 1 : 0, hi[i], what[i], &v[i])) return;
    CellBuild c;
    c.hdr.cluster = static_cast<int32_t>(v[0]);
    c.hdr.cu = static_cast<int32_t>(v[1]);
    c.hdr.xbar = static_cast<int32_t>(v[2]);
    c.hdr.row0 = static_cast<uint32_t>(v[3]);
    c.hdr.col0 = static_cast<uint32_t>(v[4]);
    c.hdr.rows = static_cast<uint32_t>(v[5]);
    c.hdr.cols = static_cast<uint32_t>(v[6]);
    c.loc = cur_;
    c.loc.col = static_cast<uint32_t>(at - line_begin_) + 1;
    cells_.push_back(std::move(c));
    mode_ = Mode::Xbar;
  }

  // Ends an open cell program, checking its size.
  void close_block() {
    if (mode_ != Mode::Xbar) return;
    mode_ = Mode::None;
    CellBuild& c = cells_.back();
    uint64_t n = 0;
    for (const auto& pc : c.pieces) n += pc.size();
    const uint64_t want = uint64_t{c.hdr.rows} * c.hdr.cols;
    if (n != want)
      add_error(c.loc, "cell program for crossbar " + std::to_string(c.hdr.xbar) + " of core c" +
                           std::to_string(c.hdr.cluster) + "." + std::to_string(c.hdr.cu) + " has " +
                           std::to_string(n) + " level bytes, expected ROWS*COLS = " + std::to_string(c.hdr.rows) +
                           "*" + std::to_string(c.hdr.cols) + " = " + std::to_string(want));
  }

  void dir_chip(const char* at, const char* p, const char* e) {
    if (!split(p, e, ops_)) return;
    if (ops_.empty()) {
      error_at(at, ".chip expects key=value pairs (clusters, cus, xbars, rows, cols, cell_bits)");
      return;
    }
    for (const Operand& o : ops_) {
      const size_t eq = o.text.find('=');
      const std::string_view key = trim(o.text.substr(0, eq == std::string_view::npos ? o.text.size() : eq));
      uint32_t* slot = nullptr;
      vp::obj::ChipRequirements& c = declared_;
      if (key == "clusters") slot = &c.clusters;
      else if (key == "cus") slot = &c.cus_per_cluster;
      else if (key == "xbars") slot = &c.xbars_per_cu;
      else if (key == "rows") slot = &c.rows;
      else if (key == "cols") slot = &c.cols;
      else if (key == "cell_bits") slot = &c.cell_bits;
      if (!slot || eq == std::string_view::npos) {
        error_at(o.at, "expected key=value with key clusters, cus, xbars, rows, cols or cell_bits, got " +
                           quote(o.text));
        continue;
      }
      Operand val{trim(o.text.substr(eq + 1)), o.at + eq + 1};
      while (val.at < o.at + o.text.size() && is_space(*val.at)) ++val.at;
      int64_t v = 0;
      if (!now(val, 0, key == "cell_bits" ? 8 : UINT32_MAX, std::string(key).c_str(), &v)) continue;
      if (*slot && *slot != v) {
        error_at(o.at, ".chip " + std::string(key) + " given twice with different values (" + std::to_string(*slot) +
                           " and " + std::to_string(v) + ")");
        continue;
      }
      *slot = static_cast<uint32_t>(v);
      chip_loc_ = loc_at(line_begin_);
    }
  }

  void dir_layer(const char* at, const char* p, const char* e) {
    if (!split(p, e, ops_) || !expect_count(".layer", at, 2, 2, "ID, \"NAME\"")) return;
    int64_t id = 0;
    if (!now(ops_[0], 0, 65535, "layer id", &id)) return;
    std::string name;
    if (!string_operand(ops_[1], "layer name", &name)) return;
    if (name.find('\0') != std::string::npos) {
      error_at(ops_[1].at, "layer name contains a NUL character");
      return;
    }
    auto [it, fresh] = layers_.emplace(static_cast<uint32_t>(id), name);
    if (!fresh && it->second != name)
      error_at(ops_[1].at, "layer " + std::to_string(id) + " already named " + quote(it->second));
  }

  // .input/.output "name", ADDR, BYTES, "dtype"[, D0, D1, ...]: a tensor the
  // host binds a file to. Metadata like .layer: it does not end a data block.
  void dir_io(const char* at, const char* p, const char* e, bool output) {
    const char* d = output ? ".output" : ".input";
    if (!split(p, e, ops_) || !expect_count(d, at, 4, 4 + 16, "\"NAME\", ADDR, BYTES, \"DTYPE\"[, DIMS...]")) return;
    vp::obj::IoBinding b;
    b.output = output;
    if (!string_operand(ops_[0], "tensor name", &b.name)) return;
    if (b.name.empty() || b.name.find('\0') != std::string::npos) {
      error_at(ops_[0].at, std::string(d) + " name must be non-empty and contain no NUL character");
      return;
    }
    int64_t addr = 0, bytes = 0;
    if (!now(ops_[1], 0, INT64_MAX, "address", &addr) || !now(ops_[2], 1, INT64_MAX, "byte count", &bytes)) return;
    b.address = static_cast<uint64_t>(addr);
    b.bytes = static_cast<uint64_t>(bytes);
    if (!string_operand(ops_[3], "dtype", &b.dtype)) return;
    const uint64_t esize = vp::obj::io_dtype_size(b.dtype);
    if (esize == 0) {
      error_at(ops_[3].at, "unknown dtype " + quote(b.dtype) + " (expected int8, uint8, int16, int32 or float32)");
      return;
    }
    uint64_t n = esize;
    bool overflow = false;
    for (size_t i = 4; i < ops_.size(); ++i) {
      int64_t dim = 0;
      if (!now(ops_[i], 1, INT64_MAX, "dimension", &dim)) return;
      b.shape.push_back(static_cast<uint64_t>(dim));
      if (n > UINT64_MAX / static_cast<uint64_t>(dim)) overflow = true;
      else n *= static_cast<uint64_t>(dim);
    }
    if (!b.shape.empty() && (overflow || n != b.bytes)) {
      std::string dims;
      for (uint64_t x : b.shape) dims += (dims.empty() ? "" : "x") + std::to_string(x);
      error_at(ops_[2].at, std::string(d) + " " + quote(b.name) + ": " + std::to_string(b.bytes) +
                               " bytes, but shape " + dims + " of " + b.dtype + " is " +
                               (overflow ? std::string("too large") : std::to_string(n) + " bytes"));
      return;
    }
    for (const auto& other : io_)
      if (other.name == b.name) {
        error_at(ops_[0].at, "tensor " + quote(b.name) + " already bound (by an " +
                                 (other.output ? std::string(".output") : std::string(".input")) + ")");
        return;
      }
    io_.push_back(std::move(b));
  }

  // ---- the end: fix-ups and the object -------------------------------------------------
  void finish() {
    close_block();
    final_pass_ = true;
    for (const Fixup& fx : fixups_) {
      cur_ = fx.loc;
      line_begin_ = fx.line_begin;
      int64_t v = 0;
      if (eval(fx.b, fx.e, fx.core, &v) != Ev::Ok) continue;
      switch (fx.kind) {
        case Fixup::Field: {
          const Field& f = fx.info->fields[fx.field];
          if (!check_field(f, *fx.info, v, fx.b, std::string_view(fx.b, fx.e - fx.b))) break;
          const uint64_t mask = (uint64_t{1} << f.width) - 1;
          uint64_t& w = cores_[static_cast<size_t>(fx.core)].words[fx.index];
          w = (w & ~(mask << f.shift)) | ((static_cast<uint64_t>(v) & mask) << f.shift);
          break;
        }
        case Fixup::Data: {
          if (v < fx.lo || v > fx.hi) {
            error_at(fx.b, "value " + std::to_string(v) + " out of range (expected " + std::to_string(fx.lo) + ".." +
                               std::to_string(fx.hi) + ")");
            break;
          }
          auto& bytes = segs_[fx.seg].piece.owned;
          for (int i = 0; i < fx.size; ++i) bytes[fx.offset + static_cast<size_t>(i)] = static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i));
          break;
        }
        case Fixup::Entry: {
          CoreBuild& c = cores_[static_cast<size_t>(fx.core)];
          const uint64_t n = c.words.size();
          if (v < 0 || (n ? static_cast<uint64_t>(v) >= n : v != 0)) {
            error_at(fx.b, "entry " + std::to_string(v) + " outside the text of core " + core_name(c.id) + " (" +
                               std::to_string(n) + " instructions)");
            break;
          }
          c.entry = static_cast<uint32_t>(v);
          break;
        }
      }
    }
    build_object();
  }

  void build_object() {
    vp::obj::Object& o = res_.object;
    // Chip requirements: what the program uses, checked against .chip.
    vp::obj::ChipRequirements used;
    for (const auto& c : cores_)
      if (!c.id.is_control()) {
        used.clusters = std::max<uint32_t>(used.clusters, static_cast<uint32_t>(c.id.cluster) + 1);
        used.cus_per_cluster = std::max<uint32_t>(used.cus_per_cluster, static_cast<uint32_t>(c.id.cu) + 1);
      }
    for (const auto& s : segs_)
      if (s.space == DataSegment::Space::Sram)
        used.clusters = std::max<uint32_t>(used.clusters, static_cast<uint32_t>(s.core.cluster) + 1);
    for (const auto& c : cells_) {
      used.clusters = std::max<uint32_t>(used.clusters, static_cast<uint32_t>(c.hdr.cluster) + 1);
      used.cus_per_cluster = std::max<uint32_t>(used.cus_per_cluster, static_cast<uint32_t>(c.hdr.cu) + 1);
      used.xbars_per_cu = std::max<uint32_t>(used.xbars_per_cu, static_cast<uint32_t>(c.hdr.xbar) + 1);
      used.rows = std::max<uint32_t>(used.rows, c.hdr.row0 + c.hdr.rows);
      used.cols = std::max<uint32_t>(used.cols, c.hdr.col0 + c.hdr.cols);
    }
    const auto check = [&](uint32_t declared, uint32_t need, const char* key) -> uint32_t {
      if (declared && declared < need)
        add_error(chip_loc_, std::string(".chip ") + key + "=" + std::to_string(declared) +
                                 " but the program uses " + std::to_string(need));
      return std::max(declared, need);
    };
    o.chip.clusters = check(declared_.clusters, used.clusters, "clusters");
    o.chip.cus_per_cluster = check(declared_.cus_per_cluster, used.cus_per_cluster, "cus");
    o.chip.xbars_per_cu = check(declared_.xbars_per_cu, used.xbars_per_cu, "xbars");
    o.chip.rows = check(declared_.rows, used.rows, "rows");
    o.chip.cols = check(declared_.cols, used.cols, "cols");
    o.chip.cell_bits = declared_.cell_bits;

    if (!res_.errors.empty()) return;

    for (const auto& [id, idx] : core_index_) {
      CoreBuild& c = cores_[static_cast<size_t>(idx)];
      vp::obj::CoreText t;
      t.core = id;
      t.entry = c.entry;
      std::vector<std::pair<uint32_t, std::string_view>> labels(c.labels.size());
      size_t k = 0;
      for (const auto& [name, value] : c.labels) labels[k++] = {value, name};
      std::sort(labels.begin(), labels.end());
      for (const auto& [value, name] : labels) o.symbols.push_back(vp::obj::Symbol{std::string(name), id, value});
      if (opt_.listing) make_listing(idx);
      t.words = std::move(c.words);
      o.texts.push_back(std::move(t));
    }
    for (auto& s : segs_) {
      if (s.piece.size() == 0) continue;
      DataSegment d;
      d.space = s.space;
      d.core = s.core;
      d.address = s.address;
      d.bytes = take(s.piece);
      o.data.push_back(d);
    }
    for (auto& c : cells_) {
      vp::obj::CellProgram cp = c.hdr;
      if (c.pieces.size() == 1) {
        cp.levels = take(c.pieces[0]);
      } else {
        auto buf = std::make_shared<std::vector<uint8_t>>();
        uint64_t n = 0;
        for (const auto& pc : c.pieces) n += pc.size();
        buf->resize(n);
        uint8_t* w = buf->data();
        for (const auto& pc : c.pieces) {
          const uint8_t* src = pc.is_view ? pc.view.data : pc.owned.data();
          if (pc.size()) std::memcpy(w, src, pc.size());
          w += pc.size();
        }
        cp.levels = Bytes{buf->data(), n};
        backing_->parts.push_back(std::move(buf));
      }
      o.cells.push_back(cp);
    }
    o.layer_names = layers_;
    o.io = io_;
    o.backing = backing_;
  }

  Bytes take(Piece& p) {
    if (p.is_view) return p.view;
    auto buf = std::make_shared<std::vector<uint8_t>>(std::move(p.owned));
    Bytes b{buf->data(), buf->size()};
    backing_->parts.push_back(std::move(buf));
    return b;
  }

  void make_listing(int core) {
    const CoreBuild& c = cores_[static_cast<size_t>(core)];
    for (const ListEntry& l : listing_) {
      if (l.core != core) continue;
      const SourceFile& f = files_[l.loc.file];
      const char* b = f.text.data() + l.loc.line_off;
      const char* e = static_cast<const char*>(std::memchr(b, '\n', f.text.size() - l.loc.line_off));
      std::string_view src(b, e ? static_cast<size_t>(e - b) : f.text.size() - l.loc.line_off);
      char head[128];
      std::snprintf(head, sizeof head, "%-6s %6u  %016llx  ", core_name(c.id).c_str(), l.index,
                    static_cast<unsigned long long>(c.words[l.index]));
      res_.listing += head;
      res_.listing += f.path + ":" + std::to_string(l.loc.line) + ": ";
      res_.listing += trim(src);
      res_.listing += '\n';
    }
  }

  // ---- state ----------------------------------------------------------------------------
  enum class Mode { None, Text, Data, Xbar };

  struct CoreBuild {
    CoreId id;
    std::vector<uint64_t> words;
    std::unordered_map<std::string_view, uint32_t> labels;
    bool entry_set = false;
    uint32_t entry = 0;
  };

  struct SegBuild {
    DataSegment::Space space = DataSegment::Space::Global;
    CoreId core;
    uint64_t address = 0;
    Piece piece;
    Loc loc;
  };

  struct CellBuild {
    vp::obj::CellProgram hdr;
    std::vector<Piece> pieces;
    Loc loc;
  };

  struct Equ {
    int64_t value = 0;
    bool resolved = false;
    bool busy = false;
    bool bad = false;  // its definition has an error (reported once)
    const char* expr_b = nullptr;
    const char* expr_e = nullptr;
    Loc loc;
    int scope = -1;
  };

  struct Fixup {
    enum Kind : uint8_t { Field, Data, Entry } kind = Field;
    uint8_t field = 0;
    uint8_t size = 0;
    int core = -1;
    uint32_t index = 0;
    const InstrInfo* info = nullptr;
    size_t seg = 0;
    uint64_t offset = 0;
    int64_t lo = 0, hi = 0;
    const char* b = nullptr;
    const char* e = nullptr;
    const char* line_begin = nullptr;
    Loc loc;
  };

  struct ListEntry {
    int core;
    uint32_t index;
    Loc loc;
  };

  const Options& opt_;
  Result& res_;
  std::deque<SourceFile> files_;
  std::deque<std::string> interned_;
  std::vector<std::string> include_stack_;
  Loc cur_;
  const char* line_begin_ = nullptr;
  const char* line_end_ = nullptr;
  bool final_pass_ = false;

  std::vector<Operand> ops_;
  std::vector<CoreBuild> cores_;
  std::map<CoreId, int> core_index_;
  int cur_core_ = -1;
  Mode mode_ = Mode::None;
  std::vector<SegBuild> segs_;
  std::vector<CellBuild> cells_;
  std::unordered_map<std::string_view, Equ> equs_;
  std::unordered_set<std::string_view> all_labels_;
  std::vector<Fixup> fixups_;
  std::vector<ListEntry> listing_;
  std::map<uint32_t, std::string> layers_;
  std::vector<vp::obj::IoBinding> io_;
  vp::obj::ChipRequirements declared_;
  Loc chip_loc_;
  uint64_t literal_bytes_ = 0;
  std::map<std::string, std::shared_ptr<const vp::obj::MappedFile>> maps_;
  std::shared_ptr<vp::obj::BackingSet> backing_ = std::make_shared<vp::obj::BackingSet>();
};

}  // namespace

std::string Diagnostic::headline() const {
  std::string s = file;
  if (line) s += ":" + std::to_string(line) + ":" + std::to_string(col);
  return s + ": error: " + message;
}

std::string Diagnostic::format() const {
  std::string s = headline() + "\n";
  if (!source_line.empty()) {
    s += "  " + source_line + "\n  ";
    for (uint32_t i = 1; i < col && i <= source_line.size(); ++i) s += source_line[i - 1] == '\t' ? '\t' : ' ';
    s += "^\n";
  }
  return s;
}

std::string Result::error_text() const {
  std::string s;
  for (const auto& d : errors) s += d.format();
  if (truncated) s += "too many errors; stopping\n";
  return s;
}

Result assemble_file(const std::string& path, const Options& options) {
  Result r;
  Assembler a(options, r);
  a.run_file(path);
  if (!r.ok()) r.object = vp::obj::Object{};
  return r;
}

Result assemble_string(std::string_view source, const std::string& name, const Options& options) {
  Result r;
  Assembler a(options, r);
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
