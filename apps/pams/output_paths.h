// Output paths that would destroy data: an output that is one of the
// command's inputs (`--steps-csv config.json` would truncate the config) or
// another of its outputs (`--steps-csv out.csv --agents-csv out.csv` would
// lose the steps). Checked before any file is opened.
//
// Files are compared by what they are, not by how they are named: an
// existing file by its device and inode (which sees through ./, .., symlinks
// and hard links), a file still to be created by its absolute path with the
// symlinks of its existing directories resolved. "-" is stdout, compared
// with the other outputs by what stdout is. Devices (/dev/null, a terminal)
// may take several outputs.
//
// Pure functions of the file system; any thread.

#ifndef PAMS_APPS_PAMS_OUTPUT_PATHS_H_
#define PAMS_APPS_PAMS_OUTPUT_PATHS_H_

#include <string>
#include <vector>

namespace pams::cli {

// A path as the user named it, with what named it ("--steps-csv", "CONFIG").
struct NamedPath {
  std::string what;
  std::string path;
};

// Throws ConfigError (exit status 2), naming both options and paths, when an
// output is the same file as an input or as an earlier output. Empty paths
// are skipped.
void CheckOutputPaths(const std::vector<NamedPath>& inputs,
                      const std::vector<NamedPath>& outputs);

// Whether a and b name the same file (as CheckOutputPaths compares them;
// two names of one device count as the same here).
bool SameFile(const std::string& a, const std::string& b);

}  // namespace pams::cli

#endif  // PAMS_APPS_PAMS_OUTPUT_PATHS_H_
