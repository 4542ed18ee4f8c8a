// The names a program defines: labels, one scope per core (a label is the
// index of the next instruction in that core's text), and the global .equ
// constants, which may be defined in terms of names that come later.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "source.h"
#include "vp/obj/object.h"

namespace vp::as::detail {

// "cp" or "c<cluster>.<cu>", as messages and the listing name a core.
std::string core_name(vp::obj::CoreId c);

// An .equ constant. One whose value is not known when it is read keeps its
// expression and is evaluated where it was written on first use (without
// recursion, so a chain of any length resolves: Evaluator::resolve).
struct Equ {
  int64_t value = 0;
  bool resolved = false;
  bool busy = false;  // being evaluated (a second visit is a cycle)
  bool bad = false;   // its definition has an error (reported once)
  uint32_t tried = 0;  // the resolution round in which it came out unresolved
  const char* expr_b = nullptr;
  const char* expr_e = nullptr;
  Line line;       // where it was written
  int scope = -1;  // the core whose labels it sees
};

class Symbols {
 public:
  using Labels = std::unordered_map<std::string_view, uint32_t>;

  // A new scope for a core's labels; scopes are numbered in the order the
  // cores are first opened, the same numbers the program uses for cores.
  void add_scope(vp::obj::CoreId core) { scopes_.push_back(Scope{core, {}}); }
  const Labels& labels(int scope) const { return scopes_[static_cast<size_t>(scope)].labels; }
  vp::obj::CoreId scope_core(int scope) const { return scopes_[static_cast<size_t>(scope)].core; }
  size_t scope_count() const { return scopes_.size(); }

  enum class Define { kOk, kIsEqu, kDuplicate };
  // Defines label `name` = `value` in `scope`; on kDuplicate *first is the
  // value it already has.
  Define define_label(int scope, std::string_view name, uint32_t value, uint32_t* first);
  // True when some core has a label `name`.
  bool is_label(std::string_view name) const { return all_labels_.count(name) != 0; }

  Equ* find_equ(std::string_view name) {
    auto it = equs_.find(name);
    return it == equs_.end() ? nullptr : &it->second;
  }
  bool is_equ(std::string_view name) const { return equs_.count(name) != 0; }
  // False when `name` is already an .equ.
  bool add_equ(std::string_view name, const Equ& e) { return equs_.emplace(name, e).second; }

  // Keeps a copy of a name that does not come from a source file (-D).
  std::string_view intern(const std::string& s) {
    interned_.push_back(s);
    return interned_.back();
  }

 private:
  struct Scope {
    vp::obj::CoreId core;
    Labels labels;
  };
  std::vector<Scope> scopes_;
  std::unordered_map<std::string_view, Equ> equs_;
  std::unordered_set<std::string_view> all_labels_;
  std::deque<std::string> interned_;
};

}  // namespace vp::as::detail
