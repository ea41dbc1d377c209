// The files this process has read as inputs, so that no output can overwrite one (issue 40): every reader opens its
// input through open_input, which remembers the file by device and inode (any spelling of the path, a hard link or a
// symlink to it is the same file); the output writer (atomic_file.hpp) refuses a target that is one of them. A
// process-wide registry because inputs are read deep inside loaders (cluster files, catalogs, plans, profiles, logs)
// that no command-level list could follow. Thread-safe (a sweep loads clusters on several threads).
#pragma once

#include <fstream>
#include <string>

namespace vgsim {

// Opens `path` for reading and, when it exists, remembers it as an input of this process.
std::ifstream open_input(const std::string& path, std::ios::openmode mode = std::ios::in);

// Remembers `path` as an input (nothing when it does not exist).
void note_input_file(const std::string& path);

// True when `path` names a file this process has read as an input.
bool is_input_file(const std::string& path);

}  // namespace vgsim
