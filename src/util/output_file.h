// OutputFile: a file written in large blocks, for loggers that write a line
// per step. Opening fails at once (a bad path is reported before the run
// starts, not after it); a failed write (e.g. a full disk) throws. flush()
// makes every complete line written so far reach the file, so an
// interrupted run leaves a valid file.
//
// One thread at a time.

#ifndef PAMS_SRC_UTIL_OUTPUT_FILE_H_
#define PAMS_SRC_UTIL_OUTPUT_FILE_H_

#include <cstdio>
#include <string>
#include <string_view>

namespace pams {

class OutputFile {
 public:
  // Creates or truncates `path` ("-" means stdout). Throws ConfigError naming
  // the path when it cannot be opened for writing.
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // The buffer to append text to; written out by maybe_flush()/flush().
  std::string* buffer() { return &buffer_; }
  // Writes the buffer out when it is large. Call after each complete line.
  void maybe_flush() {
    if (buffer_.size() >= kBlockBytes) flush();
  }
  // Writes everything out. Throws SimulationError when the write fails.
  void flush();
  const std::string& path() const { return path_; }

 private:
  static constexpr size_t kBlockBytes = 1 << 16;
  std::string path_;
  std::FILE* file_;
  bool owned_;
  std::string buffer_;
};

// Appends a CSV field, quoted when it holds a comma, quote or line break.
void AppendCsvField(std::string_view text, std::string* out);

}  // namespace pams

#endif  // PAMS_SRC_UTIL_OUTPUT_FILE_H_
