#include "pams/simulator/session.h"

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/simulator/simulator.h"
#include "support/python_format.h"

namespace pams {

Session::Session(int session_id, Random prng, int64_t session_start_time,
                 Simulator* simulator, std::string name)
    : session_id_(session_id),
      prng_(std::move(prng)),
      session_start_time_(session_start_time),
      simulator_(simulator),
      name_(std::move(name)) {}

void Session::setup(const Settings& settings) {
  iteration_steps_ = settings["iterationSteps"].as_int();
  if (iteration_steps_ < 0) {
    settings["iterationSteps"].fail("must be >= 0, got " +
                                    std::to_string(iteration_steps_));
  }
  with_order_placement_ = settings["withOrderPlacement"].as_bool();
  with_order_execution_ = settings["withOrderExecution"].as_bool();
  with_print_ = settings["withPrint"].as_bool();
  if (auto v = settings.find("maxNormalOrders")) {
    max_normal_orders_ = v->as_int();
    if (max_normal_orders_ < 0) v->fail("must be >= 0");
  }
  if (auto v = settings.find("maxHighFrequencyOrders")) {
    max_high_frequency_orders_ = v->as_int();
    if (max_high_frequency_orders_ < 0) v->fail("must be >= 0");
    if (settings.has("maxHifreqOrders")) {
      throw ConfigError(settings.child_path("maxHifreqOrders"),
                        "maxHifreqOrders is replaced by "
                        "maxHighFrequencyOrders; delete it");
    }
  } else if (auto old = settings.find("maxHifreqOrders")) {
    simulator_->warn(
        "maxHifreqOrders is replaced to maxHighFrequencyOrders in pams.");
    max_high_frequency_orders_ = old->as_int();
    if (max_high_frequency_orders_ < 0) old->fail("must be >= 0");
  }
  if (auto v = settings.find("highFrequencySubmitRate")) {
    high_frequency_submission_rate_ = v->as_float();
    if (settings.has("hifreqSubmitRate")) {
      throw ConfigError(settings.child_path("hifreqSubmitRate"),
                        "hifreqSubmitRate is replaced by "
                        "highFrequencySubmitRate; delete it");
    }
  } else if (auto old = settings.find("hifreqSubmitRate")) {
    simulator_->warn(
        "hifreqSubmitRate is replaced to highFrequencySubmitRate in pams.");
    high_frequency_submission_rate_ = old->as_float();
  }
  // PAMS compares the rate with a uniform draw in [0, 1): outside [0, 1] it
  // only means "always" or "never", so such a value is a typo, not a choice.
  if (!(high_frequency_submission_rate_ >= 0.0 &&
        high_frequency_submission_rate_ <= 1.0)) {
    const char* key = settings.has("highFrequencySubmitRate")
                          ? "highFrequencySubmitRate"
                          : "hifreqSubmitRate";
    settings[key].fail("must be between 0 and 1, got " +
                       PythonFloat(high_frequency_submission_rate_));
  }
}

}  // namespace pams
