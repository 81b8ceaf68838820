// PAMS's Fundamentals' methods and attributes with PAMS's checks and
// exceptions, for Fundamentals built by hand and a simulator's.

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
#include "interop/hand_built.h"
#include "interop/python_agents.h"
#include "interop/python_events.h"
#include "interop/python_markets.h"
#include "interop/python_run.h"
#include "interop/values.h"
#include "pams/agents/agent.h"
#include "pams/agents/arbitrage_agent.h"
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

// --------------------------------------------------------- fundamentals

// A market PAMS's dicts know: KeyError(value) otherwise, as PAMS's
// self.prices[market_id] raises (also for a value that is no int).
int KnownMarket(const Fundamentals& f, nb::handle value) {
  PyObject* v = value.ptr();
  if (PyLong_Check(v) || PyIndex_Check(v)) {
    const int64_t id = IntArg(value, "market_id");
    if (id >= 0 && id < kMaxHandBuiltId && f.has_market(static_cast<int>(id))) {
      return static_cast<int>(id);
    }
  }
  PyErr_SetObject(PyExc_KeyError, v);
  throw nb::python_error();
}

// The step a change applies from (PAMS's `time`, which becomes
// _generated_until): the prices after it are drawn again, from the price
// at it (a step past the prices drawn is PAMS's IndexError at the next
// draw, as here). A negative one is refused (PAMS would draw on from a
// price counted from the end of its list).
int64_t RegenerateFrom(nb::handle time, const char* what) {
  return StepArg(time, what, 0);
}

// The generation's failures as PAMS's: a market correlated with itself is
// an AssertionError, a correlation matrix that is not positive definite
// numpy's LinAlgError (prices a program cut short are an IndexError, which
// the engine's std::out_of_range becomes).
template <typename F>
auto Generating(Fundamentals& f, F&& fn) {
  for (const auto& [a, b, c] : f.correlations()) {
    (void)c;
    if (a == b && f.has_market(a) && f.volatility(a) != 0.0) {
      Raise(PyExc_AssertionError, "market " + std::to_string(a) + " is correlated with itself");
    }
  }
  try {
    return fn();
  } catch (const SimulationError& e) {
    nb::object error = nb::module_::import_("numpy.linalg").attr("LinAlgError");
    PyErr_SetString(error.ptr(), e.what());
    throw nb::python_error();
  }
}

void AddMarket(Fundamentals& f, Arg<int> market_id, Arg<double> initial, Arg<double> drift,
               Arg<double> volatility, Arg<int64_t> start_at) {
  const int id = IdArg(market_id.object, "Fundamentals.add_market: market_id");
  const double i = NumberArg(initial.object, "Fundamentals.add_market: initial");
  const double d = NumberArg(drift.object, "Fundamentals.add_market: drift");
  const double v = NumberArg(volatility.object, "Fundamentals.add_market: volatility");
  const int64_t s = StepArg(start_at.object, "Fundamentals.add_market: start_at", 0);
  if (f.has_market(id)) {
    Raise(PyExc_ValueError, "market " + std::to_string(id) + " is already registered");
  }
  if (!(v >= 0.0)) Raise(PyExc_ValueError, "volatility must be non-negative");
  if (!(i > 0.0)) Raise(PyExc_ValueError, "initial value must be positive");
  f.add_market(id, i, d, v, s);
}

double FundamentalPrice(Fundamentals& f, Arg<int> market_id, Arg<int64_t> time) {
  const int id = KnownMarket(f, market_id.object);
  const int64_t t = IntArg(time.object, "Fundamentals.get_fundamental_price: time");
  const std::vector<double>& prices = f.prices(id);
  if (t < 0) {
    // PAMS indexes its list with it: from the end of the prices drawn.
    const int64_t i = t + static_cast<int64_t>(prices.size());
    if (i < 0) throw nb::index_error("list index out of range");
    return prices[static_cast<size_t>(i)];
  }
  if (t > kMaxHandBuiltStep) {
    RaiseArgument(PyExc_ValueError, "Fundamentals.get_fundamental_price: time",
                  "a step in [0, 10**8] (or a negative one, from the end)", time.object);
  }
  return Generating(f, [&] { return f.get_fundamental_price(id, t); });
}

