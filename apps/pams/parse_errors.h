// The command line's own errors (CLI11's: a missing CONFIG, an unknown
// flag, a flag without its value, a value that fails its check) as pams
// prints them: one line that starts with "error:", names the command, says
// what is wrong in the user's words and what to do (the usage, the nearest
// known option, the --help to read).
//
// Pure; any thread.

#ifndef PAMS_APPS_PAMS_PARSE_ERRORS_H_
#define PAMS_APPS_PAMS_PARSE_ERRORS_H_

#include <string>

#include <CLI/CLI.hpp>

namespace pams::cli {

// The message for e, thrown by app.parse(). command is the subcommand being
// parsed (nullptr: none yet).
std::string ParseErrorMessage(const CLI::ParseError& e, const CLI::App* app,
                              const CLI::App* command);

// The option of `command` nearest to `flag` in spelling ("--sed" ->
// "--seed"), or "" when none is close.
std::string NearestOption(const CLI::App* command, const std::string& flag);

}  // namespace pams::cli

#endif  // PAMS_APPS_PAMS_PARSE_ERRORS_H_
