// Channel: framed messages over a connected stream socket, between the main
// process and one worker process of the multi-process runner. Private to
// the library.
//
// A message is a type and a byte payload, written as [type u32][size u64]
// [payload]. Reads and writes wait with a deadline and report why they
// failed (the peer closed the socket, a timeout, an interruption), so that
// the runner can name the cause. One thread per channel.
//
// Both sides may send at once, each a message larger than the socket's
// buffer (an agent's state of megabytes going to a worker while the worker
// sends back the result of an earlier task): a Send that cannot write
// reads what the peer sends meanwhile into the channel's buffer, where the
// next Receive finds it, so that neither side waits for the other for
// ever.

#ifndef PAMS_SRC_RUNNERS_CHANNEL_H_
#define PAMS_SRC_RUNNERS_CHANNEL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace pams {

enum class MessageType : uint32_t {
  kInit = 1,      // main -> worker: how to build the replica
  kReady,         // worker -> main: replica built, initializer run
  kTasks,         // main -> worker: journal bytes, a chunk of tasks
  kResults,       // worker -> main: the chunk's results
  kError,         // worker -> main: what failed
  kSync,          // main -> worker: journal bytes only (no reply)
  kShutdown,      // main -> worker: exit
  kEndRun,        // main -> worker: the run ended; drop the replica, await
                  // the next run's kInit (workers are kept between runs)
};

// Asked at least every Channel::kPollSeconds while a Send or Receive waits
// (and on the calling thread): true ends the wait with kInterrupted, e.g.
// once the run was told to stop. Empty: never.
using StopCheck = std::function<bool()>;

class Channel {
 public:
  enum class Status { kOk, kClosed, kTimeout, kInterrupted, kError };
  // How often a waiting Send or Receive asks its StopCheck.
  static constexpr double kPollSeconds = 0.02;
  // Larger messages are refused by Send and reported as corrupt by Receive
  // (agent states and journal deltas stay far below).
  static constexpr uint64_t kMaxMessageBytes = uint64_t{1} << 30;

  Channel() = default;
  // Takes fd, a connected stream socket (its send timeout is set to
  // kPollSeconds: see Send).
  explicit Channel(int fd);
  ~Channel();
  Channel(Channel&& other) noexcept
      : fd_(other.fd_),
        in_(std::move(other.in_)),
        in_pos_(other.in_pos_),
        peer_closed_(other.peer_closed_) {
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

  // Writes one message, waiting at most timeout_seconds (<= 0: forever)
  // for the peer to make room, and giving up with kInterrupted when stop()
  // says so; what the peer sends meanwhile is kept for Receive. Returns
  // kClosed if the peer is gone. A Send that did not return kOk may have
  // written part of the message: the channel is then good only for
  // Close().
  Status Send(MessageType type, std::string_view payload,
              double timeout_seconds = 0, const StopCheck& stop = nullptr);
  // Reads one message, waiting at most timeout_seconds (<= 0: forever) and
  // giving up with kInterrupted when stop() says so.
  Status Receive(MessageType* type, std::string* payload,
                 double timeout_seconds = 0, const StopCheck& stop = nullptr);

  // The last errno-style description, for messages.
  const std::string& error() const { return error_; }

 private:
  Status ReadExact(char* data, size_t n, double deadline, const StopCheck& stop);
  // Reads what is available (waiting for at least one byte) into in_.
  Status Fill(double deadline, const StopCheck& stop);
  // Reads what is available now into in_, without waiting: kOk (perhaps
  // nothing), kClosed once the peer has closed its end, or kError.
  Status ReadAvailable();
  // Waits until the socket can take more bytes, reading what arrives
  // meanwhile into in_.
  Status WaitWritable(double deadline, const StopCheck& stop);

  int fd_ = -1;
  std::string error_;
  // Bytes read but not consumed yet: reading in large blocks takes one
  // system call per message instead of one per header and payload.
  std::string in_;
  size_t in_pos_ = 0;
  // The peer closed its end: nothing more to read (Receive still returns
  // what in_ holds).
  bool peer_closed_ = false;
};

// Seconds on a monotonic clock.
double MonotonicSeconds();

}  // namespace pams

#endif  // PAMS_SRC_RUNNERS_CHANNEL_H_
