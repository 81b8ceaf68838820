// Channel: framed messages over a socket pair, and how reads fail.

#include "runners/channel.h"

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>

namespace pams {
namespace {

void Pair(Channel* a, Channel* b) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  *a = Channel(fds[0]);
  *b = Channel(fds[1]);
}

TEST(ChannelTest, MessagesArriveWholeAndInOrder) {
  Channel a, b;
  Pair(&a, &b);
  const std::string big(3 << 20, 'x');  // larger than the socket buffer
  std::thread writer([&] {
    EXPECT_EQ(a.Send(MessageType::kTasks, "first"), Channel::Status::kOk);
    EXPECT_EQ(a.Send(MessageType::kSync, big), Channel::Status::kOk);
    EXPECT_EQ(a.Send(MessageType::kShutdown, ""), Channel::Status::kOk);
  });
  MessageType type;
  std::string payload;
  ASSERT_EQ(b.Receive(&type, &payload, 10), Channel::Status::kOk);
  EXPECT_EQ(type, MessageType::kTasks);
  EXPECT_EQ(payload, "first");
  ASSERT_EQ(b.Receive(&type, &payload, 10), Channel::Status::kOk);
  EXPECT_EQ(type, MessageType::kSync);
  EXPECT_EQ(payload, big);
  ASSERT_EQ(b.Receive(&type, &payload, 10), Channel::Status::kOk);
  EXPECT_EQ(type, MessageType::kShutdown);
  EXPECT_TRUE(payload.empty());
  writer.join();
}

TEST(ChannelTest, ClosedTimeoutAndInterrupted) {
  Channel a, b;
  Pair(&a, &b);
  MessageType type;
  std::string payload;
  EXPECT_EQ(b.Receive(&type, &payload, 0.05), Channel::Status::kTimeout);
  EXPECT_EQ(b.Receive(&type, &payload, 0, [] { return true; }),
            Channel::Status::kInterrupted);
  a.Close();
  EXPECT_EQ(b.Receive(&type, &payload, 1), Channel::Status::kClosed);
  EXPECT_EQ(b.Send(MessageType::kTasks, "x"), Channel::Status::kClosed);
}

// Each side sends a message many times the socket's buffer while the other
// is sending one too: both must get through (a blocking send on each side
// waited for the other for ever). A watchdog shuts the sockets down if they
// do not, so that the test fails instead of hanging.
TEST(ChannelTest, LargeMessagesBothWaysAtOnce) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  Channel a(fds[0]), b(fds[1]);
  for (size_t size : {size_t{1} << 20, size_t{20} << 20}) {
    const std::string from_a(size, 'a'), from_b(size + 7, 'b');
    auto side = [](Channel* c, const std::string* out, size_t expect, char fill) {
      if (c->Send(MessageType::kTasks, *out, 30) != Channel::Status::kOk) return false;
      MessageType type;
      std::string in;
      if (c->Receive(&type, &in, 30) != Channel::Status::kOk) return false;
      return type == MessageType::kTasks && in == std::string(expect, fill);
    };
    auto done_a = std::async(std::launch::async, side, &a, &from_a, from_b.size(), 'b');
    auto done_b = std::async(std::launch::async, side, &b, &from_b, from_a.size(), 'a');
    if (done_a.wait_for(std::chrono::seconds(20)) != std::future_status::ready ||
        done_b.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
      ADD_FAILURE() << "sending " << size << " bytes both ways at once did not end";
      shutdown(fds[0], SHUT_RDWR);
      shutdown(fds[1], SHUT_RDWR);
      done_a.wait();
      done_b.wait();
      return;
    }
    EXPECT_TRUE(done_a.get()) << size;
    EXPECT_TRUE(done_b.get()) << size;
  }
  // A queue of messages each way: the bytes read while sending are kept
  // in order for the next Receive.
  std::thread other([&] {
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(b.Send(MessageType::kResults, std::string(3 << 20, char('0' + i)), 30),
                Channel::Status::kOk);
    }
    MessageType type;
    std::string in;
    for (int i = 0; i < 5; ++i) {
      ASSERT_EQ(b.Receive(&type, &in, 30), Channel::Status::kOk);
      EXPECT_EQ(in, std::string(2 << 20, char('A' + i)));
    }
  });
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(a.Send(MessageType::kTasks, std::string(2 << 20, char('A' + i)), 30),
              Channel::Status::kOk);
  }
  MessageType type;
  std::string in;
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(a.Receive(&type, &in, 30), Channel::Status::kOk);
    EXPECT_EQ(type, MessageType::kResults);
    EXPECT_EQ(in, std::string(3 << 20, char('0' + i)));
  }
  other.join();
}

