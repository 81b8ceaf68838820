// StateWriter / StateReader: a minimal binary encoding of agent state, used
// to ship agents between processes (parallel runners) and by agents that
// override Agent::save_state / load_state.
//
// The encoding is the host's native layout of each value, in the order they
// are written; a reader must read the same sequence of types. It is meant for
// processes of the same program on the same machine, not for files.
// Reading past the end or a malformed length throws SimulationError.

#ifndef PAMS_UTIL_STATE_H_
#define PAMS_UTIL_STATE_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pams/errors.h"
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT StateWriter {
 public:
  explicit StateWriter(std::string* out) : out_(out) {}

  // Any trivially copyable value (ints, doubles, bools, Random::State...).
  template <typename T>
  void write(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_->append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  void write_string(std::string_view s) {
    write<uint64_t>(s.size());
    out_->append(s.data(), s.size());
  }
  template <typename T>
  void write_vector(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    write<uint64_t>(v.size());
    out_->append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }

 private:
  std::string* out_;
};

class PAMS_EXPORT StateReader {
 public:
  explicit StateReader(std::string_view in) : in_(in) {}

  template <typename T>
  T read() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    std::memcpy(&value, Take(sizeof(T)), sizeof(T));
    return value;
  }
  std::string read_string() {
    const uint64_t n = read<uint64_t>();
    const char* p = Take(n);
    return std::string(p, n);
  }
  template <typename T>
  std::vector<T> read_vector() {
    const uint64_t n = read<uint64_t>();
    if (n > in_.size() / (sizeof(T) == 0 ? 1 : sizeof(T))) Fail();
    std::vector<T> v(n);
    // An empty vector's data() may be null, which memcpy must not get.
    if (n > 0) std::memcpy(v.data(), Take(n * sizeof(T)), n * sizeof(T));
    return v;
  }
  // What write_string wrote, in place (valid while the input is).
  std::string_view read_string_view() {
    const uint64_t n = read<uint64_t>();
    return std::string_view(Take(n), n);
  }
  bool at_end() const { return in_.empty(); }

 private:
  const char* Take(uint64_t n) {
    if (n > in_.size()) Fail();
    const char* p = in_.data();
    in_.remove_prefix(n);
    return p;
  }
  [[noreturn]] static void Fail() {
    throw SimulationError("corrupt agent state: read past its end");
  }

  std::string_view in_;
};

}  // namespace pams

#endif  // PAMS_UTIL_STATE_H_
