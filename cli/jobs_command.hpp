// `vgsim jobs`: several training jobs at once on one cluster (shared time-sliced GPUs and links).
#pragma once
#include <CLI/CLI.hpp>
namespace vgsim::cli {
void add_jobs_command(CLI::App& app);
}
