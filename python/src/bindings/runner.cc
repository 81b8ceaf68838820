// _core.Runner: one simulation, as pams_cpp's runner classes drive it. It
// owns the class registry (with the Python agent and event classes
// registered), the engine runner and its loggers (the Python loggers
// among them), and keeps the Python objects whose C++ parts the engine
// uses alive as long as it. Python agents and events refer back to their
// runner: the runner's traverse and clear let the garbage collector free
// such cycles.
//
// A run releases the GIL and takes it back only for what needs Python: the
// Python classes' methods, warnings (Python's warnings module), the step
// printer's writes, and, every 50 ms, Python's signal handlers and the
// progress callback, so that Ctrl-C (KeyboardInterrupt) stops a run within
// a step and leaves the interpreter usable. A parallel runner waiting for
// its workers runs the signal handlers every 20 ms (the engine's wait
// check), so that Ctrl-C stops it within 0.1 s whatever its workers do.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "bindings/bindings.h"
#include "interop/hand_built.h"
#include "interop/python_agents.h"
#include "interop/python_events.h"
#include "interop/python_logger.h"
#include "interop/python_markets.h"
#include "interop/python_run.h"
#include "interop/python_transaction_fees.h"
#include "interop/values.h"
#include "pams/errors.h"
#include "pams/logs/logger.h"
#include "pams/market/market.h"
#include "pams/random/random.h"
#include "pams/runners/class_registry.h"
#include "pams/runners/parallel_runners.h"
#include "pams/runners/runner.h"
#include "pams/runners/worker.h"
#include "pams/simulator/simulator.h"
#include "pams/tensorflow/tensorflow_runner.h"
#include "runners/agent_task.h"
#include "runners/host_error.h"
#include "runners/runner_access.h"

namespace pams::python {

namespace {

// Runs Python's signal handlers every 50 ms of a run (at step ends), and
// then tells the progress callback, if any, how many steps are done.
class SignalCheck : public Logger {
 public:
  SignalCheck(std::atomic<bool>* stop, PendingError* pending)
      : stop_(stop), pending_(pending) {}

  void process_market_step_end_log(const MarketStepEndLog& log) override {
    if (log.market.market_id() != 0 || ++steps_ % 64 != 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(50)) return;
    last_ = now;
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      pending_->Take();
      stop_->store(true);
      return;
    }
    if (progress.is_valid() && !progress.is_none()) {
      try {
        progress(log.market.get_time() + 1);
      } catch (nb::python_error& e) {
        pending_->Keep(e);
        stop_->store(true);
      }
    }
  }

  // Called with the number of steps done (None: no callback).
  nb::object progress;

 private:
  std::atomic<bool>* stop_;
  PendingError* pending_;
  uint64_t steps_ = 0;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

class PyRunner {
 public:
  PyRunner(const std::string& class_name, nb::handle settings,
           const std::vector<uint32_t>& prng_mt, uint32_t prng_index,
           std::optional<double> prng_gauss, nb::list loggers,
           const std::string& config_directory)
      : registry_(MakeRegistry()),
        run_(std::make_unique<PythonRun>()),
        signal_check_(std::make_unique<SignalCheck>(&stop_, &run_->pending)) {
    // The mirror comes first: PAMS changes an Order object before any
    // logger or agent sees its log.
    loggers_.add(&run_->mirror);
    for (nb::handle logger : loggers) {
      kept_.push_back(nb::borrow(logger));
      loggers_.add(nb::cast<Logger*>(logger));
    }
    loggers_.add(signal_check_.get());
    Random prng;
    prng.setstate(ToRandomState(prng_mt, prng_index, prng_gauss));
    runner_ = registry_.create_runner(
        class_name,
        RunnerSetUp{ToJson(settings, ""), std::move(prng), &loggers_, config_directory,
                    [this](std::string_view message) { Warn(message); }},
        "runner");
    runner_->set_stop_flag(&stop_);
    model_batcher_ = MakePythonModelBatcher(run_.get());
    runner_->set_model_batcher(model_batcher_.get());
    run_->stop = &stop_;
    runner_->set_wait_check([this] { CheckSignals(); });
    Simulator& sim = runner_->simulator();
    run_->set_simulator(&sim);
  }

  // The config again, as it is when the run sets up (PAMS reads it then).
  // REQUIRES: before Setup().
  void SetSettings(nb::handle settings) { runner_->set_settings(ToJson(settings, "")); }

