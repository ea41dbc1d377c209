// The bad-input corpus (tests/cli/bad_inputs/cases.json, format in its README.md): runs every case against the built
// vgsim in a fresh temporary directory and checks the exit code (exactly as stated: 2 for bad input, never 0, 1 or
// a signal), the words its message must contain, that the output is short and holds no raw control bytes or invalid
// UTF-8, and that no output file (complete or half-written) is left behind. Set VGSIM_BAD_INPUT_CASE=<substring>
// to run only the cases whose name contains it.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

const std::string kCases = std::string(VGSIM_DATA_DIR) + "/tests/cli/bad_inputs/cases.json";
constexpr std::size_t kMaxOutput = 4096;  // stdout + stderr of one case, bytes
constexpr int kTimeoutS = 120;            // per case

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// Expands {tmp}, {data} and {repeat:N:TEXT} (TEXT repeated N times; TEXT has no '}').
std::string expand(std::string s, const std::string& tmp) {
  replace_all(s, "{tmp}", tmp);
  replace_all(s, "{data}", VGSIM_DATA_DIR);
  for (std::size_t at = s.find("{repeat:"); at != std::string::npos; at = s.find("{repeat:", at)) {
    const std::size_t colon = s.find(':', at + 8), close = s.find('}', at);
    if (colon == std::string::npos || close == std::string::npos || colon > close)
      throw std::runtime_error("malformed {repeat:N:TEXT} in " + s.substr(at, 40));
    const std::size_t n = std::stoul(s.substr(at + 8, colon - at - 8));
    const std::string text = s.substr(colon + 1, close - colon - 1);
    std::string rep;
    for (std::size_t i = 0; i < n; ++i) rep += text;
    s.replace(at, close - at + 1, rep);
    at += rep.size();
  }
  return s;
}

// Every "{data}/<path>" in `s` must name an existing repository file: a case whose input is gone fails rather than
// passing on a "cannot open file" message.
void require_repository_files(const std::string& s, std::vector<std::string>& problems) {
  for (std::size_t at = s.find("{data}/"); at != std::string::npos; at = s.find("{data}/", at + 1)) {
    std::size_t end = at + 7;
    while (end < s.size() && s[end] != ' ' && s[end] != '"' && s[end] != '#' && s[end] != '\n') ++end;
    const std::string rel = s.substr(at + 7, end - at - 7);
    if (!fs::exists(fs::path(VGSIM_DATA_DIR) / rel)) problems.push_back("repository file missing: " + rel);
  }
}

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

// Writes one inline input: text, {"hex": ...}, {"dir": true}, or {"from": "{data}/...", "replace": [[old, new]]}.
void write_input(const fs::path& p, const Json& spec, const std::string& tmp, std::vector<std::string>& problems) {
  fs::create_directories(p.parent_path());
  std::string content;
  if (spec.is_string()) {
    content = expand(spec.get<std::string>(), tmp);
  } else if (spec.contains("dir")) {
    fs::create_directories(p);
    return;
  } else if (spec.contains("hex")) {
    content = from_hex(spec["hex"].get<std::string>());
  } else if (spec.contains("from")) {
    const std::string from = spec["from"].get<std::string>();
    require_repository_files(from, problems);
    content = read(expand(from, tmp));
    for (const auto& r : spec.value("replace", Json::array())) {
      const std::string old = expand(r.at(0).get<std::string>(), tmp);
      if (content.find(old) == std::string::npos) problems.push_back("replace: '" + old + "' not in " + from);
      replace_all(content, old, expand(r.at(1).get<std::string>(), tmp));
    }
    if (spec.contains("truncate")) content.resize(std::min(content.size(), spec["truncate"].get<std::size_t>()));
    if (spec.contains("append")) content += expand(spec["append"].get<std::string>(), tmp);
  } else {
    problems.push_back("unknown file spec for " + p.string());
    return;
  }
  std::ofstream(p, std::ios::binary) << content;
}

struct Outcome {
  int status = -1;  // exit status; -1 when killed by a signal or timed out
  int signal = 0;
  std::string out, err;  // stdout, stderr
};

Outcome run(const std::vector<std::string>& args, const std::map<std::string, std::string>& env, const fs::path& cwd,
            const fs::path& io_dir) {
  const fs::path out = io_dir / "stdout", err = io_dir / "stderr";
  std::vector<char*> argv;
  std::string exe = VGSIM_EXE;
  argv.push_back(exe.data());
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(cwd.c_str()) != 0) _exit(127);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    const int in = open("/dev/null", O_RDONLY);
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(in, 0), dup2(o, 1), dup2(e, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  Outcome r;
  int st = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kTimeoutS);
  while (waitpid(pid, &st, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      r.err = "(timed out)";
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(st))
    r.status = WEXITSTATUS(st);
  else if (WIFSIGNALED(st))
    r.signal = WTERMSIG(st);
  r.out = read(out);
  r.err = read(err);
  return r;
}

