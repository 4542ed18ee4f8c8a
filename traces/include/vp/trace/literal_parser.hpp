// Hand-written parser for one line of Python-literal text.
//
// The ZeBu dumps are Python reprs of lists and dicts, plus two things
// ast.literal_eval would refuse: the bare-word mnemonic and enum reprs such as
// `<DataFmt.FP16: 3>`. A parser that accepts the whole literal grammar (ints,
// floats, strings in either quote, True/False/None, lists, tuples, dicts,
// bare words, enum reprs) reads both those dumps and ours. No regex, no
// allocation per line once the arenas have grown to the longest line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vp/trace/value.hpp"

namespace vp::trace {

struct LiteralError {
  std::uint32_t column = 0;  // 1-based byte column of the offending character
  bool at_end = false;       // input ran out: a cut-off line rather than a bad one
  std::string message;       // "expected ... but found ..." with the path to the value
};

class LiteralParser {
 public:
  // Element names used in error paths for the top-level list (the trace
  // line): position 0 is the mnemonic, 1 the mapping, and so on.
  void set_top_level_names(std::vector<std::string> names) { top_names_ = std::move(names); }

  // Parses `text` as exactly one value followed by optional whitespace. On
  // success the root is node 0 of nodes(). Views stay valid until the next
  // call to parse() and as long as `text` is alive.
  bool parse(std::string_view text, LiteralError& error);

  const std::vector<Node>& nodes() const { return nodes_; }
  ValueView root() const { return ValueView(&nodes_, 0); }

  static constexpr int kMaxDepth = 64;

 private:
  struct Frame {
    NodeKind kind;
    std::uint32_t position;    // element index inside the container
    std::string_view last_key; // dict: most recent key, for error paths
  };

  bool parse_value(int depth);
  bool parse_number();
  bool parse_string();
  bool parse_word();
  bool parse_enum(int depth);
  bool parse_list(char close, int depth);
  bool parse_dict(int depth);

  void skip_ws();
  bool fail(std::string_view expected);
  std::string path() const;

  std::string_view text_;
  std::size_t pos_ = 0;
  std::vector<Node> nodes_;
  std::vector<Frame> frames_;
  std::string scratch_;  // unescaped string contents; capacity >= line length
  std::vector<std::string> top_names_;
  LiteralError* error_ = nullptr;
};

}  // namespace vp::trace
