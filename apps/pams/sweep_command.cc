// pams sweep: not built yet (issue 5).

#include <cstdio>

#include "commands.h"

namespace pams::cli {

std::function<int()> AddSweepCommand(CLI::App* app) {
  app->add_subcommand("sweep", "(not available yet)");
  return [] {
    std::fprintf(stderr, "error: pams sweep is not available yet\n");
    return kExitFailure;
  };
}

}  // namespace pams::cli
