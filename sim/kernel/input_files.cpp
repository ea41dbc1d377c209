// The process's input files by device and inode (see include/vgsim/kernel/input_files.hpp).
#include "vgsim/kernel/input_files.hpp"

#include <sys/stat.h>

#include <mutex>
#include <set>
#include <utility>

namespace vgsim {

namespace {
std::mutex inputs_mutex;
std::set<std::pair<unsigned long long, unsigned long long>>& inputs() {
  static std::set<std::pair<unsigned long long, unsigned long long>> s;
  return s;
}
}  // namespace

void note_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;
  const std::lock_guard<std::mutex> lock(inputs_mutex);
  inputs().insert({static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino)});
}

bool is_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  const std::lock_guard<std::mutex> lock(inputs_mutex);
  return inputs().count({static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino)}) > 0;
}

std::ifstream open_input(const std::string& path, std::ios::openmode mode) {
  note_input_file(path);
  return std::ifstream(path, mode | std::ios::in);
}

}  // namespace vgsim