  // Adds the "simulation" keys Python runner classes read themselves (the
  // PyTorch and JAX runners' options) to those this runner's class
  // declares, so that no run warns that they are unread.
  // REQUIRES: before Setup().
  void DeclareSimulationKeys(std::vector<std::string> keys) {
    registry_.declare_simulation_keys(runner_->class_name(), std::move(keys));
  }

  // Registers a Python agent class (pams_cpp.runners.base builds cls).
  // REQUIRES: before Setup().
  void RegisterAgentClass(std::shared_ptr<PythonAgentClass> cls) {
    agent_classes_.push_back(cls);
    RegisterPythonAgent(&registry_, run_.get(), std::move(cls));
  }

  // Registers a Python market class. REQUIRES: before Setup().
  void RegisterMarketClass(std::shared_ptr<PythonMarketClass> cls) {
    market_classes_.push_back(cls);
    RegisterPythonMarket(&registry_, run_.get(), std::move(cls));
  }

  // Registers a Python event class. REQUIRES: before Setup().
  void RegisterEventClass(std::shared_ptr<PythonEventClass> cls) {
    event_classes_.push_back(cls);
    RegisterPythonEvent(&registry_, run_.get(), std::move(cls));
  }

  // Registers a Python transaction fee class (since PAMS's development
  // branch). REQUIRES: before Setup().
  void RegisterTransactionFeeClass(std::shared_ptr<PythonTransactionFeeClass> cls) {
    fee_classes_.push_back(cls);
    RegisterPythonTransactionFee(&registry_, run_.get(), std::move(cls));
  }

  // Makes `alias` name the registered class `name` (a sample's Python face
  // whose name differs from its engine class's). REQUIRES: before Setup().
  void AliasClass(const std::string& alias, const std::string& name) {
    registry_.add_alias(alias, name);
  }

  // A registered class that is none of the engine's kinds (see
  // ClassRegistry::add_foreign). REQUIRES: before Setup().
  void AddForeignClass(const std::string& name) { registry_.add_foreign(name); }

  // A logger written in Python. REQUIRES: before Setup().
  void AddPythonLogger(nb::object logger, PythonLogKinds kinds) {
    python_loggers_.push_back(std::make_unique<PythonLogger>(std::move(logger), kinds, run_.get()));
    loggers_.add(python_loggers_.back().get());
  }

  // The Python objects the engine hands to Python code: the markets by id
  // and the Python Simulator. REQUIRES: before Run().
  void SetPythonObjects(nb::object markets, nb::object simulator) {
    run_->markets = std::move(markets);
    run_->markets_counts = ObjectCounts(runner_->simulator());
    run_->simulator_object = std::move(simulator);
  }

  // progress(steps_done) is called every 50 ms or so of a run.
  void SetProgress(nb::object progress) { signal_check_->progress = std::move(progress); }

  // fn() runs once in each worker of a parallel runner before its first
  // task (the thread runner: in each of its threads). REQUIRES: before Run().
  void SetWorkerInitializer(nb::object fn) {
    worker_initializer_ = std::move(fn);
    runner_->set_worker_initializer([this] {
      nb::gil_scoped_acquire gil;
      try {
        worker_initializer_();
      } catch (nb::python_error& e) {
        CheckTaskNotAbandoned();
        StopWithPythonError(run_.get(), e, "in the worker initializer");
      }
      CheckTaskNotAbandoned();
    });
  }

  // The program a multi-process runner starts as a worker for "spawn" and
  // "forkserver". REQUIRES: before Setup().
  void SetWorkerProgram(const std::string& path, const std::vector<std::string>& argv) {
    Process().set_worker_program(path, argv);
  }
  // REQUIRES: before Setup().
  void SetStartMethod(const std::string& method) { Process().set_default_start_method(method); }
  void SetWorkerCpuAffinity(bool pin) { Process().set_default_worker_cpu_affinity(pin); }

  // start(fd) -> pid starts a "fork" worker (Python's os.fork).
  // REQUIRES: before Run().
  void SetWorkerStarter(nb::object start) {
    worker_starter_ = std::move(start);
    Process().set_worker_starter([this](int fd) {
      nb::gil_scoped_acquire gil;
      try {
        return nb::cast<int>(worker_starter_(fd));
      } catch (nb::python_error& e) {
        throw SimulationError(std::string("cannot start a worker process: ") + e.what());
      }
    });
  }
  void SetHostPayload(nb::bytes payload) {
    Process().set_host_payload(std::string(payload.c_str(), payload.size()));
  }
  // See MultiProcessAgentParallelRunner (parallel_runners.h).
  void SetWorkerPoolKeyExtra(nb::bytes extra) {
    Process().set_worker_pool_key_extra(std::string(extra.c_str(), extra.size()));
  }
  void CloseWorkers() {
    nb::gil_scoped_release release;  // stopping them may take 0.2 s
    Process().close_workers();
  }

