// Test helper: runs code that must throw ConfigError and returns the error,
// so that a test can check its key path and message. Header-only; for tests
// only.

#ifndef PAMS_SRC_TESTING_CATCH_CONFIG_ERROR_H_
#define PAMS_SRC_TESTING_CATCH_CONFIG_ERROR_H_

#include <gtest/gtest.h>

#include "pams/errors.h"

namespace pams {
namespace test_support {

// Runs f; records a test failure (and returns a placeholder error) when f
// throws no ConfigError.
template <typename F>
ConfigError CatchConfigError(F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e;
  }
  ADD_FAILURE() << "no ConfigError was thrown";
  return ConfigError("<none>", "<none>");
}

}  // namespace test_support
}  // namespace pams

#endif  // PAMS_SRC_TESTING_CATCH_CONFIG_ERROR_H_
