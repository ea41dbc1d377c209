// Atomic whole-file writes via a temporary file and rename (see include/vgsim/kernel/atomic_file.hpp).
#include "vgsim/kernel/atomic_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/input_files.hpp"

namespace vgsim {

namespace {
// Refuses a target the atomic rename would destroy: anything but a regular file (a device node, FIFO or socket would be
// replaced by a regular file; /dev/full as an output path once was), and a file this process read as an input.
void refuse_destructive(const std::string& path, const std::string& option) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) && !std::filesystem::is_directory(st))
    throw InputError(path, option, "is not a regular file (a device, FIFO or socket)", "",
                     "the path of a regular file or of a new file: outputs are written to a temporary file and renamed "
                     "over the path, which would replace it");
  if (is_input_file(path))
    throw InputError(path, option, "is an input of this command", "",
                     "an output path that is not one of the command's input files (it would be overwritten)");
}

std::string temp_of(const std::string& path) { return path + ".tmp." + std::to_string(static_cast<long>(::getpid())); }

// Writes `content` to the temporary file of `path`; throws InputError (and leaves no temporary) on failure.
void write_temp(const std::string& path, const std::string& content) {
  const std::string tmp = temp_of(path);
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(path, "", "cannot create output file", "", "a writable location");
  out << content;
  out.flush();
  if (!out) {
    out.close();
    std::remove(tmp.c_str());
    throw InputError(path, "", "cannot write output file", "", "a writable location with free space");
  }
}
}  // namespace

void write_files_atomically(const std::vector<OutputFile>& outputs) {
  std::vector<const OutputFile*> todo;
  for (const auto& o : outputs) {
    if (o.path.empty()) continue;
    for (const OutputFile* t : todo)
      if (t->path == o.path)
        throw InputError("", o.option, "two outputs name the same file", o.path,
                         "different paths for " + t->option + " and " + o.option);
    refuse_destructive(o.path, o.option);
    todo.push_back(&o);
  }
  std::vector<std::string> written;
  try {
    for (const OutputFile* o : todo) {
      write_temp(o->path, o->content);
      written.push_back(temp_of(o->path));
    }
  } catch (...) {
    for (const auto& t : written) std::remove(t.c_str());
    throw;
  }
  for (const OutputFile* o : todo)
    if (std::rename(temp_of(o->path).c_str(), o->path.c_str()) != 0) {
      for (const auto& t : written) std::remove(t.c_str());
      throw InputError(o->path, "", "cannot move the finished output into place", "", "a writable location");
    }
}

void check_output_path(const std::string& path, const std::string& option) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, option, "is a folder", "", "the path of a file to write");
  refuse_destructive(path, option);
  const std::string tmp = temp_of(path);
  const bool existed = std::filesystem::exists(tmp, ec);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::app);
    if (!out) throw InputError(path, option, "cannot create output file", "", "a writable location (existing folder)");
  }
  if (!existed) std::remove(tmp.c_str());
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_files_atomically({OutputFile{"", path, content}});
}

}  // namespace vgsim