  // Makes this runner a worker process's replica. REQUIRES: before Setup().
  void MakeReplica(const std::string& config_directory) {
    internal::RunnerAccess::SetReplica(runner_.get());
    runner_->simulator().set_config_directory(config_directory);
    run_->is_worker = true;
  }

  Runner& engine() { return *runner_; }
  PythonRun& python_run() { return *run_; }

  void Setup() {
    run_->owner = nb::find(this);
    try {
      runner_->setup();
    } catch (const std::exception&) {
      RaisePending();
      throw;
    }
    RaisePending();
  }

  void Run() {
    try {
      nb::gil_scoped_release release;
      runner_->run();
    } catch (const HostError& e) {
      RaisePending();
      RaiseHostError(e);
    } catch (const SimulationError&) {
      KeepQuietAboutThreadsLeftBehind();
      RaisePending();
      throw;
    }
    RaisePending();
  }

  // Threads left behind by an interrupted run hold Python objects of the
  // run until their calls return, perhaps past the interpreter's exit:
  // nanobind's report of objects alive at exit would then be about them.
  void KeepQuietAboutThreadsLeftBehind() {
    auto* threads = dynamic_cast<MultiThreadAgentParallelRunner*>(runner_.get());
    if (threads != nullptr && threads->left_threads_behind()) nb::set_leak_warnings(false);
  }

  // The runner's generator now, as (words, index, gauss_next), for the
  // Python runner to put back into the random.Random it was given.
  std::tuple<std::vector<uint32_t>, uint32_t, std::optional<double>> PrngState() const {
    const Random::State s = runner_->prng_state();
    return {std::vector<uint32_t>(s.mt.begin(), s.mt.end()), s.index,
            s.has_gauss_next ? std::optional<double>(s.gauss_next) : std::nullopt};
  }

  void SetPrngState(const std::vector<uint32_t>& mt, uint32_t index,
                    std::optional<double> gauss_next) {
    runner_->set_prng_state(ToRandomState(mt, index, gauss_next));
  }

  Simulator& simulator() { return runner_->simulator(); }
  double initialization_seconds() const { return runner_->initialization_seconds(); }
  double execution_seconds() const { return runner_->execution_seconds(); }

  // REQUIRES: a multi-process runner (else TypeError).
  MultiProcessAgentParallelRunner& Process() {
    auto* process = dynamic_cast<MultiProcessAgentParallelRunner*>(runner_.get());
    if (process == nullptr) throw nb::type_error("not a multi-process runner");
    return *process;
  }

 private:
  static ClassRegistry MakeRegistry() {
    ClassRegistry registry = ClassRegistry::WithBuiltins();
    tensorflow::RegisterClasses(&registry);
    registry.set_unknown_class_hint(
        "register a class of your own with runner.class_register(cls) before main()");
    return registry;
  }

  // Python's warnings.warn, at the user's line (pams_cpp/_warnings.py: the
  // first caller outside pams_cpp); a warning that the filters turn into an
  // error stops the run and is raised from it.
  void Warn(std::string_view message) {
    nb::gil_scoped_acquire gil;
    try {
      nb::module_::import_("pams_cpp._warnings")
          .attr("warn")(nb::str(message.data(), message.size()), nb::handle(PyExc_UserWarning));
    } catch (nb::python_error& e) {
      e.restore();
      run_->pending.Take();
      stop_.store(true);
    }
  }

  void RaisePending() {
    if (run_->pending.has_error()) run_->pending.Raise();
  }

  // The engine's wait check: runs Python's signal handlers (the main
  // thread's), whose exception (KeyboardInterrupt) stops the run.
  void CheckSignals() {
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      run_->pending.Take();
      stop_.store(true);
    }
  }

