// Channel: framed messages over a socket pair, and how reads fail.

#include "runners/channel.h"

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
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
    EXPECT_EQ(a.Send(MessageType::kTask, "first"), Channel::Status::kOk);
    EXPECT_EQ(a.Send(MessageType::kSync, big), Channel::Status::kOk);
    EXPECT_EQ(a.Send(MessageType::kShutdown, ""), Channel::Status::kOk);
  });
  MessageType type;
  std::string payload;
  ASSERT_EQ(b.Receive(&type, &payload, 10), Channel::Status::kOk);
  EXPECT_EQ(type, MessageType::kTask);
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
  std::atomic<bool> stop{true};
  EXPECT_EQ(b.Receive(&type, &payload, 0, &stop), Channel::Status::kInterrupted);
  a.Close();
  EXPECT_EQ(b.Receive(&type, &payload, 1), Channel::Status::kClosed);
  EXPECT_EQ(b.Send(MessageType::kTask, "x"), Channel::Status::kClosed);
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
  WriteHeader(fds[1], static_cast<uint32_t>(MessageType::kTask), uint64_t{32} << 30);
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
  WriteHeader(fds[1], static_cast<uint32_t>(MessageType::kTask), uint64_t{512} << 20);
  ASSERT_EQ(write(fds[1], "0123456789", 10), 10);
  close(fds[1]);
  EXPECT_EQ(third.Receive(&type, &payload, 5), Channel::Status::kClosed);
  EXPECT_LE(payload.capacity(), size_t{32} << 20);
}

}  // namespace
}  // namespace pams
