// The Python module's native part, `hpcsim._hpcsim`: each function calls the driver functions the CLI's
// command calls and returns the JSON text that command prints with --format json (made by the same
// renderers, which write through configs/json_writer.h), so Python's results equal the CLI's by
// construction. python/hpcsim/__init__.py parses the JSON and holds the documented API.
// Simulations run with the GIL released. Bad input raises hpcsim.InputError (file, line, column where the
// input has them); a damaged or unusable results store raises hpcsim.StoreError.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/units.h"
#include "driver/collective_run.h"
#include "driver/gpu_tools.h"
#include "driver/io_run.h"
#include "driver/plan_run.h"
#include "driver/prediction_interval.h"
#include "driver/replay_run.h"
#include "driver/scenario_run.h"
#include "driver/schedule_run.h"
#include "driver/sweep.h"
#include "models/gpu/warp_sim/microbenchmarks.h"
#include "report/gpu_tool_report.h"
#include "report/io_report.h"
#include "report/kernel_explain.h"
#include "report/plan_report.h"
#include "report/replay_report.h"
#include "report/report_render.h"
#include "report/schedule_report.h"
#include "report/sweep_report.h"
#include "store/results_store.h"
#include "workloads/zoo/zoo.h"

namespace py = pybind11;

namespace hpcsim {
namespace {

std::string config_root() { return SpecCatalog::resolve_root(HPCSIM_DEFAULT_CONFIG_DIR).string(); }

// Raised for bad input of any tool, as the CLI's exit code 2.
struct PyInputError {
  std::string message;
  SourceLoc where;
};

// JSON text, the notes (for stderr before a run) and the warnings (after it), as the CLI prints them.
using Result = std::tuple<std::string, std::vector<std::string>, std::vector<std::string>>;

ScenarioRequest request_of(const std::string& file, const std::vector<std::string>& sets) {
  ScenarioRequest r;
  r.file = file;
  r.overrides = sets;
  return r;
}

// `hpcsim run FILE --set ... --format json --no-db`: a training, serve or mpi scenario once.
Result run(const std::string& file, const std::vector<std::string>& sets, bool exact) {
  py::gil_scoped_release release;
  ScenarioRequest request = request_of(file, sets);
  request.exact = exact;
  const LoadedScenario loaded = load_scenario(request);
  const SpecCatalog catalog(config_root());
  if (loaded.kind == ScenarioKind::plan) {
    throw ConfigError(loaded.root.at("kind").loc(),
                      "a plan searches many scenarios: run it with hpcsim.plan(" + file + ")");
  }
  std::vector<std::string> notes = loaded.notes;
  if (loaded.kind == ScenarioKind::training) {
    TrainingScenario scenario = parse_training_scenario(loaded.root, catalog, loaded.name);
    scenario.name = loaded.name;
    const IntervalTable intervals = IntervalTable::load(config_root());
    if (std::string note = global_batch_note(scenario, file, sets, catalog); !note.empty()) notes.push_back(note);
    ScenarioOutcome out = run_loaded_training(scenario, loaded, request, intervals, HPCSIM_VERSION);
    notes.insert(notes.end(), out.notes.begin(), out.notes.end());
    return {render_report(out.record.report, "json"), notes, out.warnings};
  }
  ScenarioOutcome out = run_scenario(loaded, request, catalog, IntervalTable{}, HPCSIM_VERSION);
  notes.insert(notes.end(), out.notes.begin(), out.notes.end());
  std::vector<std::string> warnings = out.warnings;
  if (!out.cannot_meet.empty()) warnings.push_back("cannot meet the target: " + out.cannot_meet);
  return {render_report(out.record.report, "json"), notes, warnings};
}

// `hpcsim serve FILE --set ... [--sweep-load R,...] [--target-p99 T] [--max-rate-within p99=T] --format json`.
Result serve(const std::string& file, const std::vector<std::string>& sets, const std::vector<double>& rates,
             double target_p99_s, int max_replicas, double max_rate_p99_s) {
  py::gil_scoped_release release;
  ScenarioRequest request = request_of(file, sets);
  const LoadedScenario loaded = load_scenario(request);
  if (loaded.kind != ScenarioKind::serve) {
    throw ConfigError(loaded.root.has("kind") ? loaded.root.at("kind").loc() : loaded.root.loc(),
                      "hpcsim.serve runs kind: serve scenarios (this one is " +
                          std::string(to_string(scenario_kind(loaded.root))) + ")");
  }
  for (const double r : rates) {
    if (!(r > 0)) throw PyInputError{"sweep_load: " + std::to_string(r) + " is not a positive request rate", {}};
  }
  if (max_replicas < 1) throw PyInputError{"max_replicas: must be at least 1", {}};
  check_count(CountLimit::nodes, max_replicas, SourceLoc{"max_replicas"}, "target_p99's search (a node per replica at least)");
  request.serve_rates = rates;
  request.serve_target_p99_s = target_p99_s;
  request.serve_max_replicas = max_replicas;
  request.serve_max_rate_p99_s = max_rate_p99_s;
  ScenarioOutcome out = run_scenario(loaded, request, SpecCatalog(config_root()), IntervalTable{}, HPCSIM_VERSION);
  std::vector<std::string> notes = loaded.notes;
  notes.insert(notes.end(), out.notes.begin(), out.notes.end());
  std::vector<std::string> warnings = out.warnings;
  if (!out.cannot_meet.empty()) warnings.push_back("cannot meet the target: " + out.cannot_meet);
  return {render_report(out.record.report, "json"), notes, warnings};
}

// `hpcsim sweep FILE --vary ... --db DB --format json`, in this process (no --jobs).
Result sweep(const std::string& file, const std::vector<std::string>& vary, const std::string& db) {
  py::gil_scoped_release release;
  const SpecCatalog catalog(config_root());
  SweepPlan plan = plan_sweep(file, vary, catalog);
  {
    ResultsStore store(db);
    open_study(plan, store);
  }
  run_sweep_points(db, plan, catalog, IntervalTable::load(config_root()), HPCSIM_VERSION);
  const ResultsStore store(db, StoreAccess::read);
  const SweepResultsView view{plan.study, plan.study_id, plan.already_stored, db};
  return {sweep_results_json(store, view), plan.notes, {}};
}

// `hpcsim plan FILE --set ... [--screen-only] --format json --no-db`.
Result plan(const std::string& file, const std::vector<std::string>& sets, bool screen_only) {
  py::gil_scoped_release release;
  const SpecCatalog catalog(config_root());
  const PlanSpec spec = load_plan(file, sets, catalog, screen_only);
  const PlanRun r = run_plan(spec, file, sets, catalog, HPCSIM_VERSION);
  return {plan_to_json(spec, r.result), {}, {}};  // plan_rates (wall times) is left out, as from the JSON
}

// `hpcsim schedule JOBS (--cluster FILE | --nodes N) --policy P --format json --no-db`.
Result schedule(const std::string& jobs, const std::string& cluster, std::optional<int> nodes, const std::string& policy,
                std::int64_t max_jobs, int cores_per_node) {
  py::gil_scoped_release release;
  ScheduleRequest request;
  request.jobs = jobs;
  request.cluster = cluster;
  request.nodes = nodes;
  request.policy = policy;
  request.max_jobs = max_jobs;
  request.cores_per_node = cores_per_node;
  std::vector<std::string> notes;
  const ScheduleRun r = run_schedule(request, SpecCatalog(config_root()), [&](const std::string& n) { notes.push_back(n); });
  return {schedule_to_json(r.runs, r.summary, r.partitions), notes, {}};
}

// `hpcsim replay TRACE --platform P [--np N] [--ranks-per-node R] ... --format json --no-db`; the flags' checks
// (model, collectives, eager) are the CLI's.
std::string replay(ReplayRequest request, const std::string& eager) {
  py::gil_scoped_release release;
  if (request.model != "" && request.model != "smpi" && request.model != "mpi")
    throw PyInputError{"model: '" + request.model + "' is not smpi or mpi", {}};
  if (request.selector != "" && request.selector != "smpi" && request.selector != "ompi")
    throw PyInputError{"collectives: '" + request.selector + "' is not smpi or ompi", {}};
  if (!eager.empty()) {
    double v = 0;
    try {
      v = parse_quantity(eager, Dimension::bytes, "B");
    } catch (const UnitError& e) {
      throw PyInputError{std::string("eager: ") + e.what(), {}};
    }
    if (!(v >= 0) || v > 1e15) throw PyInputError{"eager: must be 0 B .. 1 PB, got " + eager, {}};
    request.eager_bytes = v;
  }
  const ReplayRun r = run_replay(request, SpecCatalog(config_root()));
  return replay_json(r.result, r.summary);
}

// `hpcsim io [--io500 | --checkpoint | --files | --mlperf] ... --format json`: mode "dataset" (the read of
// --storage), "io500", "checkpoint", "files" or "mlperf".
std::string io(const IoFlags& flags, const std::string& mode) {
  py::gil_scoped_release release;
  const SpecCatalog catalog(config_root());
  if (mode == "dataset") {
    const DatasetReadRun r = run_dataset_read(flags, catalog);
    return dataset_read_json(r.spec, r.job, r.result);
  }
  if (mode == "io500") {
    const Io500Run r = run_io500(flags, catalog);
    return io500_json(r.on.fs, r.on.clients, r.result);
  }
  if (mode == "checkpoint") {
    const CheckpointRun r = run_checkpoint(flags, catalog);
    return checkpoint_json(r.on.fs, r.on.clients, flags.op, r.bytes_per_proc, r.result);
  }
  if (mode == "files") {
    const FileReadsRun r = run_file_reads(flags, catalog);
    return file_reads_json(r.on.fs, r.on.clients, r.file_bytes, r.result);
  }
  const MlperfStorageRun r = run_mlperf_storage(flags, catalog);
  return mlperf_storage_json({r.fs, r.workload, r.host, r.hosts, r.largest, r.accelerators, r.result});
}

std::string kernel(const std::string& gpu_name, const std::string& op, const std::string& dtype, bool explain,
                   const KernelOpShape& shape) {
  py::gil_scoped_release release;
  const GpuSpec gpu = gpu_from_flag(SpecCatalog(config_root()), gpu_name);
  const std::optional<Precision> precision = parse_precision(dtype);
  if (!precision) throw PyInputError{"dtype " + dtype + ": unknown precision", {}};
  if (!gpu.supports(*precision)) {
    throw PyInputError{"dtype " + dtype + ": GPU '" + gpu.name + "' has no " + dtype + " math units", {}};
  }
  const std::vector<Kernel> kernels = kernel_op(op, shape, gpu, *precision);
  std::vector<KernelExplanation> explained;
  if (explain) {
    const std::vector<KernelTwin> twins = kernel_op_twins(op, shape, gpu, *precision, kernels);
    check_twin_limits(twins, SourceLoc{"explain"}, "the WarpSim twin of " + op);
    explained = explain_kernels(gpu, kernels, twins, kernel_ops_with_twins());
  }
  return kernel_time_json(gpu, op, estimate_op(gpu, kernels), explain, explained);
}

std::string occupancy(const std::string& gpu, const std::string& cc, int threads, int regs, const std::string& smem) {
  return occupancy_json(occupancy_of(config_root(), gpu, cc, threads, regs, smem));
}

std::string collective(const CollectiveRunOptions& o) {
  py::gil_scoped_release release;
  const CollectiveRun r = run_collective(o, SpecCatalog(config_root()));
  return collective_json(r.rows, r.op, r.ranks);
}

std::string microbench(const std::string& gpu_name, const std::string& bench) {
  py::gil_scoped_release release;
  const GpuSpec gpu = gpu_from_flag(SpecCatalog(config_root()), gpu_name);
  if (!gpu.warp_sim) throw PyInputError{"gpu " + gpu_name + ": the spec has no warp_sim: section, which WarpSim needs", {}};
  std::vector<MicrobenchRow> rows;
  for (const std::string& name : bench.empty() ? microbench_names() : std::vector<std::string>{bench}) {
    const MicrobenchRun r = run_microbench(gpu, name);
    rows.insert(rows.end(), r.rows.begin(), r.rows.end());
  }
  return microbench_json(gpu, rows);
}

// `hpcsim list KIND`: the names of one kind ("models": the zoo's and the model files').
std::vector<std::string> list_names(const std::string& kind) {
  const SpecCatalog catalog(config_root());
  return kind == "models" ? zoo_names(catalog.root()) : catalog.names(kind);
}

}  // namespace
}  // namespace hpcsim

