// Event: something that acts on the simulation at chosen moments: a price
// shock, a market rule (PAMS's EventABC). An event says when it wants to be
// called by returning EventHooks from hook_registration(); the simulator then
// calls the matching hooked_* methods.
//
// As in PAMS, hooks are registered for the whole simulation: an event listed
// under one session is called in every session (its times are absolute steps,
// usually computed from its session's start in setup()).
//
// All methods run on the thread that runs the simulation. Hooks before an
// order or cancel may change it.

#ifndef PAMS_EVENTS_EVENT_H_
#define PAMS_EVENTS_EVENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "pams/export.h"
#include "pams/logs/logs.h"
#include "pams/market/order.h"
#include "pams/random/random.h"

namespace pams {

class Event;
class Market;
class Session;
class Settings;
class Simulator;

enum class HookType { kOrder, kCancel, kExecution, kSession, kMarket };

// When an event is called: before or after orders, cancels, executions (after
// only), sessions, or each market's step; optionally only at some steps, and
// for market hooks only for one market or one class of markets.
struct PAMS_EXPORT EventHook {
  Event* event = nullptr;
  HookType hook_type = HookType::kMarket;
  bool is_before = true;
  // Steps at which the hook fires; nullopt = every step.
  std::optional<std::vector<int64_t>> time;
  // Market hooks only: fire only for this market...
  const Market* specific_instance = nullptr;
  // ...or only for markets this predicate accepts (e.g. a class test built
  // with IsMarketOfClass<IndexMarket>).
  bool (*specific_class)(const Market&) = nullptr;
};

template <typename T>
bool IsMarketOfClass(const Market& market) {
  if constexpr (std::is_base_of_v<T, Market>) {
    return true;  // every market is a T
  } else {
    return dynamic_cast<const T*>(&market) != nullptr;
  }
}

// What the runner gives every event it creates.
struct PAMS_EXPORT EventInit {
  int event_id = 0;
  Random prng;
  Session* session = nullptr;
  Simulator* simulator = nullptr;
  std::string name{};
  std::string class_name{};
};

class PAMS_EXPORT Event {
 public:
  explicit Event(EventInit init);
  virtual ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  // Reads the event's config keys. Default: nothing.
  virtual void setup(const Settings& settings);
  // When to call this event. Called once, after setup().
  virtual std::vector<EventHook> hook_registration() = 0;

  virtual void hooked_before_order(Simulator& simulator, Order& order);
  virtual void hooked_after_order(Simulator& simulator, const OrderLog& log);
  virtual void hooked_before_cancel(Simulator& simulator, Cancel& cancel);
  virtual void hooked_after_cancel(Simulator& simulator, const CancelLog& log);
  virtual void hooked_after_execution(Simulator& simulator,
                                      const ExecutionLog& log);
  virtual void hooked_before_session(Simulator& simulator,
                                     const Session& session);
  virtual void hooked_after_session(Simulator& simulator,
                                    const Session& session);
  virtual void hooked_before_step_for_market(Simulator& simulator,
                                             Market& market);
  virtual void hooked_after_step_for_market(Simulator& simulator,
                                            Market& market);

  int event_id() const { return event_id_; }
  const std::string& name() const { return name_; }
  const std::string& class_name() const { return class_name_; }
  Session& session() const { return *session_; }
  Simulator& simulator() const { return *simulator_; }
  Random& prng() { return prng_; }

 private:
  int event_id_;
  Random prng_;
  Session* session_;
  Simulator* simulator_;
  std::string name_;
  std::string class_name_;
};

}  // namespace pams

#endif  // PAMS_EVENTS_EVENT_H_
