// Session: a phase of the simulation with its own rules: how many steps, how
// many normal agents may place orders per step, whether orders are accepted
// and executed, how often high-frequency agents act.
//
// Config keys (one element of simulation.sessions): sessionName (required),
// iterationSteps (int), withOrderPlacement, withOrderExecution, withPrint
// (bools, required), maxNormalOrders (int, default 1),
// maxHighFrequencyOrders (int, default 1; deprecated alias maxHifreqOrders),
// highFrequencySubmitRate (number, default 1.0; deprecated alias
// hifreqSubmitRate).
//
// Read by the runner and events on the simulation thread; const methods are
// safe to share.

#ifndef PAMS_SIMULATOR_SESSION_H_
#define PAMS_SIMULATOR_SESSION_H_

#include <cstdint>
#include <string>

#include "pams/export.h"
#include "pams/random/random.h"

namespace pams {

class Settings;
class Simulator;

class PAMS_EXPORT Session {
 public:
  Session(int session_id, Random prng, int64_t session_start_time,
          Simulator* simulator, std::string name);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void setup(const Settings& settings);

  int session_id() const { return session_id_; }
  const std::string& name() const { return name_; }
  int64_t session_start_time() const { return session_start_time_; }
  int64_t iteration_steps() const { return iteration_steps_; }
  int64_t max_normal_orders() const { return max_normal_orders_; }
  int64_t max_high_frequency_orders() const {
    return max_high_frequency_orders_;
  }
  bool with_order_placement() const { return with_order_placement_; }
  bool with_order_execution() const { return with_order_execution_; }
  bool with_print() const { return with_print_; }
  double high_frequency_submission_rate() const {
    return high_frequency_submission_rate_;
  }
  Random& prng() { return prng_; }

  // PAMS's sessions are plain attributes that programs may change between
  // steps (e.g. a test turning order placement off).
  void set_iteration_steps(int64_t steps) { iteration_steps_ = steps; }
  void set_max_normal_orders(int64_t n) { max_normal_orders_ = n; }
  void set_max_high_frequency_orders(int64_t n) { max_high_frequency_orders_ = n; }
  void set_with_order_placement(bool on) { with_order_placement_ = on; }
  void set_with_order_execution(bool on) { with_order_execution_ = on; }
  void set_with_print(bool on) { with_print_ = on; }
  void set_high_frequency_submission_rate(double rate) {
    high_frequency_submission_rate_ = rate;
  }

 private:
  int session_id_;
  Random prng_;
  int64_t session_start_time_;
  Simulator* simulator_;
  std::string name_;
  int64_t iteration_steps_ = 0;
  int64_t max_normal_orders_ = 1;
  int64_t max_high_frequency_orders_ = 1;
  bool with_order_placement_ = false;
  bool with_order_execution_ = false;
  bool with_print_ = true;
  double high_frequency_submission_rate_ = 1.0;
};

}  // namespace pams

#endif  // PAMS_SIMULATOR_SESSION_H_
