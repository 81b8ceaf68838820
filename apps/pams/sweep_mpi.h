// pams sweep across the ranks of an MPI job (`mpirun -n N pams sweep ...`,
// or Slurm's `srun`): rank 0 is the coordinator, which hands the runs out
// one at a time as ranks become free (run times vary with the parameters)
// and writes the summary; ranks 1..N-1 are sweep workers (sweep_worker.h)
// that write each run's outputs into the shared --out directory. What lands
// in --out is what a local sweep writes, summary included, byte for byte.
//
// MPI comes from a module, libpams_mpi.so (pams_mpi_api.h), which pams
// loads only when the environment says an MPI launcher started it; pams
// without MPI builds and runs everywhere, and under mpirun says how to get
// MPI.
//
// A rank that dies ends the job (MPI's rule); the runs completed so far are
// in --out, and the same command again runs only the others.

#ifndef PAMS_APPS_PAMS_SWEEP_MPI_H_
#define PAMS_APPS_PAMS_SWEEP_MPI_H_

#include <memory>
#include <string>
#include <vector>

#include "sweep_workers.h"

struct PamsMpiApi;

namespace pams::cli {

// MPI_COMM_WORLD of this process, from MPI_Init to MPI_Finalize.
class MpiSession {
 public:
  // Null when no MPI launcher started this process or the job has one rank
  // (a local sweep then). Otherwise loads libpams_mpi.so and initializes
  // MPI. Throws ConfigError saying how to get MPI when pams has no MPI
  // module or it cannot be loaded.
  static std::unique_ptr<MpiSession> StartIfLaunched();

  // Rank 0: tells every worker rank that has not been told to exit, then
  // finalizes.
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  const char* library_version() const;

  // Throws std::runtime_error if MPI fails.
  void Send(int dest, const std::string& message);
  // Never blocks: false if no message is waiting. Throws
  // std::runtime_error if MPI fails.
  bool TryReceive(int* source, std::string* message);
  // Ends every rank of the job with this status.
  [[noreturn]] void Abort(int status);
  // Rank 0: sends "exit" to each worker rank not told yet.
  void TellWorkersToExit();

 private:
  MpiSession(const PamsMpiApi* api, void* module) : api_(api), module_(module) {}

  const PamsMpiApi* api_;
  void* module_;
  int rank_ = 0;
  int size_ = 1;
  std::vector<bool> told_;  // rank 0: per rank, told to exit
};

// Ranks 1..N-1 of the session as a WorkerPool for rank 0's coordinator;
// stop signals come from `signals`.
class MpiWorkers : public WorkerPool {
 public:
  // REQUIRES: mpi and signals outlive the pool; mpi->rank() == 0.
  MpiWorkers(MpiSession* mpi, const WorkerContext& context, SignalFd* signals);
  MpiWorkers(const MpiWorkers&) = delete;
  MpiWorkers& operator=(const MpiWorkers&) = delete;

  int size() const override { return mpi_->size() - 1; }
  void Send(int worker, const std::string& task) override;
  Event Wait(std::chrono::milliseconds timeout) override;
  // A rank's run cannot be stopped from here; SIGKILL (a second Ctrl-C)
  // aborts the job.
  bool Abandon(int signal) override;
  void Close() override { mpi_->TellWorkersToExit(); }

 private:
  MpiSession* mpi_;
  const std::string context_;
  SignalFd* signals_;
  std::vector<bool> has_context_;
};

// This process's rank as the MPI launcher's environment gives it (0 if
// none), for messages before MPI is initialized: only rank 0 prints them.
int LaunchedRank();

// A worker rank's life: serves the coordinator's tasks until it says the
// sweep is over. Returns the exit status.
// REQUIRES: mpi->rank() != 0.
int ServeMpiWorkerRank(MpiSession* mpi);

}  // namespace pams::cli

#endif  // PAMS_APPS_PAMS_SWEEP_MPI_H_
