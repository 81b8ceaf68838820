// PythonRun's parts (python_run.h): the classes pams_cpp's engine objects
// are made of, the Python logs, the stop on a Python error, and the
// OrderMirror.

#include "interop/python_run.h"

#include <nanobind/nanobind.h>

#include <optional>
#include <string>
#include <utility>

#include "interop/attr_names.h"
#include "interop/order_slots.h"
#include "interop/python.h"
#include "interop/values.h"
#include "pams/errors.h"
#include "pams/market/market.h"
#include "pams/simulator/simulator.h"
#include "runners/agent_task.h"
#include "runners/host_error.h"

namespace pams::python {

PythonClasses::PythonClasses() {
  nb::module_ order_module = nb::module_::import_("pams_cpp.order");
  nb::module_ logs_module = nb::module_::import_("pams_cpp.logs.base");
  order = order_module.attr("Order");
  cancel = order_module.attr("Cancel");
  limit_order = order_module.attr("LIMIT_ORDER");
  market_order = order_module.attr("MARKET_ORDER");
  order_log = logs_module.attr("OrderLog");
  cancel_log = logs_module.attr("CancelLog");
  expiration_log = logs_module.attr("ExpirationLog");
  execution_log = logs_module.attr("ExecutionLog");
  simulation_begin_log = logs_module.attr("SimulationBeginLog");
  simulation_end_log = logs_module.attr("SimulationEndLog");
  session_begin_log = logs_module.attr("SessionBeginLog");
  session_end_log = logs_module.attr("SessionEndLog");
  market_step_begin_log = logs_module.attr("MarketStepBeginLog");
  market_step_end_log = logs_module.attr("MarketStepEndLog");
}

void PythonRun::set_simulator(const Simulator* sim) {
  simulator = sim;
  market_lookup = [sim](int id) -> const Market* { return sim->find_market(id); };
}

PythonRun::PythonRun()
    : mirror(&classes, &market_lookup),
      find_order(nb::cpp_function([this](int market_id, int64_t order_id) {
        return mirror.Find(market_id, order_id);
      })) {}

nb::object PythonRun::MarketObject(const Market& market) const {
  nb::object found = nb::find(&market);
  if (found.is_valid() && !found.is_none()) return found;
  const int id = market.market_id();
  if (markets.is_valid() && nb::isinstance<nb::list>(markets) && id >= 0 &&
      static_cast<size_t>(id) < nb::len(markets)) {
    nb::object m = markets[nb::int_(id)];
    if (nb::inst_check(m) && nb::inst_ptr<Market>(m) == &market) return m;
  }
  return OwnedBy(const_cast<Market*>(&market), owner);
}

nb::object PythonRun::SessionObject(const Session& session) {
  for (const auto& [known, object] : session_objects) {
    if (known == &session) return object;
  }
  nb::object object = OwnedBy(const_cast<Session*>(&session), owner);
  session_objects.emplace_back(&session, object);
  return object;
}

// ------------------------------------------------------------- Python logs

namespace {

nb::object OptionalInt(const std::optional<int64_t>& v) {
  return v ? nb::object(nb::int_(*v)) : nb::none();
}

nb::object OptionalPriceOf(const PythonRun& run, int market_id,
                           const std::optional<double>& price) {
  return price ? PriceObject(run.find_market(market_id), *price) : nb::none();
}

}  // namespace

nb::object PythonLog(const PythonRun& run, const OrderLog& log) {
  return run.classes.order_log(log.order_id, log.market_id, log.time, log.agent_id,
                               log.is_buy, run.classes.kind(log.kind), log.volume,
                               OptionalPriceOf(run, log.market_id, log.price),
                               OptionalInt(log.ttl));
}

nb::object PythonLog(const PythonRun& run, const CancelLog& log) {
  return run.classes.cancel_log(log.order_id, log.market_id, log.cancel_time, log.order_time,
                                log.agent_id, log.is_buy, run.classes.kind(log.kind),
                                log.volume, OptionalPriceOf(run, log.market_id, log.price),
                                OptionalInt(log.ttl));
}

nb::object PythonLog(const PythonRun& run, const ExpirationLog& log) {
  return run.classes.expiration_log(log.order_id, log.market_id, log.time, log.order_time,
                                    log.agent_id, log.is_buy, run.classes.kind(log.kind),
                                    log.volume, OptionalPriceOf(run, log.market_id, log.price),
                                    OptionalInt(log.ttl));
}

nb::object PythonLog(const PythonRun& run, const ExecutionLog& log) {
  const Market* market = run.find_market(log.market_id);
  if (market == nullptr || market->transaction_fee() == nullptr) {
    // PAMS 0.3.0's fields (the fees are the class's 0.0).
    return run.classes.execution_log(log.market_id, log.time, log.buy_agent_id,
                                     log.sell_agent_id, log.buy_order_id, log.sell_order_id,
                                     PriceObject(market, log.price), log.volume);
  }
  return run.classes.execution_log(log.market_id, log.time, log.buy_agent_id,
                                   log.sell_agent_id, log.buy_order_id, log.sell_order_id,
                                   PriceObject(market, log.price), log.volume,
                                   log.buy_transaction_fee, log.sell_transaction_fee);
}

bool IsInterruption(const nb::python_error& e) {
  return !e.matches(PyExc_Exception);
}

void CheckTaskNotAbandoned() {
  if (TaskAbandoned()) throw TaskAbandonedError();
}

void StopWithPythonError(PythonRun* run, nb::python_error& e, const std::string& where) {
  // A worker ignores Ctrl-C (the main process handles it): a
  // KeyboardInterrupt there is the agent's own raise, which travels to the
  // main process as any other error and is raised there as itself.
  if (IsInterruption(e) && !run->is_worker) {
    if (run->stop != nullptr) run->stop->store(true);
    run->pending.Keep(e);
    throw SimulationError(std::string("interrupted (") + nb::type_name(e.type()).c_str() +
                          ") " + where);
  }
  nb::handle value = e.value();
  if (nb::hasattr(value, "add_note")) {
    try {
      value.attr("add_note")(where);
    } catch (nb::python_error&) {
    }
  }
  if (run->is_worker) {
    // The main process raises it again (PyRunner::Run).
    std::string payload;
    try {
      nb::bytes bytes(run->classes.error_dumps()(value));
      payload.assign(bytes.c_str(), bytes.size());
    } catch (nb::python_error&) {
      payload.clear();  // then it arrives as a SimulationError
    }
    // The exception's type and message (what() has the traceback too,
    // which travels in the payload).
    std::string text = nb::type_name(e.type()).c_str();
    try {
      const std::string said = nb::str(value).c_str();
      if (!said.empty()) text += ": " + said;
    } catch (nb::python_error&) {
    }
    throw HostError(where + ": " + text, std::move(payload));
  }
  run->pending.Keep(e);
  throw SimulationError(where + ": " + e.what());
}

// ---------------------------------------------------------------- OrderMirror

void OrderMirror::Expect(int agent_id, nb::handle action) {
  pending_[agent_id].items.push_back(nb::borrow(action));
  ++n_pending_;
}

nb::object OrderMirror::Find(int market_id, int64_t order_id) const {
  auto it = live_.find({market_id, order_id});
  return it == live_.end() ? nb::none() : it->second;
}

void OrderMirror::Forget(int agent_id) {
  auto it = pending_.find(agent_id);
  if (it == pending_.end() || it->second.empty()) return;
  nb::gil_scoped_acquire gil;
  n_pending_ -= it->second.size();
  it->second.clear();
}

void OrderMirror::ForgetAll() {
  // The agents' queues stay (empty): a hand-driven loop forgets every step,
  // and making them again cost an allocation per agent and step.
  if (n_pending_ == 0) return;
  for (auto& [agent, queue] : pending_) queue.clear();
  n_pending_ = 0;
}

void OrderMirror::ExpectNext(int agent_id, nb::handle action) {
  Queue& queue = pending_[agent_id];
  if (queue.head > 0) {
    queue.items[--queue.head] = nb::borrow(action);
  } else {
    queue.items.insert(queue.items.begin(), nb::borrow(action));
  }
  ++n_pending_;
}

void OrderMirror::Unexpect(int agent_id, nb::handle action) {
  auto it = pending_.find(agent_id);
  if (it == pending_.end()) return;
  Queue& queue = it->second;
  for (size_t i = queue.head; i < queue.items.size(); ++i) {
    if (queue.items[i].is(action)) {
      queue.items.erase(queue.items.begin() + static_cast<std::ptrdiff_t>(i));
      --n_pending_;
      if (queue.empty()) queue.clear();
      return;
    }
  }
}

std::vector<nb::object> OrderMirror::Take(int agent_id, size_t n) {
  std::vector<nb::object> out;
  Queue* queue = ExpectedOf(agent_id);
  while (queue != nullptr && out.size() < n && !queue->empty()) {
    out.push_back(PopExpected(queue));
  }
  return out;
}

OrderMirror::Queue* OrderMirror::ExpectedOf(int agent_id) {
  if (n_pending_ == 0) return nullptr;
  auto it = pending_.find(agent_id);
  return it == pending_.end() || it->second.empty() ? nullptr : &it->second;
}

nb::object OrderMirror::PopExpected(Queue* queue) {
  nb::object action = std::move(queue->items[queue->head++]);
  if (queue->empty()) queue->clear();  // keeps the capacity
  --n_pending_;
  return action;
}

void OrderMirror::process_order_log(const OrderLog& log) {
  Queue* queue = ExpectedOf(log.agent_id);
  if (queue == nullptr) return;
  nb::gil_scoped_acquire gil;
  const OrderSlots& s = Slots();
  nb::object order = PopExpected(queue);
  const bool plain = s.IsPlainOrder(order);
  // What the market made of the order (events may have changed it, the
  // price is on the tick grid now), as PAMS's market leaves it.
  const Market* market = (*markets_)(log.market_id);
  SetField(order, s.order_id, plain, nb::int_(log.order_id));
  SetField(order, s.placed_at, plain, nb::int_(log.time));
  SetField(order, s.is_buy, plain, nb::bool_(log.is_buy));
  nb::object kind = GetField(order, s.kind, plain);
  if (!kind.is(classes_->kind(log.kind)) &&
      nb::cast<int>(kind.attr(Attrs().kind_id)) != static_cast<int>(log.kind)) {
    SetField(order, s.kind, plain, classes_->kind(log.kind));
  }
  SetField(order, s.volume, plain, nb::int_(log.volume));
  SetField(order, s.price, plain, log.price ? PriceObject(market, *log.price) : nb::none());
  SetField(order, s.ttl, plain, log.ttl ? nb::object(nb::int_(*log.ttl)) : nb::none());
  live_.emplace(std::make_pair(log.market_id, log.order_id), std::move(order));
}

void OrderMirror::process_cancel_log(const CancelLog& log) {
  Queue* queue = ExpectedOf(log.agent_id);
  if (queue == nullptr) return;
  nb::gil_scoped_acquire gil;
  const OrderSlots& s = Slots();
  nb::object cancel = PopExpected(queue);
  SetField(cancel, s.cancel_placed_at, s.IsPlainCancel(cancel), nb::int_(log.cancel_time));
  nb::object order = GetField(cancel, s.cancel_order, s.IsPlainCancel(cancel));
  SetField(order, s.is_canceled, s.IsPlainOrder(order), nb::bool_(true));
  live_.erase({log.market_id, log.order_id});
}

void OrderMirror::process_execution_log(const ExecutionLog& log) {
  if (live_.empty()) return;
  for (int64_t order_id : {log.buy_order_id, log.sell_order_id}) {
    auto it = live_.find({log.market_id, order_id});
    if (it == live_.end()) continue;
    nb::gil_scoped_acquire gil;
    const OrderSlots& s = Slots();
    const bool plain = s.IsPlainOrder(it->second);
    const int64_t left = nb::cast<int64_t>(GetField(it->second, s.volume, plain)) - log.volume;
    SetField(it->second, s.volume, plain, nb::int_(left));
    if (left <= 0) live_.erase(it);
  }
}

void OrderMirror::process_expiration_log(const ExpirationLog& log) {
  if (live_.empty()) return;
  auto it = live_.find({log.market_id, log.order_id});
  if (it == live_.end()) return;
  nb::gil_scoped_acquire gil;
  live_.erase(it);
}

void OrderMirror::Clear() {
  pending_.clear();
  n_pending_ = 0;
  live_.clear();
}

Random* EngineGeneratorOf(nb::handle prng) {
  nb::object generator = nb::getattr(prng, "_generator", nb::none());
  if (generator.is_none() || !nb::isinstance<Random>(generator)) return nullptr;
  return nb::inst_ptr<Random>(generator);
}

Random::State PythonRandomState(nb::handle prng) {
  // (version, (624 words..., index), gauss_next), as random.Random gives.
  nb::tuple state = nb::cast<nb::tuple>(prng.attr("getstate")());
  nb::tuple internal = nb::cast<nb::tuple>(state[1]);
  if (internal.size() != Random::kStateWords + 1) {
    throw nb::value_error("a random.Random state has 625 numbers");
  }
  Random::State out;
  for (size_t i = 0; i < Random::kStateWords; ++i) {
    out.mt[i] = nb::cast<uint32_t>(internal[i]);
  }
  out.index = nb::cast<uint32_t>(internal[Random::kStateWords]);
  nb::handle gauss = state[2];
  out.has_gauss_next = !gauss.is_none();
  out.gauss_next = out.has_gauss_next ? nb::cast<double>(gauss) : 0.0;
  return out;
}

void SetPythonRandomState(nb::handle prng, const Random::State& state) {
  PyObject* internal = PyTuple_New(Random::kStateWords + 1);
  if (internal == nullptr) throw nb::python_error();
  nb::object keep = nb::steal(internal);
  for (size_t i = 0; i < Random::kStateWords; ++i) {
    PyTuple_SET_ITEM(internal, i, PyLong_FromUnsignedLong(state.mt[i]));
  }
  PyTuple_SET_ITEM(internal, Random::kStateWords, PyLong_FromUnsignedLong(state.index));
  nb::object gauss = state.has_gauss_next ? nb::object(nb::float_(state.gauss_next)) : nb::none();
  prng.attr("setstate")(nb::make_tuple(3, keep, gauss));
}

const Settings& PythonSetup::ForSuper(nb::handle values, const std::string& name) {
  const std::string path = current_ != nullptr ? current_->path() : name;
  Json json = ToJson(values, path);
  if (current_ != nullptr && json == current_->json()) return *current_;
  // The Python code changed the settings: the engine reads the new ones.
  own_json_ = std::make_unique<Json>(std::move(json));
  own_ = std::make_unique<Settings>(*own_json_, path);
  return *own_;
}

void PythonSetup::MarkAllRead(const Settings& settings) {
  if (!settings.is_object()) return;
  for (auto it = settings.json().begin(); it != settings.json().end(); ++it) {
    settings.has(it.key());
  }
}

}  // namespace pams::python
