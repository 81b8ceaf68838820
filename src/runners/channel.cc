#include "runners/channel.h"

#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
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

Channel::Channel(int fd) : fd_(fd) {
  // A blocking send that can write nothing for this long returns (with
  // what it wrote), so that Send can look at what the peer sends and at its
  // StopCheck; while the peer reads, one send writes a whole message.
  timeval timeout{0, static_cast<suseconds_t>(kPollSeconds * 1e6)};
  if (fd_ >= 0) setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
}

Channel::~Channel() { Close(); }

Channel& Channel::operator=(Channel&& other) noexcept {
  if (this != &other) {
    Close();
    fd_ = other.fd_;
    in_ = std::move(other.in_);
    in_pos_ = other.in_pos_;
    peer_closed_ = other.peer_closed_;
    other.fd_ = -1;
  }
  return *this;
}

void Channel::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Channel::Status Channel::Send(MessageType type, std::string_view payload,
                              double timeout_seconds, const StopCheck& stop) {
  if (fd_ < 0) return Status::kClosed;
  if (payload.size() > kMaxMessageBytes) {
    error_ = "message of " + std::to_string(payload.size()) +
             " bytes is larger than the limit of " +
             std::to_string(kMaxMessageBytes);
    return Status::kError;
  }
  const double deadline =
      timeout_seconds > 0 ? MonotonicSeconds() + timeout_seconds : 0;
  const Header header{static_cast<uint32_t>(type), 0, payload.size()};
  // Header and payload in one system call, without copying the payload.
  iovec parts[2] = {
      {const_cast<Header*>(&header), sizeof header},
      {const_cast<char*>(payload.data()), payload.size()},
  };
  msghdr msg{};
  msg.msg_iov = parts;
  msg.msg_iovlen = payload.empty() ? 1 : 2;
  // First a blocking send, the fastest while the peer reads (one system
  // call, the kernel waiting for room). If it stalls for kPollSeconds (the
  // socket's send timeout), the peer may be sending to this side too and be
  // blocked until it is read: from then on, the rest is sent without
  // blocking, waiting in WaitWritable, which reads what the peer sends.
  bool polling = false;
  while (msg.msg_iovlen > 0) {
    // MSG_NOSIGNAL: a closed peer is an error to report, not a SIGPIPE.
    ssize_t n = ::sendmsg(fd_, &msg, MSG_NOSIGNAL | (polling ? MSG_DONTWAIT : 0));
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        error_ = std::strerror(errno);
        return errno == EPIPE || errno == ECONNRESET ? Status::kClosed
                                                     : Status::kError;
      }
      n = 0;
    }
    // Skip what was sent.
    while (msg.msg_iovlen > 0 && static_cast<size_t>(n) >= msg.msg_iov->iov_len) {
      n -= static_cast<ssize_t>(msg.msg_iov->iov_len);
      ++msg.msg_iov;
      --msg.msg_iovlen;
    }
    if (msg.msg_iovlen == 0) break;
    msg.msg_iov->iov_base = static_cast<char*>(msg.msg_iov->iov_base) + n;
    msg.msg_iov->iov_len -= static_cast<size_t>(n);
    // Stalled (or cut short by a signal).
    polling = true;
    const Status s = WaitWritable(deadline, stop);
    if (s != Status::kOk) return s;
  }
  return Status::kOk;
}

