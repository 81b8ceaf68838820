// EditDistance: the Levenshtein distance of two strings, for "did you mean"
// hints (unknown classes, config keys, command-line options). Header-only,
// so that the pams tool uses the same one as the library. Pure; any thread.

#ifndef PAMS_SRC_SUPPORT_EDIT_DISTANCE_H_
#define PAMS_SRC_SUPPORT_EDIT_DISTANCE_H_

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

namespace pams {

// Insertions, deletions and substitutions that turn a into b; with
// ignore_case, letters that differ only in case are equal.
inline size_t EditDistance(std::string_view a, std::string_view b,
                           bool ignore_case = false) {
  auto same = [ignore_case](char x, char y) {
    if (!ignore_case) return x == y;
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  };
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace pams

#endif  // PAMS_SRC_SUPPORT_EDIT_DISTANCE_H_
