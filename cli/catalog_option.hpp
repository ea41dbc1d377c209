// `--catalog DIR` (repeatable) for every command that loads the device catalog (collective, train, params, infer,
// jobs, sweep, compare, calibrate fit / fit-training / validate): every *.json catalog file of DIR (the format of
// topologies/catalog) joins the built-in catalog, in the order given. It sets the process-wide list that
// topo::Catalog::load_default() reads, so the commands and the libraries under them need no other change; a key
// already in the catalog must be the identical entry (the error names both files).
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/topologies/catalog.hpp"

namespace vgsim::cli {

inline void add_catalog_option(CLI::App* c) {
  c->add_option_function<std::vector<std::string>>(
       "--catalog",
       [](const std::vector<std::string>& dirs) {
         for (const auto& d : dirs) {
           std::error_code ec;
           if (!std::filesystem::is_directory(d, ec))
             throw InputError("", "--catalog", "not a directory", "\"" + d + "\"",
                              "a directory of catalog *.json files (the format of topologies/catalog)");
         }
         topo::Catalog::set_user_dirs(dirs);
       },
       "add the device models of every *.json catalog file in DIR (format of topologies/catalog; repeatable; a key "
       "the catalog has must be the identical entry)")
      ->type_name("DIR")
      ->allow_extra_args(false);  // one DIR per --catalog: a following positional argument is not a directory
}

}  // namespace vgsim::cli
