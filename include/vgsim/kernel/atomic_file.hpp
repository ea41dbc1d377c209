// Writes an output file all at once: the content goes to "<path>.tmp.<pid>" and is renamed over <path> only when
// complete, so a failed run never leaves a half-written output in place of a good one. Errors throw InputError
// naming the path.
#pragma once

#include <string>

namespace vgsim {

void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace vgsim
