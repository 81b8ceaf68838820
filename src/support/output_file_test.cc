// OutputFile: rows reach the file whole, in blocks and on close; a row
// longer than a block is written whole; failures (a full disk, a row after
// close) are OutputErrors naming the path; a failed write leaves the file
// cut back to its whole rows.

#include "support/output_file.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "pams/errors.h"

namespace pams {
namespace {

#if defined(__SANITIZE_THREAD__)
constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kThreadSanitizer = true;
#else
constexpr bool kThreadSanitizer = false;
#endif
#else
constexpr bool kThreadSanitizer = false;
#endif

std::string TempPath(const char* name) {
  return ::testing::TempDir() + "/" + name + "_" + std::to_string(getpid()) + ".csv";
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(OutputFileTest, WritesWholeRowsInBlocksAndOnClose) {
  const std::string path = TempPath("rows");
  OutputFile file(path);
  std::string expected;
  for (int i = 0; i < 20000; ++i) {  // several 64 KiB blocks
    const std::string row = "row " + std::to_string(i) + ",x\n";
    file.row()->append(row);
    file.commit_row();
    expected += row;
  }
  // Blocks written so far end at a row boundary.
  const std::string partial = ReadAll(path);
  EXPECT_GT(partial.size(), 0u);
  EXPECT_EQ(partial.back(), '\n');
  EXPECT_EQ(expected.compare(0, partial.size(), partial), 0);
  file.close();
  EXPECT_EQ(ReadAll(path), expected);
  file.close();  // again: nothing
  EXPECT_TRUE(file.closed());
  std::remove(path.c_str());
}

TEST(OutputFileTest, ARowLongerThanABlockIsWrittenWhole) {
  const std::string path = TempPath("long");
  {
    OutputFile file(path);
    file.row()->append("a\n");
    file.commit_row();
    const std::string long_row = std::string(300000, 'y') + "\n";
    file.row()->append(long_row);
    file.commit_row();
    file.row()->append("b\n");
    file.commit_row();
  }  // the destructor closes
  EXPECT_EQ(ReadAll(path), "a\n" + std::string(300000, 'y') + "\nb\n");
  std::remove(path.c_str());
}

TEST(OutputFileTest, FullDiskIsAnOutputErrorNamingThePath) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  OutputFile file("/dev/full");
  file.row()->append("a,b\n");
  file.commit_row();
  try {
    file.close();
    ADD_FAILURE() << "no error";
  } catch (const OutputError& e) {
    EXPECT_EQ(e.path(), "/dev/full");
    EXPECT_EQ(e.error_number(), ENOSPC);
    EXPECT_STREQ(e.what(), "/dev/full: writing failed: No space left on device");
  }
}

// Committed rows reach the file within a second without a flush (the
// flusher thread): a process killed meanwhile keeps them. A write that the
// flusher fails is reported by the owner's next one.
TEST(OutputFileTest, RowsReachTheFileWithinASecond) {
  const std::string path = TempPath("timely");
  OutputFile file(path);
  file.row()->append("a,b\n");
  file.commit_row();
  std::string text;
  for (int i = 0; i < 150 && text.empty(); ++i) {
    usleep(10000);
    text = ReadAll(path);
  }
  EXPECT_EQ(text, "a,b\n");
  file.row()->append("c,d\n");
  file.commit_row();
  usleep(1100000);
  EXPECT_EQ(ReadAll(path), "a,b\nc,d\n");
  file.close();
  std::remove(path.c_str());

  if (access("/dev/full", W_OK) != 0) return;
  OutputFile full("/dev/full");
  full.row()->append("x\n");
  full.commit_row();
  usleep(1100000);  // the flusher's write has failed by now
  full.row()->append("y\n");
  try {
    full.commit_row();
    ADD_FAILURE() << "no error";
  } catch (const OutputError& e) {
    EXPECT_EQ(e.error_number(), ENOSPC);
  }
}

TEST(OutputFileTest, ARowAfterCloseIsAnError) {
  const std::string path = TempPath("closed");
  OutputFile file(path);
  file.close();
  file.row()->append("late\n");
  EXPECT_THROW(file.commit_row(), OutputError);
  EXPECT_EQ(ReadAll(path), "");
  std::remove(path.c_str());
}

TEST(OutputFileTest, UnwritablePathIsAConfigError) {
  EXPECT_THROW(OutputFile("/nonexistent-dir/x.csv"), ConfigError);
}

TEST(OutputFileTest, ManyFilesAtOnce) {
  // More files than the shared slots: the others still work.
  std::vector<std::unique_ptr<OutputFile>> files;
  for (int i = 0; i < 40; ++i) {
    files.push_back(std::make_unique<OutputFile>(TempPath(("many" + std::to_string(i)).c_str())));
    files.back()->row()->append(std::to_string(i) + "\n");
    files.back()->commit_row();
  }
  for (auto& f : files) f->close();
  for (int i = 0; i < 40; ++i) {
    const std::string path = TempPath(("many" + std::to_string(i)).c_str());
    EXPECT_EQ(ReadAll(path), std::to_string(i) + "\n");
    std::remove(path.c_str());
  }
}

// A process may fork as soon as its first file is open (a `pams run` with
// startMethod "fork" forks its workers right after opening the CSVs), while
// its flusher thread starts: the child must not inherit a lock held by that
// thread. Each round, a fresh process opens its first file and forks at
// once; the grandchild allocates (where an inherited allocator lock would
// hang it, as one did under AddressSanitizer) and writes a file of its own.
TEST(OutputFileTest, AProcessForksRightAfterOpeningItsFirstFile) {
  if (kThreadSanitizer) {
    // Each round's process is forked from this one, which has threads, and
    // starts a flusher thread: ThreadSanitizer does not support threads
    // started after such a fork (it ends the process). The test runs in
    // the other builds, AddressSanitizer's included.
    GTEST_SKIP() << "ThreadSanitizer does not support threads after a multi-threaded fork";
  }
  for (int round = 0; round < 20; ++round) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      alarm(30);  // a hang ends this child with SIGALRM
      OutputFile file(TempPath(("fork_parent" + std::to_string(round)).c_str()));
      const pid_t grandchild = fork();
      if (grandchild < 0) _exit(2);
      if (grandchild == 0) {
        alarm(30);
        std::vector<std::unique_ptr<char[]>> blocks;
        for (size_t size = 8; size < (size_t{1} << 20); size = size * 3 / 2 + 1) {
          for (int i = 0; i < 8; ++i) blocks.emplace_back(new char[size]);
        }
        const std::string path = TempPath(("fork_child" + std::to_string(round)).c_str());
        OutputFile own(path);
        own.row()->append("x\n");
        own.commit_row();
        own.close();
        const bool whole = ReadAll(path) == "x\n";
        std::remove(path.c_str());
        _exit(whole ? 0 : 3);
      }
      int status = 0;
      while (waitpid(grandchild, &status, 0) < 0 && errno == EINTR) {
      }
      file.close();
      std::remove(TempPath(("fork_parent" + std::to_string(round)).c_str()).c_str());
      _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 4);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    ASSERT_TRUE(WIFEXITED(status)) << "round " << round << ": killed by signal "
                                   << WTERMSIG(status) << " (a hang?)";
    ASSERT_EQ(WEXITSTATUS(status), 0) << "round " << round;
  }
}

}  // namespace
}  // namespace pams
