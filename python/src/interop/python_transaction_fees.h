// Transaction fees for Python (since PAMS's development branch): the engine
// fees whose class is a Python subclass of pams_cpp.TransactionFee, and
// _core.EngineTransactionFee, a built-in engine fee as Python reads it
// (market.transaction_fee).

#ifndef PAMS_PYTHON_SRC_INTEROP_PYTHON_TRANSACTION_FEES_H_
#define PAMS_PYTHON_SRC_INTEROP_PYTHON_TRANSACTION_FEES_H_

#include <memory>
#include <string>

#include "interop/python.h"
#include "interop/python_run.h"

namespace pams {
class ClassRegistry;
class Market;
}  // namespace pams

namespace pams::python {

// How the engine runs one Python transaction fee class.
struct PythonTransactionFeeClass {
  std::string name;  // the name configs use (the class's __name__)
  // maker(market_id) -> the Python fee object of that market.
  nb::object maker;
};

// Registers `cls` in registry: a market group whose "transactionFee" names
// cls->name gets fees that call the class's setup and compute_fees.
// REQUIRES: run outlives the registry's fees.
void RegisterPythonTransactionFee(ClassRegistry* registry, PythonRun* run,
                                  std::shared_ptr<PythonTransactionFeeClass> cls);

// market.transaction_fee: None, the Python object of a Python class's fee,
// or a _core.EngineTransactionFee belonging to `owner` (the market's Python
// object).
nb::object TransactionFeeObject(Market& market, nb::handle owner);


}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_INTEROP_PYTHON_TRANSACTION_FEES_H_
