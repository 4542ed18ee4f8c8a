// Shape arithmetic folded before import: a Shape of a tensor whose
// dimensions shape inference fixed, and Gather, Add, Sub, Mul, Div,
// Unsqueeze and Concat of small constants, become Constant nodes. PyTorch
// exports x.chunk(2, dim=1) of a static tensor as Shape -> Gather -> Add ->
// Div -> Mul feeding a Slice's ends (ShuffleNet V2), and x.view(T, heads, d)
// as Unsqueezes of the sizes and a Concat feeding a Reshape; once they are
// constants, shape inference gives the Slice or Reshape and everything after
// it their dimensions. A Slice or Transpose of a constant buffer (a causal
// mask cut to the sequence, mask[:T, :T]; a weight transposed for a MatMul)
// is folded too, up to kMaxSliced elements, and so are an Identity of one,
// an Equal comparing one with a constant and a Cast of one (masked_fill's
// condition, mask[:T, :T] == 0 cast to bool). ConstantOfShape, and Where
// and Expand of constants, fold too: PyTorch writes a class token's
// x.expand(n, -1, -1) as a Where over a ConstantOfShape (ViT).
//
// Masks: Swin's shifted windows build their attention mask at run time from
// the map's size (Range, Mod, slice assignment exported as ScatterND, a
// pairwise Sub of window ids, Equal, Not, Where), and read the relative
// position bias from a table (Gather of a 2-D constant at constant
// indices). With the size fixed all of it is constant: integer and boolean
// tensors fold at any size up to kMaxMask, arithmetic with numpy
// broadcasting, Reshape and Unsqueeze of any constant.
#include "fold_constants.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "vp/cc/graph.h"

namespace vp::cc {

namespace {

// Shape vectors and scalars only: a weight is never folded (nor copied) by
// the arithmetic.
constexpr std::int64_t kMaxFolded = 64;
// What a Slice or Transpose of a constant may read (a mask, a small weight).
constexpr std::int64_t kMaxSliced = 1 << 16;
// What a computed mask may hold: Swin-T's shifted windows' attention mask,
// one 49 x 49 block per window, is 64 x 49 x 49 at 224x224.
constexpr std::int64_t kMaxMask = 1 << 18;
// Integers folded stay well inside int64 (a product of two shape values
// beyond this is a malformed model, not a shape): larger results are left
// unfolded rather than converted with overflow.
constexpr double kMaxInteger = 4.0e18;

struct Const {
  std::vector<double> data;
  std::vector<std::int64_t> dims;
  bool integer = false;
  bool boolean = false;  // 0/1, written back as BOOL (an Equal's mask)
  bool computed = false;  // folded here, not a tensor of the file (a weight)
};

// A Constant node this pass wrote says so in its doc string: what it holds
// was computed here (a mask), not read from the file (a weight).
constexpr const char* kFoldedTag = "folded at import";

bool read_tensor(const onnx::TensorProto& t, Const& c, std::int64_t limit = kMaxSliced) {
  std::int64_t n = 1;
  for (const auto d : t.dims()) n *= d;
  if (n < 0 || n > limit) return false;
  c.dims.assign(t.dims().begin(), t.dims().end());
  const auto count = static_cast<std::size_t>(n);
  const std::string& raw = t.raw_data();
  auto from = [&](auto sample, const auto& field) {
    using T = decltype(sample);
    if (!raw.empty()) {
      if (raw.size() != count * sizeof(T)) return false;
      for (std::size_t i = 0; i < count; ++i) {
        T v;
        std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
        c.data.push_back(static_cast<double>(v));
      }
      return true;
    }
    if (static_cast<std::size_t>(field.size()) != count) return false;
    for (const auto v : field) c.data.push_back(static_cast<double>(v));
    return true;
  };
  switch (t.data_type()) {
    case onnx::TensorProto::INT64: c.integer = true; return from(std::int64_t{}, t.int64_data());
    case onnx::TensorProto::INT32: c.integer = true; return from(std::int32_t{}, t.int32_data());
    case onnx::TensorProto::FLOAT: return from(float{}, t.float_data());
    case onnx::TensorProto::BOOL:  // one byte each when raw, else int32_data
      c.integer = c.boolean = true;
      return from(std::uint8_t{}, t.int32_data());
    default: return false;
  }
}

std::vector<std::int64_t> known_dims(const onnx::ValueInfoProto& vi) {
  std::vector<std::int64_t> d;
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return {};
  for (const auto& dim : vi.type().tensor_type().shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() <= 0) return {};
    d.push_back(dim.dim_value());
  }
  return d;
}

std::int64_t attr_int(const onnx::NodeProto& n, const char* name, std::int64_t dflt) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return dflt;
}

