// Tests of python_logger.h: a logger written in Python gets the engine's
// logs when PAMS would hand them over: order, cancel, execution and
// expiration logs queued until the next simulation or session log.

#include "interop/python_logger.h"

#include <gtest/gtest.h>

#include <string>

#include "interop/testing/embedded_python.h"
#include "pams/errors.h"
#include "pams/logs/logs.h"
#include "pams/random/random.h"
#include "pams/simulator/simulator.h"

namespace pams::python {
namespace {

using testing::Str;

// A Logger subclass that records what it processes, in `events`; one whose
// order logs raise.
constexpr const char* kRecorder = R"(
events = []
class Recorder(pams_cpp.logs.Logger):
    def process_order_log(self, log):
        events.append(("order", log.order_id, log.price))
    def process_execution_log(self, log):
        events.append(("execution", log.sell_order_id, log.volume))
    def process_simulation_end_log(self, log):
        events.append(("end",))
class Failing(pams_cpp.logs.Logger):
    def process_order_log(self, log):
        raise ValueError("no orders here")
)";

const OrderLog kOrderLog{.order_id = 20, .market_id = 1, .time = 12, .agent_id = 3,
                         .is_buy = false, .kind = OrderKind::kLimit, .volume = 7,
                         .price = 101.0, .ttl = 4};
const ExecutionLog kExecutionLog{.market_id = 1, .time = 12, .buy_agent_id = 5,
                                 .sell_agent_id = 3, .buy_order_id = 21,
                                 .sell_order_id = 20, .price = 101.0, .volume = 5};

class PythonLoggerTest : public ::testing::Test {
 protected:
  PythonLoggerTest() {
    run_.simulator = &simulator_;
    run_.simulator_object = nb::none();  // what the logs' `simulator` is (a runner's)
  }

  Simulator simulator_{Random(1)};
  PythonRun run_;
  nb::dict ns_ = testing::Exec(kRecorder);
};

TEST_F(PythonLoggerTest, OrderAndExecutionLogsWaitForTheNextSimulationLog) {
  PythonLogger logger(ns_["Recorder"](), PythonLogKinds{}, &run_);
  logger.process_order_log(kOrderLog);
  logger.process_execution_log(kExecutionLog);
  EXPECT_EQ(Str(ns_["events"]), "[]");  // queued, as PAMS's write() queues them
  logger.process_simulation_end_log(SimulationEndLog{simulator_});
  EXPECT_EQ(Str(ns_["events"]), "[('order', 20, 101.0), ('execution', 20, 5), ('end',)]");
}

TEST_F(PythonLoggerTest, LogsOfAKindTheLoggerCannotSeeAreNotMade) {
  PythonLogKinds kinds;
  kinds.order = false;  // as for a logger that overrides no order method
  PythonLogger logger(ns_["Recorder"](), kinds, &run_);
  logger.process_order_log(kOrderLog);
  logger.process_simulation_end_log(SimulationEndLog{simulator_});
  EXPECT_EQ(Str(ns_["events"]), "[('end',)]");
}

TEST_F(PythonLoggerTest, APythonErrorStopsTheRunNamingTheLoggerAndIsKept) {
  PythonLogger logger(ns_["Failing"](), PythonLogKinds{}, &run_);
  logger.process_order_log(kOrderLog);
  try {
    logger.process_simulation_end_log(SimulationEndLog{simulator_});
    ADD_FAILURE() << "the logger's error did not stop the run";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("in logger Failing"), std::string::npos) << e.what();
  }
  ASSERT_TRUE(run_.pending.has_error());
  EXPECT_EQ(testing::RaisedBy([&] { run_.pending.Raise(); }), "ValueError: no orders here");
}

}  // namespace
}  // namespace pams::python
