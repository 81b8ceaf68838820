#include "parse_errors.h"

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "pams/errors.h"
#include "support/edit_distance.h"

namespace pams::cli {

namespace {

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// "pams run CONFIG [options]".
std::string Usage(const CLI::App* command) {
  std::string usage = "pams " + command->get_name();
  for (const CLI::Option* opt : command->get_options()) {
    if (opt->get_positional() && opt->get_required()) usage += " " + opt->get_type_name();
  }
  return usage + " [options]";
}

// The arguments of an ExtrasError, in the order given.
std::vector<std::string> ExtraArguments(const std::string& what) {
  std::vector<std::string> args;
  const size_t colon = what.find(": ");
  if (colon == std::string::npos) return args;
  std::istringstream words(what.substr(colon + 2));
  std::string word;
  while (words >> word) args.push_back(word);
  std::reverse(args.begin(), args.end());  // CLI11 lists them last first
  return args;
}

}  // namespace

std::string NearestOption(const CLI::App* command, const std::string& flag) {
  std::string bare = flag;
  bare.erase(0, bare.find_first_not_of('-'));
  if (const size_t eq = bare.find('='); eq != std::string::npos) bare.erase(eq);
  std::string nearest;
  size_t best = std::max<size_t>(2, bare.size() / 3) + 1;
  for (const CLI::Option* opt : command->get_options()) {
    for (const std::string& name : opt->get_lnames()) {
      const size_t d = bare.size() < 100 ? EditDistance(bare, name) : best;
      if (d < best) {
        best = d;
        nearest = "--" + name;
      }
    }
  }
  return nearest;
}

std::string ParseErrorMessage(const CLI::ParseError& e, const CLI::App* app,
                              const CLI::App* command) {
  const std::string what = ShortenForMessage(e.what(), 300);
  if (command == nullptr) {
    std::string names;
    for (const CLI::App* sub : app->get_subcommands({})) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (StartsWith(what, "A subcommand")) {
      return "error: a command is required: pams COMMAND ..., COMMAND one of " + names +
             " (see pams --help)";
    }
    return "error: " + what + " (see pams --help)";
  }
  const std::string prefix = "error: pams " + command->get_name() + ": ";
  const std::string help = "see pams " + command->get_name() + " --help";
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
    const std::string name = what.substr(0, what.find(" is required"));
    const CLI::Option* opt = command->get_option_no_throw(name);
    if (opt != nullptr && opt->get_positional()) {
      return prefix + opt->get_type_name() + " is missing: " + Usage(command) + " (" + help +
             ")";
    }
    if (opt != nullptr) {
      return prefix + name + " " + opt->get_type_name() + " is required (" + help + ")";
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
    const std::string name = what.substr(0, what.find(':'));
    const CLI::Option* opt = command->get_option_no_throw(name);
    if (opt != nullptr) {
      return prefix + name + " needs a value (" + opt->get_type_name() + "), e.g. " + name +
             " " + (opt->get_type_name() == "INT" ? "1" : opt->get_type_name()) + " (" +
             help + ")";
    }
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    const std::vector<std::string> args = ExtraArguments(what);
    for (const std::string& arg : args) {
      if (arg.size() < 2 || arg[0] != '-') continue;
      const std::string nearest = NearestOption(command, arg);
      return prefix + "unknown option " + arg +
             (nearest.empty() ? "" : " (did you mean " + nearest + "?)") + "; " + help +
             " for the options";
    }
    if (!args.empty()) {
      return prefix + "unexpected argument " + args.front() + ": " + Usage(command) + " (" +
             help + ")";
    }
  }
  return prefix + what + " (" + help + ")";
}

}  // namespace pams::cli