// Numpy broadcasting: the inputs' dimensions right-aligned, each axis 1 or
// the common size (and `target`'s, for Expand), at most kMaxMask elements.
bool broadcast_shape(const std::vector<const Const*>& xs, const std::vector<std::int64_t>& target,
                     std::vector<std::int64_t>& shape) {
  std::size_t rank = target.size();
  for (const Const* x : xs) rank = std::max(rank, x->dims.size());
  shape.assign(rank, 1);
  auto merge = [&](const std::vector<std::int64_t>& d) {
    for (std::size_t k = 0; k < d.size(); ++k) {
      std::int64_t& s = shape[rank - d.size() + k];
      if (d[k] == s || d[k] == 1) continue;
      if (s != 1) return false;
      s = d[k];
    }
    return true;
  };
  for (const Const* x : xs)
    if (!merge(x->dims)) return false;
  if (!merge(target)) return false;
  std::int64_t total = 1;
  for (const auto d : shape) {
    total *= d;
    if (total > kMaxMask) return false;
  }
  return true;
}

// Walks the elements of a broadcast shape in order; value(x) is input x's
// element under the current one.
class BroadcastWalk {
 public:
  explicit BroadcastWalk(const std::vector<std::int64_t>& shape) : shape_(shape), idx_(shape.size(), 0) {}
  double value(const Const& x) const {
    const std::size_t rank = shape_.size(), r = x.dims.size();
    std::int64_t off = 0;
    for (std::size_t k = 0; k < r; ++k) {
      const std::int64_t dim = x.dims[k];
      off = off * dim + (dim == 1 ? 0 : idx_[rank - r + k]);
    }
    return x.data[static_cast<std::size_t>(off)];
  }
  void next() {
    for (std::size_t k = shape_.size(); k-- > 0;) {
      if (++idx_[k] < shape_[k]) break;
      idx_[k] = 0;
    }
  }

 private:
  const std::vector<std::int64_t>& shape_;
  std::vector<std::int64_t> idx_;
};

std::int64_t elements(const std::vector<std::int64_t>& dims) {
  std::int64_t total = 1;
  for (const auto d : dims) total *= d;
  return total;
}