PYBIND11_MODULE(_hpcsim, m) {
  using namespace hpcsim;
  m.doc() = "hpcsim's native part; use the hpcsim package (python/hpcsim/__init__.py).";
  // Held for the interpreter's life (never released: a static py::object would be freed after it ends).
  PyObject* error_base = PyErr_NewExceptionWithDoc("hpcsim.Error", "Any error hpcsim raises.", nullptr, nullptr);
  static PyObject* input_error = PyErr_NewExceptionWithDoc("hpcsim.InputError",
                                "Bad input: a scenario, spec or argument hpcsim refuses (the CLI's exit code 2). "
                                "str(e) is 'file:line:column: message' where the input has a place; the attributes "
                                "file, line and column hold it (line and column 0 when there is none).",
                                error_base, nullptr);
  static PyObject* store_error = PyErr_NewExceptionWithDoc(
      "hpcsim.StoreError", "The results store (db=...) is unusable: not an hpcsim store, damaged, unreadable.",
      error_base, nullptr);
  m.attr("Error") = py::handle(error_base);
  m.attr("InputError") = py::handle(input_error);
  m.attr("StoreError") = py::handle(store_error);
  py::register_exception_translator([](std::exception_ptr p) {
    const auto raise = [](PyObject* type, const std::string& message, const SourceLoc& where) {
      py::object e = py::reinterpret_borrow<py::object>(type)(message);
      e.attr("file") = where.file;
      e.attr("line") = where.line;
      e.attr("column") = where.column;
      PyErr_SetObject(type, e.ptr());
    };
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ConfigError& e) {
      raise(input_error, e.what(), e.where());
    } catch (const PyInputError& e) {
      raise(input_error, e.message, e.where);
    } catch (const ToolInputError& e) {
      raise(input_error, e.what(), {});
    } catch (const CollectiveInputError& e) {
      raise(input_error, e.what(), {});
    } catch (const ScheduleInputError& e) {
      raise(input_error, e.what(), {});
    } catch (const IoInputError& e) {
      raise(input_error, e.what(), {});
    } catch (const StoreError& e) {
      raise(store_error, e.what(), {});
    } catch (const std::invalid_argument& e) {  // a request the engine cannot run, a shape an op refuses
      raise(input_error, e.what(), {});
    }
  });

  py::class_<KernelOpShape>(m, "KernelOpShape")
      .def(py::init<>())
      .def("set", [](KernelOpShape& s, const std::string& op, const std::string& key, const py::object& v) {
        const auto i = [&] { return v.cast<std::int64_t>(); };
        const auto b = [&] { return v.cast<bool>(); };
        const auto str = [&] { return py::str(v).cast<std::string>(); };
        const bool rec = op == "lstm" || op == "gru";
        if (op == "gemm" && key == "m") s.gemm.m = i();
        else if (op == "gemm" && key == "n") s.gemm.n = i();
        else if (op == "gemm" && key == "k") s.gemm.k = i();
        else if (op == "gemm" && key == "batch") s.gemm.batch = i();
        else if (op == "copy" && key == "bytes") s.copy_bytes = str();
        else if (rec && key == "hidden") s.recurrent.hidden = i();
        else if (rec && key == "batch") s.recurrent.batch = i();
        else if (rec && key == "steps") s.recurrent.steps = i();
        else if (rec && key == "input") s.recurrent.input = i();
        else if (rec && key == "train") s.recurrent.train = b();
        else if (op == "conv" && key == "batch") s.conv.n = i();
        else if (op == "conv" && key == "c") s.conv.c = i();
        else if (op == "conv" && key == "h") s.conv.h = i();
        else if (op == "conv" && key == "w") s.conv.w = i();
        else if (op == "conv" && key == "k") s.conv.k = i();
        else if (op == "conv" && key == "r") s.conv.r = i();
        else if (op == "conv" && key == "s") s.conv.s = i();
        else if (op == "conv" && key == "stride") s.conv.stride = static_cast<int>(i());
        else if (op == "conv" && key == "pad") s.conv.pad = static_cast<int>(i());
        else if (op == "conv" && key == "pass") s.conv_pass = str();
        else if ((op == "softmax" || op == "layernorm") && key == "rows") s.rows = i();
        else if ((op == "softmax" || op == "layernorm") && key == "cols") s.cols = i();
        else if ((op == "softmax" || op == "layernorm" || op == "embedding") && key == "backward") s.backward = b();
        else if (op == "attention" && key == "batch") s.attention.batch = i();
        else if (op == "attention" && key == "heads") s.attention.heads = i();
        else if (op == "attention" && key == "seq") s.attention.seq = i();
        else if (op == "attention" && key == "head_dim") s.attention.head_dim = i();
        else if (op == "attention" && key == "causal") s.attention.causal = b();
        else if (op == "attention" && key == "unfused") s.unfused = b();
        else if (op == "optimizer" && key == "params") s.optimizer.parameters = v.cast<double>();
        else if (op == "optimizer" && key == "tensors") s.optimizer.tensors = i();
        else if (op == "optimizer" && key == "kind") s.optimizer_kind = str();
        else if (op == "optimizer" && key == "impl") s.optimizer_impl = str();
        else if (op == "embedding" && key == "lookups") s.embedding.lookups = i();
        else if (op == "embedding" && key == "dim") s.embedding.dim = i();
        else if (op == "embedding" && key == "vocab") s.embedding.vocab = i();
        else if (op == "elementwise" && key == "elements") s.chain.elements = v.cast<double>();
        else if (op == "elementwise" && key == "ops") s.chain.ops = static_cast<int>(i());
        else if (op == "elementwise" && key == "inputs") s.chain.inputs = static_cast<int>(i());
        else if (op == "elementwise" && key == "fused") s.chain.fused = b();
        else throw PyInputError{"kernel " + op + ": no argument '" + key + "' (see `hpcsim kernel " + op + " --help`)", {}};
      });
  m.def("kernel_op_names", &kernel_op_names);

  py::class_<CollectiveRunOptions>(m, "CollectiveRunOptions")
      .def(py::init<>())
      .def_readwrite("cluster_file", &CollectiveRunOptions::cluster_file)
      .def_readwrite("node", &CollectiveRunOptions::node)
      .def_readwrite("network", &CollectiveRunOptions::network)
      .def_readwrite("op", &CollectiveRunOptions::op)
      .def_readwrite("algo", &CollectiveRunOptions::algo)
      .def_readwrite("nodes", &CollectiveRunOptions::nodes)
      .def_readwrite("gpus", &CollectiveRunOptions::gpus)
      .def_readwrite("size", &CollectiveRunOptions::size)
      .def_readwrite("min", &CollectiveRunOptions::min)
      .def_readwrite("max", &CollectiveRunOptions::max);

  py::class_<ReplayRequest>(m, "ReplayRequest")
      .def(py::init<>())
      .def_readwrite("trace", &ReplayRequest::trace)
      .def_readwrite("platform", &ReplayRequest::platform)
      .def_readwrite("hostfile", &ReplayRequest::hostfile)
      .def_readwrite("ranks", &ReplayRequest::ranks)
      .def_readwrite("ranks_per_node", &ReplayRequest::ranks_per_node)
      .def_readwrite("oversubscribe", &ReplayRequest::oversubscribe)
      .def_readwrite("model", &ReplayRequest::model)
      .def_readwrite("selector", &ReplayRequest::selector)
      .def_readwrite("coll", &ReplayRequest::coll)
      .def_readwrite("critical_path", &ReplayRequest::critical_path);

  py::class_<IoFlags>(m, "IoFlags")
      .def(py::init<>())
      .def_readwrite("storage", &IoFlags::storage)
      .def_readwrite("samples", &IoFlags::samples)
      .def_readwrite("sample_size", &IoFlags::sample_size)
      .def_readwrite("readers", &IoFlags::readers)
      .def_readwrite("nodes", &IoFlags::nodes)
      .def_readwrite("op", &IoFlags::op)
      .def_readwrite("stripe_count", &IoFlags::stripe_count)
      .def_readwrite("filesystem", &IoFlags::filesystem)
      .def_readwrite("clients", &IoFlags::clients)
      .def_readwrite("procs", &IoFlags::procs)
      .def_readwrite("bytes_per_proc", &IoFlags::bytes_per_proc)
      .def_readwrite("workload", &IoFlags::workload)
      .def_readwrite("accelerator", &IoFlags::accelerator)
      .def_readwrite("accelerators", &IoFlags::accelerators)
      .def_readwrite("read_threads", &IoFlags::read_threads)
      .def_readwrite("host_cores", &IoFlags::host_cores)
      .def_readwrite("host_clock", &IoFlags::host_clock);

  m.def("run", &run);
  m.def("io", &io);
  m.def("replay", &replay);
  m.def("serve", &serve);
  m.def("sweep", &sweep);
  m.def("plan", &plan);
  m.def("schedule", &schedule);
  m.def("kernel", &kernel);
  m.def("occupancy", &occupancy);
  m.def("collective", &collective);
  m.def("microbench", &microbench);
  m.def("list_names", &list_names);
  m.def("microbench_names", &microbench_names);
  m.def("set_count_limit", &set_count_limit);
  m.attr("version") = HPCSIM_VERSION;
  m.attr("config_root") = config_root();
}
