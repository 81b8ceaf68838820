// Whether what a command wrote to stdout reached it, and if not, why: for
// the exit status (141 when stdout's reader went away, as for a program
// killed by SIGPIPE, which pams ignores; 1 for any other failure).
//
// Call from the thread that writes stdout (stdio locks make others safe).

#ifndef PAMS_APPS_PAMS_STDOUT_ERROR_H_
#define PAMS_APPS_PAMS_STDOUT_ERROR_H_

namespace pams::cli {

// Flushes stdout; 0 when everything written reached it, otherwise the errno
// of the failure: EPIPE when its reader went away (also when an earlier
// write failed and errno is gone: a pipe without a reader polls as an
// error), EIO when nothing better is known.
int StdoutError();

}  // namespace pams::cli

#endif  // PAMS_APPS_PAMS_STDOUT_ERROR_H_
