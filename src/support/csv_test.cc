// csv::AppendField and csv::Reader: what the writer writes reads back
// unchanged (commas, quotes, CR and LF in fields, CRLF line ends, empty
// fields), a row cut short at the end is reported as such, and malformed
// input is a ConfigError naming the file and line.

#include "support/csv.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "pams/errors.h"

namespace pams::csv {
namespace {

using Records = std::vector<std::vector<std::string>>;

Records ReadAll(const std::string& text, Reader::Status* last = nullptr) {
  std::istringstream in(text);
  Reader reader(&in, "t.csv");
  Records records;
  std::vector<std::string> fields;
  for (;;) {
    const Reader::Status status = reader.Next(&fields);
    if (status == Reader::Status::kEnd) break;
    if (last != nullptr) *last = status;
    records.push_back(fields);
    if (status == Reader::Status::kTruncated) break;
  }
  return records;
}

std::string ErrorOf(const std::string& text) {
  try {
    ReadAll(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(CsvTest, QuotesOnlyWhatNeedsIt) {
  std::string out;
  AppendField("plain", &out);
  out += '|';
  AppendField("a,b", &out);
  out += '|';
  AppendField("say \"hi\"", &out);
  out += '|';
  AppendField("two\nlines\r\n", &out);
  out += '|';
  AppendField("", &out);
  EXPECT_EQ(out, "plain|\"a,b\"|\"say \"\"hi\"\"\"|\"two\nlines\r\n\"|");
}

TEST(CsvTest, WhatIsWrittenReadsBack) {
  const Records records = {
      {"market_name", "x"},
      {"A, the first", "\"quoted\"", "line\nbreak", "cr\r\nlf", "", "\"", ","},
      {""},
      {"", ""},
      {std::string(100000, 'y'), "z"},  // longer than the read buffer
  };
  std::string text;
  for (const auto& record : records) {
    for (size_t i = 0; i < record.size(); ++i) {
      if (i > 0) text += ',';
      AppendField(record[i], &text);
    }
    text += '\n';
  }
  Reader::Status last = Reader::Status::kEnd;
  EXPECT_EQ(ReadAll(text, &last), records);
  EXPECT_EQ(last, Reader::Status::kRecord);
}

TEST(CsvTest, CrlfLineEnds) {
  EXPECT_EQ(ReadAll("a,b\r\n\"c\r\nd\",e\r\n"),
            (Records{{"a", "b"}, {"c\r\nd", "e"}}));
}

TEST(CsvTest, LinesOfRecordsCountLineBreaksInsideQuotes) {
  std::istringstream in("h\n\"a\nb\nc\"\nd\n");
  Reader reader(&in, "t.csv");
  std::vector<std::string> fields;
  ASSERT_EQ(reader.Next(&fields), Reader::Status::kRecord);
  EXPECT_EQ(reader.line(), 1);
  ASSERT_EQ(reader.Next(&fields), Reader::Status::kRecord);
  EXPECT_EQ(reader.line(), 2);
  ASSERT_EQ(reader.Next(&fields), Reader::Status::kRecord);
  EXPECT_EQ(reader.line(), 5);
  EXPECT_EQ(fields, std::vector<std::string>{"d"});
  EXPECT_EQ(reader.Next(&fields), Reader::Status::kEnd);
}

TEST(CsvTest, ARowCutShortIsTruncated) {
  Reader::Status last = Reader::Status::kEnd;
  EXPECT_EQ(ReadAll("a,b\nc,d", &last), (Records{{"a", "b"}, {"c", "d"}}));
  EXPECT_EQ(last, Reader::Status::kTruncated);
  // Cut inside the quotes of a field on the record's own line.
  EXPECT_EQ(ReadAll("a,b\nc,\"d,e", &last), (Records{{"a", "b"}, {"c", "d,e"}}));
  EXPECT_EQ(last, Reader::Status::kTruncated);
  EXPECT_EQ(ReadAll(""), Records{});
}

TEST(CsvTest, MalformedInputNamesFileAndLine) {
  EXPECT_EQ(ErrorOf("a,b\nc,d\"e\n"),
            "t.csv:2: a double quote inside field 2, which is not quoted (a field "
            "holding quotes must be quoted, with its quotes doubled)");
  EXPECT_EQ(ErrorOf("a\n\"b\"c,d\n"),
            "t.csv:2: expected a comma or the end of the line after the closing quote "
            "of field 1, got 'c'");
  EXPECT_EQ(ErrorOf("a\nb\rc\n"),
            "t.csv:2: a carriage return that is not part of a CRLF line end, after "
            "field 1 (quote fields that hold one)");
  EXPECT_EQ(ErrorOf("a\n\"b\nc\nd\n"),
            "t.csv:2: the quoted field 1 that starts on this line is not closed before "
            "the end of the file");
}

}  // namespace
}  // namespace pams::csv
