// Agents for the parallel runners' tests and benchmarks, as a plugin
// (build/lib/libpams_test_agents.so):
//
// StatefulAgent: keeps state beyond its prng that submit_orders() changes (a
//   call count, a running mean of the prices it saw, a drifting aggression
//   drawn from its prng), and saves it with save_state() so that parallel
//   runners reproduce it.
// BusyAgent: an FCNAgent that first burns busyMicroseconds of CPU (default
//   1000) in submit_orders, for speedup benchmarks. The work does not touch
//   the results.
// FaultyAgent: an FCNAgent that fails in submit_orders at step faultStep:
//   fault "crash" (SIGSEGV), "kill" (SIGKILL), "exit" (exit status 3),
//   "hang" (sleeps forever) or "throw" (an exception).
// ProbeAgent: reads, in submit_orders, everything the agent contract lets
//   an agent read (simulator_view.h): every market getter, the sessions, the
//   current session and time, every agent's public state, its own state;
//   folds it all into a hash that decides its order, and warns once with
//   the hash it first saw. Any value a runner shows differently changes the
//   run.
// ForgetfulAgent: StatefulAgent without save_state()/load_state(), so that
//   its worker processes see stale state (what --check-parallel finds).
// FeeAgent: an FCNAgent that pays a fee from its cash in submit_orders,
//   which the contract forbids under parallel runners (SequentialRunner
//   allows it, as PAMS does).
// FlatFee: a transaction fee (since PAMS's development branch) of "fee" per
//   side and execution, a fee class registered by a plugin.

#include <signal.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "pams/agents/fcn_agent.h"
#include "pams/config/settings.h"
#include "pams/market/market.h"
#include "pams/market/transaction_fee.h"
#include "pams/runners/class_registry.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator_view.h"
#include "pams/util/state.h"

namespace {

class StatefulAgent : public pams::Agent {
 public:
  using Agent::Agent;

  void submit_orders(pams::Markets markets,
                     std::vector<pams::Action>* orders) override {
    for (const pams::Market* m : markets) {
      if (!is_market_accessible(m->market_id())) continue;
      ++calls_;
      const double price = m->get_market_price();
      mean_price_ += (price - mean_price_) / static_cast<double>(calls_);
      aggression_ = 0.9 * aggression_ + 0.1 * prng().random();
      // Buy when the price is below its running mean, sell above; deeper
      // into the book the more aggressive and the more often it was asked.
      const bool buy = price < mean_price_ || (calls_ % 7 == 0);
      const double offset = m->tick_size() * (1.0 + 50.0 * aggression_);
      orders->push_back(
          pams::Order::Limit({.agent_id = agent_id(),
                              .market_id = m->market_id(),
                              .is_buy = buy,
                              .price = buy ? price - offset : price + offset,
                              .volume = 1 + (calls_ % 3),
                              .ttl = 5 + (calls_ % 11)}));
    }
  }

  void save_state(pams::StateWriter& out) const override {
    out.write(calls_);
    out.write(mean_price_);
    out.write(aggression_);
  }

  void load_state(pams::StateReader& in) override {
    calls_ = in.read<int64_t>();
    mean_price_ = in.read<double>();
    aggression_ = in.read<double>();
  }

 private:
  int64_t calls_ = 0;
  double mean_price_ = 0.0;
  double aggression_ = 0.5;
};

class ForgetfulAgent : public StatefulAgent {
 public:
  using StatefulAgent::StatefulAgent;
  void save_state(pams::StateWriter&) const override {}
  void load_state(pams::StateReader&) override {}
};

class BusyAgent : public pams::FCNAgent {
 public:
  using FCNAgent::FCNAgent;

  void setup(const pams::Settings& settings,
             std::span<const int> accessible_market_ids) override {
    FCNAgent::setup(settings, accessible_market_ids);
    if (auto us = settings.find("busyMicroseconds")) {
      busy_seconds_ = us->as_float() * 1e-6;
    }
  }

