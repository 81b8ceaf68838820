// The fields of pams_cpp's Order and Cancel objects, which keep them in
// __slots__ (pams_cpp/order.py). The engine reads every order an agent or
// a hand-driven step hands it, makes objects of the engine's agents'
// orders, and updates them as PAMS's market does (order_id, placed_at,
// volume, is_canceled): looking each field up by name was about a quarter
// of a hand-driven step's Python layer, where a slot is a pointer at a
// fixed offset.
//
// Only objects of exactly Order and Cancel are read at their slots: a
// subclass may make a field a property, so its objects go through their
// attributes.
//
// Threading: call with the GIL held.

#ifndef PAMS_PYTHON_SRC_INTEROP_ORDER_SLOTS_H_
#define PAMS_PYTHON_SRC_INTEROP_ORDER_SLOTS_H_

#include <nanobind/nanobind.h>

#include <vector>

namespace pams::python {

// A field: its slot's offset in the object, and its name (interned).
struct SlotField {
  Py_ssize_t offset = 0;
  nanobind::handle name;
};

struct OrderSlots {
  // Null when pams_cpp.order's classes do not have the slots (then every
  // object goes through its attributes).
  PyTypeObject* order_type = nullptr;
  PyTypeObject* cancel_type = nullptr;
  SlotField agent_id, market_id, is_buy, kind, volume, placed_at, price, order_id, ttl,
      is_canceled;
  SlotField cancel_order, cancel_placed_at;  // Cancel's order and placed_at
  // LIMIT_ORDER and MARKET_ORDER (an order's kind is one of them but where
  // a program made its own OrderKind).
  nanobind::handle limit_order, market_order;

  // Whether o's fields are read at the slots: o is exactly an Order.
  bool IsPlainOrder(nanobind::handle o) const { return Py_TYPE(o.ptr()) == order_type; }
  bool IsPlainCancel(nanobind::handle o) const { return Py_TYPE(o.ptr()) == cancel_type; }
};

// The slots of pams_cpp.order's classes, found on first use and kept for
// the life of the process (a process-wide cache, as Attrs()).
const OrderSlots& Slots();

// Field f of o: at its slot where `plain` (o is exactly the field's class),
// else its attribute. Raises AttributeError for a field not set.
nanobind::object GetField(nanobind::handle o, const SlotField& f, bool plain);

// Sets field f of o to value: at its slot where `plain`, else by setattr.
void SetField(nanobind::handle o, const SlotField& f, bool plain, nanobind::handle value);

// A snapshot of objects' fields, to tell later whether they changed: each
// field's value, held (so that no other value can take its address).
using FieldValues = std::vector<nanobind::object>;

// Appends the fields of o (an Order; a Cancel, then its order's) to out.
// False, with nothing appended, where o (or its order) is not exactly an
// Order (a Cancel) or a field is not set.
bool AppendFields(nanobind::handle o, FieldValues* out);

// Whether o's fields are those AppendFields appended at fields[*at]
// (the same objects), moving *at past them.
bool SameFields(nanobind::handle o, const FieldValues& fields, size_t* at);

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_INTEROP_ORDER_SLOTS_H_