// A Send to a peer that reads nothing waits no longer than its timeout,
// and stops when its StopCheck says so (asked every kPollSeconds).
TEST(ChannelTest, SendToAStuckPeerTimesOutOrIsInterrupted) {
  Channel a, b;
  Pair(&a, &b);
  const std::string big(8 << 20, 'x');
  const double start = MonotonicSeconds();
  EXPECT_EQ(a.Send(MessageType::kTasks, big, 0.2), Channel::Status::kTimeout);
  const double timed_out = MonotonicSeconds() - start;
  EXPECT_GE(timed_out, 0.2);
  EXPECT_LT(timed_out, 1.0);

  Channel c, d;
  Pair(&c, &d);
  int asked = 0;
  const double begin = MonotonicSeconds();
  EXPECT_EQ(c.Send(MessageType::kTasks, big, 0, [&] { return ++asked == 3; }),
            Channel::Status::kInterrupted);
  EXPECT_EQ(asked, 3);
  EXPECT_LT(MonotonicSeconds() - begin, 1.0);
  // The peer gone: kClosed, not a wait.
  Channel e, f;
  Pair(&e, &f);
  f.Close();
  EXPECT_EQ(e.Send(MessageType::kTasks, big, 5), Channel::Status::kClosed);
}

}  // namespace
}  // namespace pams

namespace pams {
namespace {

// Writes a raw frame header (type, padding, size) to fd.
void WriteHeader(int fd, uint32_t type, uint64_t size) {
  struct {
    uint32_t type;
    uint32_t pad;
    uint64_t size;
  } header{type, 0, size};
  ASSERT_EQ(write(fd, &header, sizeof header), static_cast<ssize_t>(sizeof header));
}

// A corrupt header is refused before anything is allocated for it, and a
// header announcing more than its sender sends costs only what arrives.
TEST(ChannelTest, CorruptHeadersCostNoMemory) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  Channel reader(fds[0]);
  MessageType type;
  std::string payload;
  // 32 GiB (within the old 64 GiB limit) and an unknown type.
  WriteHeader(fds[1], static_cast<uint32_t>(MessageType::kTasks), uint64_t{32} << 30);
  EXPECT_EQ(reader.Receive(&type, &payload, 5), Channel::Status::kError);
  EXPECT_NE(reader.error().find("corrupt message header"), std::string::npos)
      << reader.error();
  EXPECT_LT(payload.capacity(), size_t{1} << 20);
  close(fds[1]);

  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  Channel other(fds[0]);
  WriteHeader(fds[1], 77, 4);
  EXPECT_EQ(other.Receive(&type, &payload, 5), Channel::Status::kError);
  close(fds[1]);

  // 512 MiB announced, 10 bytes sent, then the peer goes away.
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  Channel third(fds[0]);
  WriteHeader(fds[1], static_cast<uint32_t>(MessageType::kTasks), uint64_t{512} << 20);
  ASSERT_EQ(write(fds[1], "0123456789", 10), 10);
  close(fds[1]);
  EXPECT_EQ(third.Receive(&type, &payload, 5), Channel::Status::kClosed);
  EXPECT_LE(payload.capacity(), size_t{32} << 20);
}

}  // namespace
}  // namespace pams