// The node's output as a constant, or false.
bool evaluate(const onnx::NodeProto& n, const std::map<std::string, Const>& consts,
              const std::map<std::string, std::vector<std::int64_t>>& dims, Const& out) {
  auto in = [&](int i) -> const Const* {
    if (i >= n.input_size()) return nullptr;
    const auto it = consts.find(n.input(i));
    return it == consts.end() ? nullptr : &it->second;
  };
  const std::string& op = n.op_type();
  // The arithmetic reads shape vectors and scalars only.
  const bool small_inputs = [&] {
    for (int i = 0; i < n.input_size(); ++i) {
      const Const* c = in(i);
      if (c && static_cast<std::int64_t>(c->data.size()) > kMaxFolded) return false;
    }
    return true;
  }();
  // Integer and boolean tensors of any size up to kMaxMask, and tensors
  // computed here, are masks being built (Swin's shifted windows: ScatterND,
  // Mod, Sub, Equal, Not, on a float map of window ids at 224x224); a float
  // tensor of the file is a weight, left to canonicalize.
  const bool mask_inputs = [&] {
    for (int i = 0; i < n.input_size(); ++i) {
      const Const* c = in(i);
      if (c && !c->integer && !c->computed) return false;
    }
    return true;
  }();
  if (op != "Slice" && op != "Transpose" && op != "Identity" && op != "Equal" && op != "Cast" && op != "Where" &&
      op != "Expand" && op != "ScatterND" && op != "Gather" && op != "Reshape" && op != "Unsqueeze" && op != "Shape" && !small_inputs &&
      !mask_inputs)
    return false;
  if (op == "ConstantOfShape") {  // the shape of a class token's expand, [1, -1, -1] built at run time
    const Const* d = in(0);
    if (!d || d->dims.size() > 1) return false;
    std::int64_t total = 1;
    for (const double f : d->data) {
      if (!(f >= 0 && f <= kMaxMask)) return false;
      out.dims.push_back(static_cast<std::int64_t>(f));
      total *= out.dims.back();
      if (total > kMaxMask) return false;
    }
    double fill = 0;
    out.integer = false;
    for (const auto& at : n.attribute()) {
      if (at.name() != "value") continue;
      Const v;
      if (!read_tensor(at.t(), v) || v.data.size() != 1) return false;
      fill = v.data[0];
      out.integer = v.integer;
      out.boolean = v.boolean;
    }
    out.data.assign(static_cast<std::size_t>(total), fill);
    return true;
  }
  if (op == "Where" || op == "Expand") {
    // Numpy broadcasting of constants: Where(cond, a, b), and Expand of a
    // parameter (a class token [1, 1, C]) to a constant shape.
    std::vector<const Const*> xs;
    for (int i = 0; i < n.input_size(); ++i) {
      if (!in(i)) return false;
      xs.push_back(in(i));
    }
    std::vector<std::int64_t> target;
    if (op == "Expand") {
      if (xs.size() != 2 || xs[1]->dims.size() > 1) return false;
      for (const double f : xs[1]->data) {
        if (!(f >= 1 && f <= kMaxSliced)) return false;
        target.push_back(static_cast<std::int64_t>(f));
      }
      xs.pop_back();
    } else if (xs.size() != 3) {
      return false;
    }
    std::vector<std::int64_t> shape;
    if (!broadcast_shape(xs, target, shape)) return false;
    out.dims = shape;
    out.integer = xs.back()->integer && (op == "Expand" || xs[1]->integer);
    out.boolean = op == "Expand" && xs[0]->boolean;
    BroadcastWalk walk(shape);
    for (std::int64_t e = elements(shape); e > 0; --e, walk.next()) {
      if (op == "Expand") out.data.push_back(walk.value(*xs[0]));
      else out.data.push_back(walk.value(*xs[0]) != 0 ? walk.value(*xs[1]) : walk.value(*xs[2]));
    }
    return true;
  }
  if (op == "Identity") {  // a buffer PyTorch writes once and aliases (a mask every block slices)
    const Const* d = in(0);
    if (!d) return false;
    out = *d;
    return true;
  }
  if (op == "Unsqueeze") {
    const Const* d = in(0);
    if (!d) return false;
    std::vector<std::int64_t> axes;
    if (n.input_size() > 1) {
      const Const* a = in(1);
      if (!a) return false;
      for (const double f : a->data) {
        if (!(std::fabs(f) < kMaxInteger)) return false;
        axes.push_back(static_cast<std::int64_t>(f));
      }
    } else {
      for (const auto& at : n.attribute())
        if (at.name() == "axes") axes.assign(at.ints().begin(), at.ints().end());
    }
    const auto rank = static_cast<std::int64_t>(d->dims.size() + axes.size());
    for (auto& a : axes) {
      if (a < 0) a += rank;
      if (a < 0 || a >= rank) return false;
    }
    std::sort(axes.begin(), axes.end());
    out.dims = d->dims;
    for (const auto a : axes) out.dims.insert(out.dims.begin() + a, 1);
    out.data = d->data;
    out.integer = d->integer;
    return true;
  }
  if (op == "Concat") {
    if (n.input_size() < 1) return false;
    std::vector<const Const*> xs;
    for (int i = 0; i < n.input_size(); ++i) {
      if (!in(i)) return false;
      xs.push_back(in(i));
    }
    const auto rank = static_cast<std::int64_t>(xs[0]->dims.size());
    auto axis = attr_int(n, "axis", 0);
    if (axis < 0) axis += rank;
    if (rank == 0 || axis < 0 || axis >= rank) return false;
    out.dims = xs[0]->dims;
    out.dims[static_cast<std::size_t>(axis)] = 0;
    out.integer = true;
    for (const Const* x : xs) {
      if (static_cast<std::int64_t>(x->dims.size()) != rank) return false;
      for (std::int64_t k = 0; k < rank; ++k)
        if (k != axis && x->dims[static_cast<std::size_t>(k)] != out.dims[static_cast<std::size_t>(k)]) return false;
      out.dims[static_cast<std::size_t>(axis)] += x->dims[static_cast<std::size_t>(axis)];
      out.integer = out.integer && x->integer;
    }
    std::int64_t outer = 1;
    for (std::int64_t k = 0; k < axis; ++k) outer *= out.dims[static_cast<std::size_t>(k)];
    for (std::int64_t o = 0; o < outer; ++o)
      for (const Const* x : xs) {
        const auto inner = static_cast<std::int64_t>(x->data.size()) / std::max<std::int64_t>(1, outer);
        out.data.insert(out.data.end(), x->data.begin() + o * inner, x->data.begin() + (o + 1) * inner);
      }
    return true;
  }
  if (op == "Transpose") {
    const Const* d = in(0);
    if (!d || d->dims.empty()) return false;
    const std::size_t r = d->dims.size();
    std::vector<std::int64_t> perm(r);
    for (std::size_t i = 0; i < r; ++i) perm[i] = static_cast<std::int64_t>(r - 1 - i);
    for (const auto& at : n.attribute())
      if (at.name() == "perm") perm.assign(at.ints().begin(), at.ints().end());
    if (perm.size() != r) return false;
    std::vector<std::int64_t> stride(r, 1);
    for (std::size_t i = r; i-- > 1;) stride[i - 1] = stride[i] * d->dims[i];
    std::vector<bool> seen(r, false);
    for (std::size_t i = 0; i < r; ++i) {
      if (perm[i] < 0 || perm[i] >= static_cast<std::int64_t>(r) || seen[static_cast<std::size_t>(perm[i])])
        return false;  // not a permutation: left for validation to refuse
      seen[static_cast<std::size_t>(perm[i])] = true;
      out.dims.push_back(d->dims[static_cast<std::size_t>(perm[i])]);
    }
    out.integer = d->integer;
    std::vector<std::int64_t> idx(r, 0);
    for (std::size_t e = 0; e < d->data.size(); ++e) {
      std::int64_t src = 0;
      for (std::size_t i = 0; i < r; ++i) src += idx[i] * stride[static_cast<std::size_t>(perm[i])];
      out.data.push_back(d->data[static_cast<std::size_t>(src)]);
      for (std::size_t i = r; i-- > 0;) {
        if (++idx[i] < out.dims[i]) break;
        idx[i] = 0;
      }
    }
    return true;
  }
  if (op == "Slice") {
    // Opset 10 and later: starts, ends, axes, steps as inputs.
    const Const *d = in(0), *st = in(1), *en = in(2);
    if (!d || !st || !en || d->dims.empty() || st->data.size() != en->data.size()) return false;
    const std::size_t r = d->dims.size();
    std::vector<std::int64_t> lo(r, 0), step(r, 1), count(d->dims);
    for (std::size_t k = 0; k < st->data.size(); ++k) {
      std::int64_t axis = static_cast<std::int64_t>(k);
      if (n.input_size() > 3 && !n.input(3).empty()) {
        const Const* ax = in(3);
        if (!ax || ax->data.size() != st->data.size() || !(std::fabs(ax->data[k]) < kMaxInteger)) return false;
        axis = static_cast<std::int64_t>(ax->data[k]);
      }
      if (axis < 0) axis += static_cast<std::int64_t>(r);
      if (axis < 0 || axis >= static_cast<std::int64_t>(r)) return false;
      std::int64_t s = 1;
      if (n.input_size() > 4 && !n.input(4).empty()) {
        const Const* sp = in(4);
        if (!sp || sp->data.size() != st->data.size() || !(std::fabs(sp->data[k]) < kMaxInteger)) return false;
        s = static_cast<std::int64_t>(sp->data[k]);
      }
      if (s == 0) return false;
      const std::int64_t dim = d->dims[static_cast<std::size_t>(axis)];
      // ONNX's clamping: [0, dim] with a positive step; the start in
      // [0, dim - 1] and the end in [-1, dim - 1] with a negative one.
      auto clampi = [&](double f, bool is_end) {
        const double v = std::fabs(f) < kMaxInteger ? f : (f < 0 ? -kMaxInteger : kMaxInteger);
        auto i = static_cast<std::int64_t>(v);
        if (i < 0) i += dim;
        if (s > 0) return std::clamp<std::int64_t>(i, 0, dim);
        return std::clamp<std::int64_t>(i, is_end ? -1 : 0, dim - 1);
      };
      const std::int64_t b = clampi(st->data[k], false), e = clampi(en->data[k], true);
      const auto ax = static_cast<std::size_t>(axis);
      lo[ax] = b;
      step[ax] = s;
      count[ax] = s > 0 ? std::max<std::int64_t>(0, (e - b + s - 1) / s) : std::max<std::int64_t>(0, (b - e - s - 1) / -s);
    }
    std::vector<std::int64_t> stride(r, 1);
    for (std::size_t i = r; i-- > 1;) stride[i - 1] = stride[i] * d->dims[i];
    out.dims = count;
    out.integer = d->integer;
    std::int64_t total = 1;
    for (const auto c : count) total *= c;
    std::vector<std::int64_t> idx(r, 0);
    for (std::int64_t e = 0; e < total; ++e) {
      std::int64_t src = 0;
      for (std::size_t i = 0; i < r; ++i) src += (lo[i] + idx[i] * step[i]) * stride[i];
      out.data.push_back(d->data[static_cast<std::size_t>(src)]);
      for (std::size_t i = r; i-- > 0;) {
        if (++idx[i] < count[i]) break;
        idx[i] = 0;
      }
    }
    return true;
  }
  if (op == "Shape") {  // of a value inference gave dimensions, or of a constant folded in this pass
    if (n.input_size() != 1) return false;
    const auto it = dims.find(n.input(0));
    const Const* c = in(0);
    const std::vector<std::int64_t>* known = it != dims.end() && !it->second.empty() ? &it->second
                                             : c                                     ? &c->dims
                                                                                     : nullptr;
    if (!known || known->empty()) return false;
    const std::vector<std::int64_t>& d = *known;
    const auto rank = static_cast<std::int64_t>(d.size());
    std::int64_t lo = attr_int(n, "start", 0), hi = attr_int(n, "end", rank);
    if (lo < 0) lo += rank;
    if (hi < 0) hi += rank;
    lo = std::clamp<std::int64_t>(lo, 0, rank);
    hi = std::clamp<std::int64_t>(hi, lo, rank);
    for (auto i = lo; i < hi; ++i) out.data.push_back(static_cast<double>(d[static_cast<std::size_t>(i)]));
    out.dims = {hi - lo};
    out.integer = true;
    return true;
  }
  if (op == "Gather") {  // shape values, or a table read at constant indices (Swin's relative position bias)
    const Const *d = in(0), *idx = in(1);
    if (!d || !idx || d->dims.empty()) return false;
    const auto rank = static_cast<std::int64_t>(d->dims.size());
    auto axis = attr_int(n, "axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return false;
    const std::int64_t size = d->dims[static_cast<std::size_t>(axis)];
    std::int64_t outer = 1, inner = 1;
    for (std::int64_t k = 0; k < axis; ++k) outer *= d->dims[static_cast<std::size_t>(k)];
    for (std::int64_t k = axis + 1; k < rank; ++k) inner *= d->dims[static_cast<std::size_t>(k)];
    if (outer * static_cast<std::int64_t>(idx->data.size()) * inner > kMaxMask) return false;
    std::vector<std::int64_t> at;
    for (const double f : idx->data) {
      if (!(std::fabs(f) < kMaxInteger)) return false;
      auto i = static_cast<std::int64_t>(f);
      if (i < 0) i += size;
      if (i < 0 || i >= size)
        throw CompileError("node '" + n.name() + "' (Gather): index " + std::to_string(static_cast<std::int64_t>(f)) +
                           " is out of range for " + std::to_string(size) + " values");
      at.push_back(i);
    }
    for (std::int64_t o = 0; o < outer; ++o)
      for (const std::int64_t i : at) {
        const auto from = d->data.begin() + (o * size + i) * inner;
        out.data.insert(out.data.end(), from, from + inner);
      }
    // data's dimensions with the axis replaced by the indices' (a scalar
    // index removes it).
    out.dims.assign(d->dims.begin(), d->dims.begin() + axis);
    out.dims.insert(out.dims.end(), idx->dims.begin(), idx->dims.end());
    out.dims.insert(out.dims.end(), d->dims.begin() + axis + 1, d->dims.end());
    out.integer = d->integer;
    out.boolean = d->boolean;
    return true;
  }
  if (op == "Range") {  // torch.arange of fixed bounds
    const Const *a = in(0), *b = in(1), *c = in(2);
    if (!a || !b || !c || a->data.size() != 1 || b->data.size() != 1 || c->data.size() != 1) return false;
    const double start = a->data[0], limit = b->data[0], delta = c->data[0];
    if (delta == 0) throw CompileError("node '" + n.name() + "' (Range): delta is 0");
    const double count = std::max(0.0, std::ceil((limit - start) / delta));
    if (!(count <= static_cast<double>(kMaxMask))) return false;
    out.integer = a->integer && b->integer && c->integer;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(count); ++i) {
      const double v = start + static_cast<double>(i) * delta;
      if (out.integer && !(std::fabs(v) < kMaxInteger)) return false;
      out.data.push_back(out.integer ? v : static_cast<double>(static_cast<float>(v)));
    }
    out.dims = {static_cast<std::int64_t>(count)};
    return true;
  }
  if (op == "ScatterND") {  // a mask written slice by slice (img_mask[h, w] = count)
    const Const *d = in(0), *idx = in(1), *upd = in(2);
    for (const auto& at : n.attribute())
      if (at.name() == "reduction" && at.s() != "none") return false;
    if (!d || !idx || !upd || idx->dims.empty() || elements(d->dims) > kMaxMask) return false;
    const std::size_t r = d->dims.size();
    const auto k = static_cast<std::size_t>(idx->dims.back());
    if (k == 0 || k > r) return false;
    std::vector<std::int64_t> stride(r, 1);
    for (std::size_t i = r; i-- > 1;) stride[i - 1] = stride[i] * d->dims[i];
    const std::int64_t slice = stride[k - 1];  // elements each index tuple writes
    const std::int64_t tuples = static_cast<std::int64_t>(idx->data.size() / k);
    if (static_cast<std::int64_t>(upd->data.size()) != tuples * slice) return false;
    out = *d;
    for (std::int64_t t = 0; t < tuples; ++t) {
      std::int64_t off = 0;
      for (std::size_t j = 0; j < k; ++j) {
        const double f = idx->data[static_cast<std::size_t>(t) * k + j];
        if (!(std::fabs(f) < kMaxInteger)) return false;
        auto i = static_cast<std::int64_t>(f);
        const std::int64_t dim = d->dims[j];
        if (i < 0) i += dim;
        if (i < 0 || i >= dim)
          throw CompileError("node '" + n.name() + "' (ScatterND): index " + std::to_string(i) + " is out of range for " +
                             std::to_string(dim) + " values on axis " + std::to_string(j));
        off += i * stride[j];
      }
      std::copy(upd->data.begin() + t * slice, upd->data.begin() + (t + 1) * slice, out.data.begin() + off);
    }
    out.integer = d->integer && upd->integer;
    return true;
  }
  if (op == "Reshape") {  // of a constant (a mask viewed as windows)
    const Const *d = in(0), *sh = in(1);
    if (!d || !sh || sh->dims.size() > 1) return false;
    const std::int64_t total = elements(d->dims);
    std::int64_t known = 1;
    int infer = -1;
    for (std::size_t k = 0; k < sh->data.size(); ++k) {
      // A dimension past the masks' limit folds nothing (and its product
      // could overflow: found by onnx_import_fuzz).
      if (!(std::fabs(sh->data[k]) <= static_cast<double>(kMaxMask))) return false;
      auto v = static_cast<std::int64_t>(sh->data[k]);
      if (v == 0 && attr_int(n, "allowzero", 0) == 0) {
        if (k >= d->dims.size()) return false;
        v = d->dims[k];
      }
      if (v == -1) {
        if (infer >= 0) return false;
        infer = static_cast<int>(k);
      } else if (v < 0) {
        return false;
      } else {
        known *= v;
        if (known > kMaxMask) return false;  // and the product stays far from overflow
      }
      out.dims.push_back(v);
    }
    if (infer >= 0) {
      if (known == 0 || total % known != 0) return false;
      out.dims[static_cast<std::size_t>(infer)] = total / known;
    } else if (known != total) {
      return false;
    }
    out.data = d->data;
    out.integer = d->integer;
    out.boolean = d->boolean;
    return true;
  }
  if (op == "Not") {
    const Const* d = in(0);
    if (!d || !d->boolean) return false;
    out = *d;
    for (double& v : out.data) v = v != 0 ? 0.0 : 1.0;
    return true;
  }
  if (op == "Cast") {  // of a constant to bool, an integer or float (PyTorch casts a mask to bool)
    const Const* d = in(0);
    const auto to = attr_int(n, "to", 0);
    if (!d || (to != onnx::TensorProto::BOOL && to != onnx::TensorProto::INT64 && to != onnx::TensorProto::INT32 &&
               to != onnx::TensorProto::FLOAT))
      return false;
    out.dims = d->dims;
    out.boolean = to == onnx::TensorProto::BOOL;
    out.integer = to != onnx::TensorProto::FLOAT;
    for (const double v : d->data) {
      if (out.integer && !out.boolean && !(std::fabs(v) < kMaxInteger)) return false;
      out.data.push_back(out.boolean ? (v != 0 ? 1.0 : 0.0) : out.integer ? std::trunc(v) : double(float(v)));
    }
    return true;
  }
  if (op == "Equal" || op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Mod" || op == "Pow") {
    // Numpy broadcasting: a mask compared with a constant (mask[:T, :T] ==
    // 0 before a Where), shape values, and Swin's window ids subtracted
    // pairwise ([nW, 1, 49] - [nW, 49, 1]).
    const Const *a = in(0), *b = in(1);
    if (!a || !b || n.input_size() != 2 || a->data.empty() || b->data.empty()) return false;
    std::vector<std::int64_t> shape;
    if (!broadcast_shape({a, b}, {}, shape)) return false;
    out.dims = shape;
    out.integer = (a->integer && b->integer) || op == "Equal";
    out.boolean = op == "Equal";
    const bool fmod = attr_int(n, "fmod", 0) != 0;
    if (op == "Mod" && !fmod && !out.integer) return false;  // ONNX: a float Mod needs fmod = 1
    BroadcastWalk walk(shape);
    for (std::int64_t e = elements(shape); e > 0; --e, walk.next()) {
      const double x = walk.value(*a), y = walk.value(*b);
      double r = 0;
      if (op == "Equal") {
        r = x == y ? 1.0 : 0.0;
      } else if (op == "Div" || op == "Mod") {
        if (y == 0 && out.integer)
          throw CompileError("node '" + n.name() + "' (" + op + "): integer division by zero");
        if (op == "Div") r = out.integer ? std::trunc(x / y) : x / y;  // ONNX's integer Div truncates
        else if (fmod) r = std::fmod(x, y);                               // the dividend's sign, as C
        else r = x - y * std::floor(x / y);                               // the divisor's sign, as Python
      } else {
        r = op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : std::pow(x, y);
      }
      if (out.integer && !(std::fabs(r) < kMaxInteger)) return false;
      out.data.push_back(out.integer ? r : static_cast<double>(static_cast<float>(r)));
    }
    return true;
  }
  return false;
}

}  // namespace

