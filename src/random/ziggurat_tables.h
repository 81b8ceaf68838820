// The tables of numpy's float64 ziggurat (Generator.standard_normal), defined
// in the generated ziggurat_tables.cc. Private to src/random.

#ifndef PAMS_SRC_RANDOM_ZIGGURAT_TABLES_H_
#define PAMS_SRC_RANDOM_ZIGGURAT_TABLES_H_

#include <cstdint>

namespace pams {
namespace ziggurat {

inline constexpr int kZigguratLevels = 256;

// numpy's ki_double, wi_double and fi_double. They are data, not something a
// formula reproduces with the same bits, hence copied
// (scripts/gen_ziggurat_tables.py writes them from testdata/).
extern const uint64_t kKi[kZigguratLevels];
extern const double kWi[kZigguratLevels];
extern const double kFi[kZigguratLevels];

}  // namespace ziggurat
}  // namespace pams

#endif  // PAMS_SRC_RANDOM_ZIGGURAT_TABLES_H_
