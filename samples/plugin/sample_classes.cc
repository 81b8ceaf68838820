// The user classes of PAMS's samples, as a pams-cpp plugin:
//
//   build/bin/pams run samples/market_share/config.json
//       --plugin build/lib/libpams_samples.so
//
// ExtendedMarket (market_share): a Market whose optional integer key
// tradeVolume becomes its executed volume at step 0, so that
// MarketShareFCNAgents start with those market shares.
// UserDefinedFCNAgent (user_class): an FCNAgent subclass that changes nothing;
// it shows how a user class is registered.

#include "pams/agents/fcn_agent.h"
#include "pams/config/settings.h"
#include "pams/market/market.h"
#include "pams/runners/class_registry.h"

namespace {

class ExtendedMarket : public pams::Market {
 public:
  using Market::Market;

  void setup(const pams::Settings& settings) override {
    Market::setup(settings);
    if (auto volume = settings.find("tradeVolume")) {
      histories().executed_volumes.assign(1, volume->as_int());
    }
  }
};

class UserDefinedFCNAgent : public pams::FCNAgent {
 public:
  using FCNAgent::FCNAgent;
};

}  // namespace

extern "C" void pams_register_classes(pams::ClassRegistry* registry) {
  registry->add_market<ExtendedMarket>("ExtendedMarket");
  registry->add_agent<UserDefinedFCNAgent>("UserDefinedFCNAgent");
}
