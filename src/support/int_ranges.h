// FormatIntRanges: integers written as runs, "1-3,5,8-9" (the way Linux
// writes CPU lists and `pams sweep --seeds` reads seeds), for CPU lists in
// messages and for seed lists. Header-only, so that the pams tool uses the
// same one as the library. Pure; any thread.

#ifndef PAMS_SRC_SUPPORT_INT_RANGES_H_
#define PAMS_SRC_SUPPORT_INT_RANGES_H_

#include <string>
#include <vector>

namespace pams {

// Consecutive values (each one more than the last) become "first-last";
// others are listed in order, separated by commas.
template <typename Int>
std::string FormatIntRanges(const std::vector<Int>& values) {
  std::string text;
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
    if (!text.empty()) text += ',';
    text += std::to_string(values[i]);
    if (j > i) text.append("-").append(std::to_string(values[j]));
    i = j + 1;
  }
  return text;
}

}  // namespace pams

#endif  // PAMS_SRC_SUPPORT_INT_RANGES_H_
