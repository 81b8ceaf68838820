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

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

#include "pams/agents/fcn_agent.h"
#include "pams/config/settings.h"
#include "pams/market/market.h"
#include "pams/runners/class_registry.h"
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
      orders->push_back(pams::Order::Limit(
          agent_id(), m->market_id(), buy, buy ? price - offset : price + offset,
          1 + (calls_ % 3), 5 + (calls_ % 11)));
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

}  // namespace

extern "C" void pams_register_classes(pams::ClassRegistry* registry) {
  registry->add_agent<StatefulAgent>("StatefulAgent");
  registry->add_agent<BusyAgent>("BusyAgent");
  registry->add_agent<FaultyAgent>("FaultyAgent");
}
