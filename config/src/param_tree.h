// Private: the registry's dotted names as a tree, in table order, so dumps
// nest `cu: {scalar: {alu_cycles: 1}}` without relying on sorted input.
#pragma once

#include <string>
#include <vector>

namespace vp::config::detail {

struct ParamNode {
  std::string name;             // one path component
  long param = -1;              // registry index for a leaf, -1 for a group
  std::vector<ParamNode> children;
};

// Root's children are the top-level groups in first-appearance order.
const ParamNode& param_tree();

}  // namespace vp::config::detail
