// The methods of PAMS's markets and sessions that programs building or
// driving a simulation by hand call (interop/hand_built.h), and the
// constructors of PAMS's classes the engine binds.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bindings/binding_helpers.h"
#include "bindings/bindings.h"
#include "interop/arguments.h"
#include "interop/attr_names.h"
#include "interop/hand_built.h"
#include "interop/python_agents.h"
#include "interop/python_events.h"
#include "interop/python_markets.h"
#include "interop/python_run.h"
#include "interop/values.h"
#include "pams/agents/agent.h"
#include "pams/agents/arbitrage_agent.h"
#include "pams/agents/market_maker_agent.h"
#include "pams/errors.h"
#include "pams/events/event.h"
#include "pams/market/fundamentals.h"
#include "pams/market/index_market.h"
#include "pams/market/market.h"
#include "pams/market/order_book.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

namespace {

// Makes cls constructible with PAMS's arguments: cls(...) calls
// module.factory(cls, ...), which builds the engine object Python owns, and
// __init__ accepts the same arguments (for subclasses calling
// super().__init__). Python subclasses of cls construct the same way.
// `signature` is PAMS's __init__ signature, which help(), the stubs and the
// API reference show (the function itself takes *args, **kwargs). The
// simulator and logger are typing.Any there: the stub of _core has no
// pams_cpp.Simulator to name (its own Simulator and Logger are the engine's,
// which a type checker would then demand).
void Constructor(nb::handle cls, const char* module, const char* factory,
                 const char* signature) {
  Forget(cls, "__init__");
  Forget(cls, "__new__");
  nb::cpp_function([](nb::handle, nb::args, nb::kwargs) {}, nb::is_method(), nb::scope(cls),
                   nb::name("__init__"), nb::sig(signature),
                   "Builds the object by hand, with PAMS's constructor arguments (see the\n"
                   "class's docstring).");
  const std::string mod = module;
  const std::string fac = factory;
  nb::cpp_function(
      [mod, fac](nb::handle type, nb::args args, nb::kwargs kwargs) {
        return nb::module_::import_(mod.c_str()).attr(fac.c_str())(type, *args, **kwargs);
      },
      nb::scope(cls), nb::name("__new__"));
}

}  // namespace

namespace {

// ------------------------------------------------------------- sessions

void BindSessionMethods() {
  nb::handle cls = nb::type<Session>();
  Property(
      cls, "iteration_steps", [](const Session& s) { return s.iteration_steps(); },
      [](Session& s, Arg<int64_t> v) {
        s.set_iteration_steps(IntArg(v.object, "Session.iteration_steps"));
      },
      "int: the number of steps of the session (iterationSteps).");
  Property(
      cls, "max_normal_orders", [](const Session& s) { return s.max_normal_orders(); },
      [](Session& s, Arg<int64_t> v) {
        s.set_max_normal_orders(IntArg(v.object, "Session.max_normal_orders"));
      },
      "int: the most orders the normal agents place per step\n(maxNormalOrders; PAMS's default 1).");
  Property(
      cls, "max_high_frequency_orders",
      [](const Session& s) { return s.max_high_frequency_orders(); },
      [](Session& s, Arg<int64_t> v) {
        s.set_max_high_frequency_orders(IntArg(v.object, "Session.max_high_frequency_orders"));
      },
      "int: the most orders the high-frequency agents place per step\n(maxHighFrequencyOrders; default 1).");
  Property(
      cls, "with_order_placement", [](const Session& s) { return s.with_order_placement(); },
      [](Session& s, Arg<bool> v) {
        s.set_with_order_placement(TruthArg(v.object, "Session.with_order_placement"));
      },
      "bool: whether agents place orders in the session\n(withOrderPlacement).");
  Property(
      cls, "with_order_execution", [](const Session& s) { return s.with_order_execution(); },
      [](Session& s, Arg<bool> v) {
        s.set_with_order_execution(TruthArg(v.object, "Session.with_order_execution"));
      },
      "bool: whether orders execute in the session\n(withOrderExecution; markets are not running otherwise).");
  Property(
      cls, "with_print", [](const Session& s) { return s.with_print(); },
      [](Session& s, Arg<bool> v) {
        s.set_with_print(TruthArg(v.object, "Session.with_print"));
      },
      "bool: whether the session prints each step's market prices\n(withPrint).");
  Property(
      cls, "high_frequency_submission_rate",
      [](const Session& s) { return s.high_frequency_submission_rate(); },
      [](Session& s, Arg<double> v) {
        s.set_high_frequency_submission_rate(
            NumberArg(v.object, "Session.high_frequency_submission_rate"));
      },
      "float: the chance, per normal order, that the high-frequency\nagents are asked for orders (highFrequencySubmitRate; default 1.0).");
}

}  // namespace


