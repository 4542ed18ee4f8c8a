// sidra_vp._core: vp-cc's and vp-run's libraries for Python. The package
// around it (python/sidra_vp/) gives the user-facing API; this file turns
// Python values into the libraries' requests and their errors into Python
// exceptions carrying the tools' own messages (vp-cc's after "vp-cc: error: ",
// vp-run's after "vp-run: ").
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "forked_run.h"
#include "vp/cc/driver.h"
#include "vp/common/atomic_file.h"
#include "vp/config/config_error.h"
#include "vp/config/loader.h"
#include "vp/config/param_set.h"
#include "vp/platform/chip_builder.h"
#include "vp/platform/chip_size.h"
#include "vp/platform/program_loader.h"
#include "vp/platform/tensor_file.h"

namespace py = pybind11;

// libsystemc refers to sc_main; the module elaborates inside its runs and
// never calls it.
extern "C" __attribute__((visibility("default"))) int sc_main(int, char**) { return 0; }

// SystemC prints a banner when its kernel first starts, which can happen
// while the module loads (a namespace-scope sc_time in a model library).
__attribute__((constructor(101))) static void quiet_systemc_banner() {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);
}

namespace {

// The exception classes, created once at import.
py::object g_error, g_compile_error, g_config_error, g_input_error, g_run_error;

[[noreturn]] void raise(const py::object& type, const std::string& message, int exit_code = 1) {
  py::object e = type(message);
  e.attr("exit_code") = exit_code;
  PyErr_SetObject(type.ptr(), e.ptr());
  throw py::error_already_set();
}

// ---- compile -------------------------------------------------------------------

py::dict compile(const std::string& model, const std::string& out, const std::string& chip,
                 const std::vector<std::string>& sets, const std::vector<std::string>& calib_files,
                 const std::vector<std::vector<py::array_t<float, py::array::c_style | py::array::forcecast>>>& calib,
                 double percentile, unsigned threads, int batch, const std::string& replicate,
                 const std::string& lanes, const std::string& placement, const std::vector<std::string>& tests,
                 const std::string& test_dir) {
  vp::cc::CompileOptions o;
  o.model = model;
  o.out = out;
  o.chip = chip;
  o.sets = sets;
  o.calib = calib_files;
  o.tests = tests;
  o.test_dir = test_dir;
  for (const auto& set : calib) {
    std::vector<std::vector<float>> values;
    for (const auto& a : set) values.emplace_back(a.data(), a.data() + a.size());
    o.calib_values.push_back(std::move(values));
  }
  o.percentile = percentile;
  o.threads = threads;
  o.batch = batch;
  if (placement != "pipeline" && placement != "shared")
    raise(g_compile_error, "--placement " + placement + ": expected pipeline or shared");
  o.pipeline = placement == "pipeline";
  vp::cc::CompileResult r;
  try {
    o.replicate = vp::cc::parse_replicate(replicate);
    o.lanes = vp::cc::parse_lanes(lanes);
    py::gil_scoped_release unlocked;
    r = vp::cc::compile_model(o);
  } catch (const vp::cc::CompileError& e) {
    raise(g_compile_error, e.what());
  } catch (const vp::config::ConfigError& e) {
    raise(g_config_error, e.what());
  } catch (const vp::common::OutputError& e) {
    raise(g_compile_error, e.what());
  } catch (const std::filesystem::filesystem_error& e) {
    raise(g_compile_error, e.what());
  }
  py::dict d;
  d["asm"] = r.asm_path;
  d["xbar"] = r.xbar_path;
  d["io_json"] = r.io_path;
  d["cores"] = r.emit.cores_used;
  d["instructions"] = r.emit.instructions;
  d["image_bytes"] = r.emit.image_bytes;
  d["crossbars"] = r.crossbars;
  d["chip_crossbars"] = r.chip_crossbars;
  d["calibration_sets"] = r.calibration_sets;
  d["report"] = r.report;
  d["summary"] = r.summary;
  return d;
}

// ---- programs ------------------------------------------------------------------

// An assembled program (or a loaded object), kept between runs.
struct Program {
  std::string path;
  vp::obj::Object object;
};

Program load(const std::string& path) {
  Program p{path, {}};
  try {
    p.object = vp::platform::load_program_file(path);
    vp::platform::check_has_code(p.object);
  } catch (const vp::platform::LoadError& e) {
    raise(g_input_error, path + ": " + e.what());
  } catch (const std::exception& e) {
    std::string m = e.what();
    while (!m.empty() && m.back() == '\n') m.pop_back();
    raise(g_input_error, m);
  }
  return p;
}

py::list bindings(const Program& p) {
  py::list l;
  for (const auto& b : p.object.io) {
    py::dict d;
    d["name"] = b.name;
    d["output"] = b.output;
    d["dtype"] = b.dtype;
    d["shape"] = b.shape;
    d["bytes"] = b.bytes;
    d["scale"] = b.scale;
    d["zero_point"] = b.zero_point;
    d["channels_last"] = b.channels_last;
    d["host_softmax"] = b.host_softmax;
    d["indirect"] = b.indirect;  // the pointer word's address, -1 for none
    l.append(d);
  }
  return l;
}

// ---- run -----------------------------------------------------------------------

// A bound input from an array: float32 values in the model's shape, or the
// binding's codes; `what` names it in messages as a file name would.
vp::platform::BoundInput array_input(const py::array& a, const std::string& what) {
  vp::platform::BoundInput in;
  in.what = what;
  in.data.npy = true;
  const py::dtype dt = a.dtype();
  if (dt.is(py::dtype::of<float>())) in.data.dtype = "<f4";
  else if (dt.is(py::dtype::of<int8_t>())) in.data.dtype = "|i1";
  else if (dt.is(py::dtype::of<uint8_t>())) in.data.dtype = "|u1";
  else if (dt.is(py::dtype::of<int16_t>())) in.data.dtype = "<i2";
  else if (dt.is(py::dtype::of<int32_t>())) in.data.dtype = "<i4";
  else if (dt.is(py::dtype::of<double>())) in.data.dtype = "<f8";
  else raise(g_input_error, what + ": dtype " + py::str(static_cast<const py::handle&>(dt)).cast<std::string>() + "; expected float32 values or int8 codes");
  for (py::ssize_t i = 0; i < a.ndim(); ++i) in.data.shape.push_back(static_cast<uint64_t>(a.shape(i)));
  const py::array c = py::array::ensure(a, py::array::c_style);
  const auto* p = static_cast<const uint8_t*>(c.data());
  in.data.bytes.assign(p, p + c.nbytes());
  return in;
}

py::dict run(const Program& program, const std::string& chip, const std::vector<std::string>& configs,
             const std::vector<std::string>& sets, const std::vector<py::object>& inputs,
             const std::vector<std::string>& outputs, bool all_outputs, uint32_t batch, const std::string& firmware_path,
             bool deploy, uint32_t retries, uint64_t max_cycles, const std::string& trace, const std::string& vcd,
             const std::string& stats, bool check_races) {
  vp::config::ParamSet params;
  try {
    params.apply_preset(chip);
    for (const auto& f : configs) params.apply_file(f);
    params.apply_sets(sets);
    params.validate();
  } catch (const std::exception& e) {
    raise(g_config_error, std::string("configuration error: ") + e.what());
  }
  vp::obj::Object firmware;
  const bool bare = firmware_path.empty();
  if (!bare) {
    try {
      firmware = vp::platform::load_program_file(firmware_path);
    } catch (const std::exception& e) {
      raise(g_input_error, "firmware " + firmware_path + ": " + e.what());
    }
  }
  // Bound inputs as vp-run takes them: files by name (FILE@ADDR too), arrays as they are.
  std::vector<std::string> input_specs;
  std::vector<vp::platform::BoundInput> bound;
  std::vector<vp::platform::ExplicitInput> explicit_inputs;
  std::vector<std::string> output_specs = outputs;
  if (all_outputs && outputs.empty())
    for (const auto& b : program.object.io)
      if (b.output) output_specs.push_back(b.name + ".npy");
  vp::platform::HostIo io;
  try {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (py::isinstance<py::array>(inputs[i])) {
        bound.push_back(array_input(inputs[i].cast<py::array>(), "input " + std::to_string(i)));
        continue;
      }
      const std::string spec = py::str(inputs[i]);
      const size_t at = spec.rfind('@');
      if (at != std::string::npos) {
        // The explicit inputs through the file form (it parses the address).
        auto one = vp::platform::plan_host_io(program.object, std::vector<std::string>{spec}, {}, 1);
        for (auto& e : one.explicit_inputs) explicit_inputs.push_back(std::move(e));
      } else {
        bound.push_back({"--input " + spec, vp::platform::read_tensor_file(spec)});
      }
    }
    io = vp::platform::plan_host_io(program.object, std::move(bound), output_specs, batch);
    io.explicit_inputs = std::move(explicit_inputs);
    if (bare && io.batch > 1)
      throw vp::platform::HostIoError("a batch of " + std::to_string(io.batch) +
                                      " needs the firmware (not --firmware none)");
  } catch (const py::error_already_set&) {
    throw;
  } catch (const std::exception& e) {
    raise(g_input_error, e.what());
  }
  vp::platform::RunSetup setup;
  try {
    setup.cfg = vp::platform::chip_config_from(params);
    vp::platform::check_chip_size(setup.cfg);
  } catch (const std::exception& e) {
    raise(g_config_error, std::string("configuration error: ") + e.what());
  }
  try {
    if (bare) vp::platform::check_fits(program.object, setup.cfg);
  } catch (const std::exception& e) {
    raise(g_input_error, program.path + ": " + e.what());
  }
  setup.model = &program.object;
  setup.firmware = bare ? nullptr : &firmware;
  setup.io = &io;
  setup.image.deploy = deploy;
  setup.image.retries = retries;
  setup.max_cycles = max_cycles;
  setup.check_races = check_races;
  setup.trace_path = trace;
  setup.vcd_path = vcd;

