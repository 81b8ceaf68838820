// The kinds of failure the engine reports to its callers.
//
// ConfigError: the input is wrong (a config key, a CLI setting, a plugin). It
// names the key path, e.g. "FCNAgents.timeWindowSize", so that the user can
// find the offending value; the CLI exits with status 2.
//
// SimulationError: the run itself failed (an agent returned an invalid order,
// an agent threw, a correlation matrix is not positive definite); the message
// names the agent, market or step involved. The CLI exits with status 1.
//
// InvalidOrderError: a SimulationError raised because an agent submitted an
// order or cancel the simulation refuses; reason() says which rule it broke
// (for programs that report it as PAMS does: AssertionError for orders
// while a session accepts none, ValueError for the others).
//
// AssertionFailure and UnsupportedError: SimulationErrors raised where
// PAMS's own code asserts (AssertionError: e.g. a MarketShareFCNAgent
// without a market to trade in) or declines (NotImplementedError: e.g. an
// index whose components' outstanding shares differ), for programs that
// report them with PAMS's exception types.
//
// OutputError: a SimulationError raised because writing an output failed (a
// CSV file, stdout): the disk is full, the file system failed on close, or
// the reader of a pipe went away (error_number() EPIPE, which the CLI
// treats as the reader having seen enough: exit status 141).
//
// Messages stay short whatever the input: a value of 50 MB or a number of
// 5000 digits is cut in the middle (ShortenForMessage), so what() is at most
// kMaxMessageBytes, with the key path and the head and tail of the message
// kept.
//
// All are thrown by value and may be caught from any thread; their
// functions are pure.

#ifndef PAMS_ERRORS_H_
#define PAMS_ERRORS_H_

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

#include "pams/export.h"

namespace pams {

// The most bytes of what() of the errors below: a message line fits on a
// few terminal lines.
inline constexpr size_t kMaxMessageBytes = 480;

// text when it has at most max_bytes bytes; otherwise its head and tail
// around "[... N bytes cut ...]", max_bytes long at most, cut between UTF-8
// characters. REQUIRES: max_bytes >= 64.
PAMS_EXPORT std::string ShortenForMessage(std::string_view text, size_t max_bytes);

class PAMS_EXPORT ConfigError : public std::runtime_error {
 public:
  // what() is "path: message", or just message when path is empty; a long
  // path or message is shortened (see above).
  ConfigError(std::string path, std::string message);

  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }

 private:
  std::string path_;
  std::string message_;
};

class PAMS_EXPORT SimulationError : public std::runtime_error {
 public:
  // what() is message, shortened when long.
  explicit SimulationError(const std::string& message);
};

class PAMS_EXPORT InvalidOrderError : public SimulationError {
 public:
  enum class Reason {
    kNotAccepted,   // the session accepts no orders
    kSpoofing,      // the order is another agent's
    kInvalidField,  // a field is out of range (volume, ttl, price, market)
  };
  InvalidOrderError(const std::string& message, Reason reason)
      : SimulationError(message), reason_(reason) {}
  Reason reason() const { return reason_; }

 private:
  Reason reason_;
};

class PAMS_EXPORT AssertionFailure : public SimulationError {
 public:
  using SimulationError::SimulationError;
};

class PAMS_EXPORT UnsupportedError : public SimulationError {
 public:
  using SimulationError::SimulationError;
};

class PAMS_EXPORT OutputError : public SimulationError {
 public:
  // what() is "path: what failed: strerror(error_number)", e.g.
  // "steps.csv: writing failed: No space left on device".
  // REQUIRES: error_number is an errno value (0 if there is none).
  OutputError(const std::string& path, const std::string& what_failed, int error_number);

  // The output ("stdout" for the standard output).
  const std::string& path() const { return path_; }
  int error_number() const { return error_number_; }

 private:
  std::string path_;
  int error_number_;
};

}  // namespace pams

#endif  // PAMS_ERRORS_H_
