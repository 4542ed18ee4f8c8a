#include "param_tree.h"

#include "vp/config/registry.h"

namespace vp::config::detail {
namespace {

ParamNode& child(ParamNode& node, const std::string& name) {
  for (auto& c : node.children) {
    if (c.name == name) return c;
  }
  node.children.push_back({name, -1, {}});
  return node.children.back();
}

}  // namespace

const ParamNode& param_tree() {
  static const ParamNode root = [] {
    ParamNode built;
    const auto& defs = registry();
    for (std::size_t i = 0; i < defs.size(); ++i) {
      ParamNode* node = &built;
      std::size_t start = 0;
      const std::string& name = defs[i].name;
      for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', start)) {
        node = &child(*node, name.substr(start, dot - start));
        start = dot + 1;
      }
      child(*node, name.substr(start)).param = static_cast<long>(i);
    }
    return built;
  }();
  return root;
}

}  // namespace vp::config::detail
