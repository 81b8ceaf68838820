// Engine markets whose class is written in Python (python_markets.cc), for the
// runner binding and the market binding.

#ifndef PAMS_PYTHON_SRC_INTEROP_PYTHON_MARKETS_H_
#define PAMS_PYTHON_SRC_INTEROP_PYTHON_MARKETS_H_

#include <memory>
#include <string>

#include "interop/python.h"
#include "interop/python_run.h"
#include "pams/market/market.h"

namespace pams {
class ClassRegistry;
class Market;
}  // namespace pams

namespace pams::python {

// How the engine runs one Python market class.
struct PythonMarketClass {
  std::string name;  // the name configs use (the class's __name__)
  std::string base;  // "Market" or "IndexMarket"
  nb::object cls;    // the Python class (a subclass of _core.Market)
  bool setup = false;  // whether it overrides setup
};

// Registers `cls` in registry: configs naming cls->name create PyMarkets.
// REQUIRES: run outlives the registry's markets.
void RegisterPythonMarket(ClassRegistry* registry, PythonRun* run,
                          std::shared_ptr<PythonMarketClass> cls);

// A market built by hand (PAMS's Market(market_id=..., ...)): an engine
// market of cls->base (Market or IndexMarket) whose Python object, an
// instance of cls->cls that owns it, is returned. REQUIRES: the GIL is
// held; run outlives the market.
nb::object NewHandBuiltMarket(MarketInit init, std::shared_ptr<PythonMarketClass> cls,
                              PythonRun* run);

// Adds _core.Market's setup() (Python's super().setup()) and PAMS's
// history lists (_executed_volumes, ...) to the market binding.
// What _core.Market's methods reach in a market of a Python class.
class PythonMarketCalls : public PythonPart {
 public:
  virtual void BaseSetup(nb::handle settings) = 0;
  // Sets one of PAMS's history lists ("_executed_volumes", ...); false for
  // another name.
  virtual bool SetHistory(const std::string& name, nb::handle values) = 0;
};

// The Python side of a market of a Python class; nullptr for a market of a
// built-in class.
PythonMarketCalls* PythonCallsOf(Market& market);

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_INTEROP_PYTHON_MARKETS_H_
