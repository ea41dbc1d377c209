// Writes an output file all at once: the content goes to "<path>.tmp.<pid>" and is renamed over <path> only when
// complete, so a failed run never leaves a half-written output in place of a good one. Errors throw InputError
// naming the path. Every writer below refuses, before it writes, a target that is not a regular file (a device node,
// FIFO or socket, which the rename would replace) and a file this process read as an input (input_files.hpp).
#pragma once

#include <string>
#include <vector>

namespace vgsim {

void write_file_atomically(const std::string& path, const std::string& content);

// Fails early, before a long computation, when `path` could not be written later: InputError naming the path and
// `option` when it is a folder or its temporary file cannot be created there (missing folder, no permission). Leaves
// nothing behind.
void check_output_path(const std::string& path, const std::string& option);

// Several outputs of one command, all or none: every temporary file is written first; if one fails, all are removed
// and nothing is replaced. Two outputs naming the same path are an InputError (one would overwrite the other).
// `outputs` pairs an option name (for messages, e.g. "--json") with its path; an empty path is skipped.
struct OutputFile {
  std::string option, path, content;
};
void write_files_atomically(const std::vector<OutputFile>& outputs);

}  // namespace vgsim