void BindAgentParameters() {
  nb::handle cls = nb::type<Agent>();
  // ArbitrageAgent's parameters, as PAMS's attributes.
  ReadOnlyProperty(cls, "arbitrage_parameters", [](const Agent& a) {
    const auto* arbitrage = dynamic_cast<const ArbitrageAgent*>(&a);
    if (arbitrage == nullptr) throw nb::attribute_error("not an ArbitrageAgent");
    return nb::make_tuple(arbitrage->order_volume(), arbitrage->order_threshold_price(),
                          arbitrage->order_time_length());
  });
  // MarketMakerAgent's, likewise (target market id: -1 before setup).
  ReadOnlyProperty(cls, "market_maker_parameters", [](const Agent& a) {
    const auto* maker = dynamic_cast<const MarketMakerAgent*>(&a);
    if (maker == nullptr) throw nb::attribute_error("not a MarketMakerAgent");
    return nb::make_tuple(maker->target_market_id(), maker->net_interest_spread(),
                          maker->order_time_length());
  });
}

void BindHandBuiltMarkets(nb::module_& m) {
  // PAMS's exceptions where the engine meets the cases PAMS asserts
  // against or declines (a run's too, as PAMS raises them there).
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const AssertionFailure& e) {
      PyErr_SetString(PyExc_AssertionError, e.what());
    } catch (const UnsupportedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    }
  });
  BindAgentParameters();
  Property(
      nb::type<Market>(), "tick_size",
      [](const Market& mk) -> nb::object {
        if (mk.tick_size_is_int()) return nb::int_(static_cast<int64_t>(mk.tick_size()));
        return nb::float_(mk.tick_size());
      },
      [](Market& mk, Arg<double> value) {
        const bool is_int = PyLong_Check(value.object.ptr()) && !PyBool_Check(value.object.ptr());
        const double v = NumberArg(value.object, "Market.tick_size");
        if (!(v > 0.0) || !std::isfinite(v)) {
          RaiseArgument(PyExc_ValueError, "Market.tick_size", "a positive number",
                        value.object);
        }
        mk.set_tick_size(v, is_int);
      },
      "float | int: the price grid's step (the config's tickSize); prices are\n"
      "ints in a market whose tick size is an int. Settable (> 0), as PAMS's\n"
      "attribute, for markets built by hand.");
  Property(
      nb::type<Market>(), "outstanding_shares",
      [](const Market& mk) { return mk.outstanding_shares(); },
      [](Market& mk, Arg<std::optional<int64_t>> shares) {
        mk.set_outstanding_shares(OptionalIntArg(shares.object, "Market.outstanding_shares"));
      },
      "int | None: the number of shares (the config's outstandingShares; None:\n"
      "not set). An IndexMarket weighs its components by it.");
  constexpr const char* kMarketInit =
      "def __init__(self, market_id: int, prng: random.Random, "
      "simulator: typing.Any, name: str, "
      "logger: typing.Any = None) -> None";
  Constructor(nb::type<Market>(), "pams_cpp.market", "_new", kMarketInit);
  Constructor(nb::type<IndexMarket>(), "pams_cpp.market", "_new", kMarketInit);
  Constructor(nb::type<Session>(), "pams_cpp.session", "_new",
              "def __init__(self, session_id: int, prng: random.Random, "
              "session_start_time: int, simulator: typing.Any, "
              "name: str, logger: typing.Any = None) -> None");
  Constructor(nb::type<OrderBook>(), "pams_cpp.order_book", "_new",
              "def __init__(self, is_buy: bool) -> None");
  Constructor(nb::type<Fundamentals>(), "pams_cpp.fundamentals", "_new",
              "def __init__(self, prng: random.Random) -> None");
  BindHandBuiltMarketMethods(nb::type<Market>(), nb::type<IndexMarket>());
  BindHandBuiltOrderBooks(m);
  BindHandBuiltFundamentals(m);
  BindSessionMethods();
}

}  // namespace pams::python
