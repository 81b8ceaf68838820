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

void BindFundamentalsMethods(nb::module_& m) {
  nb::handle cls = nb::type<Fundamentals>();
  m.def("_new_fundamentals",
        [](nb::handle type, const std::vector<uint32_t>& mt, uint32_t index,
           std::optional<double> gauss) {
          Random r;
          r.setstate(ToRandomState(mt, index, gauss));
          return nb::inst_take_ownership(type, new Fundamentals(std::move(r)));
        });
  auto known = [](const Fundamentals& f, int market_id) {
    if (!f.has_market(market_id)) {
      PyErr_SetObject(PyExc_KeyError, nb::int_(market_id).ptr());
      throw nb::python_error();
    }
  };
  // The generation's failures as PAMS's: a market correlated with itself
  // is an AssertionError, a correlation matrix that is not positive
  // definite numpy's LinAlgError.
  auto generating = [](Fundamentals& f, auto&& fn) {
    for (const auto& [a, b, c] : f.correlations()) {
      (void)c;
      if (a == b && f.has_market(a) && f.volatility(a) != 0.0) {
        Raise(PyExc_AssertionError,
              "market " + std::to_string(a) + " is correlated with itself");
      }
    }
    try {
      return fn();
    } catch (const SimulationError& e) {
      nb::object error = nb::module_::import_("numpy.linalg").attr("LinAlgError");
      PyErr_SetString(error.ptr(), e.what());
      throw nb::python_error();
    }
  };
  Method(
      cls, "add_market",
      [](Fundamentals& f, int market_id, double initial, double drift, double volatility,
         int64_t start_at) {
        if (f.has_market(market_id)) {
          Raise(PyExc_ValueError, "market " + std::to_string(market_id) + " is already registered");
        }
        if (!(volatility >= 0.0)) Raise(PyExc_ValueError, "volatility must be non-negative");
        if (!(initial > 0.0)) Raise(PyExc_ValueError, "initial value must be positive");
        if (market_id < 0) Raise(PyExc_ValueError, "market_id must be >= 0");
        if (start_at < 0) Raise(PyExc_ValueError, "start_at must be >= 0");
        f.add_market(market_id, initial, drift, volatility, start_at);
      },
      nb::arg("market_id"), nb::arg("initial"), nb::arg("drift"), nb::arg("volatility"),
      nb::arg("start_at") = 0,
      "Adds a market's fundamental price process: a geometric Brownian motion\n"
      "from initial, with the given drift and volatility per step.\n\n"
      "Args:\n    market_id (int): the market's id (>= 0, not added yet).\n"
      "    initial (float): the price at start_at (> 0).\n"
      "    drift (float): the drift of the log price per step.\n"
      "    volatility (float): the volatility of the log price per step (>= 0).\n"
      "    start_at (int): the step the process starts at (default 0).\n\n"
      "Raises:\n    ValueError: the market is added already, or an argument is out of\n"
      "        its range.");
  Method(
      cls, "remove_market",
      [known](Fundamentals& f, int market_id) {
        if (!f.has_market(market_id)) Raise(PyExc_ValueError, "market is not registered");
        known(f, market_id);
        f.remove_market(market_id);
      },
      nb::arg("market_id"),
      "Removes a market's fundamental price process.\n\n"
      "Args:\n    market_id (int): the market's id.\n\n"
      "Raises:\n    ValueError: the market was not added.");
  Method(
      cls, "change_volatility",
      [known](Fundamentals& f, int market_id, double volatility, int64_t time) {
        if (!(volatility >= 0.0)) Raise(PyExc_ValueError, "volatility must be non-negative");
        known(f, market_id);
        f.change_volatility(market_id, volatility, time);
      },
      nb::arg("market_id"), nb::arg("volatility"), nb::arg("time") = 0,
      "Changes a market's volatility from a step on (prices after that step\n"
      "are drawn again with it).\n\n"
      "Args:\n    market_id (int): the market's id.\n"
      "    volatility (float): the new volatility per step (>= 0).\n"
      "    time (int): the step the change applies from (default 0).\n\n"
      "Raises:\n    ValueError: volatility is negative.\n"
      "    KeyError: the market was not added.");
  Method(
      cls, "change_drift",
      [known](Fundamentals& f, int market_id, double drift, int64_t time) {
        known(f, market_id);
        f.change_drift(market_id, drift, time);
      },
      nb::arg("market_id"), nb::arg("drift"), nb::arg("time") = 0,
      "Changes a market's drift from a step on (prices after that step are\n"
      "drawn again with it).\n\n"
      "Args:\n    market_id (int): the market's id.\n"
      "    drift (float): the new drift per step.\n"
      "    time (int): the step the change applies from (default 0).\n\n"
      "Raises:\n    KeyError: the market was not added.");
  Method(
      cls, "set_correlation",
      [](Fundamentals& f, int market_id1, int market_id2, double corr, int64_t time) {
        if (!(-1.0 < corr && corr < 1.0)) Raise(PyExc_ValueError, "corr must be in (-1.0, 1.0)");
        if (market_id1 == market_id2) {
          Raise(PyExc_ValueError, "market_id1 and market_id2 must be different");
        }
        f.set_correlation(market_id1, market_id2, corr, time);
      },
      nb::arg("market_id1"), nb::arg("market_id2"), nb::arg("corr"), nb::arg("time") = 0,
      "Correlates the log returns of two markets' fundamental prices from a\n"
      "step on.\n\n"
      "Args:\n    market_id1 (int): one market's id.\n"
      "    market_id2 (int): the other market's id (a different one).\n"
      "    corr (float): the correlation, in (-1.0, 1.0).\n"
      "    time (int): the step the correlation applies from (default 0).\n\n"
      "Raises:\n    ValueError: corr is out of range or the two ids are the same.");
  Method(
      cls, "remove_correlation",
      [](Fundamentals& f, int market_id1, int market_id2, int64_t time) {
        if (market_id1 == market_id2) {
          Raise(PyExc_ValueError, "market_id1 and market_id2 must be different");
        }
        bool found = false;
        for (const auto& [a, b, c] : f.correlations()) {
          (void)c;
          found = found || (a == market_id1 && b == market_id2) ||
                  (a == market_id2 && b == market_id1);
        }
        if (!found) {
          PyErr_SetObject(PyExc_KeyError,
                          nb::make_tuple(market_id1, market_id2).ptr());
          throw nb::python_error();
        }
        f.remove_correlation(market_id1, market_id2, time);
      },
      nb::arg("market_id1"), nb::arg("market_id2"), nb::arg("time") = 0,
      "Removes the correlation of two markets from a step on.\n\n"
      "Args:\n    market_id1 (int): one market's id.\n"
      "    market_id2 (int): the other market's id.\n"
      "    time (int): the step the removal applies from (default 0).\n\n"
      "Raises:\n    ValueError: the two ids are the same.\n"
      "    KeyError: the two markets are not correlated.");
  Method(
      cls, "get_fundamental_price",
      [known, generating](Fundamentals& f, int market_id, int64_t time) {
        known(f, market_id);
        return generating(f, [&] { return f.get_fundamental_price(market_id, time); });
      },
      nb::arg("market_id"), nb::arg("time"),
      "A market's fundamental price at a step (drawn as far as needed).\n\n"
      "Args:\n    market_id (int): the market's id.\n"
      "    time (int): the step.\n\n"
      "Returns:\n    float: the fundamental price.\n\n"
      "Raises:\n    KeyError: the market was not added.\n"
      "    numpy.linalg.LinAlgError: the correlations make no valid covariance.");
  Method(
      cls, "get_fundamental_prices",
      [known, generating](Fundamentals& f, int market_id, nb::handle times) {
        std::vector<int64_t> ts;
        for (nb::handle t : times) ts.push_back(nb::cast<int64_t>(t));
        nb::list out;
        if (ts.empty()) return out;
        known(f, market_id);
        const int64_t last = *std::max_element(ts.begin(), ts.end());
        generating(f, [&] { return f.get_fundamental_price(market_id, last); });
        const std::vector<double>& prices = f.prices(market_id);
        for (int64_t t : ts) {
          if (t < 0) t += static_cast<int64_t>(prices.size());
          if (t < 0 || static_cast<size_t>(t) >= prices.size()) {
            throw nb::index_error("list index out of range");
          }
          out.append(prices[static_cast<size_t>(t)]);
        }
        return out;
      },
      nb::arg("market_id"), nb::arg("times"),
      "A market's fundamental prices at several steps.\n\n"
      "Args:\n    market_id (int): the market's id.\n"
      "    times (Iterable[int]): the steps (a negative one counts from the end of\n"
      "        the prices drawn so far).\n\n"
      "Returns:\n    List[float]: one price per step.\n\n"
      "Raises:\n    KeyError: the market was not added.\n"
      "    IndexError: a negative step reaches before the first price.");
  Method(cls, "_generate_next", [generating](Fundamentals& f) {
    generating(f, [&] {
      f.generate_next();
      return 0;
    });
  });
  auto by_market = [](const Fundamentals& f, auto value) {
    nb::dict out;
    for (int id : f.market_ids()) out[nb::int_(id)] = value(id);
    return out;
  };
  ReadOnlyProperty(cls, "market_ids",
                   [](const Fundamentals& f) { return nb::cast(f.market_ids()); },
                   "List[int]: the ids of the markets added, in the order added.");
  ReadOnlyProperty(cls, "drifts", [by_market](const Fundamentals& f) {
    return by_market(f, [&](int id) { return nb::float_(f.drift(id)); });
  },
                   "Dict[int, float]: each market's drift per step, by market id.");
  ReadOnlyProperty(cls, "volatilities", [by_market](const Fundamentals& f) {
    return by_market(f, [&](int id) { return nb::float_(f.volatility(id)); });
  },
                   "Dict[int, float]: each market's volatility per step, by market id.");
  ReadOnlyProperty(cls, "initials", [by_market](const Fundamentals& f) {
    return by_market(f, [&](int id) { return nb::float_(f.initial(id)); });
  },
                   "Dict[int, float]: each market's initial price, by market id.");
  ReadOnlyProperty(cls, "start_at", [by_market](const Fundamentals& f) {
    return by_market(f, [&](int id) { return nb::int_(f.start_at(id)); });
  },
                   "Dict[int, int]: the step each market's process starts at, by id.");
  ReadOnlyProperty(cls, "prices", [by_market](const Fundamentals& f) {
    return by_market(f, [&](int id) { return nb::cast(f.prices(id)); });
  },
                   "Dict[int, List[float]]: each market's prices drawn so far, by id.");
  Property(
      cls, "_generated_until", [](const Fundamentals& f) { return f.generated_until(); },
      [](Fundamentals& f, int64_t time) {
        if (time < 0 || time > f.generated_until()) {
          Raise(PyExc_ValueError, "_generated_until can move back only (to >= 0)");
        }
        f.set_generated_until(time);
      });
  ReadOnlyProperty(cls, "_generate_chunk_size",
                   [](const Fundamentals&) { return Fundamentals::chunk_size(); });
  // PAMS's correlation dict: {(id1, id2): corr}, in the order they were set.
  Method(cls, "_correlation_items", [](const Fundamentals& f) {
    nb::list out;
    for (const auto& [a, b, c] : f.correlations()) out.append(nb::make_tuple(a, b, c));
    return out;
  });
  Method(cls, "_set_correlation_entry", [](Fundamentals& f, int a, int b, double c) {
    f.set_correlation_entry(a, b, c);
  });
  Method(cls, "_erase_correlation_entry", [](Fundamentals& f, int a, int b) {
    if (!f.erase_correlation_entry(a, b)) {
      PyErr_SetObject(PyExc_KeyError, nb::make_tuple(a, b).ptr());
      throw nb::python_error();
    }
  });
  // numpy's generator of the fundamentals (PAMS's _np_prng): its uniform
  // draws, as numpy.random.Generator.random(size).
  Method(
      cls, "_np_random",
      [](nb::handle self, std::optional<int64_t> size) -> nb::object {
        Fundamentals& f = nb::cast<Fundamentals&>(self);
        if (!size) return nb::float_(f.np_prng().next_double());
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