bool fold_shape_arithmetic(onnx::GraphProto& gp) {
  std::map<std::string, Const> consts;
  std::map<std::string, std::vector<std::int64_t>> dims;
  for (const auto& t : gp.initializer()) {
    Const c;
    if (read_tensor(t, c)) consts[t.name()] = c;
  }
  for (const auto* list : {&gp.input(), &gp.value_info(), &gp.output()})
    for (const auto& vi : *list) dims[vi.name()] = known_dims(vi);
  bool folded = false;
  for (auto& n : *gp.mutable_node()) {
    if (n.op_type() == "Constant") {
      const bool computed = n.doc_string() == kFoldedTag;
      for (const auto& a : n.attribute()) {
        Const c;
        c.computed = computed;
        if (a.name() == "value" && n.output_size() == 1 && read_tensor(a.t(), c, computed ? kMaxMask : kMaxSliced))
          consts[n.output(0)] = c;
      }
      continue;
    }
    if (n.output_size() != 1 || (!n.domain().empty() && n.domain() != "ai.onnx")) continue;
    Const c;
    if (!evaluate(n, consts, dims, c)) continue;
    // Integers past kMaxInteger are left unfolded, whichever operator made
    // them (a fuzzed model's shape arithmetic reached 9.2e18, past int64).
    if (c.integer && !c.boolean &&
        std::any_of(c.data.begin(), c.data.end(), [](double v) { return !(std::fabs(v) < kMaxInteger); }))
      continue;
    onnx::TensorProto t;
    t.set_name(n.output(0));
    for (const auto d : c.dims) t.add_dims(d);
    t.set_data_type(c.boolean   ? onnx::TensorProto::BOOL
                    : c.integer ? onnx::TensorProto::INT64
                                : onnx::TensorProto::FLOAT);
    for (const double v : c.data) {
      if (c.boolean) {
        t.add_int32_data(v != 0 ? 1 : 0);
      } else if (c.integer) {
        t.add_int64_data(static_cast<std::int64_t>(v));
      } else {
        // Past float's range the rounded result is an infinity (IEEE 754).
        const double big = std::numeric_limits<float>::max();
        t.add_float_data(v > big    ? std::numeric_limits<float>::infinity()
                         : v < -big ? -std::numeric_limits<float>::infinity()
                                    : static_cast<float>(v));
      }
    }
    const std::string out = n.output(0), name = n.name();
    n.Clear();
    n.set_op_type("Constant");
    n.set_name(name);
    n.set_doc_string(kFoldedTag);
    n.add_output(out);
    auto* a = n.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    *a->mutable_t() = t;
    c.computed = true;
    consts[out] = c;
    folded = true;
  }
  return folded;
}

}  // namespace vp::cc
