// Transaction fees for Python. A fee of a Python class is a PyTransactionFee:
// an engine fee that holds the Python object and calls its setup (with the
// entry as a dict) and compute_fees (with PAMS's keywords: the price as
// Python holds it, the volume, and the two orders as Order objects: those
// the Python agents hold when they placed them, else new ones with the
// orders' values). compute_fees must return two numbers.

#include "interop/python_transaction_fees.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "interop/python.h"
#include "interop/python_agents.h"
#include "interop/python_run.h"
#include "interop/values.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/market/market.h"
#include "pams/market/transaction_fee.h"
#include "pams/runners/class_registry.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

namespace {

class PyTransactionFee final : public TransactionFee, public PythonPart {
 public:
  PyTransactionFee(TransactionFeeInit init, std::shared_ptr<PythonTransactionFeeClass> cls,
                   PythonRun* run)
      : TransactionFee(std::move(init)), cls_(std::move(cls)), run_(run) {}

  // Makes the Python object (the runner's maker gives it the market's
  // Python object).
  void Attach() {
    try {
      self_ = cls_->maker(market().market_id());
    } catch (nb::python_error& e) {
      StopWithPythonError(run_, e,
                          "creating the transaction fee of market " + market().name() + " (" +
                              cls_->name + ")");
    }
  }

  void setup(const Settings& settings) override {
    nb::gil_scoped_acquire gil;
    setup_.Run(settings, [&] {
      try {
        self_.attr("setup")(nb::arg("settings") = ToPython(settings.json()));
      } catch (nb::python_error& e) {
        StopWithPythonError(run_, e,
                            "in setup of the transaction fee of market " + market().name() +
                                " (" + cls_->name + ")");
      }
    });
  }

  TransactionFees compute_fees(double price, int64_t volume, const Order& buy,
                               const Order& sell) override {
    nb::gil_scoped_acquire gil;
    const std::string where = "in compute_fees of the transaction fee of market " +
                              market().name() + " (" + cls_->name + ") at step " +
                              std::to_string(market().get_time());
    try {
      nb::object result = self_.attr("compute_fees")(
          nb::arg("price") = PriceObject(market(), price), nb::arg("volume") = volume,
          nb::arg("buy_order") = OrderObject(buy), nb::arg("sell_order") = OrderObject(sell));
      nb::object items = nb::steal(PySequence_Fast(result.ptr(), "not a sequence"));
      if (!items.is_valid() || PySequence_Fast_GET_SIZE(items.ptr()) != 2) {
        PyErr_Clear();
        throw SimulationError(where + ": compute_fees must return (buy_fee, sell_fee), got " +
                              std::string(nb::repr(result).c_str()));
      }
      TransactionFees fees;
      fees.buy = Number(PySequence_Fast_GET_ITEM(items.ptr(), 0), where);
      fees.sell = Number(PySequence_Fast_GET_ITEM(items.ptr(), 1), where);
      return fees;
    } catch (nb::python_error& e) {
      StopWithPythonError(run_, e, where);
    }
  }

 private:
  // The Python order of a Python agent (the object it holds), else a new
  // Order with the engine order's values.
  nb::object OrderObject(const Order& order) {
    nb::object mirrored = run_->mirror.Find(order.market_id, order.order_id);
    if (!mirrored.is_none()) return mirrored;
    return ToPythonAction(*run_, Action(order));
  }

  // A fee as PAMS adds it to the cash (a float): an int, a float, or any
  // other real number (numpy's scalars: np.float32, np.int64, ...), whose
  // float() is what Python's arithmetic with a float gives. A bool is
  // refused: a fee of True is a bug PAMS would hide.
  double Number(nb::handle value, const std::string& where) {
    PyObject* v = value.ptr();
    if (PyFloat_CheckExact(v)) return PyFloat_AS_DOUBLE(v);
    const bool real = !PyBool_Check(v) && (PyLong_Check(v) || PyFloat_Check(v) || IsReal(v));
    if (!real) {
      throw SimulationError(where + ": a fee must be a real number (an int, a float or a "
                            "numpy scalar), got " + std::string(nb::repr(value).c_str()));
    }
    const double d = PyFloat_AsDouble(v);
    if (d == -1.0 && PyErr_Occurred()) throw nb::python_error();
    return d;
  }

  // isinstance(v, numbers.Real), with numbers.Real looked up once a class.
  bool IsReal(PyObject* v) {
    if (!real_type_.is_valid()) real_type_ = nb::module_::import_("numbers").attr("Real");
    const int r = PyObject_IsInstance(v, real_type_.ptr());
    if (r < 0) throw nb::python_error();
    return r == 1;
  }

  std::shared_ptr<PythonTransactionFeeClass> cls_;
  PythonRun* run_;
  PythonSetup setup_;
  nb::object real_type_;  // numbers.Real, once needed
};

}  // namespace

void RegisterPythonTransactionFee(ClassRegistry* registry, PythonRun* run,
                                  std::shared_ptr<PythonTransactionFeeClass> cls) {
  const std::string name = cls->name;
  registry->add_transaction_fee(name, [cls, run](TransactionFeeInit init) {
    auto fee = std::make_unique<PyTransactionFee>(std::move(init), cls, run);
    nb::gil_scoped_acquire gil;
    fee->Attach();
    return fee;
  });
}

nb::object TransactionFeeObject(Market& market, nb::handle owner) {
  TransactionFee* fee = market.transaction_fee();
  if (fee == nullptr) return nb::none();
  if (auto* p = dynamic_cast<PythonPart*>(fee)) return nb::borrow(p->self());
  nb::object o = nb::cast(fee, nb::rv_policy::reference);
  nb::setattr(o, "_owner", owner);
  return o;
}

}  // namespace pams::python
