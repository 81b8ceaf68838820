// libpams_mpi.so: the MPI calls of pams sweep (see pams_mpi_api.h), on the
// MPI implementation CMake found (Debian: OpenMPI or MPICH).

#include "pams_mpi_api.h"

#include <mpi.h>

#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

// Messages are text; one tag is enough, since each pair of ranks talks in
// strict request-reply order.
constexpr int kTag = 7;

int Init(int* rank, int* size, char* error, size_t error_size) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized && MPI_Init(nullptr, nullptr) != MPI_SUCCESS) {
    std::snprintf(error, error_size, "MPI_Init failed");
    return -1;
  }
  // Errors come back as codes instead of ending the job, so that pams can
  // say what failed.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return 0;
}

int Send(int dest, const char* data, size_t size) {
  if (size > static_cast<size_t>(INT32_MAX)) return -1;
  return MPI_Send(data, static_cast<int>(size), MPI_CHAR, dest, kTag, MPI_COMM_WORLD) ==
                 MPI_SUCCESS
             ? 0
             : -1;
}

int TryReceive(int* source, char** data, size_t* size) {
  int waiting = 0;
  MPI_Status status;
  if (MPI_Iprobe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &waiting, &status) != MPI_SUCCESS) {
    return -1;
  }
  if (!waiting) return 0;
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  char* buffer = static_cast<char*>(std::malloc(static_cast<size_t>(count) + 1));
  if (buffer == nullptr) return -1;
  if (MPI_Recv(buffer, count, MPI_CHAR, status.MPI_SOURCE, kTag, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE) != MPI_SUCCESS) {
    std::free(buffer);
    return -1;
  }
  buffer[count] = '\0';
  *source = status.MPI_SOURCE;
  *data = buffer;
  *size = static_cast<size_t>(count);
  return 1;
}

void FreeBuffer(char* data) { std::free(data); }

void Finalize() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void Abort(int status) { MPI_Abort(MPI_COMM_WORLD, status); }

const char* LibraryVersion() {
  static char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(version, &length);
  return version;
}

constexpr PamsMpiApi kApi = {PAMS_MPI_ABI_VERSION, Init,     Send,  TryReceive,
                             FreeBuffer,           Finalize, Abort, LibraryVersion};

}  // namespace

extern "C" __attribute__((visibility("default"))) const PamsMpiApi* pams_mpi_api(void) {
  return &kApi;
}
