#include "vp/sweep/metrics.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "vp/sweep/files.h"

namespace vp::sweep {

using nlohmann::json;

namespace {

const json* lookup(const json& stats, const std::string& path) {
  const json* node = &stats;
  std::size_t pos = 0;
  while (pos <= path.size()) {
    std::size_t dot = path.find('.', pos);
    if (dot == std::string::npos) dot = path.size();
    const std::string key = path.substr(pos, dot - pos);
    if (!node->is_object()) return nullptr;
    const auto it = node->find(key);
    if (it == node->end()) return nullptr;
    node = &*it;
    pos = dot + 1;
  }
  return node;
}

json number_at(const json& stats, const std::string& path) {
  const json* v = lookup(stats, path);
  if (!v) return nullptr;
  if (v->is_boolean()) return v->get<bool>() ? 1 : 0;
  return v->is_number() ? *v : json(nullptr);
}

template <typename T>
void append(const std::string& bytes, std::size_t offset, std::vector<double>& out) {
  for (std::size_t p = offset; p + sizeof(T) <= bytes.size(); p += sizeof(T)) {
    T v;
    std::memcpy(&v, bytes.data() + p, sizeof(T));
    out.push_back(static_cast<double>(v));
  }
}

// Little-endian hosts only (x86-64, AArch64), as vp-run itself.
std::vector<double> decode(const std::string& bytes, std::size_t offset, const std::string& descr,
                           const std::string& path) {
  std::vector<double> out;
  if (descr == "|i1" || descr == "<i1" || descr == "int8") append<std::int8_t>(bytes, offset, out);
  else if (descr == "|u1" || descr == "<u1" || descr == "uint8") append<std::uint8_t>(bytes, offset, out);
  else if (descr == "<i2" || descr == "int16") append<std::int16_t>(bytes, offset, out);
  else if (descr == "<i4" || descr == "int32") append<std::int32_t>(bytes, offset, out);
  else if (descr == "<i8") append<std::int64_t>(bytes, offset, out);
  else if (descr == "<f4") append<float>(bytes, offset, out);
  else if (descr == "<f8") append<double>(bytes, offset, out);
  else throw std::runtime_error(path + ": element type " + descr + " is not supported");
  return out;
}

}  // namespace

std::vector<double> read_numbers(const std::string& path, const std::string& raw_dtype) {
  const std::string bytes = read_file(path);
  if (bytes.size() >= 10 && bytes.compare(0, 6, "\x93NUMPY") == 0) {
    const int major = static_cast<unsigned char>(bytes[6]);
    const std::size_t len_bytes = major == 1 ? 2 : 4;
    std::size_t header_len = 0;
    for (std::size_t i = 0; i < len_bytes; ++i)
      header_len |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    const std::size_t data = 8 + len_bytes + header_len;
    const std::string header = bytes.substr(8 + len_bytes, header_len);
    const std::size_t d = header.find("'descr'");
    const std::size_t q1 = header.find('\'', header.find(':', d) + 1);
    const std::size_t q2 = header.find('\'', q1 + 1);
    if (d == std::string::npos || q1 == std::string::npos || q2 == std::string::npos || data > bytes.size())
      throw std::runtime_error(path + ": malformed .npy header");
    if (header.find("'fortran_order': True") != std::string::npos)
      throw std::runtime_error(path + ": Fortran-ordered .npy is not supported");
    return decode(bytes, data, header.substr(q1 + 1, q2 - q1 - 1), path);
  }
  return decode(bytes, 0, raw_dtype, path);
}

json compare_tensors(const std::vector<double>& got, const std::vector<double>& golden, MetricDef::Measure measure) {
  if (got.size() != golden.size() || got.empty()) return nullptr;
  if (measure == MetricDef::Measure::kExactFraction) {
    std::size_t equal = 0;
    for (std::size_t i = 0; i < got.size(); ++i) equal += got[i] == golden[i];
    return static_cast<double>(equal) / static_cast<double>(got.size());
  }
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - golden[i]));
  return worst;
}

json top1_accuracy(const std::vector<double>& scores, const std::vector<double>& labels) {
  const std::size_t n = labels.size();
  if (n == 0 || scores.empty() || scores.size() % n != 0) return nullptr;
  const std::size_t classes = scores.size() / n;
  std::size_t right = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double* row = scores.data() + i * classes;
    std::size_t best = 0;  // the first of equal largest values, as numpy's argmax
    for (std::size_t c = 1; c < classes; ++c)
      if (row[c] > row[best]) best = c;
    right += static_cast<double>(best) == labels[i];
  }
  return static_cast<double>(right) / static_cast<double>(n);
}

namespace {

// The point's output file the metric reads, as numbers of its dtype; null
// when the file is missing or unreadable (the metric is then empty).
json with_output(const SweepSpec& spec, const MetricDef& m, const std::string& point_dir,
                 const std::function<json(const std::vector<double>&, const std::string& dtype)>& measure) {
  std::string dtype = "int8";
  for (const auto& o : spec.outputs)
    if (o.file == m.output) dtype = o.dtype;
  const std::string out = point_dir + "/" + m.output;
  if (!file_exists(out)) return nullptr;
  try {
    return measure(read_numbers(out, dtype), dtype);
  } catch (const std::exception&) {
    return nullptr;
  }
}

}  // namespace

json evaluate_metric(const SweepSpec& spec, const MetricDef& m, const json& stats, const std::string& point_dir) {
  if (stats.is_null()) return nullptr;
  switch (m.kind) {
    case MetricDef::Kind::kStat: {
      json v = number_at(stats, m.path);
      if (v.is_null() && m.zero_when_absent && stats.contains("units")) return 0;
      return v;
    }
    case MetricDef::Kind::kInferencesPerS: {
      const json mhz = number_at(stats, "run.clock_mhz");
      // A firmware-driven run times each run of the program apart from
      // deployment; inferences_per_run counts the inputs one run handles.
      const json per_inference = number_at(stats, "firmware.inference_cycles_mean");
      if (per_inference.is_number() && per_inference.get<double>() > 0 && mhz.is_number())
        return mhz.get<double>() * 1e6 / per_inference.get<double>() * spec.inferences_per_run;
      const json cycles = number_at(stats, "run.cycles");
      if (cycles.is_null() || mhz.is_null() || cycles.get<double>() <= 0) return nullptr;
      return mhz.get<double>() * 1e6 / cycles.get<double>() * spec.inferences_per_run;
    }
    case MetricDef::Kind::kEnergyPerInference: {
      const json e = number_at(stats, "energy_pj.total");
      const json n = number_at(stats, "firmware.inferences");
      const double runs = n.is_number() && n.get<double>() > 0 ? n.get<double>() : 1.0;
      const double count = runs * spec.inferences_per_run;
      return e.is_null() ? json(nullptr) : json(e.get<double>() / count);
    }
    case MetricDef::Kind::kGolden:
      return with_output(spec, m, point_dir, [&](const std::vector<double>& got, const std::string& dtype) {
        return compare_tensors(got, read_numbers(m.golden, dtype), m.measure);
      });
    case MetricDef::Kind::kAccuracy:
      return with_output(spec, m, point_dir, [&](const std::vector<double>& scores, const std::string&) {
        return top1_accuracy(scores, read_numbers(m.labels, "<i8"));
      });
  }
  return nullptr;
}

}  // namespace vp::sweep