nb::list FundamentalPrices(Fundamentals& f, Arg<int> market_id, nb::handle times) {
  constexpr const char* kWhat = "Fundamentals.get_fundamental_prices: times";
  std::vector<int64_t> ts;
  for (nb::handle t : times) ts.push_back(IntArg(t, kWhat));
  nb::list out;
  if (ts.empty()) return out;
  const int id = KnownMarket(f, market_id.object);
  const int64_t last = *std::max_element(ts.begin(), ts.end());
  if (last > kMaxHandBuiltStep) {
    Raise(PyExc_ValueError, std::string(kWhat) + " must be steps up to 10**8, got " +
                                std::to_string(last));
  }
  if (last >= 0) Generating(f, [&] { return f.get_fundamental_price(id, last); });
  const std::vector<double>& prices = f.prices(id);
  for (int64_t t : ts) {
    if (t < 0) t += static_cast<int64_t>(prices.size());
    if (t < 0 || static_cast<size_t>(t) >= prices.size()) {
      throw nb::index_error("list index out of range");
    }
    out.append(prices[static_cast<size_t>(t)]);
  }
  return out;
}

// One of PAMS's per-market values set as its dict entry is (see
// Fundamentals::set_drift): what `what` names must be a number.
void SetPerMarket(Fundamentals& f, nb::handle market_id, nb::handle value, const char* name) {
  const int id = KnownMarket(f, market_id);
  const std::string what = std::string("Fundamentals.") + name + "[" +
                           std::to_string(id) + "]";
  const std::string key = name;
  if (key == "start_at") {
    f.set_start_at(id, StepArg(value, what.c_str(), -kMaxHandBuiltStep));
    return;
  }
  const double v = NumberArg(value, what.c_str());
  if (key == "drifts") {
    f.set_drift(id, v);
  } else if (key == "volatilities") {
    if (!(v >= 0.0)) RaiseArgument(PyExc_ValueError, what.c_str(), "non-negative", value);
    f.set_volatility(id, v);
  } else {
    f.set_initial(id, v);
  }
}

void SetPrices(Fundamentals& f, nb::handle market_id, nb::handle values) {
  const int id = KnownMarket(f, market_id);
  const std::string what = "Fundamentals.prices[" + std::to_string(id) + "]";
  if (values.is_none() || !nb::hasattr(values, "__iter__")) {
    RaiseArgument(PyExc_TypeError, what.c_str(), "a list of prices", values);
  }
  std::vector<double> prices;
  for (nb::handle v : values) prices.push_back(NumberArg(v, (what + "'s items").c_str()));
  if (prices.size() > static_cast<size_t>(kMaxHandBuiltStep)) {
    Raise(PyExc_ValueError, what + ": more than 10**8 prices");
  }
  f.set_prices(id, std::move(prices));
}

