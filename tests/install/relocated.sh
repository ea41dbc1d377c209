#!/usr/bin/env bash
# A relocatable install (issue 38): the vgsim installed under one prefix and moved to another finds its data under the
# new prefix, not the source tree its libraries were built from. Usage: tests/install/relocated.sh BUILD_DIR
# Proof: a preset that exists only in the moved tree (share/vgsim/topologies/presets/moved-prefix-check.json) must be
# listed by `vgsim presets` and must load (`vgsim collective --cluster moved-prefix-check`): a vgsim reading the
# source tree or the first prefix cannot pass.
set -euo pipefail
build=$(cd "${1:?usage: relocated.sh BUILD_DIR}" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/vgsim-relocated.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cmake --install "$build" --prefix "$scratch/first" >/dev/null
mv "$scratch/first" "$scratch/moved"
presets=$scratch/moved/share/vgsim/topologies/presets
sed 's/"name": "r750xa-2x-100gbe"/"name": "moved-prefix-check"/' "$presets/r750xa-2x-100gbe.json" \
  > "$presets/moved-prefix-check.json"
unset VGSIM_DATA_DIR
cd "$scratch"  # no relative path to the source tree
out=$("$scratch/moved/bin/vgsim" presets)
if ! grep -q "moved-prefix-check" <<<"$out"; then
  echo "FAIL: the moved vgsim does not list the preset that exists only under its new prefix" >&2
  exit 1
fi
"$scratch/moved/bin/vgsim" collective --cluster moved-prefix-check -b 1M -e 1M >/dev/null
"$scratch/moved/bin/vgsim" train --scenario seed-rn50-2x1-100gbe >/dev/null
echo "relocated install: the vgsim moved to $scratch/moved reads its data there"
