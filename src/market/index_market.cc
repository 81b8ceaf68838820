#include "pams/market/index_market.h"

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/simulator/simulator.h"

namespace pams {

void IndexMarket::setup(const Settings& settings) {
  Market::setup(settings);
  const Settings names = settings["markets"];
  if (settings.has("requires")) {
    simulator()->warn("requires in index market settings is no longer required");
  }
  const std::vector<std::string> list = names.as_string_list();
  if (list.empty()) names.fail("an index market needs at least one component");
  for (size_t i = 0; i < list.size(); ++i) {
    const Market* m = simulator()->find_market(list[i]);
    if (m == nullptr) {
      names.at(i).fail("no market is named \"" + list[i] + "\"");
    }
    if (m == this) names.at(i).fail("an index market cannot contain itself");
    for (const Market* c : components_) {
      if (c == m) {
        names.at(i).fail("market \"" + list[i] + "\" is listed twice");
      }
    }
    if (!m->outstanding_shares()) {
      names.at(i).fail("component market \"" + list[i] +
                       "\" needs outstandingShares (and must be set up "
                       "before the index: list it earlier in "
                       "simulation.markets)");
    }
    components_.push_back(m);
  }
}

void IndexMarket::add_component(const Market& market) {
  for (const Market* c : components_) {
    if (c == &market) {
      throw SimulationError("market " + market.name() + " is a component of index " +
                            name() + " already");
    }
  }
  if (!market.outstanding_shares()) {
    throw SimulationError("component market " + market.name() +
                          " needs outstandingShares");
  }
  components_.push_back(&market);
}

double IndexMarket::compute_fundamental_index(int64_t t) const {
  // Python: total_value = 0 (int); += price * shares; / total_shares.
  double total_value = 0.0;
  int64_t total_shares = 0;
  for (const Market* m : components_) {
    const int64_t shares = *m->outstanding_shares();
    total_value += m->get_fundamental_price(t) * static_cast<double>(shares);
    total_shares += shares;
  }
  return total_value / static_cast<double>(total_shares);
}

double IndexMarket::compute_market_index(int64_t t) const {
  double total_value = 0.0;
  int64_t total_shares = 0;
  for (const Market* m : components_) {
    const int64_t shares = *m->outstanding_shares();
    total_value += m->get_market_price(t) * static_cast<double>(shares);
    total_shares += shares;
  }
  return total_value / static_cast<double>(total_shares);
}

bool IndexMarket::is_all_markets_running() const {
  for (const Market* m : components_) {
    if (!m->is_running()) return false;
  }
  return true;
}

}  // namespace pams
