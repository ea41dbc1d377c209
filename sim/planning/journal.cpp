// The sweep journal: framed, checksummed, group-fsynced records (see include/vgsim/sim/planning/journal.hpp).
#include "vgsim/sim/planning/journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <boost/crc.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/sim/planning/point_result_json.hpp"

namespace vgsim::sim::planning {

namespace {

const std::string kMagic = "vgsim-sweep-journal 2";
const std::string kMagicV1 = "vgsim-sweep-journal 1";

void write_all(int fd, const std::string& bytes, const std::string& path) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t w = ::write(fd, p, left);
    if (w <= 0) throw InputError(path, "", "cannot append to the sweep journal", "", "a writable file with free space");
    p += w;
    left -= static_cast<std::size_t>(w);
  }
}

void fsync_folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (d >= 0) {
    ::fsync(d);
    ::close(d);
  }
}

// Parses "<tag> <bytes> <crc32> <payload>" (no line end); returns the payload or a reason it is not intact.
bool unframe(const std::string& line, char tag, std::string& payload, std::string& why) {
  if (line.size() < 2 || line[0] != tag || line[1] != ' ') {
    why = std::string("not a '") + tag + "' record";
    return false;
  }
  std::size_t at = 2, sp = line.find(' ', at);
  if (sp == std::string::npos || sp == at || sp - at > 12) {
    why = "no payload length";
    return false;
  }
  std::size_t bytes = 0;
  for (std::size_t i = at; i < sp; ++i) {
    if (line[i] < '0' || line[i] > '9') {
      why = "payload length is not a number";
      return false;
    }
    bytes = bytes * 10 + static_cast<std::size_t>(line[i] - '0');
  }
  at = sp + 1;
  if (line.size() < at + 9 || line[at + 8] != ' ') {
    why = "no checksum";
    return false;
  }
  std::uint32_t crc = 0;
  for (std::size_t i = at; i < at + 8; ++i) {
    const char c = line[i];
    const int v = c >= '0' && c <= '9' ? c - '0' : (c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1);
    if (v < 0) {
      why = "checksum is not 8 hex digits";
      return false;
    }
    crc = crc << 4 | static_cast<std::uint32_t>(v);
  }
  payload = line.substr(at + 9);
  if (payload.size() != bytes) {
    why = "payload is " + std::to_string(payload.size()) + " bytes, the frame says " + std::to_string(bytes);
    return false;
  }
  if (crc32(payload) != crc) {
    why = "checksum mismatch";
    return false;
  }
  return true;
}

}  // namespace

std::uint32_t crc32(const std::string& bytes) {
  boost::crc_32_type c;
  c.process_bytes(bytes.data(), bytes.size());
  return c.checksum();
}

std::string journal_frame(char tag, const std::string& payload) {
  char crc[9];
  std::snprintf(crc, sizeof crc, "%08x", crc32(payload));
  return std::string(1, tag) + " " + std::to_string(payload.size()) + " " + crc + " " + payload + "\n";
}

namespace {
std::string header_line(const std::string& csv_header) {
  return csv_header.size() && csv_header.back() == '\n' ? csv_header.substr(0, csv_header.size() - 1) : csv_header;
}
}  // namespace

std::string journal_text(const std::string& csv_header, const std::string& run_key,
                         const std::vector<PointResult>& results) {
  std::string t = kMagic + "\n" + journal_frame('H', header_line(csv_header)) + journal_frame('K', run_key);
  for (const auto& r : results) t += journal_frame('R', to_json(r).dump());
  return t;
}

SweepJournal::SweepJournal(std::string path, const std::string& csv_header, const std::string& run_key, bool fresh)
    : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (fresh ? O_TRUNC : 0), 0644);
  if (fd_ < 0) throw InputError(path_, "", "cannot open the sweep journal for writing", "", "a writable path");
  if (fresh) {
    write_all(fd_, journal_text(csv_header, run_key, {}), path_);
    ::fsync(fd_);
    fsync_folder_of(path_);
  }
  last_sync_ = std::chrono::steady_clock::now();
}

SweepJournal::~SweepJournal() { close(); }

void SweepJournal::append(const PointResult& r) {
  write_all(fd_, journal_frame('R', to_json(r).dump()), path_);
  if (std::chrono::steady_clock::now() - last_sync_ >= kJournalSyncInterval) sync();
}

void SweepJournal::sync() {
  ::fsync(fd_);
  last_sync_ = std::chrono::steady_clock::now();
}

void SweepJournal::close() {
  if (fd_ < 0) return;
  ::fsync(fd_);
  ::close(fd_);
  fd_ = -1;
}

JournalContents read_journal(const std::string& path, const std::string& csv_header, const std::string& run_key) {
  JournalContents out;
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::size_t pos = 0, line_no = 0;
  auto next_line = [&](std::string& line) {  // false at the end; a last line without '\n' is torn
    if (pos >= text.size()) return false;
    const std::size_t nl = text.find('\n', pos);
    ++line_no;
    line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    const bool complete = nl != std::string::npos;
    pos = complete ? nl + 1 : text.size();
    if (!complete) line.insert(0, 1, '\0');  // marks the torn tail for the caller
    return true;
  };
  std::string line;
  if (!next_line(line)) return out;  // empty file: killed before the header was written
  if (line == kMagicV1)
    throw InputError(path, "line 1", "a journal of an older vgsim (format 1, which records no run key)", line,
                     "'" + kMagic + "' (run without --resume: the sweep starts over)");
  if (line != kMagic) {
    if (line.size() && line[0] == '\0') return out;  // the magic line itself was torn: nothing finished
    throw InputError(path, "line 1", "not a vgsim sweep journal", vgsim::excerpt(line, 60),
                     "'" + kMagic + "' (remove the file, or run without --resume)");
  }
  if (!next_line(line) || line[0] == '\0') return out;  // header torn: nothing finished
  std::string payload, why;
  if (!unframe(line, 'H', payload, why))
    throw InputError(path, "line 2", "damaged plan header record (" + why + ")", vgsim::excerpt(line, 60),
                     "an intact header (remove the file, or run without --resume)");
  if (payload != header_line(csv_header))
    throw InputError(path, "line 2", "journal was written by a different plan (columns differ)",
                     vgsim::excerpt(payload, 60), "the columns of this plan, or run without --resume");
  if (!next_line(line) || line[0] == '\0') return out;  // key torn: nothing finished
  if (!unframe(line, 'K', payload, why))
    throw InputError(path, "line 3", "damaged run key record (" + why + ")", vgsim::excerpt(line, 60),
                     "an intact run key (remove the file, or run without --resume)");
  if (payload != run_key)
    throw InputError(path, "line 3", "journal was written by another run (its results would be mixed with this run's)",
                     payload,
                     "this run's key '" + run_key +
                         "': the same --fidelity, --catalog directories and vgsim, or run without --resume");
  while (next_line(line)) {
    const bool torn = line[0] == '\0';
    std::string problem;
    if (torn) {
      problem = "torn (no line end)";
    } else if (!unframe(line, 'R', payload, why)) {
      problem = why;
    } else {
      try {
        const auto j = nlohmann::json::parse(payload);
        PointResult r = point_result_from_json(j, path, "line " + std::to_string(line_no));
        out.results[r.id] = std::move(r);
        continue;
      } catch (const nlohmann::json::exception&) {
        problem = "payload is not JSON";
      } catch (const InputError& e) {
        problem = e.what();
      }
    }
    if (!out.dropped++) out.first_problem = "line " + std::to_string(line_no) + ": " + problem;
  }
  return out;
}

}  // namespace vgsim::sim::planning
