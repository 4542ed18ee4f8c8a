// The layout and shape operators torchvision's classification CNNs export,
// rewritten into the chip's operators (canonicalize step 2b):
//
//   ReduceMean over H and W           -> GlobalAveragePool (MNASNet, ShuffleNet)
//   Pad of zeros before Conv/AvgPool  -> their pads (Inception-v3, DenseNet)
//   Div by a constant                 -> Mul by its reciprocal
//   Slice of channels, channel shuffle -> 1x1 Conv of 0/1 weights (ShuffleNet V2)
//   Concat(f0..fk) after Concat(f0..fk-1) -> Concat(that one, fk) (DenseNet)
#include <algorithm>
#include <limits>
#include <map>
#include <string>

#include "canonicalize_util.h"

namespace vp::cc::canon {

namespace {

// An integer attribute held as float: saturated, since exporters write
// INT64_MAX for "to the end" (a Slice's ends), beyond what a cast may take.
std::int64_t to_i64(float v) {
  if (!(v > -9.0e18f)) return std::numeric_limits<std::int64_t>::min() / 2;
  if (!(v < 9.0e18f)) return std::numeric_limits<std::int64_t>::max() / 2;
  return static_cast<std::int64_t>(v);
}

}  // namespace

// Node n becomes a 1x1 Conv from value x to value y whose output channel k
// is input channel src[k]: weights of 0 and 1, which quantize exactly (1 is
// code 127 at a step of 1/127), so the copy only rounds to y's step.
void channel_copy_conv(Graph& g, Node& n, int x, int y, const std::vector<std::int64_t>& src) {
  const std::int64_t cin = g.val(x).shape.c, cout = static_cast<std::int64_t>(src.size());
  Value w;
  w.name = n.name + ".select";
  w.is_const = true;
  w.dims = {cout, cin, 1, 1};
  w.data.assign(static_cast<std::size_t>(cout * cin), 0.f);
  for (std::int64_t k = 0; k < cout; ++k) w.data[static_cast<std::size_t>(k * cin + src[static_cast<std::size_t>(k)])] = 1.f;
  const int wid = g.add_value(std::move(w));
  n.op = OpKind::Conv;
  n.ints.clear();
  n.floats.clear();
  n.in = {x, wid};
  n.out = {y};
  n.geom = ConvGeom{};
  conv_bias(g, n);
}

// ReduceMean over the two spatial axes of a map (MNASNet's and ShuffleNet's
// head, torch's x.mean([2, 3])) is a GlobalAveragePool: with keepdims=0 its
// [1, C] is the same C x 1 x 1 activation.
void reduce_mean_to_gap(const Graph& g, Node& n) {
  const auto& dims = g.val(n.in[0]).dims;
  const auto rank = static_cast<std::int64_t>(dims.size());
  const auto it = n.ints.find("axes");
  std::vector<std::int64_t> axes = it == n.ints.end() ? std::vector<std::int64_t>{} : it->second;
  for (auto& a : axes)
    if (a < 0) a += rank;
  std::sort(axes.begin(), axes.end());
  if (rank != 4 || axes != std::vector<std::int64_t>{2, 3})
    throw CompileError("node '" + n.name + "': ReduceMean is supported over the two spatial axes of a 4-D map only");
  n.op = OpKind::GlobalAveragePool;
}

// A constant-0 Pad of a map's H and W that only window operators averaging
// or convolving read becomes their pads (an AveragePool then counts the
// padded zeros: count_include_pad=1, as the explicit zeros were counted).
// PyTorch exports AvgPool2d(count_include_pad=True) this way (Inception-v3,
// DenseNet's transitions, whose Pad is all zeros).
void fold_pad(Graph& g, Node& n) {
  std::vector<std::int64_t> p;
  if (n.in.size() > 1 && n.in[1] >= 0)
    for (const float v : need_const(g, n, 1, "the pads").data) p.push_back(to_i64(v));
  else if (n.ints.count("pads"))
    p = n.ints.at("pads");
  const auto mode = n.ints.find("mode");
  float value = 0;
  if (n.in.size() > 2 && n.in[2] >= 0) value = need_const(g, n, 2, "the constant value").data.at(0);
  if (n.floats.count("value")) value = n.floats.at("value");
  const auto fail = [&](const std::string& why) {
    throw CompileError("node '" + n.name + "': Pad is supported only " + why);
  };
  if (mode != n.ints.end()) fail("in constant mode");
  if (value != 0) fail("with the value 0");
  if (p.size() != 8 || p[0] || p[1] || p[4] || p[5]) fail("of the H and W axes of a 4-D map");
  for (auto v : p)
    if (v < 0 || v > 65535) fail("with pads from 0 to 65535");
  const std::vector<int> readers = g.consumers(n.out[0]);
  if (is_output(g, n.out[0]) || readers.empty()) fail("before a Conv or AveragePool");
  for (int r : readers) {
    const Node& c = g.nodes[static_cast<std::size_t>(r)];
    const bool pads = c.geom.pt || c.geom.pl || c.geom.pb || c.geom.pr;
    if ((c.op != OpKind::Conv && c.op != OpKind::AveragePool) || c.in[0] != n.out[0] ||
        (c.op == OpKind::AveragePool && pads && attr_i(c, "count_include_pad", 0) == 0))
      fail("before a Conv or AveragePool (that counts its own pads)");
  }
  for (int r : readers) {
    Node& c = g.nodes[static_cast<std::size_t>(r)];
    c.geom.pt += static_cast<int>(p[2]);
    c.geom.pl += static_cast<int>(p[3]);
    c.geom.pb += static_cast<int>(p[6]);
    c.geom.pr += static_cast<int>(p[7]);
    if (c.op == OpKind::AveragePool) c.ints["count_include_pad"] = {1};
  }
  replace_uses(g, n.out[0], n.in[0]);
  n.out.clear();
}

// Slice of the channel axis with step 1 (x.chunk(2, dim=1) of ShuffleNet V2,
// its bounds folded at import): a Conv copying channels [start, end).
void slice_to_conv(Graph& g, Node& n) {
  const auto fail = [&](const std::string& why) {
    throw CompileError("node '" + n.name + "': Slice is supported " + why);
  };
  const Value& x = g.val(n.in[0]);
  const auto rank = static_cast<std::int64_t>(x.dims.size());
  auto ints = [&](std::size_t i, std::int64_t dflt) {
    if (n.in.size() <= i || n.in[i] < 0) return std::vector<std::int64_t>{dflt};
    const Value& v = g.val(n.in[i]);
    if (!v.is_const) fail("with constant starts, ends, axes and steps only");
    std::vector<std::int64_t> r;
    for (const float f : v.data) r.push_back(to_i64(f));
    return r;
  };
  const auto starts = ints(1, 0), ends = ints(2, 0), axes = ints(3, 0), steps = ints(4, 1);
  if (rank != 4 || starts.size() != 1 || ends.size() != 1 || axes.size() != 1 || steps.size() != 1 ||
      (axes[0] != 1 && axes[0] != -3) || steps[0] != 1)
    fail("along the channel axis of a 4-D map, with step 1, only");
  const std::int64_t C = x.shape.c;
  auto clampi = [&](std::int64_t v) { return std::clamp<std::int64_t>(v < 0 ? v + C : v, 0, C); };
  const std::int64_t lo = clampi(starts[0]), hi = clampi(ends[0]);
  if (hi <= lo) fail("when it keeps at least one channel");
  std::vector<std::int64_t> src;
  for (std::int64_t c = lo; c < hi; ++c) src.push_back(c);
  channel_copy_conv(g, n, n.in[0], n.out[0], src);
}

// ShuffleNet's channel shuffle: Reshape [1, C, H, W] -> [1, g, C/g, H, W],
// Transpose perm (0, 2, 1, 3, 4), Reshape back to [1, C, H, W]: output
// channel j*g + i is input channel i*(C/g) + j, one Conv (the Reshapes go).
void shuffle_to_conv(Graph& g, std::size_t ti) {
  Node& t = g.nodes[ti];
  const auto fail = [&]() {
    throw CompileError("node '" + t.name +
                       "': Transpose is supported only as a channel shuffle (Reshape to [1, g, C/g, H, W], perm "
                       "0,2,1,3,4, Reshape back)");
  };
  const auto perm = t.ints.count("perm") ? t.ints.at("perm") : std::vector<std::int64_t>{};
  const int p = g.producer(t.in[0]);
  const auto readers = g.consumers(t.out[0]);
  if (perm != std::vector<std::int64_t>{0, 2, 1, 3, 4} || p < 0 || readers.size() != 1 || is_output(g, t.out[0])) fail();
  Node& r1 = g.nodes[static_cast<std::size_t>(p)];
  Node& r2 = g.nodes[static_cast<std::size_t>(readers[0])];
  if (r1.op != OpKind::Reshape || r2.op != OpKind::Reshape || g.consumers(r1.out[0]).size() != 1 ||
      is_output(g, r1.out[0]))
    fail();
  const auto& in = g.val(r1.in[0]).dims;
  const auto& mid = g.val(r1.out[0]).dims;
  const auto& out = g.val(r2.out[0]).dims;
  if (in.size() != 4 || mid.size() != 5 || out != in || mid[0] != 1 || mid[1] * mid[2] != in[1] || mid[3] != in[2] ||
      mid[4] != in[3])
    fail();
  const std::int64_t groups = mid[1], per = mid[2];
  std::vector<std::int64_t> src(static_cast<std::size_t>(in[1]));
  for (std::int64_t i = 0; i < groups; ++i)
    for (std::int64_t j = 0; j < per; ++j) src[static_cast<std::size_t>(j * groups + i)] = i * per + j;
  const int x = r1.in[0], y = r2.out[0];
  r1.out.clear();
  r2.out.clear();
  channel_copy_conv(g, t, x, y, src);
}

// Div by a constant is a Mul by its reciprocal.
void div_to_mul(Graph& g, Node& n) {
  if (!g.val(n.in[1]).is_const || g.val(n.in[0]).is_const)
    throw CompileError("node '" + n.name + "': Div is supported only of an activation by a constant");
  Value r = g.val(n.in[1]);
  r.name += ".reciprocal";
  for (float& v : r.data) {
    if (v == 0) throw CompileError("node '" + n.name + "': Div by a constant 0");
    v = 1.f / v;
  }
  n.in[1] = g.add_value(std::move(r));
  n.op = OpKind::Mul;
}

// DenseNet's chains: layer k concatenates every feature map so far,
// Concat(f0, ..., fk), and layer k-1 already made Concat(f0, ..., fk-1).
// Reading that one instead, Concat(c, fk) moves the same bytes with two
// inputs, not k: the code and the parameters of a chain grow with its
// length, not with its square.
void chain_concats(Graph& g) {
  std::map<std::vector<int>, int> made;  // inputs of a Concat -> its output
  for (auto& n : g.nodes) {
    if (n.op != OpKind::Concat || n.out.empty()) continue;
    const int axis = static_cast<int>(attr_i(n, "axis", 1));
    for (std::size_t k = n.in.size() - 1; k >= 2; --k) {
      std::vector<int> head(n.in.begin(), n.in.begin() + static_cast<std::ptrdiff_t>(k));
      head.push_back(axis);
      const auto it = made.find(head);
      if (it == made.end()) continue;
      std::vector<int> in{it->second};
      in.insert(in.end(), n.in.begin() + static_cast<std::ptrdiff_t>(k), n.in.end());
      std::vector<int> key = n.in;
      key.push_back(axis);
      made[key] = n.out[0];
      n.in = in;
      break;
    }
    if (n.in.size() > 1) {
      std::vector<int> key = n.in;
      key.push_back(axis);
      made.emplace(key, n.out[0]);
    }
  }
}

}  // namespace vp::cc::canon