  // Raises the Python error a worker process described (as it was raised
  // there, with the worker's traceback as its cause); e itself if the
  // description cannot be read.
  [[noreturn]] static void RaiseHostError(const HostError& e) {
    nb::object error;
    if (!e.payload().empty()) {
      try {
        error = nb::module_::import_("pams_cpp.runners._errors")
                    .attr("loads")(nb::bytes(e.payload().data(), e.payload().size()),
                                   std::string(e.what()));
      } catch (nb::python_error&) {
        error = nb::object();
      }
    }
    if (!error.is_valid()) throw SimulationError(e.what());
    // What the engine knows of it (which agent at which step), shown under
    // the traceback, unless the worker noted it already; str(error) stays
    // the worker's.
    if (nb::hasattr(error, "add_note") && !nb::hasattr(error, "__notes__")) {
      try {
        error.attr("add_note")(std::string(e.what()));
      } catch (nb::python_error&) {
      }
    }
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
    throw nb::python_error();
  }

 public:
  // Visits the Python object of an engine object of a Python class (none
  // for one of a built-in class).
  template <typename T, typename Each>
  static void VisitPart(const T* object, Each& each) {
    if (const auto* p = dynamic_cast<const PythonPart*>(object)) each(p->self().ptr());
  }

  // The Python objects this runner holds, for the garbage collector: the
  // Python agents hold their runner (through their simulator), so an agent
  // and its runner form a cycle that only the collector can break.
  int Traverse(visitproc visit, void* arg) const {
    auto v = [&](PyObject* o) { return o != nullptr ? visit(o, arg) : 0; };
    int result = 0;
    auto each = [&](PyObject* o) {
      if (result == 0) result = v(o);
    };
    for (const nb::object& o : kept_) each(o.ptr());
    each(worker_initializer_.ptr());
    each(worker_starter_.ptr());
    if (signal_check_) each(signal_check_->progress.ptr());
    for (const auto& cls : agent_classes_) each(cls->maker.ptr());
    for (const auto& cls : event_classes_) each(cls->maker.ptr());
    for (const auto& cls : market_classes_) each(cls->cls.ptr());
    for (const auto& cls : fee_classes_) each(cls->maker.ptr());
    for (const auto& logger : python_loggers_) each(logger->logger().ptr());
    if (run_) run_->Traverse(each);
    if (runner_) {
      // Only the Python objects of what the simulator owns: an object a
      // program built by hand and added to this runner's simulator (which
      // the simulator borrows) is its Python object's, which the
      // simulator's Python side keeps. Visiting it here would count a
      // reference nobody holds, and the collector would free it under the
      // runner (a segfault); it is not even read, as it may be gone.
      for (const auto& agent : runner_->simulator().agents()) {
        if (agent.get_deleter().owned) VisitPart(agent.get(), each);
      }
      for (const auto& event : runner_->simulator().events()) {
        if (event.get_deleter().owned) VisitPart(event.get(), each);
      }
      for (const auto& market : runner_->simulator().market_objects()) {
        if (!market.get_deleter().owned) continue;
        VisitPart(market.get(), each);
        VisitPart(market->transaction_fee(), each);
      }
    }
    return result;
  }

  // Drops them (the collector breaks the cycle here). The runner cannot run
  // again afterwards.
  void Clear() {
    // kept_ (the engine loggers' Python objects) stays: those refer to
    // nothing, and the engine holds pointers to their C++ parts.
    for (const auto& cls : agent_classes_) cls->maker = nb::object();
    for (const auto& cls : event_classes_) cls->maker = nb::object();
    for (const auto& cls : fee_classes_) cls->maker = nb::object();
    if (signal_check_) signal_check_->progress = nb::object();
    worker_initializer_ = nb::object();
    worker_starter_ = nb::object();
    for (const auto& logger : python_loggers_) logger->Clear();
    if (run_) run_->Clear();
    if (runner_) {
      // What the simulator borrows (objects built by hand) is its Python
      // objects' own, and may be gone: left alone (see Traverse).
      auto clear = [](auto* object) {
        if (auto* p = dynamic_cast<PythonPart*>(object)) p->clear_self();
      };
      for (const auto& agent : runner_->simulator().agents()) {
        if (agent.get_deleter().owned) clear(agent.get());
      }
      for (const auto& event : runner_->simulator().events()) {
        if (event.get_deleter().owned) clear(event.get());
      }
      for (const auto& market : runner_->simulator().market_objects()) {
        if (!market.get_deleter().owned) continue;
        clear(market.get());
        clear(market->transaction_fee());
      }
    }
  }

