// The steps and agents CSV files. Their columns are log_schema.h's: the
// headers are joined from it, and rows are written column by column in its
// order. Fields are written by csv::AppendField (RFC 4180), which
// StepsTable reads back; rows go out through OutputFile, whole rows only.
// flush(), which the runner calls once when the run ends, closes the file,
// so that a failure to close is reported too.

#include "pams/logs/csv_loggers.h"

#include <algorithm>
#include <array>
#include <vector>

#include "logs/log_schema.h"
#include "logs/market_price_format.h"
#include "pams/agents/agent.h"
#include "pams/market/market.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"
#include "support/csv.h"
#include "support/output_file.h"
#include "support/python_format.h"

namespace pams {

using log_schema::AgentsColumn;
using log_schema::StepsColumn;
using log_schema::Which;

const char* const StepsCsvLogger::kHeader =
    log_schema::kJoined<log_schema::kSteps, Which::kWithoutFees, true>.data();

const char* const StepsCsvLogger::kFeeColumn =
    log_schema::kJoined<log_schema::kSteps, Which::kFeesOnly, false>.data();

const char* const AgentsCsvLogger::kHeader =
    log_schema::kJoined<log_schema::kAgents, Which::kAll, true>.data();

namespace {

// A book price: a Python int when the tick size is an integer.
void AppendBookPrice(const Market& market, const std::optional<double>& price,
                     std::string* out) {
  if (!price) return;
  if (market.tick_size_is_int()) {
    AppendPythonIntegralDouble(*price, out);
  } else {
    AppendPythonFloat(*price, out);
  }
}

}  // namespace

class StepsCsvLogger::Impl {
 public:
  explicit Impl(const std::string& path) : file(path) {}
  // The header, once: with the fee column when a market charges a fee.
  void WriteHeader(bool with_fees) {
    if (header_written) return;
    header_written = true;
    this->with_fees = with_fees;
    file.row()->append(
        with_fees ? log_schema::kJoined<log_schema::kSteps, Which::kAll, true>.data() : kHeader);
    file.commit_row();
  }
  OutputFile file;
  bool header_written = false;
  bool with_fees = false;
  // Per market: market, fundamental and mid price texts.
  std::vector<std::array<PythonFloatCache, 3>> caches;
};

StepsCsvLogger::StepsCsvLogger(const std::string& path)
    : impl_(std::make_unique<Impl>(path)) {}

StepsCsvLogger::~StepsCsvLogger() = default;

void StepsCsvLogger::flush() {
  impl_->WriteHeader(false);
  impl_->file.close();
}

void StepsCsvLogger::process_simulation_begin_log(const SimulationBeginLog& log) {
  bool with_fees = false;
  for (const auto& market : log.simulator.market_objects()) {
    if (market->transaction_fee() != nullptr) with_fees = true;
  }
  impl_->WriteHeader(with_fees);
}

void StepsCsvLogger::process_market_step_end_log(const MarketStepEndLog& log) {
  impl_->WriteHeader(false);
  const Market& m = log.market;
  const size_t id = static_cast<size_t>(m.market_id());
  auto& caches = impl_->caches;
  if (id >= caches.size()) caches.resize(id + 1);
  auto& cache = caches[id];
  std::string* out = impl_->file.row();
  static constexpr size_t kColumns = log_schema::ColumnCount(log_schema::kSteps, false);
  static constexpr size_t kColumnsWithFees = log_schema::ColumnCount(log_schema::kSteps, true);
  const size_t columns = impl_->with_fees ? kColumnsWithFees : kColumns;
  for (size_t i = 0; i < columns; ++i) {
    if (i > 0) out->push_back(',');
    switch (static_cast<StepsColumn>(i)) {
      case StepsColumn::kSessionId:
        AppendPythonInt(log.session.session_id(), out);
        break;
      case StepsColumn::kMarketId:
        AppendPythonInt(m.market_id(), out);
        break;
      case StepsColumn::kMarketName:
        csv::AppendField(m.name(), out);
        break;
      case StepsColumn::kMarketTime:
        AppendPythonInt(m.get_time(), out);
        break;
      case StepsColumn::kMarketPrice:
        AppendMarketPrice(m, &cache[0], out);
        break;
      case StepsColumn::kFundamentalPrice:
        cache[1].Append(m.get_fundamental_price(), out);
        break;
      case StepsColumn::kMidPrice:
        if (auto mid = m.get_mid_price()) cache[2].Append(*mid, out);
        break;
      case StepsColumn::kBestBuyPrice:
        AppendBookPrice(m, m.get_best_buy_price(), out);
        break;
      case StepsColumn::kBestSellPrice:
        AppendBookPrice(m, m.get_best_sell_price(), out);
        break;
      case StepsColumn::kExecutedVolume:
        AppendPythonInt(m.get_executed_volume(), out);
        break;
      case StepsColumn::kNBuyBook:
        AppendPythonInt(static_cast<int64_t>(m.buy_order_book().size()), out);
        break;
      case StepsColumn::kNSellBook:
        AppendPythonInt(static_cast<int64_t>(m.sell_order_book().size()), out);
        break;
      case StepsColumn::kNBuyOrders:
        AppendPythonInt(m.get_n_buy_order(), out);
        break;
      case StepsColumn::kNSellOrders:
        AppendPythonInt(m.get_n_sell_order(), out);
        break;
      case StepsColumn::kTransactionFeeRevenue:
        AppendPythonFloat(m.get_transaction_fee_revenue(), out);
        break;
      case StepsColumn::kCount:
        break;
    }
  }
  out->push_back('\n');
  impl_->file.commit_row();
}

class AgentsCsvLogger::Impl {
 public:
  explicit Impl(const std::string& path) : file(path) {}
  OutputFile file;
};

AgentsCsvLogger::AgentsCsvLogger(const std::string& path)
    : impl_(std::make_unique<Impl>(path)) {}

AgentsCsvLogger::~AgentsCsvLogger() = default;

void AgentsCsvLogger::flush() { impl_->file.close(); }

void AgentsCsvLogger::AppendRow(const Agent& agent, std::string* out) {
  for (size_t i = 0; i < log_schema::kAgents.size(); ++i) {
    if (i > 0) out->push_back(',');
    switch (static_cast<AgentsColumn>(i)) {
      case AgentsColumn::kAgentId:
        AppendPythonInt(agent.agent_id(), out);
        break;
      case AgentsColumn::kName:
        csv::AppendField(agent.name(), out);
        break;
      case AgentsColumn::kClass:
        csv::AppendField(agent.class_name(), out);
        break;
      case AgentsColumn::kCashAmount:
        AppendPythonFloat(agent.cash_amount(), out);
        break;
      case AgentsColumn::kAssetVolumes: {
        std::vector<int> ids = agent.accessible_market_ids();
        std::sort(ids.begin(), ids.end());
        for (size_t j = 0; j < ids.size(); ++j) {
          if (j > 0) out->push_back(';');
          AppendPythonInt(ids[j], out);
          out->push_back('=');
          AppendPythonInt(agent.get_asset_volume(ids[j]), out);
        }
        break;
      }
      case AgentsColumn::kCount:
        break;
    }
  }
  out->push_back('\n');
}

void AgentsCsvLogger::process_simulation_end_log(const SimulationEndLog& log) {
  OutputFile& file = impl_->file;
  file.row()->append(kHeader);
  file.commit_row();
  for (const auto& agent : log.simulator.agents()) {
    AppendRow(*agent, file.row());
    file.commit_row();
  }
  file.flush();
}

// Here, in the engine, rather than in the support library's output_file.cc:
// a program that links libpams.so and the support archive (the pams tool)
// then takes it from libpams.so, whose open files it must see, and no
// second copy of the files' state from the archive.
void ExitAfterWholeRows(int status) noexcept { OutputFile::ExitAfterWholeRows(status); }

}  // namespace pams
