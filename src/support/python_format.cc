// Python's float repr, from the shortest round-trip digits that std::to_chars
// gives (the same digits as CPython's dtoa in mode 0), laid out with
// CPython's rules: exponent notation when the decimal point position is
// <= -4 or > 16, otherwise fixed notation with at least one digit after the
// point.

#include "support/python_format.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace pams {

void AppendPythonFloat(double x, std::string* out) {
  if (std::isnan(x)) {
    out->append("nan");
    return;
  }
  if (std::isinf(x)) {
    out->append(x < 0 ? "-inf" : "inf");
    return;
  }
  if (std::signbit(x)) {
    out->push_back('-');
    x = -x;
  }
  if (x == 0.0) {
    out->append("0.0");
    return;
  }
  // Shortest digits in scientific form: d[.ddd]e[+-]XX.
  char buf[64];
  const auto res =
      std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::scientific);
  const char* e = static_cast<const char*>(std::memchr(buf, 'e', res.ptr - buf));
  char digits[32];
  int ndigits = 0;
  for (const char* p = buf; p < e; ++p) {
    if (*p != '.') digits[ndigits++] = *p;
  }
  int exponent = 0;
  std::from_chars(e + 1 + (e[1] == '+' ? 1 : 0), res.ptr, exponent);
  // x = 0.d1d2... * 10^decpt
  const int decpt = exponent + 1;
  if (decpt <= -4 || decpt > 16) {
    out->push_back(digits[0]);
    if (ndigits > 1) {
      out->push_back('.');
      out->append(digits + 1, ndigits - 1);
    }
    out->push_back('e');
    const int ex = decpt - 1;
    out->push_back(ex < 0 ? '-' : '+');
    const int a = ex < 0 ? -ex : ex;
    if (a < 10) out->push_back('0');
    char eb[8];
    const auto er = std::to_chars(eb, eb + sizeof(eb), a);
    out->append(eb, er.ptr);
  } else if (decpt <= 0) {
    out->append("0.");
    out->append(static_cast<size_t>(-decpt), '0');
    out->append(digits, ndigits);
  } else if (decpt >= ndigits) {
    out->append(digits, ndigits);
    out->append(static_cast<size_t>(decpt - ndigits), '0');
    out->append(".0");
  } else {
    out->append(digits, decpt);
    out->push_back('.');
    out->append(digits + decpt, ndigits - decpt);
  }
}

std::string PythonFloat(double x) {
  std::string s;
  AppendPythonFloat(x, &s);
  return s;
}

void AppendPythonIntegralDouble(double x, std::string* out) {
  if (x == 0.0) {  // str(0) is "0" whatever the sign of the zero
    out->push_back('0');
    return;
  }
  char buf[400];
  const auto res =
      std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::fixed, 0);
  out->append(buf, res.ptr);
}

void AppendPythonInt(int64_t n, std::string* out) {
  char buf[24];
  const auto res = std::to_chars(buf, buf + sizeof(buf), n);
  out->append(buf, res.ptr);
}

}  // namespace pams