  vp::py::ChildOutcome o;
  try {
    py::gil_scoped_release unlocked;
    o = vp::py::run_in_child(setup, [] {
      py::gil_scoped_acquire locked;
      if (PyErr_CheckSignals() == 0) return false;
      PyErr_Clear();  // raised again below, once the child has stopped
      return true;
    });
  } catch (const py::error_already_set&) {
    throw;
  } catch (const std::exception& e) {
    raise(g_run_error, e.what());
  }
  if (!o.started) raise(g_input_error, o.start_error);
  // Statistics are written whatever the run's end, as vp-run writes them.
  if (!stats.empty() && !o.stats_json.empty() && !o.interrupted) {
    try {
      vp::common::write_file_atomically(stats, nlohmann::json::parse(o.stats_json).dump(2) + "\n");
    } catch (const std::exception& e) {
      raise(g_input_error, e.what());
    }
  }
  if (o.interrupted) {
    PyErr_SetString(PyExc_KeyboardInterrupt, o.ending.empty() ? "interrupted" : o.ending.front().c_str());
    throw py::error_already_set();
  }
  py::dict d;
  d["status"] = o.status;
  d["cycles"] = o.cycles;
  d["exit_code"] = o.exit_code;
  d["stats"] = o.stats_json;
  if (!o.error.empty()) raise(g_input_error, o.error);
  if (o.exit_code != 0) {
    std::string m;
    for (const auto& line : o.ending) m += (m.empty() ? "" : "\n") + line;
    raise(g_run_error, m, o.exit_code);
  }
  // The files the caller named, whole or not at all; then the arrays.
  py::list arrays;
  try {
    // The specs given come first (explicit ones, then bound), the rest is all_outputs'.
    for (size_t k = 0; k < o.outputs.size(); ++k) {
      const auto& t = o.outputs[k];
      if (k < outputs.size()) vp::platform::write_tensor_file(t.path, t.bytes, t.dtype, t.shape);
    }
  } catch (const std::exception& e) {
    raise(g_input_error, e.what());
  }
  for (const auto& t : o.outputs) {
    std::vector<py::ssize_t> shape;
    for (uint64_t s : t.shape) shape.push_back(static_cast<py::ssize_t>(s));
    py::dtype dt(t.dtype);
    const size_t item = static_cast<size_t>(dt.itemsize());
    if (shape.empty()) shape.push_back(static_cast<py::ssize_t>(t.bytes.size() / item));
    py::array a(dt, shape);
    std::memcpy(a.mutable_data(), t.bytes.data(), t.bytes.size());
    arrays.append(a);
  }
  d["outputs"] = arrays;
  return d;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "Sidra VP: vp-cc's and vp-run's libraries (use the sidra_vp package)";
  py::object runtime_error = py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
  auto make = [&](const char* name, const py::object& base, const char* doc) {
    py::object t = py::reinterpret_steal<py::object>(
        PyErr_NewExceptionWithDoc((std::string("sidra_vp.") + name).c_str(), doc, base.ptr(), nullptr));
    m.attr(name) = t;
    return t;
  };
  g_error = make("Error", runtime_error, "A Sidra VP tool refused its input or the run failed.");
  g_compile_error = make("CompileError", g_error, "vp-cc could not compile: the model, a calibration input or an output.");
  g_config_error = make("ConfigError", g_error, "The chip's configuration (preset, file or parameter) is wrong.");
  g_input_error = make("InputError", g_error, "A program, input or output vp-run could not use.");
  g_run_error = make("RunError", g_error, "The run did not complete, or check_races found a race (exit_code as "
                                          "vp-run's: 3 deadlock, 4 max cycles, 5 fault, 6 trap, 7 race).");
  // Released before the interpreter's own teardown.
  m.add_object("_cleanup", py::capsule([] {
                 g_error.release();
                 g_compile_error.release();
                 g_config_error.release();
                 g_input_error.release();
                 g_run_error.release();
               }));

  m.def("compile", &compile, py::arg("model"), py::arg("out"), py::arg("chip"), py::arg("sets"), py::arg("calib_files"),
        py::arg("calib"), py::arg("percentile"), py::arg("threads"), py::arg("batch"), py::arg("replicate"),
        py::arg("lanes"), py::arg("placement"), py::arg("tests"), py::arg("test_dir"));
  py::class_<Program>(m, "Program")
      .def_readonly("path", &Program::path)
      .def_property_readonly("bindings", &bindings);
  m.def("load_program", &load, py::arg("path"));
  m.def("run", &run, py::arg("program"), py::arg("chip"), py::arg("configs"), py::arg("sets"), py::arg("inputs"),
        py::arg("outputs"), py::arg("all_outputs"), py::arg("batch"), py::arg("firmware"), py::arg("deploy"),
        py::arg("retries"), py::arg("max_cycles"), py::arg("trace"), py::arg("vcd"), py::arg("stats"),
        py::arg("check_races") = false);
  m.def("add_config_dir", &vp::config::add_config_dir, py::arg("dir"));
  m.def("preset_names", &vp::config::preset_names);
}
