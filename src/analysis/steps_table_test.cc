// StepsTable::ReadCsv: the columns by name, NaN for empty fields, markets in
// order of appearance, a row cut short by an interrupted run ignored, and
// errors that name the file, line and column.

#include "analysis/steps_table.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "pams/errors.h"

namespace pams::analysis {
namespace {

class StepsTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("pams-steps-table-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  // ReadCsv's error message for text.
  std::string ErrorOf(const std::string& text) {
    const std::string path = Write("bad.csv", text);
    try {
      StepsTable::ReadCsv(path);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  }

  std::filesystem::path dir_;
};

constexpr const char* kHeader =
    "session_id,market_id,market_name,market_time,market_price,fundamental_price,"
    "mid_price,best_buy_price,best_sell_price,executed_volume,n_buy_book,"
    "n_sell_book,n_buy_orders,n_sell_orders\n";

TEST_F(StepsTableTest, ReadsMarketsInOrderWithNaNForEmptyFields) {
  const std::string path = Write(
      "steps.csv", std::string(kHeader) +
                       "0,1,B,0,300.0,300.0,,,,0,0,0,0,0\n"
                       "0,0,\"A, the first\",0,301.5,,,,,3,0,0,0,0\n"
                       "1,1,B,1,,299.25,,,,,0,0,0,0\n"
                       "1,0,\"A, the first\",1,302.0,300.0,,,,7,0,0,0,0\n");
  const StepsTable table = StepsTable::ReadCsv(path);
  ASSERT_EQ(table.markets.size(), 2u);
  const MarketSteps& b = table.markets[0];
  const MarketSteps& a = table.markets[1];
  EXPECT_EQ(b.market_id, 1);
  EXPECT_EQ(b.market_name, "B");
  EXPECT_EQ(a.market_id, 0);
  EXPECT_EQ(a.market_name, "A, the first");
  EXPECT_EQ(b.session_id, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(b.market_time, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(b.market_price[0], 300.0);
  EXPECT_TRUE(std::isnan(b.market_price[1]));
  EXPECT_EQ(b.fundamental_price[1], 299.25);
  EXPECT_TRUE(std::isnan(b.executed_volume[1]));
  EXPECT_TRUE(std::isnan(a.fundamental_price[0]));
  EXPECT_EQ(a.executed_volume, (std::vector<double>{3, 7}));
}

TEST_F(StepsTableTest, OnlySessionsKeepsTheirRowsAndDropsEmptyMarkets) {
  const std::string path = Write(
      "steps.csv", std::string(kHeader) +
                       "0,0,A,0,300.0,300.0,,,,0,0,0,0,0\n"
                       "1,0,A,1,301.0,300.0,,,,2,0,0,0,0\n"
                       "1,0,A,2,302.0,300.0,,,,3,0,0,0,0\n"
                       "2,0,A,3,303.0,300.0,,,,4,0,0,0,0\n");
  const StepsTable table = StepsTable::ReadCsv(path);
  const StepsTable one = table.OnlySessions({1});
  ASSERT_EQ(one.markets.size(), 1u);
  EXPECT_EQ(one.markets[0].market_name, "A");
  EXPECT_EQ(one.markets[0].market_time, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(one.markets[0].market_price, (std::vector<double>{301.0, 302.0}));
  EXPECT_EQ(one.markets[0].executed_volume, (std::vector<double>{2, 3}));
  EXPECT_EQ(table.OnlySessions({0, 2}).markets[0].market_time,
            (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(table.OnlySessions({7}).markets.empty());
}

TEST_F(StepsTableTest, ColumnsAreFoundByNameAndCrLfIsAccepted) {
  const std::string path =
      Write("steps.csv",
            "extra,executed_volume,fundamental_price,market_price,market_time,"
            "market_name,market_id,session_id\r\n"
            "x,5,100,101,7,M,3,2\r\n");
  const StepsTable table = StepsTable::ReadCsv(path);
  ASSERT_EQ(table.markets.size(), 1u);
  const MarketSteps& m = table.markets[0];
  EXPECT_EQ(m.market_id, 3);
  EXPECT_EQ(m.market_name, "M");
  EXPECT_EQ(m.session_id[0], 2);
  EXPECT_EQ(m.market_time[0], 7);
  EXPECT_EQ(m.market_price[0], 101);
  EXPECT_EQ(m.fundamental_price[0], 100);
  EXPECT_EQ(m.executed_volume[0], 5);
}

// What StepsCsvLogger writes for names with a comma, quotes and line breaks
// (csv::AppendField) reads back: the rows after such a name keep their line
// numbers and their values.
TEST_F(StepsTableTest, NamesWithCommasQuotesAndLineBreaksReadBack) {
  const std::string path = Write(
      "steps.csv", std::string(kHeader) +
                       "0,0,\"a,b \"\"q\"\"\nline 2\r\nline 3\",0,300.0,300.0,,,,0,0,0,0,0\n"
                       "0,1,\"\"\"\",0,10.0,10.0,,,,1,0,0,0,0\n"
                       "0,0,\"a,b \"\"q\"\"\nline 2\r\nline 3\",1,30x,300.0,,,,0,0,0,0,0\n");
  try {
    StepsTable::ReadCsv(path);
    ADD_FAILURE() << "30x was read";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), path + ":6: market_price: not a number: \"30x\"");
  }
  Write("steps.csv", std::string(kHeader) +
                         "0,0,\"a,b \"\"q\"\"\nline 2\r\nline 3\",0,300.0,300.0,,,,0,0,0,0,0\n"
                         "0,1,\"\"\"\",0,10.0,10.0,,,,1,0,0,0,0\n");
  const StepsTable table = StepsTable::ReadCsv(path);
  ASSERT_EQ(table.markets.size(), 2u);
  EXPECT_EQ(table.markets[0].market_name, "a,b \"q\"\nline 2\r\nline 3");
  EXPECT_EQ(table.markets[0].market_price, (std::vector<double>{300.0}));
  EXPECT_EQ(table.markets[1].market_name, "\"");
  EXPECT_EQ(table.markets[1].executed_volume, (std::vector<double>{1}));
}

TEST_F(StepsTableTest, RowCutShortByAnInterruptedRunIsIgnored) {
  const std::string path =
      Write("steps.csv", std::string(kHeader) + "0,0,M,0,300.0,300.0,,,,0,0,0,0,0\n0,0,M,1,30");
  const StepsTable table = StepsTable::ReadCsv(path);
  ASSERT_EQ(table.markets.size(), 1u);
  EXPECT_EQ(table.markets[0].market_time.size(), 1u);
}

TEST_F(StepsTableTest, HeaderOnlyIsAnEmptyTable) {
  EXPECT_TRUE(StepsTable::ReadCsv(Write("steps.csv", kHeader)).markets.empty());
}

TEST_F(StepsTableTest, ErrorsNameFileLineAndColumn) {
  const std::string bad = (dir_ / "bad.csv").string();
  EXPECT_EQ(ErrorOf(""), bad + ": the file is empty");
  EXPECT_EQ(ErrorOf("a,b\n1,2\n"),
            bad + ":1: no column \"session_id\" in the header (is this a --steps-csv file?)");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "0,0,M,0,30x,300.0,,,,0,0,0,0,0\n"),
            bad + ":2: market_price: not a number: \"30x\"");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "0,0,M,0.5,300,300.0,,,,0,0,0,0,0\n"),
            bad + ":2: market_time: not an integer: \"0.5\"");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "0,0,M,0,300\n"),
            bad + ":2: the row has no fundamental_price field");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "0,0,\"M,0,300\n"),
            bad + ":2: the quoted field 3 that starts on this line is not closed before "
                  "the end of the file");
  EXPECT_EQ(ErrorOf(std::string(kHeader) + "0,0,M\"N,0,300\n"),
            bad + ":2: a double quote inside field 3, which is not quoted (a field "
                  "holding quotes must be quoted, with its quotes doubled)");
}

TEST_F(StepsTableTest, MissingFileAndDirectory) {
  const std::string missing = (dir_ / "missing.csv").string();
  EXPECT_THROW(
      {
        try {
          StepsTable::ReadCsv(missing);
        } catch (const ConfigError& e) {
          EXPECT_EQ(e.path(), missing);
          throw;
        }
      },
      ConfigError);
  try {
    StepsTable::ReadCsv(dir_.string());
    ADD_FAILURE() << "a directory was read";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), dir_.string() + ": is a directory, not a steps CSV file");
  }
}

}  // namespace
}  // namespace pams::analysis
