// Helpers shared by the random/ tests: loading the reference vectors, and the
// two formats their digests are built from (SHA-256 and Python's float.hex).

#ifndef PAMS_SRC_RANDOM_RANDOM_TEST_UTIL_H_
#define PAMS_SRC_RANDOM_RANDOM_TEST_UTIL_H_

#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pams {
namespace testing {

// Parses one JSON file under src/random/testdata/.
inline nlohmann::json LoadTestData(const std::string& name) {
  const std::string path =
      std::string(PAMS_SOURCE_DIR) + "/src/random/testdata/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return nlohmann::json::parse(in);
}

// A double from a float.hex() string ("0x1.8p+0"); strtod reads hex floats
// exactly.
inline double ParseHexDouble(const std::string& hex) {
  return std::strtod(hex.c_str(), nullptr);
}

// A double from a vectors.json float entry {"hex": ..., "repr": ...}.
inline double HexField(const nlohmann::json& entry) {
  return ParseHexDouble(entry.at("hex").get<std::string>());
}

inline uint64_t Bits(double x) { return std::bit_cast<uint64_t>(x); }

// Python's float.hex(x): always 13 hex digits of mantissa, a decimal binary
// exponent with an explicit sign, subnormals as 0x0.<m>p-1022, zero as
// 0x0.0p+0.
inline std::string PythonFloatHex(double x) {
  const uint64_t bits = Bits(x);
  const bool negative = (bits >> 63) != 0;
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t mantissa = bits & 0x000fffffffffffffULL;
  if (biased == 0x7ff) {
    if (mantissa != 0) return "nan";
    return negative ? "-inf" : "inf";
  }
  std::string out = negative ? "-" : "";
  if (biased == 0 && mantissa == 0) return out + "0x0.0p+0";
  char buf[64];
  const int lead = biased == 0 ? 0 : 1;
  const int exponent = biased == 0 ? -1022 : biased - 1023;
  std::snprintf(buf, sizeof(buf), "0x%d.%013llxp%+d", lead,
                static_cast<unsigned long long>(mantissa), exponent);
  return out + buf;
}

// A compact SHA-256 (FIPS 180-4), enough to recompute the vectors' digests.
class Sha256 {
 public:
  Sha256() = default;

  void Update(std::string_view data) {
    for (char c : data) {
      block_[block_len_++] = static_cast<uint8_t>(c);
      if (block_len_ == 64) {
        Compress();
        block_len_ = 0;
      }
    }
    length_ += data.size();
  }

  // The digest as lowercase hex, as hashlib's hexdigest(). Call once.
  std::string HexDigest() {
    const uint64_t bit_length = length_ * 8;
    Update(std::string_view("\x80", 1));
    while (block_len_ != 56) Update(std::string_view("\0", 1));
    for (int i = 7; i >= 0; --i) {
      const char byte = static_cast<char>(bit_length >> (8 * i));
      Update(std::string_view(&byte, 1));
    }
    std::string hex;
    char buf[9];
    for (uint32_t h : h_) {
      std::snprintf(buf, sizeof(buf), "%08x", h);
      hex += buf;
    }
    return hex;
  }

 private:
  static uint32_t Rotr(uint32_t x, int n) { return std::rotr(x, n); }

  void Compress() {
    static constexpr uint32_t kK[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
        0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
        0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
        0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
        0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
        0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
        0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) {
      w[i] = (static_cast<uint32_t>(block_[4 * i]) << 24) |
             (static_cast<uint32_t>(block_[4 * i + 1]) << 16) |
             (static_cast<uint32_t>(block_[4 * i + 2]) << 8) |
             static_cast<uint32_t>(block_[4 * i + 3]);
    }
    for (int i = 16; i < 64; ++i) {
      const uint32_t s0 =
          Rotr(w[i - 15], 7) ^ Rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const uint32_t s1 =
          Rotr(w[i - 2], 17) ^ Rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3];
    uint32_t e = h_[4], f = h_[5], g = h_[6], h = h_[7];
    for (int i = 0; i < 64; ++i) {
      const uint32_t s1 = Rotr(e, 6) ^ Rotr(e, 11) ^ Rotr(e, 25);
      const uint32_t ch = (e & f) ^ (~e & g);
      const uint32_t t1 = h + s1 + ch + kK[i] + w[i];
      const uint32_t s0 = Rotr(a, 2) ^ Rotr(a, 13) ^ Rotr(a, 22);
      const uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
      const uint32_t t2 = s0 + maj;
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    h_[0] += a;
    h_[1] += b;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
    h_[5] += f;
    h_[6] += g;
    h_[7] += h;
  }

  std::array<uint32_t, 8> h_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                0xa54ff53a, 0x510e527f, 0x9b05688c,
                                0x1f83d9ab, 0x5be0cd19};
  std::array<uint8_t, 64> block_{};
  size_t block_len_ = 0;
  uint64_t length_ = 0;
};

inline std::string Sha256Hex(std::string_view data) {
  Sha256 sha;
  sha.Update(data);
  return sha.HexDigest();
}

}  // namespace testing
}  // namespace pams

#endif  // PAMS_SRC_RANDOM_RANDOM_TEST_UTIL_H_
