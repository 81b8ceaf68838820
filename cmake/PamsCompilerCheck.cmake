# The C++20 check: pams-cpp is C++20 (concepts, <span>, std::bit_cast,
# <numbers>, string_view::starts_with), which a compiler may accept as
# -std=c++20 yet only partly implement (GCC 10 has no std::bit_cast; Clang
# before 14 with libc++ neither). Compiling a sample of what the sources use,
# at configure time, turns what would be errors deep in the build into one
# message saying which compiler to install. Included once, by the top-level
# CMakeLists.txt, after project().
include(CheckCXXSourceCompiles)

# CMAKE_CXX_STANDARD (20) applies to the check too (policy CMP0067).
check_cxx_source_compiles([=[
#include <bit>
#include <concepts>
#include <cstdint>
#include <numbers>
#include <span>
#include <string_view>
template <typename T>
concept Number = std::integral<T> || std::floating_point<T>;
template <Number T>
constexpr T Twice(T x) requires(sizeof(T) >= 1) { return x + x; }
int main() {
  const double pi = std::numbers::pi;
  const auto bits = std::bit_cast<std::uint64_t>(pi);
  int values[2] = {1, 2};
  const std::span<int> view(values);
  const bool ok = std::string_view("pams").starts_with("pa") && Twice(view.size()) == 4 &&
                  bits != 0;
  return ok ? 0 : 1;
}
]=] PAMS_CXX20_WORKS)

if(NOT PAMS_CXX20_WORKS)
  message(FATAL_ERROR
    "pams-cpp needs a C++20 compiler and library (concepts, <span>, std::bit_cast, "
    "<numbers>): ${CMAKE_CXX_COMPILER} (${CMAKE_CXX_COMPILER_ID} "
    "${CMAKE_CXX_COMPILER_VERSION}) cannot compile them.\n"
    "Install GCC >= 11 or Clang >= 14:\n"
    "  Debian/Ubuntu: apt-get install g++   (build-essential; scripts/install-deps.sh)\n"
    "  macOS: xcode-select --install (Apple Clang >= 14), or brew install llvm\n"
    "and configure a new build folder with it (CXX=g++-12 or "
    "-DCMAKE_CXX_COMPILER=/path/to/c++; for pip: CXX=... pip install .). "
    "The compiler's errors are in CMakeFiles/CMakeError.log (CMakeConfigureLog.yaml "
    "from CMake 3.26 on).")
endif()