 private:
  ClassRegistry registry_;
  std::atomic<bool> stop_{false};
  // Declared before runner_, which uses them until it is destroyed.
  std::unique_ptr<PythonRun> run_;
  std::unique_ptr<SignalCheck> signal_check_;
  Loggers loggers_;
  std::vector<nb::object> kept_;
  nb::object worker_initializer_;
  nb::object worker_starter_;
  std::vector<std::shared_ptr<PythonAgentClass>> agent_classes_;
  std::vector<std::shared_ptr<PythonEventClass>> event_classes_;
  std::vector<std::shared_ptr<PythonMarketClass>> market_classes_;
  std::vector<std::shared_ptr<PythonTransactionFeeClass>> fee_classes_;
  std::vector<std::unique_ptr<PythonLogger>> python_loggers_;
  std::unique_ptr<ModelBatcher> model_batcher_;
  std::unique_ptr<Runner> runner_;
};

int RunnerTraverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  return nb::inst_ptr<PyRunner>(self)->Traverse(visit, arg);
}

int RunnerClear(PyObject* self) {
  if (nb::inst_ready(self)) nb::inst_ptr<PyRunner>(self)->Clear();
  return 0;
}

PyType_Slot runner_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(&RunnerTraverse)},
                              {Py_tp_clear, reinterpret_cast<void*>(&RunnerClear)},
                              {0, nullptr}};

}  // namespace

namespace {

void RegisterWorkerClasses(ClassRegistry* registry) { tensorflow::RegisterClasses(registry); }

}  // namespace

Runner& EngineRunnerOf(nb::handle runner) {
  return nb::cast<PyRunner&>(runner.attr("_core")).engine();
}

PythonRun& PythonRunOf(nb::handle runner_core) {
  return nb::cast<PyRunner&>(runner_core).python_run();
}

Runner& EngineOfRunnerCore(nb::handle runner_core) {
  return nb::cast<PyRunner&>(runner_core).engine();
}

