#include "pams/agents/agent.h"

#include <cmath>

#include "pams/config/settings.h"
#include "pams/errors.h"

namespace pams {

Agent::Agent(AgentInit init)
    : agent_id_(init.agent_id),
      name_(std::move(init.name)),
      class_name_(std::move(init.class_name)),
      prng_(std::move(init.prng)),
      simulator_(init.simulator),
      logger_(init.logger) {}

Agent::~Agent() = default;

namespace {

// Python's int(x) for a float drawn from a JsonRandom spec.
int64_t TruncateToInt(double x, const Settings& from) {
  if (!std::isfinite(x) || std::fabs(x) >= 9.2e18) {
    from.fail("drew " + std::to_string(x) + ", which is not a usable integer");
  }
  return static_cast<int64_t>(x);
}

}  // namespace

void Agent::setup(const Settings& settings,
                  std::span<const int> accessible_market_ids) {
  cash_amount_ = settings["cashAmount"].json_random(prng_);
  const Settings volume = settings["assetVolume"];
  volume.check_json_random();
  for (int market_id : accessible_market_ids) {
    set_market_accessible(market_id);
    set_asset_volume(market_id, TruncateToInt(volume.json_random(prng_), volume));
  }
}

void Agent::submitted_order(const OrderLog&) {}
void Agent::executed_order(const ExecutionLog&) {}
void Agent::canceled_order(const CancelLog&) {}
void Agent::save_state(StateWriter&) const {}
void Agent::load_state(StateReader&) {}

int64_t Agent::get_asset_volume(int market_id) const {
  if (!is_market_accessible(market_id)) {
    throw SimulationError("agent " + name_ + ": market " +
                          std::to_string(market_id) + " is not accessible");
  }
  return asset_volumes_[market_id];
}

void Agent::set_asset_volume(int market_id, int64_t volume) {
  if (!is_market_accessible(market_id)) {
    throw SimulationError("agent " + name_ + ": market " +
                          std::to_string(market_id) + " is not accessible");
  }
  asset_volumes_[market_id] = volume;
}

void Agent::update_asset_volume(int market_id, int64_t delta) {
  if (!is_market_accessible(market_id)) {
    throw SimulationError("agent " + name_ + ": market " +
                          std::to_string(market_id) + " is not accessible");
  }
  asset_volumes_[market_id] += delta;
}

void Agent::set_market_accessible(int market_id) {
  if (market_id < 0) throw SimulationError("negative market id");
  if (is_market_accessible(market_id)) {
    throw SimulationError("agent " + name_ + ": market " +
                          std::to_string(market_id) + " is already accessible");
  }
  if (static_cast<size_t>(market_id) >= accessible_.size()) {
    accessible_.resize(market_id + 1, 0);
    asset_volumes_.resize(market_id + 1, 0);
  }
  accessible_[market_id] = 1;
  asset_volumes_[market_id] = 0;
  accessible_order_.push_back(market_id);
}

}  // namespace pams
