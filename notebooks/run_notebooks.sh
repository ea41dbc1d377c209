#!/usr/bin/env bash
# Executes every notebook in this folder headless (jupyter nbconvert --execute) against a vgsim binary and checks
# that each wrote its PNG figures. Usage: run_notebooks.sh <vgsim binary> <figure dir> [notebook name ...] (default:
# every notebook; design_comparison runs the plan VGSIM_SWEEP_PLAN names, default the seed's). Exit 77 (CTest: skipped)
# when jupyter nbconvert or matplotlib is missing (.ci/setup installs python3-matplotlib, jupyter-nbconvert,
# python3-nbformat and python3-ipykernel). VGSIM_NOTEBOOK_CELL_TIMEOUT_S: seconds per cell (default 120; the tests set
# it longer for sanitizer builds).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$(realpath "$1")"; out="$2"; shift 2
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for nb in "$here"/*.ipynb; do names+=("$(basename "$nb" .ipynb)"); done
fi
# The figures each notebook writes.
declare -A figures=(
  [scaling_curves]="scaling_curves" [design_comparison]="design_cost_throughput design_exposure_by_cause design_breakdown"
  [calibration_fit]="calibration_fit" [timeline_summary]="timeline_summary" [llm_design_study]="llm_design_study")
if ! jupyter nbconvert --version >/dev/null 2>&1; then
  echo "SKIP: jupyter nbconvert is not installed (apt-get install jupyter-nbconvert python3-ipykernel; .ci/setup does)"; exit 77
fi
if ! /usr/bin/env python3 -c "import matplotlib, ipykernel" >/dev/null 2>&1 && ! /usr/bin/python3 -c "import matplotlib, ipykernel" >/dev/null 2>&1; then
  echo "SKIP: python3 matplotlib / ipykernel missing (apt-get install python3-matplotlib python3-ipykernel)"; exit 77
fi
rm -rf "$out"; mkdir -p "$out/executed" "$out/tmp"
# The notebooks' scratch folders (tempfile.mkdtemp) go under the figure dir, which the next run removes, not /tmp.
export TMPDIR="$(realpath "$out")/tmp"
export VGSIM_BIN="$bin" VGSIM_NOTEBOOK_OUT="$out" VGSIM_DATA_DIR="${VGSIM_DATA_DIR:-$(dirname "$here")}"
status=0
for name in "${names[@]}"; do
  nb="$here/$name.ipynb"
  [ -f "$nb" ] || { echo "FAIL $name: no notebook $nb"; status=1; continue; }
  start=$(date +%s)
  if jupyter nbconvert --to notebook --execute --ExecutePreprocessor.timeout="${VGSIM_NOTEBOOK_CELL_TIMEOUT_S:-120}" \
       --output-dir "$out/executed" "$nb" >"$out/$name.log" 2>&1; then
    echo "ok   $name ($(( $(date +%s) - start )) s)"
  else
    echo "FAIL $name"; tail -30 "$out/$name.log"; status=1
  fi
done
for name in "${names[@]}"; do
  [ -n "${figures[$name]+set}" ] || { echo "FAIL $name: run_notebooks.sh lists no figures for it"; status=1; continue; }
  for png in ${figures[$name]}; do
    [ -s "$out/$png.png" ] || { echo "missing figure $out/$png.png"; status=1; }
  done
done
exit $status
