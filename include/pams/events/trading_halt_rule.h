// TradingHaltRule: halts trading in all targetMarkets when, after an
// execution in one of them, its market price has moved from the step-0 price
// by at least triggerChangeRate * (halts so far + 1) of it; trading resumes
// after haltingTimeLength steps (if the session executes orders).
//
// Config keys: targetMarkets (market names), triggerChangeRate (float),
// haltingTimeLength (int), enabled (bool, default true).

#ifndef PAMS_EVENTS_TRADING_HALT_RULE_H_
#define PAMS_EVENTS_TRADING_HALT_RULE_H_

#include <cstdint>
#include <vector>

#include "pams/events/event.h"
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT TradingHaltRule : public Event {
 public:
  explicit TradingHaltRule(EventInit init) : Event(std::move(init)) {}

  void setup(const Settings& settings) override;
  std::vector<EventHook> hook_registration() override;
  void hooked_after_execution(Simulator& simulator,
                              const ExecutionLog& log) override;
  void hooked_before_step_for_market(Simulator& simulator,
                                     Market& market) override;

  bool is_halting() const { return is_halting_; }
  int64_t activation_count() const { return activation_count_; }
  // The markets halted now (empty while not halting), and since when.
  const std::vector<Market*>& halted_markets() const { return halted_markets_; }
  int64_t halting_time_started() const { return halting_time_started_; }
  // The settings read by setup().
  const std::vector<Market*>& target_markets() const { return target_markets_; }
  double trigger_change_rate() const { return trigger_change_rate_; }
  int64_t halting_time_length() const { return halting_time_length_; }
  bool is_enabled() const { return is_enabled_; }

 private:
  bool IsTarget(const Market& market) const;

  std::vector<Market*> target_markets_;
  std::vector<Market*> halted_markets_;
  double trigger_change_rate_ = 0.0;
  int64_t halting_time_length_ = 1;
  int64_t halting_time_started_ = 0;
  int64_t activation_count_ = 0;
  bool is_enabled_ = true;
  bool is_halting_ = false;
};

}  // namespace pams

#endif  // PAMS_EVENTS_TRADING_HALT_RULE_H_