void BindRunner(nb::module_& m) {
  // What a worker process of a multi-process runner started from Python
  // runs (pams_cpp.runners.agent_parallel gives this as its program): the
  // engine's worker, which serves the runner and never returns.
  m.def("_serve_worker", [] {
    InitWorkerProcess(0, nullptr, &RegisterWorkerClasses);
    throw nb::value_error("this process was not started as a pams worker");
  });
  // The worker processes kept for later runs (workerIdleTimeout): ends them
  // now; how many sets are kept.
  m.def("shutdown_workers", [] {
    nb::gil_scoped_release release;
    ShutdownKeptWorkers();
  });
  m.def("kept_worker_sets", &KeptWorkerSets);
  nb::class_<PythonAgentClass>(m, "AgentClass")
      .def(nb::init<>())
      .def_rw("name", &PythonAgentClass::name)
      .def_rw("base", &PythonAgentClass::base)
      .def_rw("maker", &PythonAgentClass::maker)
      .def_rw("setup", &PythonAgentClass::setup)
      .def_rw("submit_orders", &PythonAgentClass::submit_orders)
      .def_rw("submitted_order", &PythonAgentClass::submitted_order)
      .def_rw("executed_order", &PythonAgentClass::executed_order)
      .def_rw("canceled_order", &PythonAgentClass::canceled_order)
      .def_rw("batches", &PythonAgentClass::batches);

  nb::class_<PythonMarketClass>(m, "MarketClass")
      .def(nb::init<>())
      .def_rw("name", &PythonMarketClass::name)
      .def_rw("base", &PythonMarketClass::base)
      .def_rw("cls", &PythonMarketClass::cls)
      .def_rw("setup", &PythonMarketClass::setup);

  nb::class_<PythonEventClass>(m, "EventClass")
      .def(nb::init<>())
      .def_rw("name", &PythonEventClass::name)
      .def_rw("base", &PythonEventClass::base)
      .def_rw("maker", &PythonEventClass::maker)
      .def_rw("overrides", &PythonEventClass::overrides);

  nb::class_<PythonTransactionFeeClass>(m, "TransactionFeeClass")
      .def(nb::init<>())
      .def_rw("name", &PythonTransactionFeeClass::name)
      .def_rw("maker", &PythonTransactionFeeClass::maker);

  nb::class_<PyRunner>(m, "Runner", nb::type_slots(runner_slots))
      .def(nb::init<const std::string&, nb::handle, const std::vector<uint32_t>&, uint32_t,
                    std::optional<double>, nb::list, const std::string&>(),
           nb::arg("class_name"), nb::arg("settings"), nb::arg("prng_mt"),
           nb::arg("prng_index"), nb::arg("prng_gauss").none(), nb::arg("loggers"),
           nb::arg("config_directory"))
      .def("set_settings", &PyRunner::SetSettings, nb::arg("settings"),
           "Gives the config again before the run sets up (PAMS reads it then).")
      .def("declare_simulation_keys", &PyRunner::DeclareSimulationKeys, nb::arg("keys"),
           "Adds keys of \"simulation\" that Python runner classes read to those this "
           "runner's engine class declares (no run warns that they are unread).")
      .def("register_agent_class",
           [](PyRunner& r, const PythonAgentClass& cls) {
             r.RegisterAgentClass(std::make_shared<PythonAgentClass>(cls));
           },
           nb::arg("cls"))
      .def("register_market_class",
           [](PyRunner& r, const PythonMarketClass& cls) {
             r.RegisterMarketClass(std::make_shared<PythonMarketClass>(cls));
           },
           nb::arg("cls"))
      .def("register_event_class",
           [](PyRunner& r, const PythonEventClass& cls) {
             r.RegisterEventClass(std::make_shared<PythonEventClass>(cls));
           },
           nb::arg("cls"))
      .def("register_transaction_fee_class",
           [](PyRunner& r, const PythonTransactionFeeClass& cls) {
             r.RegisterTransactionFeeClass(std::make_shared<PythonTransactionFeeClass>(cls));
           },
           nb::arg("cls"))
      .def("alias_class", &PyRunner::AliasClass, nb::arg("alias"), nb::arg("name"))
      .def("add_foreign_class", &PyRunner::AddForeignClass, nb::arg("name"))
      .def("set_worker_initializer", &PyRunner::SetWorkerInitializer, nb::arg("fn"))
      .def("set_worker_program", &PyRunner::SetWorkerProgram, nb::arg("path"), nb::arg("argv"))
      .def("set_start_method", &PyRunner::SetStartMethod, nb::arg("method"))
      .def("set_worker_cpu_affinity", &PyRunner::SetWorkerCpuAffinity, nb::arg("pin"))
      .def("set_worker_starter", &PyRunner::SetWorkerStarter, nb::arg("start"))
      .def("set_host_payload", &PyRunner::SetHostPayload, nb::arg("payload"))
      .def("set_worker_pool_key_extra", &PyRunner::SetWorkerPoolKeyExtra, nb::arg("extra"))
      .def("set_main_process_runs_tasks",
           [](PyRunner& r, bool may) { r.Process().set_main_process_runs_tasks(may); },
           nb::arg("may"))
      .def("set_worker_start_hint",
           [](PyRunner& r, const std::string& hint) { r.Process().set_worker_start_hint(hint); },
           nb::arg("hint"))
      .def("close_workers", &PyRunner::CloseWorkers)
      .def("make_replica", &PyRunner::MakeReplica, nb::arg("config_directory"))
      .def("add_python_logger",
           [](PyRunner& r, nb::object logger, bool order, bool cancel, bool expiration,
              bool execution, bool market_step_begin, bool market_step_end, bool direct) {
             r.AddPythonLogger(std::move(logger),
                               PythonLogKinds{order, cancel, expiration, execution,
                                              market_step_begin, market_step_end, direct});
           },
           nb::arg("logger"), nb::arg("order"), nb::arg("cancel"), nb::arg("expiration"),
           nb::arg("execution"), nb::arg("market_step_begin"), nb::arg("market_step_end"),
           nb::arg("direct") = false)
      .def("set_python_objects", &PyRunner::SetPythonObjects, nb::arg("markets"),
           nb::arg("simulator"))
      // Whether the runner's random.Random draws from the engine runner's
      // generator (base.py binds it), so that steps need not copy its state.
      .def_prop_rw(
          "prng_is_engine", [](PyRunner& r) { return r.python_run().prng_is_engine; },
          [](PyRunner& r, bool on) { r.python_run().prng_is_engine = on; })
      .def("set_progress", &PyRunner::SetProgress, nb::arg("progress").none())
      .def("setup", &PyRunner::Setup)
      .def("run", &PyRunner::Run)
      .def("prng_state", &PyRunner::PrngState)
      .def("set_prng_state", &PyRunner::SetPrngState, nb::arg("mt"), nb::arg("index"),
           nb::arg("gauss_next").none())
      .def_prop_ro("simulator",
                   [](nb::handle self) {
                     return OwnedBy(&nb::cast<PyRunner&>(self).simulator(), self);
                   })
      .def_prop_ro("initialization_seconds", &PyRunner::initialization_seconds)
      .def_prop_ro("execution_seconds", &PyRunner::execution_seconds);
}

}  // namespace pams::python
