// pams validate: not built yet (issue 5).

#include <cstdio>

#include "commands.h"

namespace pams::cli {

std::function<int()> AddValidateCommand(CLI::App* app) {
  app->add_subcommand("validate", "(not available yet)");
  return [] {
    std::fprintf(stderr, "error: pams validate is not available yet\n");
    return kExitFailure;
  };
}

}  // namespace pams::cli
