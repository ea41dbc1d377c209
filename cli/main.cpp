// The vgsim command-line front end: a thin layer over the libraries. Each subcommand lives in its own file.
// Exit status: 0 success, 2 bad input (InputError: file, JSON path, value, expectation), 1 internal error.
#include <CLI/CLI.hpp>
#include <iostream>

#include "calibrate_command.hpp"
#include "collective_command.hpp"
#include "compare_command.hpp"
#include "infer_command.hpp"
#include "jobs_command.hpp"
#include "params_command.hpp"
#include "sweep_command.hpp"
#include "train_command.hpp"
#include "vgsim/kernel/input_error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"vgsim: simulate distributed deep-learning training and NCCL collectives on (virtualized) GPU clusters"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("vgsim ") + VGSIM_VERSION);
  vgsim::cli::add_collective_command(app);
  vgsim::cli::add_params_command(app);
  vgsim::cli::add_train_command(app);
  vgsim::cli::add_calibrate_command(app);
  vgsim::cli::add_infer_command(app);
  vgsim::cli::add_jobs_command(app);
  vgsim::cli::add_sweep_command(app);
  vgsim::cli::add_compare_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ConversionError& e) {
    // CLI11 says "Could not convert: --batch = abc" and stops: add what it expected.
    std::cerr << vgsim::excerpt(e.what(), 1000, true)
              << ": expected a value of the option's type (a whole number for counts, a number for rates; the "
                 "option's --help line gives its form)\nRun with --help for more information.\n";
    return 2;
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // CLI11 quotes the bad value in full: print a bounded, escaped excerpt of its message instead.
    std::cerr << vgsim::excerpt(e.what(), 1000, true) << "\nRun with --help for more information.\n";
    return 2;
  } catch (const vgsim::InputError& e) {
    std::cerr << "vgsim: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "vgsim: internal error: " << vgsim::excerpt(e.what(), 1000, true) << "\n";
    return 1;
  }
  return 0;
}
