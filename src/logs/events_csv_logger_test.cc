// EventsCsvLogger: rows as documented, every row written across many chunks
// (the writer thread and its bounded queue), and write errors reported.

#include "pams/logs/events_csv_logger.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "pams/errors.h"

namespace pams {
namespace {

std::string TempPath(const char* name) {
  return ::testing::TempDir() + "/" + name + "_" + std::to_string(getpid()) + ".csv";
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(EventsCsvLoggerTest, WritesOneRowPerEvent) {
  const std::string path = TempPath("events");
  {
    EventsCsvLogger logger(path);
    logger.process_order_log(OrderLog{7, 0, 3, 12, true, OrderKind::kLimit, 2, 300.5, 100});
    logger.process_order_log(OrderLog{8, 1, 3, 13, false, OrderKind::kMarket, 1,
                                      std::nullopt, std::nullopt});
    logger.process_cancel_log(CancelLog{7, 0, 5, 3, 12, true, OrderKind::kLimit, 2, 300.5, 100});
    logger.process_execution_log(ExecutionLog{0, 6, 12, 13, 9, 8, 0.1, 4});
    logger.process_expiration_log(
        ExpirationLog{9, 0, 103, 3, 12, false, OrderKind::kLimit, 1, 301.0, 100});
    logger.flush();
    EXPECT_EQ(ReadAll(path),
              std::string(EventsCsvLogger::kHeader) +
                  "order,3,0,12,7,buy,300.5,2,100,,,,\n"
                  "order,3,1,13,8,sell,,1,,,,,\n"
                  "cancel,5,0,12,7,buy,300.5,2,100,,,,\n"
                  "execution,6,0,,,,0.1,4,,12,9,13,8\n"
                  "expiration,103,0,12,9,sell,301.0,1,100,,,,\n");
  }
  std::remove(path.c_str());
}

TEST(EventsCsvLoggerTest, KeepsEveryRowAcrossManyChunks) {
  const std::string path = TempPath("many");
  constexpr int64_t kRows = 200000;  // many chunks: the queue fills up
  {
    EventsCsvLogger logger(path);
    for (int64_t i = 0; i < kRows; ++i) {
      logger.process_order_log(
          OrderLog{i, 0, i, 1, i % 2 == 0, OrderKind::kLimit, 1, 100.0, 5});
    }
  }  // the destructor writes what is left
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  int64_t n = 0;
  while (std::getline(in, line)) {
    ASSERT_EQ(line, "order," + std::to_string(n) + ",0,1," + std::to_string(n) +
                        (n % 2 == 0 ? ",buy," : ",sell,") + "100.0,1,5,,,,");
    ++n;
  }
  EXPECT_EQ(n, kRows);
  std::remove(path.c_str());
}

TEST(EventsCsvLoggerTest, UnwritablePathFailsAtOnce) {
  EXPECT_THROW(EventsCsvLogger("/nonexistent-dir/events.csv"), ConfigError);
}

TEST(EventsCsvLoggerTest, FullDiskIsReportedByFlush) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  EventsCsvLogger logger("/dev/full");
  logger.process_execution_log(ExecutionLog{0, 1, 2, 3, 4, 5, 100.0, 1});
  EXPECT_THROW(logger.flush(), SimulationError);
}

}  // namespace
}  // namespace pams
