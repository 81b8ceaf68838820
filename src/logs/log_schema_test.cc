// The log schema (log_schema.h): the CSV headers joined from it are the
// bytes the loggers always wrote (PAMS 0.3.0's files, and the development
// branch's fee columns), and its helpers count and join as they say.

#include "logs/log_schema.h"

#include <gtest/gtest.h>

#include <string>

#include "pams/logs/csv_loggers.h"
#include "pams/logs/events_csv_logger.h"

namespace pams {
namespace {

using log_schema::Which;

TEST(LogSchemaTest, StepsHeaderIsTheFilesHeader) {
  EXPECT_STREQ(StepsCsvLogger::kHeader,
               "session_id,market_id,market_name,market_time,market_price,"
               "fundamental_price,mid_price,best_buy_price,best_sell_price,"
               "executed_volume,n_buy_book,n_sell_book,n_buy_orders,n_sell_orders\n");
  EXPECT_STREQ(StepsCsvLogger::kFeeColumn, "transaction_fee_revenue");
  // With a fee: the header with the fee column before its line break.
  const std::string with_fees = log_schema::kJoined<log_schema::kSteps, Which::kAll, true>.data();
  std::string expected = StepsCsvLogger::kHeader;
  expected.insert(expected.size() - 1, ",transaction_fee_revenue");
  EXPECT_EQ(with_fees, expected);
}

TEST(LogSchemaTest, AgentsHeaderIsTheFilesHeader) {
  EXPECT_STREQ(AgentsCsvLogger::kHeader, "agent_id,name,class,cash_amount,asset_volumes\n");
}

TEST(LogSchemaTest, EventsHeaderIsTheFilesHeader) {
  EXPECT_STREQ(EventsCsvLogger::kHeader,
               "kind,time,market_id,agent_id,order_id,side,price,volume,ttl,"
               "buy_agent_id,buy_order_id,sell_agent_id,sell_order_id\n");
  EXPECT_STREQ(EventsCsvLogger::kFeeColumns, "buy_transaction_fee,sell_transaction_fee");
  const char* all = log_schema::kJoined<log_schema::kEvents, Which::kAll, false>.data();
  EXPECT_STREQ(all,
               "kind,time,market_id,agent_id,order_id,side,price,volume,ttl,"
               "buy_agent_id,buy_order_id,sell_agent_id,sell_order_id,"
               "buy_transaction_fee,sell_transaction_fee");
}

TEST(LogSchemaTest, MarketStepRecordIsPamsDict) {
  const char* keys = log_schema::kJoined<log_schema::kMarketStepRecord, Which::kAll, false>.data();
  EXPECT_STREQ(keys,
               "session_id,market_time,market_id,market_name,market_price,fundamental_price");
}

TEST(LogSchemaTest, CountsLeaveFeeColumnsOut) {
  EXPECT_EQ(log_schema::ColumnCount(log_schema::kSteps, false), 14u);
  EXPECT_EQ(log_schema::ColumnCount(log_schema::kSteps, true), 15u);
  EXPECT_EQ(log_schema::ColumnCount(log_schema::kAgents, true), 5u);
  EXPECT_EQ(log_schema::ColumnCount(log_schema::kEvents, false), 13u);
  EXPECT_EQ(log_schema::ColumnCount(log_schema::kEvents, true), 15u);
  EXPECT_STREQ(log_schema::Of(log_schema::StepsColumn::kMarketTime).name, "market_time");
  EXPECT_EQ(log_schema::Of(log_schema::StepsColumn::kBestBuyPrice).type,
            log_schema::Type::kPrice);
}

}  // namespace
}  // namespace pams
