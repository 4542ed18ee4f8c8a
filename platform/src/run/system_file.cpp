#include "vp/platform/system_file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace vp::platform {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw SystemFileError(path + ": " + what);
}

const json& field(const json& j, const char* name, const std::string& path, const std::string& where) {
  if (!j.is_object() || !j.contains(name)) fail(path, where + "field '" + name + "' is missing");
  return j.at(name);
}

std::string text_field(const json& j, const char* name, const std::string& path, const std::string& where = "") {
  const json& v = field(j, name, path, where);
  if (!v.is_string()) fail(path, where + "field '" + name + "': expected a string");
  return v.get<std::string>();
}

uint64_t count_field(const json& j, const char* name, const std::string& path, const std::string& where,
                     uint64_t most) {
  const json& v = field(j, name, path, where);
  if (!v.is_number_unsigned() || v.get<uint64_t>() > most)
    fail(path, where + "field '" + name + "': expected a whole number from 0 to " + std::to_string(most));
  return v.get<uint64_t>();
}

}  // namespace

SystemFile parse_system_file(const std::string& text, const std::string& path) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    fail(path, std::string("not JSON: ") + e.what());
  } catch (const json::exception& e) {
    // A number beyond a double (1e999) is not a syntax error to nlohmann:
    // it throws out_of_range, which must not escape as a crash.
    fail(path, std::string("not JSON: ") + e.what());
  }
  if (!j.is_object()) fail(path, "expected a JSON object");
  if (text_field(j, "format", path) != "sidra-system-1")
    fail(path, "field 'format': expected \"sidra-system-1\" (a system file from vp-cc --chips)");
  SystemFile s;
  s.path = path;
  s.chip = text_field(j, "chip", path);
  s.link = text_field(j, "link", path);
  if (s.link != "pcie" && s.link != "d2d") fail(path, "field 'link': expected \"pcie\" or \"d2d\", got \"" + s.link + "\"");
  const json& programs = field(j, "programs", path, "");
  if (!programs.is_array() || programs.size() < 2 || programs.size() > 64)
    fail(path, "field 'programs': expected an array of 2 to 64 program files");
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (size_t k = 0; k < programs.size(); ++k) {
    if (!programs[k].is_string() || programs[k].get<std::string>().empty())
      fail(path, "programs[" + std::to_string(k) + "]: expected a file name");
    const std::filesystem::path p(programs[k].get<std::string>());
    s.programs.push_back(p.is_absolute() ? p.string() : (dir / p).string());
  }
  if (j.contains("chips") && (!j["chips"].is_number_unsigned() || j["chips"].get<uint64_t>() != programs.size()))
    fail(path, "field 'chips': expected " + std::to_string(programs.size()) + ", the number of programs");
  const json& routes = field(j, "routes", path, "");
  if (!routes.is_array()) fail(path, "field 'routes': expected an array");
  const uint64_t last = programs.size() - 1;
  std::vector<bool> fed(programs.size(), false);
  for (size_t i = 0; i < routes.size(); ++i) {
    const std::string where = "routes[" + std::to_string(i) + "]: ";
    const json& r = routes[i];
    if (!r.is_object()) fail(path, where + "expected an object");
    SystemRoute route;
    route.value = r.contains("value") && r["value"].is_string() ? r["value"].get<std::string>() : std::string();
    route.from = static_cast<uint32_t>(count_field(r, "from", path, where, last));
    route.to = static_cast<uint32_t>(count_field(r, "to", path, where, last));
    route.output = static_cast<uint32_t>(count_field(r, "output", path, where, 1u << 20));
    route.input = static_cast<uint32_t>(count_field(r, "input", path, where, 1u << 20));
    route.bytes = count_field(r, "bytes", path, where, uint64_t{1} << 32);
    if (route.from == route.to) fail(path, where + "'from' and 'to' are the same chip " + std::to_string(route.to));
    fed[route.to] = true;
    s.routes.push_back(route);
  }
  for (size_t k = 1; k < fed.size(); ++k)
    if (!fed[k]) fail(path, "chip " + std::to_string(k) + " gets no route: nothing would feed its inputs");
  return s;
}

SystemFile load_system_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw SystemFileError(path + ": cannot read the system file");
  std::stringstream text;
  text << f.rdbuf();
  return parse_system_file(text.str(), path);
}

}  // namespace vp::platform
