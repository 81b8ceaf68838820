// IndexMarket: a market whose fundamental price is the share-weighted mean of
// the fundamental prices of its component markets (PAMS's IndexMarket).
//
// Config keys: those of Market, plus "markets" (the names of the component
// markets, each with outstandingShares). Threading as Market.

#ifndef PAMS_MARKET_INDEX_MARKET_H_
#define PAMS_MARKET_INDEX_MARKET_H_

#include <cstdint>
#include <vector>

#include "pams/export.h"
#include "pams/market/market.h"

namespace pams {

class PAMS_EXPORT IndexMarket : public Market {
 public:
  explicit IndexMarket(MarketInit init) : Market(std::move(init)) {}

  void setup(const Settings& settings) override;

  // sum(fundamental price * shares) / sum(shares) over the components at t.
  // REQUIRES: every component has reached step t.
  double compute_fundamental_index(int64_t t) const;
  double compute_fundamental_index() const {
    return compute_fundamental_index(get_time());
  }
  // The same with market prices.
  double compute_market_index(int64_t t) const;
  double compute_market_index() const {
    return compute_market_index(get_time());
  }
  double get_fundamental_index(int64_t t) const {
    return get_fundamental_price(t);
  }
  double get_fundamental_index() const { return get_fundamental_price(); }
  double get_market_index(int64_t t) const { return compute_market_index(t); }
  double get_market_index() const { return compute_market_index(); }
  double get_index(int64_t t) const { return get_market_index(t); }
  double get_index() const { return get_market_index(); }

  const std::vector<const Market*>& get_components() const {
    return components_;
  }
  // Adds a component (PAMS's _add_market; setup() adds those it names).
  // REQUIRES (else SimulationError): market has outstanding shares and is
  // not a component yet. market outlives this index.
  void add_component(const Market& market);
  bool is_all_markets_running() const;

 private:
  std::vector<const Market*> components_;
};

}  // namespace pams

#endif  // PAMS_MARKET_INDEX_MARKET_H_
