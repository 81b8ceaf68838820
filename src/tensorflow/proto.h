// A few lines of the protobuf wire format: enough to write a ConfigProto and
// to read the signatures out of a MetaGraphDef. (TensorFlow's own protobuf
// classes come with the TensorFlow build and version they belong to; this
// reads the stable wire format instead.) Private to the library.

#ifndef PAMS_SRC_TENSORFLOW_PROTO_H_
#define PAMS_SRC_TENSORFLOW_PROTO_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "pams/errors.h"

namespace pams::tensorflow {

inline void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Field with wire type 0 (varint).
inline void PutVarintField(int field, uint64_t v, std::string* out) {
  PutVarint(static_cast<uint64_t>(field) << 3, out);
  PutVarint(v, out);
}

// Field with wire type 2 (length-delimited).
inline void PutBytesField(int field, std::string_view bytes, std::string* out) {
  PutVarint((static_cast<uint64_t>(field) << 3) | 2, out);
  PutVarint(bytes.size(), out);
  out->append(bytes);
}

// Reads the fields of one message in order.
class ProtoReader {
 public:
  explicit ProtoReader(std::string_view bytes) : in_(bytes) {}

  // Advances to the next field; false at the end.
  bool Next() {
    if (in_.empty()) return false;
    const uint64_t key = Varint();
    field_ = static_cast<int>(key >> 3);
    wire_type_ = static_cast<int>(key & 7);
    switch (wire_type_) {
      case 0:
        varint_ = Varint();
        break;
      case 1:
        Take(8);
        break;
      case 2: {
        const uint64_t n = Varint();
        bytes_ = Take(n);
        break;
      }
      case 5:
        Take(4);
        break;
      default:
        Fail();
    }
    return true;
  }

  int field() const { return field_; }
  int wire_type() const { return wire_type_; }
  uint64_t varint() const { return varint_; }
  std::string_view bytes() const { return bytes_; }

 private:
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (in_.empty()) Fail();
      const uint8_t b = static_cast<uint8_t>(in_.front());
      in_.remove_prefix(1);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    Fail();
  }
  std::string_view Take(uint64_t n) {
    if (n > in_.size()) Fail();
    const std::string_view s = in_.substr(0, n);
    in_.remove_prefix(n);
    return s;
  }
  [[noreturn]] static void Fail() {
    throw SimulationError("malformed protobuf in a TensorFlow SavedModel");
  }

  std::string_view in_;
  int field_ = 0;
  int wire_type_ = 0;
  uint64_t varint_ = 0;
  std::string_view bytes_;
};

}  // namespace pams::tensorflow

#endif  // PAMS_SRC_TENSORFLOW_PROTO_H_
