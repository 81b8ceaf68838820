#include "support/csv.h"

#include <utility>

#include "pams/errors.h"

namespace pams::csv {

namespace {

constexpr size_t kReadBytes = 1 << 16;

// "field 3" for the error messages (fields are counted from 1).
std::string FieldNumber(const std::vector<std::string>& fields) {
  return "field " + std::to_string(fields.size() + 1);
}

// A byte as it can be shown in a message.
std::string Shown(int c) {
  if (c >= 0x20 && c < 0x7f) return std::string("'") + static_cast<char>(c) + "'";
  return "byte " + std::to_string(c);
}

}  // namespace

void AppendField(std::string_view text, std::string* out) {
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

Reader::Reader(std::istream* in, std::string name)
    : in_(in), name_(std::move(name)), buffer_(kReadBytes) {}

int Reader::Peek() {
  if (pos_ == end_) {
    if (eof_) return -1;
    in_->read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    end_ = static_cast<size_t>(in_->gcount());
    pos_ = 0;
    if (in_->bad()) Fail(line_, "cannot read the file");
    if (end_ < buffer_.size()) eof_ = true;
    if (end_ == 0) return -1;
  }
  return static_cast<unsigned char>(buffer_[pos_]);
}

int Reader::Get() {
  const int c = Peek();
  if (c >= 0) {
    ++pos_;
    if (c == '\n') ++line_;
  }
  return c;
}

void Reader::Fail(int64_t line, const std::string& message) const {
  throw ConfigError(name_ + ":" + std::to_string(line), message);
}

Reader::Status Reader::Next(std::vector<std::string>* fields) {
  fields->clear();
  if (Peek() < 0) return Status::kEnd;
  record_line_ = line_;
  std::string field;
  for (;;) {
    field.clear();
    int c = Get();
    if (c == '"') {
      const int64_t quote_line = line_;
      for (;;) {
        c = Get();
        if (c < 0) {
          // Cut inside its quotes on the record's own line: a row cut short.
          // A quote left open over line breaks is a malformed file, whose
          // rest would otherwise vanish into one field.
          if (line_ == record_line_) {
            fields->push_back(std::move(field));
            return Status::kTruncated;
          }
          Fail(quote_line, "the quoted " + FieldNumber(*fields) +
                               " that starts on this line is not closed before the "
                               "end of the file");
        }
        if (c == '"') {
          if (Peek() != '"') break;
          Get();
        }
        field.push_back(static_cast<char>(c));
      }
      c = Get();
      if (c != ',' && c != '\n' && c != '\r' && c >= 0) {
        Fail(line_, "expected a comma or the end of the line after the closing quote of " +
                        FieldNumber(*fields) + ", got " + Shown(c));
      }
    } else {
      while (c >= 0 && c != ',' && c != '\n' && c != '\r') {
        if (c == '"') {
          Fail(line_, "a double quote inside " + FieldNumber(*fields) +
                          ", which is not quoted (a field holding quotes must be "
                          "quoted, with its quotes doubled)");
        }
        field.push_back(static_cast<char>(c));
        c = Get();
      }
    }
    fields->push_back(std::move(field));
    if (c == ',') continue;
    if (c < 0) return Status::kTruncated;
    if (c == '\r') {
      if (Peek() != '\n') {
        Fail(line_, "a carriage return that is not part of a CRLF line end, after field " +
                        std::to_string(fields->size()) + " (quote fields that hold one)");
      }
      Get();
    }
    return Status::kRecord;
  }
}

}  // namespace pams::csv