Channel::Status Channel::ReadAvailable() {
  constexpr size_t kBlock = 1 << 20;
  if (peer_closed_) return Status::kClosed;
  // Keep only what is still unread, so that a long exchange does not grow
  // the buffer by everything that went through it.
  if (in_pos_ > 0 && in_pos_ >= in_.size() / 2) {
    in_.erase(0, in_pos_);
    in_pos_ = 0;
  }
  for (;;) {
    const size_t old = in_.size();
    in_.resize(old + kBlock);
    const ssize_t got = ::recv(fd_, in_.data() + old, kBlock, MSG_DONTWAIT);
    in_.resize(old + (got > 0 ? static_cast<size_t>(got) : 0));
    if (got > 0) continue;
    if (got == 0) {
      peer_closed_ = true;
      return Status::kClosed;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Status::kOk;
    error_ = std::strerror(errno);
    if (errno == ECONNRESET) {
      peer_closed_ = true;
      return Status::kClosed;
    }
    return Status::kError;
  }
}

Channel::Status Channel::WaitWritable(double deadline, const StopCheck& stop) {
  for (;;) {
    int wait_ms = static_cast<int>(kPollSeconds * 1000);
    if (deadline > 0) {
      const double left = deadline - MonotonicSeconds();
      if (left <= 0) return Status::kTimeout;
      wait_ms = static_cast<int>(std::min(left, kPollSeconds) * 1000) + 1;
    }
    // Once the peer has closed its end, only POLLOUT (or the error a send
    // then gets) is of interest: an end of file stays readable for ever.
    pollfd p{fd_, static_cast<short>(peer_closed_ ? POLLOUT : (POLLOUT | POLLIN)), 0};
    const int r = ::poll(&p, 1, wait_ms);
    if (r < 0 && errno != EINTR) {
      error_ = std::strerror(errno);
      return Status::kError;
    }
    if (r > 0) {
      if ((p.revents & POLLIN) != 0 && ReadAvailable() == Status::kError) {
        return Status::kError;
      }
      // Room to write, or an error that the next send reports.
      if ((p.revents & (POLLOUT | POLLERR | POLLHUP | POLLNVAL)) != 0) {
        return Status::kOk;
      }
    }
    if (stop && stop()) return Status::kInterrupted;
  }
}

Channel::Status Channel::Fill(double deadline, const StopCheck& stop) {
  constexpr size_t kBlock = 1 << 16;
  if (in_pos_ == in_.size()) {
    in_.clear();
    in_pos_ = 0;
  }
  if (peer_closed_) return Status::kClosed;
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
    if (got == 0) {
      peer_closed_ = true;
      return Status::kClosed;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      error_ = std::strerror(errno);
      return errno == ECONNRESET ? Status::kClosed : Status::kError;
    }
    if (MonotonicSeconds() < spin_until) {
      sched_yield();
      continue;
    }
    int wait_ms = static_cast<int>(kPollSeconds * 1000);
    if (deadline > 0) {
      const double left = deadline - MonotonicSeconds();
      if (left <= 0) return Status::kTimeout;
      wait_ms = static_cast<int>(std::min(left, kPollSeconds) * 1000) + 1;
    }
    if (stop && stop()) return Status::kInterrupted;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, wait_ms) < 0 && errno != EINTR) {
      error_ = std::strerror(errno);
      return Status::kError;
    }
  }
}

Channel::Status Channel::ReadExact(char* data, size_t n, double deadline,
                                   const StopCheck& stop) {
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
                                 double timeout_seconds, const StopCheck& stop) {
  if (fd_ < 0) return Status::kClosed;
  const double deadline =
      timeout_seconds > 0 ? MonotonicSeconds() + timeout_seconds : 0;
  Header header;
  Status s = ReadExact(reinterpret_cast<char*>(&header), sizeof header,
                       deadline, stop);
  if (s != Status::kOk) return s;
  if (header.size > kMaxMessageBytes ||
      header.type < static_cast<uint32_t>(MessageType::kInit) ||
      header.type > static_cast<uint32_t>(MessageType::kEndRun)) {
    error_ = "corrupt message header (type " + std::to_string(header.type) +
             ", " + std::to_string(header.size) + " bytes)";
    return Status::kError;
  }
  // Grown as the bytes arrive, so that a header announcing more than the
  // peer sends costs no more memory than what it does send.
  constexpr uint64_t kStep = uint64_t{16} << 20;
  payload->clear();
  uint64_t done = 0;
  while (done < header.size) {
    const uint64_t step = std::min(header.size - done, kStep);
    payload->resize(done + step);
    s = ReadExact(payload->data() + done, step, deadline, stop);
    if (s != Status::kOk) return s;
    done += step;
  }
  *type = static_cast<MessageType>(header.type);
  return Status::kOk;
}

}  // namespace pams