void BindFundamentalsMethods(nb::module_& m) {
  nb::handle cls = nb::type<Fundamentals>();
  m.def("_new_fundamentals",
        [](nb::handle type, const std::vector<uint32_t>& mt, uint32_t index,
           std::optional<double> gauss) {
          Random r;
          r.setstate(ToRandomState(mt, index, gauss));
          return nb::inst_take_ownership(type, new Fundamentals(std::move(r)));
        });
  Method(cls, "add_market", &AddMarket, nb::arg("market_id").none(), nb::arg("initial").none(),
         nb::arg("drift").none(), nb::arg("volatility").none(),
         nb::arg("start_at").none() = 0,
         nb::sig("def add_market(self, market_id: int, initial: float, drift: float, "
                 "volatility: float, start_at: int = 0) -> None"),
      "Adds a market's fundamental price process: a geometric Brownian motion\n"
      "from initial, with the given drift and volatility per step.\n\n"
      "Args:\n    market_id (int): the market's id (>= 0, not added yet).\n"
      "    initial (float): the price at start_at (> 0).\n"
      "    drift (float): the drift of the log price per step.\n"
      "    volatility (float): the volatility of the log price per step (>= 0).\n"
      "    start_at (int): the step the process starts at (default 0).\n\n"
      "Raises:\n    ValueError: the market is added already, or an argument is out of\n"
      "        its range.\n"
      "    TypeError: an argument is not a number (an int for market_id and\n"
      "        start_at).");
  Method(
      cls, "remove_market",
      [](Fundamentals& f, Arg<int> market_id) {
        // PAMS's market_ids.remove(market_id): ValueError for any other value.
        PyObject* v = market_id.object.ptr();
        const bool known = (PyLong_Check(v) || PyIndex_Check(v)) && [&] {
          const int64_t id = IntArg(market_id.object, "Fundamentals.remove_market: market_id");
          return id >= 0 && id < kMaxHandBuiltId && f.has_market(static_cast<int>(id));
        }();
        if (!known) {
          RaiseArgument(PyExc_ValueError, "Fundamentals.remove_market: market_id",
                        "a market added", market_id.object);
        }
        f.remove_market(static_cast<int>(IntArg(market_id.object, "market_id")));
      },
      nb::arg("market_id").none(), nb::sig("def remove_market(self, market_id: int) -> None"),
      "Removes a market's fundamental price process.\n\n"
      "Args:\n    market_id (int): the market's id.\n\n"
      "Raises:\n    ValueError: the market was not added.");
  Method(
      cls, "change_volatility",
      [](Fundamentals& f, Arg<int> market_id, Arg<double> volatility, Arg<int64_t> time) {
        const double v =
            NumberArg(volatility.object, "Fundamentals.change_volatility: volatility");
        if (!(v >= 0.0)) Raise(PyExc_ValueError, "volatility must be non-negative");
        const int id = KnownMarket(f, market_id.object);
        f.change_volatility(
            id, v, RegenerateFrom(time.object, "Fundamentals.change_volatility: time"));
      },
      nb::arg("market_id").none(), nb::arg("volatility").none(), nb::arg("time").none() = 0,
      nb::sig("def change_volatility(self, market_id: int, volatility: float, time: int = 0) "
              "-> None"),
      "Changes a market's volatility from a step on (prices after that step\n"
      "are drawn again with it).\n\n"
      "Args:\n    market_id (int): the market's id.\n"
      "    volatility (float): the new volatility per step (>= 0).\n"
      "    time (int): the step the change applies from (default 0).\n\n"
      "Raises:\n    ValueError: volatility is negative, or time is negative.\n"
      "    KeyError: the market was not added.");
  Method(
      cls, "change_drift",
      [](Fundamentals& f, Arg<int> market_id, Arg<double> drift, Arg<int64_t> time) {
        const int id = KnownMarket(f, market_id.object);
        f.change_drift(id, NumberArg(drift.object, "Fundamentals.change_drift: drift"),
                       RegenerateFrom(time.object, "Fundamentals.change_drift: time"));
      },
      nb::arg("market_id").none(), nb::arg("drift").none(), nb::arg("time").none() = 0,
      nb::sig("def change_drift(self, market_id: int, drift: float, time: int = 0) -> None"),
      "Changes a market's drift from a step on (prices after that step are\n"
      "drawn again with it).\n\n"
      "Args:\n    market_id (int): the market's id.\n"
      "    drift (float): the new drift per step.\n"
      "    time (int): the step the change applies from (default 0).\n\n"
      "Raises:\n    KeyError: the market was not added.\n"
      "    ValueError: time is negative.");
  Method(
      cls, "set_correlation",
      [](Fundamentals& f, Arg<int> market_id1, Arg<int> market_id2, Arg<double> corr,
         Arg<int64_t> time) {
        const double c = NumberArg(corr.object, "Fundamentals.set_correlation: corr");
        if (!(-1.0 < c && c < 1.0)) Raise(PyExc_ValueError, "corr must be in (-1.0, 1.0)");
        const int a = IdArg(market_id1.object, "Fundamentals.set_correlation: market_id1");
        const int b = IdArg(market_id2.object, "Fundamentals.set_correlation: market_id2");
        if (a == b) Raise(PyExc_ValueError, "market_id1 and market_id2 must be different");
        f.set_correlation(a, b, c,
                          RegenerateFrom(time.object, "Fundamentals.set_correlation: time"));
      },
      nb::arg("market_id1").none(), nb::arg("market_id2").none(), nb::arg("corr").none(),
      nb::arg("time").none() = 0,
      nb::sig("def set_correlation(self, market_id1: int, market_id2: int, corr: float, "
              "time: int = 0) -> None"),
      "Correlates the log returns of two markets' fundamental prices from a\n"
      "step on.\n\n"
      "Args:\n    market_id1 (int): one market's id.\n"
      "    market_id2 (int): the other market's id (a different one).\n"
      "    corr (float): the correlation, in (-1.0, 1.0).\n"
      "    time (int): the step the correlation applies from (default 0).\n\n"
      "Raises:\n    ValueError: corr is out of range, the two ids are the same, or time\n"
      "        is negative.");
  Method(
      cls, "remove_correlation",
      [](Fundamentals& f, Arg<int> market_id1, Arg<int> market_id2, Arg<int64_t> time) {
        const int a = IdArg(market_id1.object, "Fundamentals.remove_correlation: market_id1");
        const int b = IdArg(market_id2.object, "Fundamentals.remove_correlation: market_id2");
        if (a == b) Raise(PyExc_ValueError, "market_id1 and market_id2 must be different");
        bool found = false;
        for (const auto& [x, y, c] : f.correlations()) {
          (void)c;
          found = found || (x == a && y == b) || (x == b && y == a);
        }
        if (!found) {
          PyErr_SetObject(PyExc_KeyError, nb::make_tuple(a, b).ptr());
          throw nb::python_error();
        }
        f.remove_correlation(
            a, b, RegenerateFrom(time.object, "Fundamentals.remove_correlation: time"));
      },
      nb::arg("market_id1").none(), nb::arg("market_id2").none(), nb::arg("time").none() = 0,
      nb::sig("def remove_correlation(self, market_id1: int, market_id2: int, time: int = 0) "
              "-> None"),
      "Removes the correlation of two markets from a step on.\n\n"
      "Args:\n    market_id1 (int): one market's id.\n"
      "    market_id2 (int): the other market's id.\n"
      "    time (int): the step the removal applies from (default 0).\n\n"
      "Raises:\n    ValueError: the two ids are the same, or time is negative.\n"
      "    KeyError: the two markets are not correlated.");
  Method(cls, "get_fundamental_price", &FundamentalPrice, nb::arg("market_id").none(),
         nb::arg("time").none(),
         nb::sig("def get_fundamental_price(self, market_id: int, time: int) -> float"),
      "A market's fundamental price at a step (drawn as far as needed).\n\n"
      "Args:\n    market_id (int): the market's id.\n"
      "    time (int): the step (a negative one counts from the end of the prices\n"
      "        drawn so far, as PAMS's list index does).\n\n"
      "Returns:\n    float: the fundamental price.\n\n"
      "Raises:\n    KeyError: the market was not added.\n"
      "    IndexError: a negative step reaches before the first price.\n"
      "    numpy.linalg.LinAlgError: the correlations make no valid covariance.");
  Method(cls, "get_fundamental_prices", &FundamentalPrices, nb::arg("market_id").none(),
         nb::arg("times").none(),
         nb::sig("def get_fundamental_prices(self, market_id: int, "
                 "times: collections.abc.Iterable[int]) -> list[float]"),
      "A market's fundamental prices at several steps.\n\n"
      "Args:\n    market_id (int): the market's id.\n"
      "    times (Iterable[int]): the steps (a negative one counts from the end of\n"
      "        the prices drawn so far).\n\n"
      "Returns:\n    List[float]: one price per step.\n\n"
      "Raises:\n    KeyError: the market was not added.\n"
      "    IndexError: a negative step reaches before the first price.");
  Method(cls, "_generate_next", [](Fundamentals& f) {
    Generating(f, [&] {
      f.generate_next();
      return 0;
    });
  });
  auto by_market = [](const Fundamentals& f, auto value) {
    nb::dict out;
    for (int id : f.market_ids()) out[nb::int_(id)] = value(id);
    return out;
  };
  // PAMS's dicts, as dicts of their values now: pams_cpp.fundamentals makes
  // the live mappings (drifts, prices, ...) of them, which write through the
  // setters below.
  Method(cls, "_market_id_list", [](const Fundamentals& f) { return nb::cast(f.market_ids()); });
  Method(cls, "_values", [by_market](const Fundamentals& f, const std::string& name) {
    if (name == "drifts") return by_market(f, [&](int id) { return nb::float_(f.drift(id)); });
    if (name == "volatilities") {
      return by_market(f, [&](int id) { return nb::float_(f.volatility(id)); });
    }
    if (name == "initials") {
      return by_market(f, [&](int id) { return nb::float_(f.initial(id)); });
    }
    if (name == "start_at") return by_market(f, [&](int id) { return nb::int_(f.start_at(id)); });
    throw nb::key_error(name.c_str());
  });
  Method(cls, "_set_value",
         [](Fundamentals& f, const std::string& name, nb::handle market_id, nb::handle value) {
           SetPerMarket(f, market_id, value, name.c_str());
         },
         nb::arg("name"), nb::arg("market_id").none(), nb::arg("value").none());
  Method(
      cls, "_prices_of",
      [](const Fundamentals& f, nb::handle market_id) {
        return nb::cast(f.prices(KnownMarket(f, market_id)));
      },
      nb::arg("market_id").none());
  Method(cls, "_set_prices", &SetPrices, nb::arg("market_id").none(), nb::arg("values").none());
  Property(
      cls, "_generated_until", [](const Fundamentals& f) { return f.generated_until(); },
      [](Fundamentals& f, Arg<int64_t> time) {
        f.set_generated_until(RegenerateFrom(time.object, "Fundamentals._generated_until"));
      });
  // PAMS's correlation dict: {(id1, id2): corr}, in the order they were set.
  Method(cls, "_correlation_items", [](const Fundamentals& f) {
    nb::list out;
    for (const auto& [a, b, c] : f.correlations()) out.append(nb::make_tuple(a, b, c));
    return out;
  });
  Method(cls, "_set_correlation_entry",
         [](Fundamentals& f, nb::handle a, nb::handle b, nb::handle c) {
           f.set_correlation_entry(IdArg(a, "Fundamentals.correlation: a key's first id"),
                                   IdArg(b, "Fundamentals.correlation: a key's second id"),
                                   NumberArg(c, "Fundamentals.correlation: a value"));
         },
         nb::arg("market_id1").none(), nb::arg("market_id2").none(), nb::arg("corr").none());
  Method(cls, "_erase_correlation_entry", [](Fundamentals& f, nb::handle a, nb::handle b) {
    const bool erased =
        (PyLong_Check(a.ptr()) || PyIndex_Check(a.ptr())) &&
        (PyLong_Check(b.ptr()) || PyIndex_Check(b.ptr())) &&
        f.erase_correlation_entry(IdArg(a, "Fundamentals.correlation: a key's first id"),
                                  IdArg(b, "Fundamentals.correlation: a key's second id"));
    if (!erased) {
      PyErr_SetObject(PyExc_KeyError, nb::make_tuple(a, b).ptr());
      throw nb::python_error();
    }
  }, nb::arg("market_id1").none(), nb::arg("market_id2").none());
  // numpy's generator of the fundamentals (PAMS's _np_prng): its uniform
  // draws, as numpy.random.Generator.random(size).
  Method(
      cls, "_np_random",
      [](nb::handle self, Arg<std::optional<int64_t>> size_arg) -> nb::object {
        Fundamentals& f = nb::cast<Fundamentals&>(self);
        const std::optional<int64_t> size =
            OptionalIntArg(size_arg.object, "Fundamentals._np_prng.random: size");
        if (!size) return nb::float_(f.np_prng().next_double());
        if (*size < 0 || *size > kMaxHandBuiltStep) {
          RaiseArgument(PyExc_ValueError, "Fundamentals._np_prng.random: size",
                        "a size in [0, 10**8]", size_arg.object);
        }
        nb::list out;
        for (int64_t i = 0; i < *size; ++i) out.append(f.np_prng().next_double());
        return out;
      },
      nb::arg("size").none() = nb::none());
  Method(cls, "_engine_prng", [](nb::handle self) {
    return OwnedBy(&nb::cast<Fundamentals&>(self).prng(), self);
  });
}

}  // namespace

void BindHandBuiltFundamentals(nb::module_& m) { BindFundamentalsMethods(m); }

}  // namespace pams::python
