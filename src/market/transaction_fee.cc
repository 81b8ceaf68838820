// TransactionFee and ProportionalTransactionFee (PAMS development branch's
// transaction_fees.py), with PAMS's checks and arithmetic.

#include "pams/market/transaction_fee.h"

#include <cmath>
#include <utility>

#include "pams/config/settings.h"

namespace pams {

TransactionFee::TransactionFee(TransactionFeeInit init)
    : market_(init.market), class_name_(std::move(init.class_name)) {}

TransactionFee::~TransactionFee() = default;

void TransactionFee::setup(const Settings&) {}

void ProportionalTransactionFee::setup(const Settings& settings) {
  const Settings rate = settings["rate"];
  // PAMS: an int or a float, not a bool, in [0.0, 1.0) (NaN is not).
  if (!rate.json().is_number()) {
    rate.fail("rate must be int or float, got " + rate.json().dump());
  }
  const double r = rate.as_float();
  if (!(0.0 <= r && r < 1.0)) {
    rate.fail("rate must be in [0.0, 1.0), got " + rate.json().dump());
  }
  rate_ = r;
}

TransactionFees ProportionalTransactionFee::compute_fees(double price, int64_t volume,
                                                         const Order&, const Order&) {
  // Python's rate * price * volume: (rate * price) * float(volume).
  const double fee = rate_ * price * static_cast<double>(volume);
  return {fee, fee};
}

}  // namespace pams
