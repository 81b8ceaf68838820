// The two kinds of failure the engine reports to its callers.
//
// ConfigError: the input is wrong (a config key, a CLI setting, a plugin). It
// names the key path, e.g. "FCNAgents.timeWindowSize", so that the user can
// find the offending value; the CLI exits with status 2.
//
// SimulationError: the run itself failed (an agent returned an invalid order,
// an agent threw, a correlation matrix is not positive definite); the message
// names the agent, market or step involved. The CLI exits with status 1.
//
// Both are thrown by value and may be caught from any thread.

#ifndef PAMS_ERRORS_H_
#define PAMS_ERRORS_H_

#include <stdexcept>
#include <string>
#include "pams/export.h"

namespace pams {

class PAMS_EXPORT ConfigError : public std::runtime_error {
 public:
  // what() is "path: message", or just message when path is empty.
  ConfigError(std::string path, std::string message)
      : std::runtime_error(path.empty() ? message : path + ": " + message),
        path_(std::move(path)),
        message_(std::move(message)) {}

  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }

 private:
  std::string path_;
  std::string message_;
};

class PAMS_EXPORT SimulationError : public std::runtime_error {
 public:
  explicit SimulationError(const std::string& message)
      : std::runtime_error(message) {}
};

}  // namespace pams

#endif  // PAMS_ERRORS_H_