  void submit_orders(pams::Markets markets,
                     std::vector<pams::Action>* orders) override {
    // Work until the time is up; the result is thrown away.
    const auto until = std::chrono::steady_clock::now() +
                       std::chrono::duration<double>(busy_seconds_);
    volatile double sink = 0;
    double x = 1.0;
    while (std::chrono::steady_clock::now() < until) {
      for (int i = 0; i < 1000; ++i) x = std::sqrt(x + 1.0);
    }
    sink = x;
    (void)sink;
    FCNAgent::submit_orders(markets, orders);
  }

 private:
  double busy_seconds_ = 1e-3;
};

class FaultyAgent : public pams::FCNAgent {
 public:
  using FCNAgent::FCNAgent;

  void setup(const pams::Settings& settings,
             std::span<const int> accessible_market_ids) override {
    FCNAgent::setup(settings, accessible_market_ids);
    fault_ = settings["fault"].as_string();
    fault_step_ = settings["faultStep"].as_int();
    if (fault_ != "crash" && fault_ != "kill" && fault_ != "exit" &&
        fault_ != "hang" && fault_ != "throw") {
      settings["fault"].fail("expected crash, kill, exit, hang or throw");
    }
  }

  void submit_orders(pams::Markets markets,
                     std::vector<pams::Action>* orders) override {
    if (!markets.empty() && markets[0]->get_time() >= fault_step_) {
      if (fault_ == "crash") raise(SIGSEGV);
      if (fault_ == "kill") raise(SIGKILL);
      if (fault_ == "exit") _exit(3);
      if (fault_ == "hang") {
        for (;;) sleep(1);
      }
      if (fault_ == "throw") throw std::runtime_error("deliberate failure");
    }
    FCNAgent::submit_orders(markets, orders);
  }

 private:
  std::string fault_;
  int64_t fault_step_ = 0;
};

class ProbeAgent : public pams::Agent {
 public:
  using Agent::Agent;

  void submit_orders(pams::Markets markets,
                     std::vector<pams::Action>* orders) override {
    const pams::SimulatorView& sim = simulator();
    hash_ = kOffset;
    ++calls_;
    Mix(calls_);
    Mix(sim.time());
    Mix(sim.total_steps());
    Mix(static_cast<int64_t>(sim.sessions().size()));
    const pams::Session* session = sim.current_session();
    Mix(session->session_id());
    Mix(session->max_normal_orders());
    Mix(session->with_order_execution());
    Mix(session->name());
    for (const pams::Market* m : sim.markets()) {
      Mix(m->get_time());
      Mix(m->is_running());
      Mix(m->get_market_price());
      Mix(m->get_fundamental_price());
      Mix(m->get_mid_price());
      Mix(m->get_last_executed_price());
      Mix(m->get_best_buy_price());
      Mix(m->get_best_sell_price());
      Mix(m->get_executed_volume());
      Mix(m->get_executed_total_price());
      Mix(m->get_n_buy_order());
      Mix(m->get_n_sell_order());
      Mix(m->get_executed_volume_sum(0, m->get_time()));
      Mix(m->get_vwap());
      Mix(static_cast<int64_t>(m->buy_order_book().size()));
      Mix(static_cast<int64_t>(m->sell_order_book().size()));
      if (m->get_time() > 0) Mix(m->get_market_price(m->get_time() - 1));
      Mix(sim.find_market(m->name()) == m);
    }
    Mix(static_cast<int64_t>(sim.find_market_group("Markets").size()));
    for (int id = 0; id < sim.num_agents(); ++id) {
      const pams::AgentView a = sim.agent(id);
      Mix(a.cash_amount());
      Mix(a.is_high_frequency());
      Mix(a.class_name());
      for (int market_id : a.accessible_market_ids()) {
        Mix(market_id);
        Mix(a.get_asset_volume(market_id));
      }
      Mix(sim.find_agent(a.name())->agent_id() == id);
    }
    Mix(cash_amount());
    Mix(prng().random());
    if (calls_ == 1) {
      char text[80];
      std::snprintf(text, sizeof text, "probe %s first saw %016llx",
                    name().c_str(), static_cast<unsigned long long>(hash_));
      warn(text);
    }
    // The order depends on everything read.
    const pams::Market& market = *markets[hash_ % markets.size()];
    if (!is_market_accessible(market.market_id())) return;
    const bool buy = (hash_ >> 8) & 1;
    const double offset = static_cast<double>((hash_ >> 16) % 21) - 10.0;
    orders->push_back(pams::Order::Limit(
        {.agent_id = agent_id(),
         .market_id = market.market_id(),
         .is_buy = buy,
         .price = market.get_market_price() * (1.0 + 0.0005 * offset),
         .volume = 1 + static_cast<int64_t>((hash_ >> 24) % 3),
         .ttl = 20}));
  }

