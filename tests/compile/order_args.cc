// Compiled by tests/compile/compile_test.py: with -DPAMS_CASE=N, case N must
// (0) compile, or (1..) fail to compile, showing that an order's price and
// volume cannot be swapped silently.

#include <cstdint>

#include "pams/market/order.h"

pams::Order Make(int agent, int market, double price, int64_t volume) {
#if PAMS_CASE == 0
  // The right way: every field named.
  return pams::Order::Limit({.agent_id = agent, .market_id = market,
                             .is_buy = true, .price = price, .volume = volume});
#elif PAMS_CASE == 1
  // Positional arguments, price and volume swapped.
  return pams::Order::Limit(agent, market, true, volume, price);
#elif PAMS_CASE == 2
  // Braces without names, price and volume swapped (narrowing).
  return pams::Order::Limit({agent, market, true, volume, price});
#elif PAMS_CASE == 3
  // Names in the wrong order.
  return pams::Order::Limit({.agent_id = agent, .market_id = market,
                             .is_buy = true, .volume = volume, .price = price});
#elif PAMS_CASE == 4
  // A market order given a price where its volume belongs.
  return pams::Order::Market({.agent_id = agent, .market_id = market,
                              .is_buy = true, .volume = price});
#endif
}
