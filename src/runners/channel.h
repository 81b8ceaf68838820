// Channel: framed messages over a connected stream socket, between the main
// process and one worker process of the multi-process runner. Private to
// the library.
//
// A message is a type and a byte payload, written as [type u32][size u64]
// [payload]. Reads wait with a deadline and report why they failed (the
// peer closed the socket, a timeout, an interruption), so that the runner
// can name the cause. One thread per channel.

#ifndef PAMS_SRC_RUNNERS_CHANNEL_H_
#define PAMS_SRC_RUNNERS_CHANNEL_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace pams {

enum class MessageType : uint32_t {
  kInit = 1,      // main -> worker: how to build the replica
  kReady,         // worker -> main: replica built, initializer run
  kTask,          // main -> worker: journal bytes, agent id, agent state
  kResult,        // worker -> main: actions, agent state
  kError,         // worker -> main: what failed
  kSync,          // main -> worker: journal bytes only (no reply)
  kShutdown,      // main -> worker: exit
};

class Channel {
 public:
  enum class Status { kOk, kClosed, kTimeout, kInterrupted, kError };
  // Larger messages are refused by Send and reported as corrupt by Receive
  // (agent states and journal deltas stay far below).
  static constexpr uint64_t kMaxMessageBytes = uint64_t{1} << 30;

  Channel() = default;
  explicit Channel(int fd) : fd_(fd) {}
  ~Channel();
  Channel(Channel&& other) noexcept
      : fd_(other.fd_), in_(std::move(other.in_)), in_pos_(other.in_pos_) {
    other.fd_ = -1;
  }
  Channel& operator=(Channel&& other) noexcept;
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  int fd() const { return fd_; }
  // Whether bytes of a next message were read already (poll would not see
  // them).
  bool has_buffered() const { return in_pos_ < in_.size(); }
  bool is_open() const { return fd_ >= 0; }
  void Close();

  // Writes one message. Returns kClosed if the peer is gone.
  Status Send(MessageType type, std::string_view payload);
  // Reads one message, waiting at most timeout_seconds (<= 0: forever) and
  // giving up with kInterrupted when *stop becomes true (checked at least
  // every 100 ms; stop may be null).
  Status Receive(MessageType* type, std::string* payload,
                 double timeout_seconds = 0,
                 const std::atomic<bool>* stop = nullptr);

  // The last errno-style description, for messages.
  const std::string& error() const { return error_; }

 private:
  Status ReadExact(char* data, size_t n, double deadline,
                   const std::atomic<bool>* stop);
  // Reads what is available (waiting for at least one byte) into in_.
  Status Fill(double deadline, const std::atomic<bool>* stop);

  int fd_ = -1;
  std::string error_;
  // Bytes read but not consumed yet: reading in large blocks takes one
  // system call per message instead of one per header and payload.
  std::string in_;
  size_t in_pos_ = 0;
};

// Seconds on a monotonic clock.
double MonotonicSeconds();

}  // namespace pams

#endif  // PAMS_SRC_RUNNERS_CHANNEL_H_
