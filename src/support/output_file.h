// OutputFile: a file that a logger writes row by row (the steps, agents and
// events CSV of `pams run`).
//
// Whole rows only. A row is built in row() and handed over with
// commit_row(); the file descriptor only ever receives whole rows, in blocks
// (one write(2) of a buffer that ends at a row boundary). So however the
// process ends (the run's end, an error, a signal, ExitAfterWholeRows from a
// signal handler), the file is valid up to its last row, never cut in one.
// Committed rows reach the file within about half a second (a flusher
// thread writes them; stdout's are written by their owner only), so that
// SIGKILL or the OOM killer loses at most the last second's rows.
//
// Errors: opening fails at once (ConfigError naming the path), so that a bad
// path is reported before the run starts, not after it; a failed write or
// close (a full disk, a file system that fails on close, a pipe whose reader
// went away) throws OutputError naming the path. The destructor cannot
// report: call close() to learn of a failure.
//
// Thread rules: one thread at a time uses an OutputFile (a handover between
// threads needs a happens-before, e.g. a mutex). ExitAfterWholeRows may be
// called from any thread and from signal handlers, at any time.
//
// The open files are process-wide state: one set per binary that holds these
// objects. The engine's (libpams) is the one that pams::ExitAfterWholeRows
// (pams/logs/csv_loggers.h, defined by src/logs/csv_loggers.cc) reaches.

#ifndef PAMS_SRC_SUPPORT_OUTPUT_FILE_H_
#define PAMS_SRC_SUPPORT_OUTPUT_FILE_H_

#include <string>

namespace pams {

namespace output_file_internal {
struct Slot;
}  // namespace output_file_internal

class OutputFile {
 public:
  // Creates or truncates `path` ("-" means stdout, which close() leaves
  // open). Throws ConfigError naming the path when it cannot be opened for
  // writing.
  explicit OutputFile(const std::string& path);
  // Writes the committed rows and closes the file, ignoring errors.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // The row being built: append one or more whole rows (each ending with
  // '\n'), then call commit_row(). Empty after commit_row().
  std::string* row() { return &row_; }
  // Makes the text of row() part of the file; it is written out when a
  // block is full, by flush() or by close(). Throws OutputError when a
  // block cannot be written, and when the file is closed.
  void commit_row();
  // Writes every committed row out. Throws OutputError naming the path
  // when writing fails. REQUIRES: not closed.
  void flush();
  // Writes every committed row out and closes the file (stdout stays
  // open). Throws OutputError naming the path when writing or closing
  // fails; the file is closed all the same. Later calls do nothing.
  void close();
  bool closed() const { return closed_; }
  const std::string& path() const { return path_; }

  // Ends the process with `status` (as _exit) once every open OutputFile
  // holds its committed rows: at once when none is in the middle of a
  // write, otherwise when that write ends, and after 2 seconds in any case.
  // The first status wins. Async-signal-safe; any thread. Returns only when
  // it has to wait. pams::ExitAfterWholeRows (pams/logs/csv_loggers.h) is
  // this, for programs.
  static void ExitAfterWholeRows(int status) noexcept;

 private:
  // Writes the committed rows out; returns 0 or the errno of the failure.
  int WriteBlock();

  std::string path_;
  output_file_internal::Slot* slot_;
  bool owns_slot_ = false;  // a slot of its own, when the shared ones ran out
  bool closed_ = false;
  std::string row_;
};

}  // namespace pams

#endif  // PAMS_SRC_SUPPORT_OUTPUT_FILE_H_
