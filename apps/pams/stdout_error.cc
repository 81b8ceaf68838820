#include "stdout_error.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace pams::cli {

int StdoutError() {
  errno = 0;
  if (std::fflush(stdout) != 0) return errno != 0 ? errno : EIO;
  if (!std::ferror(stdout)) return 0;
  pollfd p{STDOUT_FILENO, POLLOUT, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0 ? EPIPE : EIO;
}

}  // namespace pams::cli
