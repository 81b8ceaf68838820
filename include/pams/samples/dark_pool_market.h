// DarkPoolMarket: the dark pool of PAMS development branch's dark_pool sample
// (samples/dark_pool, after Mizuta et al. 2015). It shows no book and
// accepts market orders only; it matches buy and sell orders in time
// priority, each pair at the current mid price of its lit market (the
// market price of the lit market when one side of the lit book is empty),
// rounded to its tick in favour of the earlier order: up when the buy order
// came later, down when the sell order did. An order placed while the dark
// pool is not running (a session without execution) is canceled at once.
//
// Config keys (besides Market's): "markets", a list of exactly one market
// instance name, the lit market, which must not be a dark pool.
//
// A built-in class since PAMS's development branch, which defines it as a
// user class of its sample: a registered class of the same name replaces
// it (see class_registry.h). Threading: as Market.

#ifndef PAMS_SAMPLES_DARK_POOL_MARKET_H_
#define PAMS_SAMPLES_DARK_POOL_MARKET_H_

#include <vector>

#include "pams/export.h"
#include "pams/market/market.h"

namespace pams {

class PAMS_EXPORT DarkPoolMarket : public Market {
 public:
  using Market::Market;

  void setup(const Settings& settings) override;

  // The lit market. REQUIRES: setup() has run.
  const Market& lit_market() const { return *lit_market_; }
  // The mean of the lit market's best buy and sell prices, or its market
  // price when one side of its book is empty.
  double get_lit_mid_price() const;

  // Both books hold orders (all are market orders: any pair matches).
  bool remain_executable_orders() const override;

 protected:
  // Refuses limit orders (SimulationError); cancels the order at once when
  // the market is not running.
  OrderLog place_order(Order* order) override;
  void match_orders(std::vector<ExecutionLog>* logs) override;

 private:
  const Market* lit_market_ = nullptr;
};

}  // namespace pams

#endif  // PAMS_SAMPLES_DARK_POOL_MARKET_H_
