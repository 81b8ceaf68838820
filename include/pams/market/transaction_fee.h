// TransactionFee: the fees a market charges the buyer and the seller of each
// execution (since PAMS's development branch: pams.TransactionFee and
// pams.ProportionalTransactionFee). A fee is set per market group with the
// config key "transactionFee", e.g.
//   "Market": {"class": "Market", ..., "transactionFee":
//                  {"class": "ProportionalTransactionFee", "rate": 0.001}}
// The runner creates one object per market of the group, right after the
// market's setup(), and calls its setup() with the entry without "class".
// A market without the key charges nothing, and its runs are PAMS 0.3.0's.
//
// The market calls compute_fees() once per execution (pair of orders),
// before the executed volume is taken off the two orders, and records the
// fees in the ExecutionLog (buy_transaction_fee, sell_transaction_fee) and
// their sum in its transaction fee revenue of the step; the simulator then
// takes each fee off the agent's cash (a negative fee, a rebate, adds to
// it). Nobody receives the fees. At that moment the two orders are still in
// their books with the volume they have before this pair (earlier pairs of
// the same matching are executed; agents' cash and assets include no pair
// of the matching yet).
//
// Subclass it and register the class (ClassRegistry::add_transaction_fee,
// in a plugin as agents are) to charge other fees. compute_fees() may keep
// state in the object (e.g. each agent's volume, for tiered fees): it runs
// on the simulation thread only, and worker replicas of the parallel
// runners repeat every execution, so their fee objects evolve the same way.
// It must draw no randomness from the runner's or the markets' generators
// (a fee that needs randomness keeps its own Random), so that a run with
// fees has the same prices and executions as the run without them.

#ifndef PAMS_MARKET_TRANSACTION_FEE_H_
#define PAMS_MARKET_TRANSACTION_FEE_H_

#include <cstdint>
#include <string>

#include "pams/export.h"
#include "pams/market/order.h"

namespace pams {

class Market;
class Settings;

// What the runner gives every transaction fee it creates.
struct PAMS_EXPORT TransactionFeeInit {
  // The market that charges the fee (it owns the fee object).
  Market* market = nullptr;
  // The config class name it was created as ("ProportionalTransactionFee").
  std::string class_name{};
};

// The fees of one execution; negative values are rebates.
struct PAMS_EXPORT TransactionFees {
  double buy = 0.0;
  double sell = 0.0;
};

class PAMS_EXPORT TransactionFee {
 public:
  explicit TransactionFee(TransactionFeeInit init);
  virtual ~TransactionFee();
  TransactionFee(const TransactionFee&) = delete;
  TransactionFee& operator=(const TransactionFee&) = delete;

  // Reads the "transactionFee" entry without "class". Default: nothing.
  virtual void setup(const Settings& settings);

  // The fees of one execution at `price` of `volume` between the two orders
  // (see the top of this file for the state of the market at that moment).
  // Both values must be finite (the market stops the run otherwise).
  virtual TransactionFees compute_fees(double price, int64_t volume,
                                       const Order& buy_order,
                                       const Order& sell_order) = 0;

  // The market that charges this fee: its books, prices, time and, through
  // it, the simulation.
  const Market& market() const { return *market_; }
  const std::string& class_name() const { return class_name_; }

 private:
  Market* market_;
  std::string class_name_;
};

// Both sides pay `rate` times the executed value (price * volume), with
// rate in [0, 1) from the key "rate" (required).
class PAMS_EXPORT ProportionalTransactionFee : public TransactionFee {
 public:
  using TransactionFee::TransactionFee;

  void setup(const Settings& settings) override;
  TransactionFees compute_fees(double price, int64_t volume, const Order& buy_order,
                               const Order& sell_order) override;

  double rate() const { return rate_; }

 private:
  double rate_ = 0.0;
};

}  // namespace pams

#endif  // PAMS_MARKET_TRANSACTION_FEE_H_
