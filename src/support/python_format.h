// Number formatting exactly as Python prints numbers, so that our outputs are
// byte-identical to PAMS's: str(float) / repr(float) (the shortest string that
// round-trips, '300.0', '1e-05', '329.16531000000003') and str(int).
//
// Pure functions; safe from any thread.

#ifndef PAMS_SRC_SUPPORT_PYTHON_FORMAT_H_
#define PAMS_SRC_SUPPORT_PYTHON_FORMAT_H_

#include <cstdint>
#include <cstring>
#include <string>

namespace pams {

// Appends repr(x) of a Python float to *out.
void AppendPythonFloat(double x, std::string* out);

// Returns repr(x) of a Python float.
std::string PythonFloat(double x);

// Appends str(int(x)) for a double holding an integer value (how Python prints
// prices that are ints, e.g. with an integer tick size). REQUIRES: x is an
// integer value.
void AppendPythonIntegralDouble(double x, std::string* out);

// Appends str(n).
void AppendPythonInt(int64_t n, std::string* out);

// Remembers the text of the last float it formatted: loggers print the same
// prices step after step (a fundamental price without volatility, a market
// price between trades), and reusing the text skips the conversion.
// One per column and market; one thread at a time.
class PythonFloatCache {
 public:
  void Append(double x, std::string* out) {
    if (std::memcmp(&x, &last_, sizeof x) != 0 || text_.empty()) {
      last_ = x;
      text_.clear();
      AppendPythonFloat(x, &text_);
    }
    out->append(text_);
  }

 private:
  double last_ = 0.0;
  std::string text_;
};

}  // namespace pams

#endif  // PAMS_SRC_SUPPORT_PYTHON_FORMAT_H_
