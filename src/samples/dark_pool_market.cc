// DarkPoolMarket: the dark_pool sample's dark_pool_market.py, step by step.

#include "pams/samples/dark_pool_market.h"

#include <algorithm>
#include <string>

#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/simulator/simulator.h"

namespace pams {

void DarkPoolMarket::setup(const Settings& settings) {
  Market::setup(settings);
  const Settings names = settings["markets"];
  if (!names.json().is_array() || names.size() != 1) {
    names.fail("markets of DarkPoolMarket must have exactly one market (its lit market), got " +
               names.json().dump());
  }
  const std::string& name = names.at(0).as_string();
  const Market* lit = simulator()->find_market(name);
  if (lit == nullptr) names.at(0).fail("lit market " + name + " does not exist");
  if (dynamic_cast<const DarkPoolMarket*>(lit) != nullptr) {
    names.at(0).fail("the lit market of DarkPoolMarket must not be a dark pool");
  }
  lit_market_ = lit;
}

double DarkPoolMarket::get_lit_mid_price() const {
  const std::optional<double> best_buy = lit_market_->get_best_buy_price();
  const std::optional<double> best_sell = lit_market_->get_best_sell_price();
  if (!best_buy || !best_sell) return lit_market_->get_market_price();
  return (*best_buy + *best_sell) / 2.0;
}

bool DarkPoolMarket::remain_executable_orders() const {
  return !buy_order_book().empty() && !sell_order_book().empty();
}

OrderLog DarkPoolMarket::place_order(Order* order) {
  if (order->kind != OrderKind::kMarket) {
    throw SimulationError("market " + name() +
                          ": DarkPoolMarket accepts only market orders (agent " +
                          std::to_string(order->agent_id) + " sent a limit order)");
  }
  const OrderLog log = Market::place_order(order);
  if (!is_running()) cancel_order(Cancel{*order});
  return log;
}

void DarkPoolMarket::match_orders(std::vector<ExecutionLog>* logs) {
  const double lit_mid_price = get_lit_mid_price();
  while (remain_executable_orders()) {
    // Copies: executing changes the books.
    const Order buy = *buy_order_book().best_order();
    const Order sell = *sell_order_book().best_order();
    const bool is_buy_later = buy.order_id > sell.order_id;
    // Rounded as a sell price (up) favours the earlier sell order, as a buy
    // price (down) the earlier buy order.
    const double price =
        convert_to_price(convert_to_tick_level(lit_mid_price, !is_buy_later));
    const int64_t volume = std::min(buy.volume, sell.volume);
    logs->push_back(execute_orders(price, volume, buy, sell));
  }
}

}  // namespace pams
