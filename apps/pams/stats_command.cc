// pams stats: not built yet (issue 5).

#include <cstdio>

#include "commands.h"

namespace pams::cli {

std::function<int()> AddStatsCommand(CLI::App* app) {
  app->add_subcommand("stats", "(not available yet)");
  return [] {
    std::fprintf(stderr, "error: pams stats is not available yet\n");
    return kExitFailure;
  };
}

}  // namespace pams::cli
