// The op_table operators' real functions, in double: one definition for the
// FP32 interpreter and for the tables quantize builds.
#include "table_function.h"

#include <algorithm>
#include <cmath>

#include "vp/cc/operators.h"

namespace vp::cc {
namespace {

// ONNX float attributes; the defaults are floats too, as ONNX declares them.
double attr(const Node& n, const char* name, float fallback) {
  const auto it = n.floats.find(name);
  return double(it == n.floats.end() ? fallback : it->second);
}

double hard_sigmoid(double x, double alpha, double beta) { return std::min(1.0, std::max(0.0, alpha * x + beta)); }

double function_of(const Node& n, double x) {
  switch (n.op) {
    case OpKind::LeakyRelu: return x >= 0 ? x : attr(n, "alpha", 0.01f) * x;
    case OpKind::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case OpKind::Tanh: return std::tanh(x);
    case OpKind::HardSigmoid: return hard_sigmoid(x, attr(n, "alpha", 0.2f), attr(n, "beta", 0.5f));
    case OpKind::HardSwish: return x * hard_sigmoid(x, 1.0 / 6.0, 0.5);
    case OpKind::Erf: return std::erf(x);
    case OpKind::Gelu:  // the tanh form where canonicalize found it (canonicalize_gelu_tanh.cpp)
      if (n.ints.count("approximate_tanh"))
        return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
      return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    default:
      throw CompileError("node '" + n.name + "': " + op_name(n.op) + " is not a table operator");
  }
}

}  // namespace

double table_function(const Node& n, double x) {
  const double y = function_of(n, x);
  return n.times_input ? x * y : y;
}

}  // namespace vp::cc
