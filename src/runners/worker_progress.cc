#include "runners/worker_progress.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <new>

namespace pams {

namespace {

constexpr size_t kPageBytes = 4096;
static_assert(std::atomic<int32_t>::is_always_lock_free);

void* Map(int fd, int protection) {
  void* page = mmap(nullptr, kPageBytes, protection, MAP_SHARED, fd, 0);
  close(fd);
  return page == MAP_FAILED ? nullptr : page;
}

}  // namespace

WorkerProgress::WorkerProgress(std::string name, void* page)
    : name_(std::move(name)), page_(page), slot_(static_cast<std::atomic<int32_t>*>(page)) {}

WorkerProgress::~WorkerProgress() { munmap(page_, kPageBytes); }

std::unique_ptr<WorkerProgress> WorkerProgress::Create() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  char name[64];
  std::snprintf(name, sizeof name, "/pams-worker-%d-%ld", static_cast<int>(getpid()),
                static_cast<long>(now.tv_nsec));
  const int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return nullptr;
  if (ftruncate(fd, kPageBytes) != 0) {
    close(fd);
    shm_unlink(name);
    return nullptr;
  }
  void* page = Map(fd, PROT_READ | PROT_WRITE);
  if (page == nullptr) {
    shm_unlink(name);
    return nullptr;
  }
  new (page) std::atomic<int32_t>(-1);
  return std::unique_ptr<WorkerProgress>(new WorkerProgress(name, page));
}

void WorkerProgress::Unlink() {
  if (name_.empty()) return;
  shm_unlink(name_.c_str());
  name_.clear();
}

std::unique_ptr<WorkerProgress> WorkerProgress::Open(const std::string& name) {
  if (name.empty()) return nullptr;
  const int fd = shm_open(name.c_str(), O_RDONLY | O_CLOEXEC, 0);
  // Named once: the page lives on while it is mapped.
  shm_unlink(name.c_str());
  if (fd < 0) return nullptr;
  void* page = Map(fd, PROT_READ);
  if (page == nullptr) return nullptr;
  return std::unique_ptr<WorkerProgress>(new WorkerProgress("", page));
}

}  // namespace pams