  void save_state(pams::StateWriter& out) const override { out.write(calls_); }
  void load_state(pams::StateReader& in) override {
    calls_ = in.read<int64_t>();
  }

 private:
  static constexpr uint64_t kOffset = 14695981039346656037ull;
  void MixBytes(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) hash_ = (hash_ ^ p[i]) * 1099511628211ull;
  }
  void Mix(int64_t v) { MixBytes(&v, sizeof v); }
  void Mix(int v) { Mix(static_cast<int64_t>(v)); }
  void Mix(bool v) { Mix(static_cast<int64_t>(v)); }
  void Mix(double v) { Mix(static_cast<int64_t>(std::bit_cast<uint64_t>(v))); }
  void Mix(std::optional<double> v) { v ? Mix(*v) : Mix(int64_t{-7}); }
  void Mix(const std::string& s) { MixBytes(s.data(), s.size()); }

  int64_t calls_ = 0;
  uint64_t hash_ = kOffset;
};

class FeeAgent : public pams::FCNAgent {
 public:
  using FCNAgent::FCNAgent;

  void submit_orders(pams::Markets markets,
                     std::vector<pams::Action>* orders) override {
    update_cash_amount(-0.01);
    FCNAgent::submit_orders(markets, orders);
  }
};

class BigStateAgent : public pams::FCNAgent {
 public:
  using FCNAgent::FCNAgent;

  void setup(const pams::Settings& settings,
             std::span<const int> accessible_market_ids) override {
    FCNAgent::setup(settings, accessible_market_ids);
    int64_t bytes = 1000000;
    if (auto b = settings.find("stateBytes")) bytes = b->as_int();
    if (bytes < 1 || bytes > (int64_t{1} << 28)) {
      settings["stateBytes"].fail("must be between 1 and 2^28");
    }
    state_.assign(static_cast<size_t>(bytes), '\0');
    for (size_t i = 0; i < state_.size(); i += 4096) state_[i] = static_cast<char>(i / 4096);
  }

  void submit_orders(pams::Markets markets,
                     std::vector<pams::Action>* orders) override {
    ++calls_;
    const size_t n = state_.size();
    state_[static_cast<size_t>(calls_ * 7919) % n] =
        static_cast<char>(static_cast<int>(prng().random() * 256));
    if ((state_[static_cast<size_t>(calls_ * 104729) % n] & 1) != 0) return;
    FCNAgent::submit_orders(markets, orders);
  }

  void save_state(pams::StateWriter& out) const override {
    FCNAgent::save_state(out);
    out.write(calls_);
    out.write_string(state_);
  }

  void load_state(pams::StateReader& in) override {
    FCNAgent::load_state(in);
    calls_ = in.read<int64_t>();
    state_ = in.read_string();
  }

 private:
  int64_t calls_ = 0;
  std::string state_;
};

class FlatFee : public pams::TransactionFee {
 public:
  using TransactionFee::TransactionFee;

  void setup(const pams::Settings& settings) override { fee_ = settings["fee"].as_float(); }
  pams::TransactionFees compute_fees(double, int64_t, const pams::Order&,
                                     const pams::Order&) override {
    return {fee_, fee_};
  }

 private:
  double fee_ = 0.0;
};

}  // namespace

extern "C" void pams_register_classes(pams::ClassRegistry* registry) {
  registry->add_transaction_fee<FlatFee>("FlatFee");
  registry->add_agent<StatefulAgent>("StatefulAgent");
  registry->add_agent<BusyAgent>("BusyAgent");
  registry->add_agent<FaultyAgent>("FaultyAgent");
  registry->add_agent<ProbeAgent>("ProbeAgent");
  registry->add_agent<FeeAgent>("FeeAgent");
  registry->add_agent<ForgetfulAgent>("ForgetfulAgent");
  registry->add_agent<BigStateAgent>("BigStateAgent");
}
