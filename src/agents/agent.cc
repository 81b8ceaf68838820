#include "pams/agents/agent.h"

#include <algorithm>
#include <cmath>

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/simulator/simulator_view.h"
#include "pams/util/state.h"
#include "simulator/simulation_journal.h"

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

void Agent::warn(std::string_view message) {
  if (defer_warnings_) {
    deferred_warnings_.emplace_back(message);
    return;
  }
  simulator_->warn(message);
}

void Agent::PublicStateChanged() { ++public_state_version_; }

void Agent::RecordCash() {
  PublicStateChanged();
  if (journal_ != nullptr) journal_->RecordAgentCash(agent_id_, cash_amount_);
}

void Agent::RecordVolume(int market_id) {
  PublicStateChanged();
  if (journal_ != nullptr) {
    journal_->RecordAgentVolume(agent_id_, market_id, asset_volumes_[market_id]);
  }
}

void Agent::set_cash_amount(double cash) {
  cash_amount_ = cash;
  RecordCash();
}

void Agent::update_cash_amount(double delta) {
  cash_amount_ += delta;
  RecordCash();
}

void Agent::submitted_order(const OrderLog&) {}
void Agent::executed_order(const ExecutionLog&) {}
void Agent::canceled_order(const CancelLog&) {}

void Agent::prepare_model_calls(Markets, std::vector<ModelCall>*) {}

void Agent::submit_orders_with_model_outputs(Markets, std::span<const ModelCall>,
                                             std::vector<Action>*) {}
void Agent::save_state(StateWriter&) const {}
void Agent::load_state(StateReader&) {}

void Agent::serialize_state(std::string* out) const {
  StateWriter w(out);
  w.write(cash_amount_);
  w.write_vector(accessible_order_);
  for (int id : accessible_order_) w.write(asset_volumes_[id]);
  w.write(prng_.getstate());
  save_state(w);
}

void Agent::deserialize_state(std::string_view in) {
  StateReader r(in);
  cash_amount_ = r.read<double>();
  const std::vector<int> accessible = r.read_vector<int>();
  if (accessible != accessible_order_) {
    // Markets made accessible after setup (rare): rebuild the table.
    accessible_.clear();
    asset_volumes_.clear();
    accessible_order_.clear();
    for (int id : accessible) set_market_accessible(id);
  }
  for (int id : accessible_order_) asset_volumes_[id] = r.read<int64_t>();
  prng_.setstate(r.read<Random::State>());
  load_state(r);
  if (!r.at_end()) {
    throw SimulationError("agent " + name_ +
                          ": state has bytes that load_state() did not read");
  }
}

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
  RecordVolume(market_id);
}

void Agent::update_asset_volume(int market_id, int64_t delta) {
  if (!is_market_accessible(market_id)) {
    throw SimulationError("agent " + name_ + ": market " +
                          std::to_string(market_id) + " is not accessible");
  }
  asset_volumes_[market_id] += delta;
  RecordVolume(market_id);
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
  PublicStateChanged();
  if (journal_ != nullptr) journal_->RecordAgentMarketAccessible(agent_id_, market_id);
}

void Agent::set_market_inaccessible(int market_id) {
  if (!is_market_accessible(market_id)) {
    throw SimulationError("agent " + name_ + ": market " + std::to_string(market_id) +
                          " is not accessible");
  }
  accessible_[market_id] = 0;
  asset_volumes_[market_id] = 0;
  std::erase(accessible_order_, market_id);
  PublicStateChanged();
  if (journal_ != nullptr) journal_->RecordAgentMarketInaccessible(agent_id_, market_id);
}

}  // namespace pams
