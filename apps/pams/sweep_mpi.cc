// pams sweep across the ranks of an MPI job (see sweep_mpi.h).

#include "sweep_mpi.h"

#include <dlfcn.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "commands.h"
#include "mpi/pams_mpi_api.h"
#include "pams/config/json.h"
#include "pams/errors.h"

namespace pams::cli {

namespace {

// How long a waiting rank sleeps between looks for a message: short next
// to a run (milliseconds), long enough that waiting costs no core.
constexpr auto kPollInterval = std::chrono::microseconds(200);

constexpr char kHowToGetMpi[] =
    "install an MPI implementation and rebuild pams (Debian: apt-get install "
    "libopenmpi-dev openmpi-bin, then make build; CMake finds it), or run the sweep "
    "without mpirun/srun";

// The job's size as the launcher's environment gives it: OpenMPI's mpirun,
// Hydra (MPICH) and Slurm's PMI set one of these; PMIx (srun --mpi=pmix)
// sets a rank only, hence -1 (unknown). 0: no MPI launcher.
int LaunchedSize() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const char* value = std::getenv(name)) return std::atoi(value);
  }
  if (std::getenv("PMIX_RANK") != nullptr) return -1;
  return 0;
}

// Where the module is: next to the pams binary's lib directory, as built
// (build/bin/pams, build/lib/) and as installed (bin/pams, lib/).
std::filesystem::path ModulePath() {
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  return exe.parent_path().parent_path() / "lib" / "libpams_mpi.so";
}

}  // namespace

int LaunchedRank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    if (const char* value = std::getenv(name)) return std::atoi(value);
  }
  return 0;
}

std::unique_ptr<MpiSession> MpiSession::StartIfLaunched() {
  const int launched = LaunchedSize();
  if (launched == 0 || launched == 1) return nullptr;
  const std::string what = launched > 1 ? fmt::format("MPI ({} ranks)", launched) : "MPI";
  const std::filesystem::path path = ModulePath();
#ifndef PAMS_HAVE_MPI_MODULE
  (void)path;
  throw ConfigError("pams sweep under " + what,
                    std::string("this pams was built without MPI: ") + kHowToGetMpi);
#else
  void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (module == nullptr) {
    throw ConfigError("pams sweep under " + what,
                      fmt::format("cannot load pams's MPI module {}: {}; {}", path.string(),
                                  dlerror(), kHowToGetMpi));
  }
  using Entry = const PamsMpiApi* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(module, "pams_mpi_api"));
  const PamsMpiApi* api = entry != nullptr ? entry() : nullptr;
  if (api == nullptr || api->abi_version != PAMS_MPI_ABI_VERSION) {
    dlclose(module);
    throw ConfigError(path.string(), "not this pams's MPI module (another version?); "
                                     "rebuild pams");
  }
  std::unique_ptr<MpiSession> session(new MpiSession(api, module));
  char error[256] = "";
  if (api->init(&session->rank_, &session->size_, error, sizeof error) != 0) {
    throw ConfigError("pams sweep under " + what, error);
  }
  if (session->size_ < 2) return nullptr;  // a job of one rank: a local sweep
  session->told_.assign(static_cast<size_t>(session->size_), false);
  return session;
#endif
}

MpiSession::~MpiSession() {
  if (rank_ == 0) {
    try {
      TellWorkersToExit();
    } catch (const std::exception&) {
      // MPI failed: finalize anyway.
    }
  }
  api_->finalize();
  // The module stays loaded: MPI's libraries may have left threads and
  // handlers behind.
}

const char* MpiSession::library_version() const { return api_->library_version(); }

void MpiSession::Send(int dest, const std::string& message) {
  if (api_->send(dest, message.data(), message.size()) != 0) {
    throw std::runtime_error(fmt::format("MPI: cannot send to rank {}", dest));
  }
}

bool MpiSession::TryReceive(int* source, std::string* message) {
  char* data = nullptr;
  size_t size = 0;
  const int got = api_->try_receive(source, &data, &size);
  if (got < 0) throw std::runtime_error("MPI: receiving failed");
  if (got == 0) return false;
  message->assign(data, size);
  api_->free_buffer(data);
  return true;
}

void MpiSession::Abort(int status) {
  api_->abort(status);
  std::_Exit(status);  // MPI_Abort does not return; in case it does
}

void MpiSession::TellWorkersToExit() {
  for (int r = 1; r < size_; ++r) {
    if (told_[static_cast<size_t>(r)]) continue;
    told_[static_cast<size_t>(r)] = true;
    Send(r, "exit");
  }
}

MpiWorkers::MpiWorkers(MpiSession* mpi, const WorkerContext& context, SignalFd* signals)
    : mpi_(mpi),
      context_(context.ToJson().dump()),
      signals_(signals),
      has_context_(static_cast<size_t>(mpi->size()), false) {}

void MpiWorkers::Send(int worker, const std::string& task) {
  const int rank = worker + 1;
  if (!has_context_[static_cast<size_t>(rank)]) {
    mpi_->Send(rank, context_);
    has_context_[static_cast<size_t>(rank)] = true;
  }
  mpi_->Send(rank, task);
}

WorkerPool::Event MpiWorkers::Wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    bool child = false;
    if (const int stop = signals_->Take(&child); stop != 0) {
      return {Event::kSignal, -1, "", stop};
    }
    int source = -1;
    std::string reply;
    if (mpi_->TryReceive(&source, &reply)) return {Event::kReply, source - 1, reply, 0};
    if (std::chrono::steady_clock::now() > deadline) return {};
    std::this_thread::sleep_for(kPollInterval);
  }
}

bool MpiWorkers::Abandon(int signal) {
  if (signal == SIGKILL) mpi_->Abort(128 + SIGKILL);
  return false;
}

int ServeMpiWorkerRank(MpiSession* mpi) {
  // The coordinator's messages, in order: the context, then tasks, then
  // "exit".
  class Channel : public WorkerChannel {
   public:
    explicit Channel(MpiSession* mpi) : mpi_(mpi) {}
    bool Receive(std::string* message) override {
      int source = -1;
      while (!mpi_->TryReceive(&source, message)) std::this_thread::sleep_for(kPollInterval);
      return *message != "exit";
    }
    void Send(const std::string& message) override { mpi_->Send(0, message); }

   private:
    MpiSession* mpi_;
  } channel(mpi);
  try {
    std::string context;
    if (!channel.Receive(&context)) return 0;
    return ServeSweepWorker(WorkerContext::FromJson(Json::parse(context)), &channel);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: pams sweep, MPI rank %d: %s\n", mpi->rank(), e.what());
    return kExitFailure;
  }
}

}  // namespace pams::cli
