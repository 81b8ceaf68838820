// HostError: a SimulationError of the program that drives the engine (the
// Python package: a Python exception), with what that program needs to
// raise the error again in another process (a pickled exception and its
// traceback), bytes the engine carries from a worker process to the main
// process without reading them. Private to the library and its Python
// bindings; thrown by value, caught on any thread.

#ifndef PAMS_SRC_RUNNERS_HOST_ERROR_H_
#define PAMS_SRC_RUNNERS_HOST_ERROR_H_

#include <string>
#include <utility>

#include "pams/errors.h"

namespace pams {

class HostError : public SimulationError {
 public:
  // what() is message (shortened as SimulationError's); payload is the
  // host's own description of the error, empty when it has none.
  HostError(const std::string& message, std::string payload)
      : SimulationError(message), payload_(std::move(payload)) {}

  const std::string& payload() const { return payload_; }

 private:
  std::string payload_;
};

}  // namespace pams

#endif  // PAMS_SRC_RUNNERS_HOST_ERROR_H_