// The first raw control byte or invalid UTF-8 sequence in `s` (its offset), or npos: messages must escape what they
// quote.
std::size_t first_raw_byte(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return i;
      ++i;
      continue;
    }
    const int n = (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
    if (n < 0 || c == 0xC0 || c == 0xC1 || i + n >= s.size()) return i;
    for (int k = 1; k <= n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return i;
    i += n + 1;
  }
  return std::string::npos;
}

std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir)) names.insert(fs::relative(e.path(), dir).string());
  return names;
}

Json load_cases() {
  std::ifstream in(kCases);
  REQUIRE(in.good());
  return Json::parse(in);
}

std::string command_of(const Json& c) {
  const auto& a = c.at("args");
  std::string cmd = a.at(0).get<std::string>();
  if (cmd == "calibrate" && a.size() > 1) cmd += " " + a.at(1).get<std::string>();
  return cmd;
}

}  // namespace

TEST_CASE("the bad-input corpus covers every command and every input kind", "[cli][bad-inputs]") {
  const Json cases = load_cases();
  std::map<std::string, int> per_command;
  std::set<std::string> names, kinds;
  for (const auto& c : cases.at("cases")) {
    ++per_command[command_of(c)];
    CHECK(names.insert(c.at("name").get<std::string>()).second);  // names are unique
    kinds.insert(c.at("kind").get<std::string>());
    CHECK(c.at("exit").get<int>() == 2);  // the corpus is bad input only
    CHECK_FALSE(c.at("stderr").empty());  // every case states the words its message must contain
  }
  CHECK(cases.at("cases").size() >= 120);
  for (const char* cmd : {"collective", "params", "train", "infer", "jobs", "sweep", "compare", "calibrate import",
                          "calibrate fit", "calibrate fit-training", "calibrate validate"}) {
    INFO(cmd);
    CHECK(per_command[cmd] >= 3);
  }
  for (const char* kind :
       {"cluster", "catalog", "model", "scenario", "plan", "jobs", "mpijob", "design", "calibration profile",
        "nccl-tests log", "osu log", "jsonl", "horovod timeline", "training csv", "training profile", "command line"}) {
    INFO(kind);
    CHECK(kinds.count(kind) == 1);
  }
}

TEST_CASE("every bad input exits 2 with a short message that names the file, path, value and expectation",
          "[cli][bad-inputs]") {
  const Json cases = load_cases();
  const char* only = std::getenv("VGSIM_BAD_INPUT_CASE");
  const fs::path root = fs::temp_directory_path() / ("vgsim-bad-inputs-" + std::to_string(::getpid()));
  int ran = 0;
  for (const auto& c : cases.at("cases")) {
    const std::string name = c.at("name").get<std::string>();
    if (only && name.find(only) == std::string::npos) continue;
    ++ran;
    const fs::path tmp = root / name, io = root / (name + ".io");
    fs::remove_all(tmp);
    fs::create_directories(tmp);
    fs::create_directories(io);
    std::vector<std::string> problems;
    const Json files = c.value("files", Json::object()), env_spec = c.value("env", Json::object());
    for (const auto& [file, spec] : files.items()) write_input(tmp / file, spec, tmp.string(), problems);
    std::vector<std::string> args;
    for (const auto& a : c.at("args")) {
      require_repository_files(a.get<std::string>(), problems);
      args.push_back(expand(a.get<std::string>(), tmp.string()));
    }
    std::map<std::string, std::string> env;
    for (const auto& [k, v] : env_spec.items()) env[k] = expand(v.get<std::string>(), tmp.string());
    const std::set<std::string> before = listing(tmp);
    const Outcome r = run(args, env, tmp, io);
    std::string shown_args;
    for (const auto& a : c.at("args")) shown_args += " " + a.get<std::string>();
    INFO("case " << name << ": vgsim" << shown_args.substr(0, 300));
    INFO("stderr: " << r.err.substr(0, 1000));
    INFO("stdout: " << r.out.substr(0, 300));
    for (const auto& p : problems) INFO(p);
    CHECK(problems.empty());
    CHECK(r.signal == 0);
    CHECK(r.status == c.at("exit").get<int>());
    for (const auto& w : c.at("stderr")) {
      const std::string word = expand(w.get<std::string>(), tmp.string());
      INFO("must contain: " << word);
      CHECK(r.err.find(word) != std::string::npos);
    }
    CHECK(r.out.size() + r.err.size() < kMaxOutput);
    CHECK(first_raw_byte(r.err) == std::string::npos);
    CHECK(first_raw_byte(r.out) == std::string::npos);
    // No output left behind: the directory holds exactly what the case supplied (plus what it allows).
    std::set<std::string> after = listing(tmp), expected = before;
    for (const auto& o : c.value("outputs", Json::array())) expected.insert(o.get<std::string>());
    CHECK(after == expected);
    fs::remove_all(io);
  }
  CHECK(ran > 0);
  fs::remove_all(root);
}
