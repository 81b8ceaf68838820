// The C interface between `pams` and its MPI module, libpams_mpi.so: the
// few MPI calls a sweep needs (sweep_mpi.h). `pams` itself links no MPI
// library, so that it builds and runs where no MPI is installed; it loads
// the module (built where CMake finds an MPI) only when it was launched by
// mpirun or srun. The interface is C so that the module's C++ runtime and
// MPI's own libraries stay behind dlopen.
//
// Every function is called from the process's main thread only.

#ifndef PAMS_APPS_PAMS_MPI_PAMS_MPI_API_H_
#define PAMS_APPS_PAMS_MPI_PAMS_MPI_API_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// Changes whenever the struct below changes.
#define PAMS_MPI_ABI_VERSION 1

struct PamsMpiApi {
  int abi_version;  // PAMS_MPI_ABI_VERSION
  // MPI_Init; sets this process's rank and the size of MPI_COMM_WORLD.
  // Returns 0, or -1 with a message in error (at most error_size bytes).
  int (*init)(int* rank, int* size, char* error, size_t error_size);
  // Sends size bytes to rank dest; returns 0 or -1.
  int (*send)(int dest, const char* data, size_t size);
  // If a message from any rank is waiting, receives it into a new buffer
  // (*data, *size; free with free_buffer) from *source and returns 1;
  // returns 0 if none is waiting, -1 on an error. Never blocks, so that a
  // waiting rank does not spin a core that a working rank needs.
  int (*try_receive)(int* source, char** data, size_t* size);
  void (*free_buffer)(char* data);
  // MPI_Finalize.
  void (*finalize)(void);
  // MPI_Abort(MPI_COMM_WORLD, status): ends every rank of the job.
  void (*abort)(int status);
  // MPI_Get_library_version's text.
  const char* (*library_version)(void);
};

// The module's one symbol.
const struct PamsMpiApi* pams_mpi_api(void);

#ifdef __cplusplus
}
#endif

#endif  // PAMS_APPS_PAMS_MPI_PAMS_MPI_API_H_
