// pams plot: not built yet (issue 5).

#include <cstdio>

#include "commands.h"

namespace pams::cli {

std::function<int()> AddPlotCommand(CLI::App* app) {
  app->add_subcommand("plot", "(not available yet)");
  return [] {
    std::fprintf(stderr, "error: pams plot is not available yet\n");
    return kExitFailure;
  };
}

}  // namespace pams::cli
