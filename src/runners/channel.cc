#include "runners/channel.h"

#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

namespace pams {

namespace {

constexpr double kSpinSeconds = 200e-6;

struct Header {
  uint32_t type;
  uint32_t reserved;
  uint64_t size;
};

}  // namespace

double MonotonicSeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Channel::~Channel() { Close(); }

Channel& Channel::operator=(Channel&& other) noexcept {
  if (this != &other) {
    Close();
    fd_ = other.fd_;
    in_ = std::move(other.in_);
    in_pos_ = other.in_pos_;
    other.fd_ = -1;
  }
  return *this;
}

void Channel::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Channel::Status Channel::Send(MessageType type, std::string_view payload) {
  if (fd_ < 0) return Status::kClosed;
  const Header header{static_cast<uint32_t>(type), 0, payload.size()};
  // One buffer for small messages: one system call per message.
  std::string frame;
  frame.reserve(sizeof header + payload.size());
  frame.append(reinterpret_cast<const char*>(&header), sizeof header);
  frame.append(payload);
  size_t done = 0;
  while (done < frame.size()) {
    // MSG_NOSIGNAL: a closed peer is an error to report, not a SIGPIPE.
    const ssize_t n = ::send(fd_, frame.data() + done, frame.size() - done,
                             MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      error_ = std::strerror(errno);
      return errno == EPIPE || errno == ECONNRESET ? Status::kClosed
                                                   : Status::kError;
    }
    done += static_cast<size_t>(n);
  }
  return Status::kOk;
}

Channel::Status Channel::Fill(double deadline, const std::atomic<bool>* stop) {
  constexpr size_t kBlock = 1 << 16;
  if (in_pos_ == in_.size()) {
    in_.clear();
    in_pos_ = 0;
  }
  // Waking a sleeping process on another CPU costs tens of microseconds on
  // virtual machines (a round trip measured 100 us here, 8 us with this),
  // more than a task: so spin on the socket a little before sleeping in
  // poll, yielding the CPU to anything else runnable meanwhile.
  const double spin_until = MonotonicSeconds() + kSpinSeconds;
  for (;;) {
    const size_t old = in_.size();
    in_.resize(old + kBlock);
    const ssize_t got = ::recv(fd_, in_.data() + old, kBlock, MSG_DONTWAIT);
    in_.resize(old + (got > 0 ? static_cast<size_t>(got) : 0));
    if (got > 0) return Status::kOk;
    if (got == 0) return Status::kClosed;
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      error_ = std::strerror(errno);
      return errno == ECONNRESET ? Status::kClosed : Status::kError;
    }
    if (MonotonicSeconds() < spin_until) {
      sched_yield();
      continue;
    }
    int wait_ms = 100;
    if (deadline > 0) {
      const double left = deadline - MonotonicSeconds();
      if (left <= 0) return Status::kTimeout;
      wait_ms = static_cast<int>(std::min(left, 0.1) * 1000) + 1;
    }
    if (stop != nullptr && stop->load()) return Status::kInterrupted;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, wait_ms) < 0 && errno != EINTR) {
      error_ = std::strerror(errno);
      return Status::kError;
    }
  }
}

Channel::Status Channel::ReadExact(char* data, size_t n, double deadline,
                                   const std::atomic<bool>* stop) {
  size_t done = 0;
  while (done < n) {
    if (in_pos_ == in_.size()) {
      const Status s = Fill(deadline, stop);
      if (s != Status::kOk) return s;
    }
    const size_t take = std::min(n - done, in_.size() - in_pos_);
    std::memcpy(data + done, in_.data() + in_pos_, take);
    in_pos_ += take;
    done += take;
  }
  return Status::kOk;
}

Channel::Status Channel::Receive(MessageType* type, std::string* payload,
                                 double timeout_seconds,
                                 const std::atomic<bool>* stop) {
  if (fd_ < 0) return Status::kClosed;
  const double deadline =
      timeout_seconds > 0 ? MonotonicSeconds() + timeout_seconds : 0;
  Header header;
  Status s = ReadExact(reinterpret_cast<char*>(&header), sizeof header,
                       deadline, stop);
  if (s != Status::kOk) return s;
  if (header.size > (uint64_t{1} << 36)) {
    error_ = "message too large";
    return Status::kError;
  }
  payload->resize(header.size);
  s = ReadExact(payload->data(), header.size, deadline, stop);
  if (s != Status::kOk) return s;
  *type = static_cast<MessageType>(header.type);
  return Status::kOk;
}

}  // namespace pams
