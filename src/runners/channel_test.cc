// Channel: framed messages over a socket pair, and how reads fail.

#include "runners/channel.h"

#include <sys/socket.h>

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
