// _core.EngineTransactionFee: a built-in engine fee as Python reads it
// (market.transaction_fee); fees of Python classes are in
// interop/python_transaction_fees.h.

#include <nanobind/nanobind.h>

#include "bindings/bindings.h"
#include "pams/market/order.h"
#include "pams/market/transaction_fee.h"

namespace pams::python {

void BindTransactionFees(nb::module_& m) {
  // A built-in engine fee (ProportionalTransactionFee), read from Python;
  // pams_cpp.transaction_fees registers it as a TransactionFee.
  nb::class_<TransactionFee>(m, "EngineTransactionFee", nb::dynamic_attr())
      .def_prop_ro("class_name", &TransactionFee::class_name)
      .def_prop_ro("market", [](nb::handle self) { return self.attr("_owner"); })
      .def(
          "compute_fees",
          [](TransactionFee& fee, double price, int64_t volume, nb::handle, nb::handle) {
            // The built-in fees read no order.
            const TransactionFees f = fee.compute_fees(price, volume, Order(), Order());
            return nb::make_tuple(f.buy, f.sell);
          },
          nb::arg("price"), nb::arg("volume"), nb::arg("buy_order"), nb::arg("sell_order"))
      .def("__repr__", [](nb::handle self) {
        return nb::str("<pams_cpp.transaction_fees.{} | market={}>")
            .format(nb::cast<const TransactionFee&>(self).class_name(),
                    self.attr("_owner"));
      });
  nb::class_<ProportionalTransactionFee, TransactionFee>(m, "EngineProportionalTransactionFee")
      .def_prop_ro("rate", &ProportionalTransactionFee::rate);
}

}  // namespace pams::python
