#include "util/output_file.h"

#include <cerrno>
#include <cstring>

#include "pams/errors.h"

namespace pams {

OutputFile::OutputFile(const std::string& path)
    : path_(path), file_(nullptr), owned_(path != "-") {
  if (!owned_) {
    file_ = stdout;
    return;
  }
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) {
    throw ConfigError(path, std::string("cannot open for writing: ") +
                                std::strerror(errno));
  }
}

OutputFile::~OutputFile() {
  try {
    flush();
  } catch (const SimulationError&) {
    // Reported by the explicit flush() that precedes destruction normally.
  }
  if (owned_ && file_ != nullptr) std::fclose(file_);
}

void OutputFile::flush() {
  if (!buffer_.empty()) {
    const size_t n = std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
    const bool ok = n == buffer_.size();
    buffer_.clear();
    if (!ok) {
      throw SimulationError("writing " + path_ + " failed: " +
                            std::strerror(errno));
    }
  }
  if (std::fflush(file_) != 0) {
    throw SimulationError("writing " + path_ + " failed: " +
                          std::strerror(errno));
  }
}

void AppendCsvField(std::string_view text, std::string* out) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(text);
    return;
  }
  out->push_back('"');
  for (char c : text) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

}  // namespace pams
