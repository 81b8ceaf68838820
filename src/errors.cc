// The error types of include/pams/errors.h: messages shortened to
// kMaxMessageBytes, so that a huge value in a config (a 50 MB string, a
// number of 5000 digits) never floods a terminal or a log.

#include "pams/errors.h"

#include <cstring>
#include <string>

namespace pams {

namespace {

// The most bytes of the path part of a ConfigError: leaves the message at
// least kMaxMessageBytes - kMaxPathBytes - 2 bytes.
constexpr size_t kMaxPathBytes = 160;

bool IsUtf8Continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

std::string ShortenForMessage(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  // The marker, at its longest ("[... 18446744073709551615 bytes cut ...]").
  constexpr size_t kMarkerBytes = 40;
  const size_t keep = max_bytes > kMarkerBytes ? max_bytes - kMarkerBytes : 0;
  // More of the head, which says what the message is about; the tail often
  // holds where (a line and column) or the end of the value.
  size_t head = keep * 2 / 3;
  size_t tail_start = text.size() - (keep - head);
  while (head > 0 && IsUtf8Continuation(text[head])) --head;
  while (tail_start < text.size() && IsUtf8Continuation(text[tail_start])) ++tail_start;
  std::string out(text.substr(0, head));
  out += "[... " + std::to_string(tail_start - head) + " bytes cut ...]";
  out += text.substr(tail_start);
  return out;
}

ConfigError::ConfigError(std::string path, std::string message)
    : std::runtime_error(std::string()),
      path_(ShortenForMessage(path, kMaxPathBytes)),
      message_(ShortenForMessage(
          message, path_.empty() ? kMaxMessageBytes : kMaxMessageBytes - path_.size() - 2)) {
  static_cast<std::runtime_error&>(*this) =
      std::runtime_error(path_.empty() ? message_ : path_ + ": " + message_);
}

SimulationError::SimulationError(const std::string& message)
    : std::runtime_error(ShortenForMessage(message, kMaxMessageBytes)) {}

OutputError::OutputError(const std::string& path, const std::string& what_failed,
                         int error_number)
    : SimulationError(path + ": " + what_failed +
                      (error_number != 0 ? std::string(": ") + std::strerror(error_number)
                                         : std::string())),
      path_(path),
      error_number_(error_number) {}

}  // namespace pams
