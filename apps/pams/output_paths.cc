#include "output_paths.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "pams/errors.h"

namespace pams::cli {

namespace {

namespace fs = std::filesystem;

// What a path names (see output_paths.h).
struct Identity {
  bool known = false;   // false: could not be found out (never "the same")
  bool exists = false;
  bool device = false;  // a character or block device: may be shared
  dev_t dev = 0;
  ino_t ino = 0;
  std::string absolute;  // of a file that does not exist yet
};

// "-" is stdin for an input and stdout for an output.
Identity IdentityOf(const std::string& path, bool output) {
  Identity id;
  struct stat st {};
  const int found = path == "-" ? fstat(output ? STDOUT_FILENO : STDIN_FILENO, &st)
                                : stat(path.c_str(), &st);
  if (found == 0) {
    id.known = id.exists = true;
    id.device = S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode);
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    return id;
  }
  std::error_code error;
  fs::path absolute = fs::absolute(path, error);
  if (error) return id;
  // A dangling symlink names the file it will create.
  for (int hops = 0; hops < 40 && fs::is_symlink(absolute, error); ++hops) {
    const fs::path target = fs::read_symlink(absolute, error);
    if (error) return id;
    absolute = target.is_absolute() ? target : absolute.parent_path() / target;
  }
  const fs::path resolved = fs::weakly_canonical(absolute, error);
  if (error) return id;
  id.known = true;
  id.absolute = resolved.string();
  return id;
}

bool Same(const Identity& a, const Identity& b) {
  if (!a.known || !b.known || a.exists != b.exists) return false;
  if (a.exists) return a.dev == b.dev && a.ino == b.ino;
  return a.absolute == b.absolute;
}

std::string Named(const NamedPath& p) {
  if (p.path != "-") return p.what + " " + p.path;
  return p.what.find("stdout") == std::string::npos ? p.what + " (stdout)" : p.what;
}

}  // namespace

bool SameFile(const std::string& a, const std::string& b) {
  return Same(IdentityOf(a, true), IdentityOf(b, true));
}

void CheckOutputPaths(const std::vector<NamedPath>& inputs,
                      const std::vector<NamedPath>& outputs) {
  std::vector<Identity> input_ids;
  for (const NamedPath& input : inputs) {
    input_ids.push_back(input.path.empty() ? Identity{} : IdentityOf(input.path, false));
  }
  std::vector<Identity> output_ids;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& output = outputs[i];
    output_ids.push_back(output.path.empty() ? Identity{} : IdentityOf(output.path, true));
    const Identity& id = output_ids.back();
    if (id.device) continue;
    for (size_t j = 0; j < inputs.size(); ++j) {
      if (Same(id, input_ids[j])) {
        throw ConfigError(Named(output), "is the same file as " + Named(inputs[j]) +
                                             ", which writing it would destroy; choose "
                                             "another file");
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (Same(id, output_ids[j])) {
        throw ConfigError(Named(output), "is the same file as " + Named(outputs[j]) +
                                             "; give each output a file of its own");
      }
    }
  }
}

}  // namespace pams::cli
