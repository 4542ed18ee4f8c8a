#include "listing.h"

#include <cstdio>
#include <cstring>
#include <string_view>

#include "lexer.h"
#include "symbols.h"

namespace vp::as::detail {

void Listing::render(const Program& program, const Sources& sources, std::string& out) const {
  for (const auto& [id, core] : program.core_index()) {
    const CoreBuild& c = program.cores()[static_cast<size_t>(core)];
    for (const Entry& l : entries_) {
      if (l.core != core) continue;
      const SourceFile& f = sources[l.loc.file];
      const char* b = f.text.data() + l.loc.line_off;
      const char* e = static_cast<const char*>(std::memchr(b, '\n', f.text.size() - l.loc.line_off));
      std::string_view src(b, e ? static_cast<size_t>(e - b) : f.text.size() - l.loc.line_off);
      char head[128];
      std::snprintf(head, sizeof head, "%-6s %6u  %016llx  ", core_name(c.id).c_str(), l.index,
                    static_cast<unsigned long long>(c.words[l.index]));
      out += head;
      out += f.path + ":" + std::to_string(l.loc.line) + ": ";
      out += trim(src);
      out += '\n';
    }
  }
}

}  // namespace vp::as::detail
