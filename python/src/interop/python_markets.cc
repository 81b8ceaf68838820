// Markets whose class is a Python subclass of pams_cpp.Market or
// IndexMarket (PAMS's samples and notebooks write such classes, e.g. an
// ExtendedMarket whose setup presets _executed_volumes).
//
// Such a market is a PyMarket<Base>: an engine market of the built-in class
// Base whose Python object is an instance of the user's class referring to
// it (so that every getter of _core.Market works on it, and the
// simulator's lists give that very object). The engine calls the Python
// setup() if the class overrides it; super().setup() reaches Base's, and
// assigning one of PAMS's history lists (_executed_volumes, ...) in setup
// presets the engine's.

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "interop/arguments.h"
#include "interop/python.h"
#include "interop/python_markets.h"
#include "interop/python_run.h"
#include "interop/values.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/market/index_market.h"
#include "pams/market/market.h"
#include "pams/runners/class_registry.h"
#include "pams/samples/dark_pool_market.h"

namespace pams::python {

namespace {


// A history list a Python market's setup assigns (`name`): its items as
// the engine's, or TypeError naming the list (prices: numbers or None,
// counts and volumes: ints).
void RequireList(nb::handle values, const std::string& name) {
  if (values.is_none() || !nb::hasattr(values, "__iter__") || nb::isinstance<nb::str>(values)) {
    RaiseArgument(PyExc_TypeError, ("Market." + name).c_str(), "a list", values);
  }
}
std::vector<double> Prices(nb::handle values, const std::string& name) {
  RequireList(values, name);
  const std::string what = "Market." + name + "'s items";
  std::vector<double> out;
  for (nb::handle v : values) {
    out.push_back(v.is_none() ? std::numeric_limits<double>::quiet_NaN()
                              : NumberArg(v, what.c_str()));
  }
  return out;
}
std::vector<double> Numbers(nb::handle values, const std::string& name) {
  RequireList(values, name);
  const std::string what = "Market." + name + "'s items";
  std::vector<double> out;
  for (nb::handle v : values) out.push_back(NumberArg(v, what.c_str()));
  return out;
}
std::vector<int64_t> Counts(nb::handle values, const std::string& name) {
  RequireList(values, name);
  const std::string what = "Market." + name + "'s items";
  std::vector<int64_t> out;
  for (nb::handle v : values) out.push_back(IntArg(v, what.c_str()));
  return out;
}

template <typename Base>
class PyMarket final : public Base, public PythonMarketCalls {
 public:
  PyMarket(MarketInit init, std::shared_ptr<PythonMarketClass> cls, PythonRun* run)
      : Base(std::move(init)), cls_(std::move(cls)), run_(run) {}

  void Attach(nb::object self) { self_ = std::move(self); }

  void setup(const Settings& settings) override {
    if (!cls_->setup) {
      Base::setup(settings);
      return;
    }
    nb::gil_scoped_acquire gil;
    setup_.Run(settings, [&] {
      try {
        self_.attr("setup")(ToPython(settings.json()));
      } catch (nb::python_error& e) {
        StopWithPythonError(run_, e,
                            "in setup of market " + this->name() + " (" + cls_->name + ")");
      }
    });
  }

  void BaseSetup(nb::handle settings) override {
    Base::setup(setup_.ForSuper(settings, this->name()));
  }

  bool SetHistory(const std::string& name, nb::handle values) override {
    typename Base::Histories& h = this->histories();
    if (name == "_executed_volumes") {
      h.executed_volumes = Counts(values, name);
    } else if (name == "_n_buy_orders") {
      h.n_buy_orders = Counts(values, name);
    } else if (name == "_n_sell_orders") {
      h.n_sell_orders = Counts(values, name);
    } else if (name == "_executed_total_prices") {
      h.executed_total_prices = Numbers(values, name);
    } else if (name == "_market_prices") {
      h.market_prices = Prices(values, name);
      h.market_price_is_int.assign(h.market_prices.size(), 0);
    } else if (name == "_mid_prices") {
      h.mid_prices = Prices(values, name);
    } else if (name == "_last_executed_prices") {
      h.last_executed_prices = Prices(values, name);
    } else if (name == "_fundamental_prices") {
      h.fundamental_prices = Prices(values, name);
    } else {
      return false;
    }
    // Once steps have begun, back to at least the current step's chunk (a
    // list set later is shorter than the histories the market keeps);
    // before, the list stays as set, as PAMS's does until the first step.
    if (this->get_time() >= 0) this->reserve_steps(this->get_time() + 1);
    return true;
  }

 private:
  std::shared_ptr<PythonMarketClass> cls_;
  PythonRun* run_;
  PythonSetup setup_;
};

template <typename Base>
std::unique_ptr<Market> MakeMarket(MarketInit init, std::shared_ptr<PythonMarketClass> cls,
                                   PythonRun* run) {
  auto market = std::make_unique<PyMarket<Base>>(std::move(init), cls, run);
  nb::gil_scoped_acquire gil;
  try {
    // An instance of the user's class that refers to the engine's market.
    nb::object self = nb::inst_reference(cls->cls, static_cast<Base*>(market.get()));
    if (run->owner.is_valid()) nb::setattr(self, "_owner", run->owner);
    market->Attach(std::move(self));
  } catch (nb::python_error& e) {
    StopWithPythonError(run, e, "creating market " + market->name() + " (" + cls->name + ")");
  }
  return market;
}

template <typename Base>
std::unique_ptr<Market> MakeHandBuilt(MarketInit init, std::shared_ptr<PythonMarketClass> cls,
                                      PythonRun* run) {
  return std::make_unique<PyMarket<Base>>(std::move(init), std::move(cls), run);
}



}  // namespace

void RegisterPythonMarket(ClassRegistry* registry, PythonRun* run,
                          std::shared_ptr<PythonMarketClass> cls) {
  using Make = std::unique_ptr<Market> (*)(MarketInit, std::shared_ptr<PythonMarketClass>,
                                           PythonRun*);
  const Make make = cls->base == "IndexMarket"      ? &MakeMarket<IndexMarket>
                    : cls->base == "DarkPoolMarket" ? &MakeMarket<DarkPoolMarket>
                                                    : &MakeMarket<Market>;
  const std::string name = cls->name;
  registry->add_market(name, [make, cls, run](MarketInit init) {
    return make(std::move(init), cls, run);
  });
}

nb::object NewHandBuiltMarket(MarketInit init, std::shared_ptr<PythonMarketClass> cls,
                              PythonRun* run) {
  const bool index = cls->base == "IndexMarket";
  nb::handle type = cls->cls;
  std::unique_ptr<Market> market = index ? MakeHandBuilt<IndexMarket>(std::move(init), cls, run)
                                         : MakeHandBuilt<Market>(std::move(init), cls, run);
  PythonPart* part = PythonCallsOf(*market);
  // Python owns the engine market; the market refers back without a
  // reference (see PythonPart::AttachBorrowed).
  void* cpp = index ? static_cast<void*>(static_cast<IndexMarket*>(market.get()))
                    : static_cast<void*>(market.get());
  nb::object self = nb::inst_take_ownership(type, cpp);
  market.release();
  part->AttachBorrowed(self);
  return self;
}

PythonMarketCalls* PythonCallsOf(Market& market) {
  return dynamic_cast<PythonMarketCalls*>(&market);
}

}  // namespace pams::python
