// Worker processes for the multi-process runners.
//
// A worker started by "spawn" (and the forkserver that starts workers for
// "forkserver") is a fresh process of the same executable. It must become a
// worker before the program's own logic runs, so every program that may use
// these start methods calls InitWorkerProcess first thing in main, as MPI
// programs call MPI_Init (the pams command does):
//
//   int main(int argc, char** argv) {
//     pams::InitWorkerProcess(argc, argv, &RegisterMyClasses);
//     ...
//   }
//
// In the main process it returns at once. In a worker it never returns: the
// process serves the runner and exits when the run ends or the main process
// goes away.
//
// Classes that the program registers itself (not through --plugin plugins,
// which workers load by path) must be registered by register_classes, which
// the program should also use for its own registry, so that workers know
// them too.

#ifndef PAMS_RUNNERS_WORKER_H_
#define PAMS_RUNNERS_WORKER_H_

#include "pams/export.h"

namespace pams {

class ClassRegistry;

using RegisterClassesFn = void (*)(ClassRegistry* registry);

PAMS_EXPORT void InitWorkerProcess(int argc, char** argv,
                                   RegisterClassesFn register_classes = nullptr);

}  // namespace pams

#endif  // PAMS_RUNNERS_WORKER_H_
