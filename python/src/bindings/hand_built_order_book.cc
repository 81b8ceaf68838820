// The methods of PAMS's OrderBook that change a book, for a book built by
// hand (OrderBook(is_buy=...)), and a market's book refusing them.

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bindings/binding_helpers.h"
#include "bindings/bindings.h"
#include "interop/arguments.h"
#include "interop/hand_built.h"
#include "interop/python_agents.h"
#include "interop/python_events.h"
#include "interop/python_markets.h"
#include "interop/python_run.h"
#include "interop/values.h"
#include "pams/agents/agent.h"
#include "pams/agents/arbitrage_agent.h"
#include "pams/errors.h"
#include "pams/events/event.h"
#include "pams/market/fundamentals.h"
#include "pams/market/index_market.h"
#include "pams/market/market.h"
#include "pams/market/order_book.h"
#include "pams/simulator/session.h"
#include "pams/simulator/simulator.h"

namespace pams::python {

namespace {

// --------------------------------------------------------- order books

// A book built by hand (PAMS's OrderBook(is_buy=...)) holds engine copies
// of Python orders under keys of its own (an order needs no id there), the
// Python objects by key in _orders, and the keys by id(order) in _keys.
bool IsHandBuiltBook(nb::handle book) { return nb::hasattr(book, "_orders"); }

void RequireHandBuiltBook(nb::handle book, const char* method) {
  if (IsHandBuiltBook(book)) return;
  nb::object owner = nb::getattr(book, "_owner", nb::none());
  std::string market = owner.is_none() ? std::string("a market")
                                       : "market " + nb::cast<std::string>(owner.attr("name"));
  Raise(PyExc_RuntimeError,
        std::string("OrderBook.") + method + ": this book belongs to " + market +
            ", whose orders change through the market (market._add_order, "
            "market._cancel_order, market._execution); build an OrderBook(is_buy=...) "
            "to change one by hand");
}

// Whether the market that owns `book` is placing `action` with it now: a
// program replaced OrderBook.add or .cancel with a function that calls
// pams_cpp's own (hand_built_market.cc), which then does what PAMS's book
// does to the action and leaves the book itself to the market's engine.
bool PlacingNow(nb::handle book, nb::handle action) {
  return !IsHandBuiltBook(book) && nb::getattr(book, "_placing", nb::none()).is(action);
}

// The order of a book built by hand that `key` stands for, as the engine
// holds it (nullptr: gone). The Python object's fields may have been
// changed since it was added; the engine's copy is what the book holds.
const Order* HeldOrder(const OrderBook& book, int64_t key) {
  const Order* found = nullptr;
  book.for_each([&](const Order& o) {
    if (o.order_id == key) found = &o;
  });
  return found;
}

nb::object KeyOf(nb::handle book, nb::handle order) {
  nb::dict keys = nb::cast<nb::dict>(book.attr("_keys"));
  nb::object id = nb::module_::import_("builtins").attr("id")(order);
  return keys.contains(id) ? nb::object(keys[id]) : nb::none();
}

void ForgetKey(nb::handle book, nb::handle order, nb::handle key) {
  nb::cast<nb::dict>(book.attr("_orders")).attr("pop")(key, nb::none());
  nb::object id = nb::module_::import_("builtins").attr("id")(order);
  nb::cast<nb::dict>(book.attr("_keys")).attr("pop")(id, nb::none());
}

// An Order (a Cancel) of pams_cpp: TypeError naming `what` otherwise.
void RequireOrderObject(nb::handle order, const char* what) {
  if (!nb::isinstance(order, nb::module_::import_("pams_cpp.order").attr("Order"))) {
    RaiseArgument(PyExc_TypeError, what, "an Order", order);
  }
}
void RequireCancelObject(nb::handle cancel, const char* what) {
  if (!nb::isinstance(cancel, nb::module_::import_("pams_cpp.order").attr("Cancel"))) {
    RaiseArgument(PyExc_TypeError, what, "a Cancel", cancel);
  }
}

void BindOrderBookMethods(nb::module_& m) {
  nb::handle cls = nb::type<OrderBook>();
  m.def("_new_order_book", [](nb::handle type, bool is_buy) {
    nb::object self = nb::inst_take_ownership(type, new OrderBook(is_buy));
    self.attr("_orders") = nb::dict();
    self.attr("_keys") = nb::dict();
    self.attr("_next_key") = 0;
    return self;
  });
  Method(
      cls, "add",
      [](nb::handle self, nb::handle order) {
        if (PlacingNow(self, order)) {
          // What PAMS's add does to the order; the market's engine places it.
          order.attr("placed_at") = nb::cast<const OrderBook&>(self).time();
          return;
        }
        RequireHandBuiltBook(self, "add");
        OrderBook& book = nb::cast<OrderBook&>(self);
        RequireOrderObject(order, "OrderBook.add: order");
        // PAMS compares is_buy with ==, whatever it holds.
        if (!nb::getattr(order, "is_buy", nb::none()).equal(nb::bool_(book.is_buy()))) {
          Raise(PyExc_ValueError, "buy/sell is incorrect");
        }
        if (!KeyOf(self, order).is_none()) Raise(PyExc_ValueError, "the order is in the book");
        Order engine = OrderFields(order);
        if (engine.kind == OrderKind::kLimit && !engine.price) {
          Raise(PyExc_ValueError, "a limit order needs a price");
        }
        // The engine's book orders its entries by price: a NaN price has no
        // place in that order (PAMS's heap would take it and misorder).
        if (engine.price && std::isnan(*engine.price)) {
          Raise(PyExc_ValueError, "OrderBook.add: the order's price must be a number, not NaN");
        }
        const int64_t key = nb::cast<int64_t>(self.attr("_next_key"));
        self.attr("_next_key") = key + 1;
        engine.order_id = key;
        book.add(&engine);
        order.attr("placed_at") = engine.placed_at;
        nb::cast<nb::dict>(self.attr("_orders"))[nb::int_(key)] = order;
        nb::cast<nb::dict>(self.attr("_keys"))[nb::module_::import_("builtins").attr("id")(
            order)] = nb::int_(key);
      },
      nb::arg("order").none(), nb::sig("def add(self, order: typing.Any) -> None"),
      "Adds an order to a book built by hand, setting its ``placed_at`` to the\n"
      "book's time and giving it a place in the book's priority.\n\n"
      "Args:\n    order (Order): an order of the book's side.\n\n"
      "Raises:\n    ValueError: the order is of the other side, is in the book already,\n"
      "        or is a limit order without a price.\n"
      "    RuntimeError: the book is a market's (orders reach a market's books\n"
      "        through the market: market._add_order, ...).");
  Method(
      cls, "_remove",
      [](nb::handle self, nb::handle order) {
        RequireHandBuiltBook(self, "_remove");
        OrderBook& book = nb::cast<OrderBook&>(self);
        nb::object key = KeyOf(self, order);
        if (key.is_none()) Raise(PyExc_ValueError, "the order is not in the book");
        if (nb::getattr(order, "placed_at", nb::none()).is_none()) {
          Raise(PyExc_AssertionError, "the order is not yet placed");
        }
        if (const Order* held = HeldOrder(book, nb::cast<int64_t>(key))) book.remove(*held);
        ForgetKey(self, order, key);
      },
      nb::arg("order").none());
  Method(
      cls, "cancel",
      [](nb::handle self, nb::handle cancel) {
        RequireCancelObject(cancel, "OrderBook.cancel: cancel");
        nb::object order = cancel.attr("order");
        RequireOrderObject(order, "OrderBook.cancel: the cancel's order");
        if (PlacingNow(self, cancel)) {
          // What PAMS's cancel does; the market's engine takes the order out.
          order.attr("is_canceled") = true;
          cancel.attr("placed_at") = nb::cast<const OrderBook&>(self).time();
          return;
        }
        RequireHandBuiltBook(self, "cancel");
        OrderBook& book = nb::cast<OrderBook&>(self);
        order.attr("is_canceled") = true;
        cancel.attr("placed_at") = book.time();
        nb::object key = KeyOf(self, order);
        if (key.is_none()) return;  // executed before the cancel, as in PAMS
        if (const Order* held = HeldOrder(book, nb::cast<int64_t>(key))) book.remove(*held);
        ForgetKey(self, order, key);
      },
      nb::arg("cancel").none(), nb::sig("def cancel(self, cancel: typing.Any) -> None"),
      "Takes a canceled order out of a book built by hand; marks the order\n"
      "canceled and sets the cancel's ``placed_at`` to the book's time.\n\n"
      "Args:\n    cancel (Cancel): the cancel of an order in the book (an order\n"
      "        executed already is left as it is, as in PAMS).\n\n"
      "Raises:\n    RuntimeError: the book is a market's (cancel through\n"
      "        market._cancel_order).");
  Method(
      cls, "change_order_volume",
      [](nb::handle self, nb::handle order, Arg<int64_t> delta_arg) {
        RequireHandBuiltBook(self, "change_order_volume");
        OrderBook& book = nb::cast<OrderBook&>(self);
        RequireOrderObject(order, "OrderBook.change_order_volume: order");
        const int64_t delta = IntArg(delta_arg.object, "OrderBook.change_order_volume: delta");
        const int64_t before = IntArg(order.attr("volume"), "an order's volume");
        int64_t volume = 0;
        if (__builtin_add_overflow(before, delta, &volume)) {
          Raise(PyExc_OverflowError,
                "OrderBook.change_order_volume: the volume would not fit in 64 bits");
        }
        order.attr("volume") = volume;
        nb::object key = KeyOf(self, order);
        if (key.is_none()) Raise(PyExc_ValueError, "the order is not in the book");
        if (volume < 0) Raise(PyExc_AssertionError, "an order's volume cannot be negative");
        const Order* held = HeldOrder(book, nb::cast<int64_t>(key));
        if (held != nullptr) {
          // The engine's copy changes by the same delta, from what it holds.
          const int64_t now = held->volume;
          if (now + delta <= 0) {
            book.remove(*held);
          } else {
            book.change_order_volume(*held, delta);
          }
        }
        if (volume == 0 || held == nullptr) ForgetKey(self, order, key);
      },
      nb::arg("order").none(), nb::arg("delta").none(),
      nb::sig("def change_order_volume(self, order: typing.Any, delta: int) -> None"),
      "Changes the volume of an order in a book built by hand by delta; an\n"
      "order whose volume reaches 0 leaves the book.\n\n"
      "Args:\n    order (Order): an order in the book.\n"
      "    delta (int): the change (negative for a partial execution).\n\n"
      "Raises:\n    ValueError: the order is not in the book.\n"
      "    AssertionError: the volume would become negative.\n"
      "    RuntimeError: the book is a market's.");
  // pams_cpp's own add and cancel, kept to tell a replacement (a program's,
  // unittest.mock.patch's) from them (hand_built_market.cc).
  nb::setattr(cls, "_engine_add", nb::getattr(cls, "add"));
  nb::setattr(cls, "_engine_cancel", nb::getattr(cls, "cancel"));
  Method(cls, "get_best_order", [](nb::handle self) -> nb::object {
    const OrderBook& book = nb::cast<const OrderBook&>(self);
    const Order* best = book.best_order();
    if (best == nullptr) return nb::none();
    if (IsHandBuiltBook(self)) {
      return nb::cast<nb::dict>(self.attr("_orders"))[nb::int_(best->order_id)];
    }
    // A market's book: the Python order a program or agent placed, else a
    // copy of the engine's.
    nb::object owner = self.attr("_owner");
    PythonRun& run = ContextOf(owner, "market").run();
    nb::object found = run.mirror.Find(best->market_id, best->order_id);
    if (!found.is_none()) return found;
    return ToPythonAction(run, Action(*best));
  },
  "The order of highest priority in the book.\n\n"
  "Returns:\n    Order | None: the best order (the Order object placed, where the\n"
  "    engine has it); None when the book is empty.",
  nb::sig("def get_best_order(self) -> typing.Any"));
  Method(
      cls, "_set_time",
      [](nb::handle self, Arg<int64_t> time_arg) {
        OrderBook& book = nb::cast<OrderBook&>(self);
        RequireHandBuiltBook(self, "_set_time");
        const int64_t time =
            StepArg(time_arg.object, "OrderBook._set_time: time", -kMaxHandBuiltStep);
        std::vector<Order> expired;
        book.set_time(time, &expired);
        nb::object log_class = nb::module_::import_("pams_cpp.logs.base").attr("ExpirationLog");
        nb::object limit = nb::module_::import_("pams_cpp.order").attr("LIMIT_ORDER");
        nb::object market = nb::module_::import_("pams_cpp.order").attr("MARKET_ORDER");
        nb::dict orders = nb::cast<nb::dict>(self.attr("_orders"));
        nb::list logs;
        for (const Order& o : expired) {
          nb::object obj = orders[nb::int_(o.order_id)];
          ForgetKey(self, obj, nb::int_(o.order_id));
          logs.append(log_class(obj.attr("order_id"), o.market_id, time, o.placed_at, o.agent_id,
                                o.is_buy, o.kind == OrderKind::kLimit ? limit : market, o.volume,
                                obj.attr("price"), obj.attr("ttl")));
        }
        return logs;
      },
      nb::arg("time").none());
  Method(cls, "_update_time", [](nb::handle self) {
    const OrderBook& book = nb::cast<const OrderBook&>(self);
    self.attr("_set_time")(book.time() + 1);
  });
  ReadOnlyProperty(cls, "time", [](const OrderBook& book) { return book.time(); },
                   "int: the book's current step (orders expire against it).");
  // A market's book gives PAMS's price types (an int where the tick size
  // is one); a book built by hand floats.
  auto market_of = [](nb::handle book) -> const Market* {
    nb::object owner = nb::getattr(book, "_owner", nb::none());
    return owner.is_none() ? nullptr : &nb::cast<const Market&>(owner);
  };
  Method(cls, "get_best_price", [market_of](nb::handle self) -> nb::object {
    const auto p = nb::cast<const OrderBook&>(self).best_price();
    return p ? PriceObject(market_of(self), *p) : nb::none();
  },
  "The price of the book's best limit order.\n\n"
  "Returns:\n    float | int | None: the highest buy or lowest sell price; None when\n"
  "    the book is empty or its best order is a market order.",
  nb::sig("def get_best_price(self) -> float | int | None"));
  Method(cls, "get_price_volume", [market_of](nb::handle self) {
    nb::dict out;
    const Market* market = market_of(self);
    for (const auto& [price, volume] : nb::cast<const OrderBook&>(self).get_price_volume()) {
      out[price ? PriceObject(market, *price) : nb::none()] = nb::int_(volume);
    }
    return out;
  },
  "The book's volumes per price.\n\n"
  "Returns:\n    Dict[float | int | None, int]: the total volume at each price, best\n"
  "    first; the key None holds the market orders.",
  nb::sig("def get_price_volume(self) -> dict[float | int | None, int]"));
}

}  // namespace

void BindHandBuiltOrderBooks(nb::module_& m) { BindOrderBookMethods(m); }

}  // namespace pams::python
