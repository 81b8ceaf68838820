// CSV as RFC 4180 defines it: the one implementation behind every CSV file
// pams writes (the steps, agents and events CSV of `pams run`, a sweep's
// summary.csv) and reads back (`pams plot`, `pams stats`, `run --plot`,
// sweeps), so that whatever a writer puts in a field reads back unchanged.
//
// Fields are separated by commas and records end with LF (written) or CRLF
// (also read). A field holding a comma, a double quote, CR or LF is written
// between double quotes with its quotes doubled; any other field is written
// as is. Inside quotes, commas, CR and LF are part of the field.
//
// Thread rules: AppendField is a pure function. A Reader is used by one
// thread at a time; different Readers are independent.
//
// Part of the support library (src/support/CMakeLists.txt): the engine's
// loggers write with it, and the pams tool's analysis (pams_analysis) and
// pams_cpp read back with the same code; not part of the installed API.

#ifndef PAMS_SRC_SUPPORT_CSV_H_
#define PAMS_SRC_SUPPORT_CSV_H_

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace pams::csv {

// Appends text to out as one field, quoted only when it has to be.
// REQUIRES: out != nullptr.
void AppendField(std::string_view text, std::string* out);

// Reads the records of a CSV stream one at a time.
class Reader {
 public:
  enum class Status {
    kRecord,     // a complete record, ended by its line break
    kTruncated,  // the input ended within the record's last line, before its
                 // line break: a row cut short (e.g. the writer was killed)
    kEnd,        // no more input
  };

  // REQUIRES: in outlives the reader. `name` (the file's path) starts every
  // error message.
  Reader(std::istream* in, std::string name);

  // Reads the next record into fields (replacing their contents).
  // Throws ConfigError "NAME:LINE" on malformed input: a quote inside an
  // unquoted field, anything but a comma or a line break after a closing
  // quote, a carriage return outside quotes that is not part of CRLF, a
  // quoted field that runs over line breaks to the end of the input, or a
  // read error.
  Status Next(std::vector<std::string>* fields);

  // The line (1-based) on which the record last returned by Next began.
  int64_t line() const { return record_line_; }
  const std::string& name() const { return name_; }

 private:
  // The next byte, or -1 at the end of the input.
  int Get();
  int Peek();
  [[noreturn]] void Fail(int64_t line, const std::string& message) const;

  std::istream* in_;
  std::string name_;
  std::vector<char> buffer_;
  size_t pos_ = 0;
  size_t end_ = 0;
  bool eof_ = false;
  int64_t line_ = 1;  // the line of the next byte
  int64_t record_line_ = 0;
};

}  // namespace pams::csv

#endif  // PAMS_SRC_SUPPORT_CSV_H_
