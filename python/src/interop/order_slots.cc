// The fields of Order and Cancel objects at their slots (order_slots.h).

#include "interop/order_slots.h"

#include <nanobind/nanobind.h>
#include <structmember.h>

#include <array>
#include <initializer_list>
#include <utility>

#include "interop/attr_names.h"

namespace nb = nanobind;

namespace pams::python {

namespace {

// The offset of slot `name` of type (a member descriptor in its own dict),
// or -1 when it is something else.
Py_ssize_t SlotOffset(PyTypeObject* type, nb::handle name) {
  PyObject* d = PyDict_GetItemWithError(type->tp_dict, name.ptr());
  if (d == nullptr || !Py_IS_TYPE(d, &PyMemberDescr_Type)) {
    PyErr_Clear();
    return -1;
  }
  const PyMemberDef* member = reinterpret_cast<PyMemberDescrObject*>(d)->d_member;
  return member->type == T_OBJECT_EX ? member->offset : -1;
}

OrderSlots FindSlots() {
  const AttrNames& n = Attrs();
  nb::module_ module = nb::module_::import_("pams_cpp.order");
  auto* order = reinterpret_cast<PyTypeObject*>(module.attr("Order").ptr());
  auto* cancel = reinterpret_cast<PyTypeObject*>(module.attr("Cancel").ptr());
  OrderSlots s;
  bool found = true;
  auto find = [&](PyTypeObject* type, SlotField* field, nb::handle name) {
    field->name = name;
    field->offset = SlotOffset(type, name);
    found = found && field->offset > 0;
  };
  for (auto [field, name] : std::initializer_list<std::pair<SlotField*, nb::handle>>{
           {&s.agent_id, n.agent_id}, {&s.market_id, n.market_id}, {&s.is_buy, n.is_buy},
           {&s.kind, n.kind}, {&s.volume, n.volume}, {&s.placed_at, n.placed_at},
           {&s.price, n.price}, {&s.order_id, n.order_id}, {&s.ttl, n.ttl},
           {&s.is_canceled, n.is_canceled}}) {
    find(order, field, name);
  }
  find(cancel, &s.cancel_order, n.order);
  find(cancel, &s.cancel_placed_at, n.placed_at);
  s.limit_order = module.attr("LIMIT_ORDER").inc_ref();  // kept, as the classes
  s.market_order = module.attr("MARKET_ORDER").inc_ref();
  if (found) {
    // The module keeps its classes for the life of the process.
    s.order_type = order;
    s.cancel_type = cancel;
  }
  return s;
}

PyObject** Slot(nb::handle o, const SlotField& f) {
  return reinterpret_cast<PyObject**>(reinterpret_cast<char*>(o.ptr()) + f.offset);
}

}  // namespace

const OrderSlots& Slots() {
  static const OrderSlots* slots = new OrderSlots(FindSlots());
  return *slots;
}

nb::object GetField(nb::handle o, const SlotField& f, bool plain) {
  if (plain) {
    if (PyObject* value = *Slot(o, f)) return nb::borrow(value);
  }
  return o.attr(f.name);  // a field not set raises AttributeError here
}

void SetField(nb::handle o, const SlotField& f, bool plain, nb::handle value) {
  if (!plain) {
    nb::setattr(o, f.name, value);
    return;
  }
  PyObject** slot = Slot(o, f);
  PyObject* old = *slot;
  *slot = nb::handle(value).inc_ref().ptr();
  Py_XDECREF(old);
}

namespace {

std::array<const SlotField*, 10> OrderFields(const OrderSlots& s) {
  return {&s.agent_id, &s.market_id, &s.is_buy,   &s.kind, &s.volume,
          &s.placed_at, &s.price,    &s.order_id, &s.ttl,  &s.is_canceled};
}

}  // namespace

bool AppendFields(nb::handle o, FieldValues* out) {
  const OrderSlots& s = Slots();
  const size_t size = out->size();
  nb::handle order = o;
  if (s.IsPlainCancel(o)) {
    for (const SlotField* f : {&s.cancel_order, &s.cancel_placed_at}) {
      out->push_back(nb::borrow(*Slot(o, *f)));
    }
    order = *Slot(o, s.cancel_order);
  }
  if (!order.is_valid() || !s.IsPlainOrder(order)) {
    out->resize(size);
    return false;
  }
  for (const SlotField* f : OrderFields(s)) out->push_back(nb::borrow(*Slot(order, *f)));
  for (size_t i = size; i < out->size(); ++i) {
    if (!(*out)[i].is_valid()) {
      out->resize(size);
      return false;
    }
  }
  return true;
}

bool SameFields(nb::handle o, const FieldValues& fields, size_t* at) {
  const OrderSlots& s = Slots();
  size_t i = *at;
  auto same = [&](nb::handle object, const SlotField& f) {
    return i < fields.size() && fields[i++].ptr() == *Slot(object, f);
  };
  nb::handle order = o;
  if (s.IsPlainCancel(o)) {
    if (!same(o, s.cancel_order) || !same(o, s.cancel_placed_at)) return false;
    order = *Slot(o, s.cancel_order);
  }
  if (!s.IsPlainOrder(order)) return false;
  for (const SlotField* f : OrderFields(s)) {
    if (!same(order, *f)) return false;
  }
  *at = i;
  return true;
}

}  // namespace pams::python
