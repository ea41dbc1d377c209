// `vgsim infer`: forward-only throughput and latency per GPU endpoint (MIG instances, vGPUs, whole GPUs).
#pragma once
#include <CLI/CLI.hpp>
namespace vgsim::cli {
void add_infer_command(CLI::App& app);
}
