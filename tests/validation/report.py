#!/usr/bin/env python3
# Writes docs/VALIDATION.md, the validation report: every table in which vgsim's output is compared with a measurement
# (or, for the seed what-if, the simulated figures other pages quote), taken from what the tests and the vgsim
# executable print. Usage: tests/validation/report.py BUILD_DIR [OUT] (OUT defaults to docs/VALIDATION.md), or
# `cmake --build BUILD_DIR --target validation-report`, which builds what it runs first.
# Deterministic: the same sources, data and build give a byte-identical file (no timings, no dates; order is the
# tests' order). A printed table whose format changed is an error here, not a silently missing section.
import csv
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MEASURED = os.path.join(ROOT, "data", "measured")
P5_TABLE = "gh-aws-samples-awsome-distributed-training_allreduce_2x8xH100_p5_EFA3200G.txt"


class ReportError(Exception):
    pass


def find_executable(build, name):
    found = []
    for d, dirs, files in os.walk(build):
        dirs[:] = sorted(x for x in dirs if x != "CMakeFiles")
        if name in files and os.access(os.path.join(d, name), os.X_OK):
            found.append(os.path.join(d, name))
    if not found:
        raise ReportError(f"{name}: not built under {build} (build it, or use the validation-report target)")
    return sorted(found, key=lambda p: (len(p), p))[0]


def run(cmd, allow_fail=False):
    env = dict(os.environ, VGSIM_DATA_DIR=ROOT, LC_ALL="C")
    r = subprocess.run(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0 and not allow_fail:
        raise ReportError(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout[-3000:]}")
    return r.stdout


def catch_spec(name):
    # A test case name as a Catch2 test spec (the characters Catch.cmake escapes).
    return re.sub(r"([,\[\]\\])", r"\\\1", name)


def catch_cases(exe, spec=None):
    out = run([exe] + ([spec] if spec else []) + ["--list-test-names-only"], allow_fail=True)
    return [line for line in out.splitlines() if line.strip()]


def run_case(exe, name):
    # [!mayfail] cases print their table and pass; every other case must pass.
    return run([exe, catch_spec(name), "--use-colour", "no"]).splitlines()


def pct(x, digits=1):
    text = f"{x:+.{digits}f}"
    return ("0." + "0" * digits if float(text) == 0 else text) + " %"


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        raise ReportError("median of an empty table")
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def md_table(header, align, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return lines


def provenance(path):
    # The file's own provenance: its leading '# source / hardware / command / note' lines and their continuations.
    out, keep = [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("#"):
                break
            text = line[1:].rstrip()
            if re.match(r"\s?(source|hardware|command|note|PARTIAL)", text):
                keep = True
                out.append(text.strip())
            elif keep and text.startswith("   "):
                out[-1] += " " + text.strip()
            else:
                keep = False
    return out


def rel(path):
    return os.path.relpath(path, ROOT)


# ---- nccl-tests replay (tests/sim/test_replay.cpp) ----

REPLAY_HEAD = re.compile(r"^(\S+\.txt) \(preset (\S+)\)$")
REPLAY_ROW = re.compile(r"^(\w+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%\s+(\S+)$")
REPLAY_MEDIAN = re.compile(r"^median error ([\d.]+)%$")


def parse_replay(lines):
    tables, cur = [], None
    for line in lines:
        if m := REPLAY_HEAD.match(line):
            cur = {"file": m[1], "preset": m[2], "rows": [], "median": None}
            tables.append(cur)
        elif cur and (m := REPLAY_ROW.match(line)):
            measured, simulated = float(m[3]), float(m[4])
            sign = 1 if simulated >= measured else -1
            cur["rows"].append((m[1], int(m[2]), m[3], m[4], sign * float(m[5]), m[6]))
        elif cur and (m := REPLAY_MEDIAN.match(line)):
            cur["median"] = float(m[1])
            cur = None
    for t in tables:
        if t["median"] is None or not t["rows"]:
            raise ReportError(f"test_replay: table {t['file']} has no rows or no median line")
    return tables


def replay_section(build):
    exe = find_executable(build, "test_replay")
    gaps = set(catch_cases(exe, "[!mayfail]"))
    out = ["## Collectives: nccl-tests tables replayed with catalog defaults", "",
           "Written by `test_replay` (tests/sim/test_replay.cpp): every measured nccl-tests table in `data/measured/"
           "nccl-tests` that has a preset, simulated per size with the catalog's defaults (nothing fitted to the "
           "table). Error = (simulated - measured) / measured time, out-of-place rows; + means vgsim is slower. The "
           "test asserts a median |error| <= 35 % per table; a known gap ([!mayfail]) is reported and does not fail "
           "the run. Each test case in the source says what the model lacks where a table misses.", ""]
    summary, details = [], []
    for case in catch_cases(exe):
        for t in parse_replay(run_case(exe, case)):
            status = "known gap" if case in gaps else "asserted <= 35 %"
            summary.append((f"[{case}](#{anchor(case)})", f"`{t['preset']}`", len(t["rows"]), f"{t['median']:.1f} %",
                            status))
            details += [f"### {case}", "", f"Measured: `{rel(os.path.join(MEASURED, 'nccl-tests', t['file']))}`, "
                        f"simulated on preset `{t['preset']}`; {status}. Provenance (from the file):", ""]
            details += [f"- {p}" for p in provenance(os.path.join(MEASURED, "nccl-tests", t["file"]))]
            details.append("")
            details += md_table(["op", "size (B)", "measured us", "simulated us", "error", "algo/proto"],
                                "lrrrrl", [(r[0], r[1], r[2], r[3], pct(r[4]), r[5]) for r in t["rows"]])
            details += ["", f"Median |error|: {t['median']:.1f} %.", ""]
    out += md_table(["table", "preset", "rows", "median abs error", "status"], "llrrl", summary)
    return out + [""] + details


def anchor(title):
    # GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens.
    return re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")


# ---- training development set (tests/sim/training/test_training.cpp) ----

TRAIN_HEAD = re.compile(r"^case\s+predicted\s+measured\s+error$")
TRAIN_ROW = re.compile(r"^(\S+)\s+([\d.]+)\s+([\d.]+)\s+(-?[\d.]+)%$")


def parse_training(lines):
    tables, cur = [], None
    for i, line in enumerate(lines):
        if TRAIN_HEAD.match(line):
            cur = {"title": lines[i - 1].strip(), "rows": []}
            tables.append(cur)
        elif cur and (m := TRAIN_ROW.match(line)):
            cur["rows"].append((m[1], m[2], m[3], float(m[4])))
        else:
            cur = None
    return tables


def training_cases():
    import csv
    with open(os.path.join(MEASURED, "training-cases.csv"), encoding="utf-8") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return {r["case_id"]: r for r in rows}


def training_section(build):
    exe = find_executable(build, "test_training")
    known = training_cases()
    out = ["## Training: the development set", "",
           "Written by `test_training` (tests/sim/training/test_training.cpp, cases tagged [validation]): every row "
           "of `data/measured/training-cases.csv` (published throughputs; each row's source below, details in the "
           "reference notes it names) predicted by `simulate_study`. Single-GPU rows use the uncalibrated roofline; "
           "multi-GPU rows are calibrated to the measured 1-GPU row of the same source "
           "(`compute.measured_throughput`) and predict the scaling. Error = (predicted - measured) / measured, in "
           "the CSV's metric. Which rows are asserted, and why the others are only reported, is said at each test "
           "case.", ""]
    for case in catch_cases(exe, "[validation]"):
        for t in parse_training(run_case(exe, case)):
            if not t["rows"]:
                raise ReportError(f"test_training: table '{t['title']}' has no rows")
            out += [f"### {t['title']}", "", f"Test case: {case}.", ""]
            rows = []
            for cid, predicted, measured, err in t["rows"]:
                c = known.get(cid)
                if c is None:
                    raise ReportError(f"test_training prints case {cid}, which data/measured/training-cases.csv lacks")
                rows.append((cid, c["metric"], measured, predicted, pct(err), c["source"]))
            out += md_table(["case", "metric", "measured", "simulated", "error", "source"], "llrrrl", rows)
            out += ["", f"Median |error|: {median([abs(r[3]) for r in t['rows']]):.1f} %.", ""]
    return out


# ---- MIG relative speed (tests/sim/virtualization/test_virtualization.cpp) ----

MIG_ROW = re.compile(r"^\s+(\d+)\s+(\d+)\s+([\d.]+)((?:\s+[\d.]+ / [\d.]+)+)\s*$")


def mig_section(build):
    exe = find_executable(build, "test_virtualization")
    cases = [c for c in catch_cases(exe) if c.startswith("MIG relative speed")]
    if len(cases) != 1:
        raise ReportError("test_virtualization: expected one 'MIG relative speed' test case")
    lines = run_case(exe, cases[0])
    head = next((i for i, l in enumerate(lines) if l.startswith("MIG relative speed")), None)
    if head is None:
        raise ReportError("test_virtualization: the MIG table's title line is missing")
    profiles = lines[head + 1].split()[3:]
    rows, errors = [], []
    for line in lines[head + 2:]:
        m = MIG_ROW.match(line)
        if not m:
            break
        pairs = re.findall(r"([\d.]+) / ([\d.]+)", m[4])
        for prof, (measured, predicted) in zip(profiles, pairs):
            err = 100.0 * (float(predicted) - float(measured)) / float(measured)
            fitted = prof.startswith("2g")
            if not fitted:
                errors.append(abs(err))
            rows.append((m[1], m[2], m[3], prof, measured, predicted, pct(err), "fitted (S)" if fitted else ""))
    if not rows:
        raise ReportError("test_virtualization: the MIG table has no rows")
    out = ["## Virtualization: MIG relative speed", "",
           f"Written by `test_virtualization` (tests/sim/virtualization/test_virtualization.cpp, \"{cases[0]}\"): "
           "training speed of each MIG profile relative to 7g.40gb on an A100-40GB, ResNet-50, against the MISO "
           "paper's table (docs/SOURCES.md#mig-vgpu; Keras ResNet-50 on CIFAR-10, run as the "
           "FLOP-equivalent ImageNet batch). The 2g column fixes each row's saturation S (one fitted point per row); "
           "the other profiles are predictions. Error = (simulated - measured) / measured.", ""]
    out += md_table(["CIFAR batch", "ImageNet-eq batch", "S", "profile", "measured", "simulated", "error", "note"],
                    "rrrlrrrl", rows)
    return out + ["", f"Median |error| of the predicted (not fitted) cells: {median(errors):.1f} %.", ""]



# ---- nccl-tests tables calibrated (tests/calibrate/test_calibration.cpp) ----

PAIR = r" \|\s+([\d.]+)\s+([\d.]+)"
SIMFIT_ROW = re.compile(r"^(.{1,70}?)\s+(\d+)" + PAIR * 3 + "$")
SIMFIT_TABLE = re.compile(r"^\s+table median error: catalog ([\d.]+) %, parameters alone ([\d.]+) %$")


def calibrated_section(build):
    exe = find_executable(build, "test_calibration")
    cases = [c for c in catch_cases(exe, "[simfit]") if c.startswith("simulator fit")]
    if len(cases) != 1:
        raise ReportError("test_calibration: expected one 'simulator fit' test case")
    rows, tables = [], 0
    for line in run_case(exe, cases[0]):
        if m := SIMFIT_ROW.match(line):
            rows.append((m[1].strip(), m[2]) + tuple(f"{float(x):.1f} %" for x in m.groups()[2:]))
        elif m := SIMFIT_TABLE.match(line):
            tables += 1
            rows.append(("(whole table)", "", f"{float(m[1]):.1f} %", "", f"{float(m[2]):.1f} %", "", "", ""))
    if not rows or tables == 0:
        raise ReportError("test_calibration: the simulator-fit table has no rows")
    out = ["## Collectives: the same tables calibrated", "",
           f"Written by `test_calibration` (tests/calibrate/test_calibration.cpp, \"{cases[0]}\"): each nccl-tests "
           "table of the replay section fitted by `fit_calibration` (what `vgsim calibrate fit` runs: bounded physical "
           "parameters, then size-segmented residual factors) and replayed. Per series, the median and largest "
           "|error| of the simulated time with the catalog's values, with the fitted parameters alone, and with the "
           "parameters and the residuals; the test asserts a median <= 8 % after calibration. In-sample: the "
           "hold-out figures are `vgsim calibrate validate --holdout`'s.", ""]
    out += md_table(["series", "points", "catalog median", "catalog max", "parameters median", "parameters max",
                     "calibrated median", "calibrated max"], "lrrrrrrr", rows)
    return out + [""]

# ---- seed what-if (vgsim sweep workloads/plans/seed-whatif.json), simulated only ----

def read_csv(path):
    import csv
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


def seed_section(vgsim, tmp):
    plan = "workloads/plans/seed-whatif.json"
    step_out = run([vgsim, "sweep", plan, "--out", os.path.join(tmp, "step.csv"), "--quiet"])
    run([vgsim, "sweep", plan, "--out", os.path.join(tmp, "analytical.csv"), "--quiet", "--fidelity", "analytical"])
    step, analytical = read_csv(os.path.join(tmp, "step.csv")), read_csv(os.path.join(tmp, "analytical.csv"))
    if not step or len(step) != len(analytical):
        raise ReportError("seed what-if: the step and analytical sweeps differ in their points")
    out = ["## Seed what-if (simulated; no measurement beyond the 1-GPU figure)", "",
           f"Written by `vgsim sweep {plan}` (the README's first command): ResNet-50, tf_cnn_benchmarks settings, "
           "batch 1024 per GPU, AMP, Horovod, on 1, 2 and 4 Dell R750xa hosts (one A100 each). The only measured "
           "input is the single-GPU throughput (Dell's 2,757.21 img/s, `compute.measured_throughput`, row "
           "seed-rn50-1gpu-vm of data/measured/training-cases.csv); the rest is simulated. Exposed communication is "
           "split by cause (counterfactual re-simulations: Shapley values, or each cause alone plus an interaction line; "
           "they sum to it). The last column is the same plan under "
           "`--fidelity analytical` (closed forms instead of the engine), relative to the engine.", ""]
    causes = ["interference", "framework", "host_staging", "socket_cpu", "network", "interaction"]
    rows, diffs = [], []
    for s, a in zip(step, analytical):
        if s["error"] or a["error"] or s["point_id"] != a["point_id"]:
            raise ReportError(f"seed what-if: point {s['index']} failed or differs between fidelities")
        diff = 100.0 * (float(a["throughput"]) - float(s["throughput"])) / float(s["throughput"])
        diffs.append(abs(diff))
        rows.append((s["label"], s["nodes"], f"{float(s['throughput']):.1f}", f"{100 * float(s['efficiency']):.1f} %",
                     f"{float(s['iteration_ms']):.2f}", f"{float(s['exposed_comm_ms']):.3f}")
                    + tuple(f"{float(s['exposed_' + c + '_ms']):.3f}" for c in causes)
                    + (f"{float(a['throughput']):.1f}", pct(diff, 2)))
    out += md_table(["design", "nodes", "img/s", "efficiency", "iteration ms", "exposed ms"]
                    + [f"{c} ms" for c in causes] + ["analytical img/s", "analytical vs engine"],
                    "lrrrrrrrrrrrrr", rows)
    out += ["", f"Median |analytical - engine| / engine: {median(diffs):.2f} %; largest "
            f"{max(diffs):.2f} %.", "", "The sweep's design effects (its last lines):", ""]
    effects = [line.strip() for line in step_out.splitlines() if "instead of" in line]
    return out + [f"- {e}" for e in effects] + [""]


# ---- NVLS and NVLS Tree on H100 SXM (vgsim collective) ----

def collective(vgsim, tmp, args):
    path = os.path.join(tmp, "collective.json")
    run([vgsim, "collective", "--cluster", "aws-p5-2x8xh100"] + args + ["--json", path])
    import json
    with open(path, encoding="utf-8") as f:
        return json.load(f)["rows"]


def measured_nccl_rows(file):
    rows = {}
    with open(os.path.join(MEASURED, "nccl-tests", file), encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if line.startswith("#") or len(fields) < 8 or not fields[0].isdigit():
                continue
            rows[int(fields[0])] = (float(fields[5]), float(fields[6]))  # out-of-place time (us), algbw (GB/s)
    return rows


def nvls_section(vgsim, tmp):
    one_node = ["--nodes", "1", "--gpus-per-node", "8", "-b", "1M", "-e", "4G", "-f", "4"]
    nvls, ring = collective(vgsim, tmp, one_node), collective(vgsim, tmp, one_node + ["--algo", "ring"])
    out = ["## NVLS allreduce on one 8 x H100 SXM node (simulated vs a cited range)", "",
           "Written by `vgsim collective --cluster aws-p5-2x8xh100 --nodes 1 --gpus-per-node 8 -b 1M -e 4G -f 4` "
           "(NCCL's choice, NVLS where it wins) and the same with `--algo ring`. No measured table of this node is "
           "in data/measured; the cited figure is 475-487 GB/s busbw at large sizes (nccl-tests#212, stas00; "
           "docs/SOURCES.md#measured-bandwidths). Nothing is fitted to it.", ""]
    rows = [(r["size_bytes"], f"{r['algo']}/{r['proto']}", r["channels"], f"{r['busbw_GBps']:.1f}",
             f"{q['busbw_GBps']:.1f}") for r, q in zip(nvls, ring)]
    out += md_table(["size (B)", "algo/proto", "channels", "busbw GB/s", "ring busbw GB/s"], "rlrrr", rows)
    return out + [""]


def nvls_tree_section(vgsim, tmp):
    two_nodes = ["--nodes", "2", "--gpus-per-node", "8", "--algo", "nvlstree", "-b", "1G", "-e", "4G", "-f", "4"]
    sim = collective(vgsim, tmp, two_nodes)
    measured = measured_nccl_rows(P5_TABLE)
    out = ["## NVLS Tree allreduce across 2 x 8 H100 SXM (p5), forced", "",
           "Written by `vgsim collective --cluster aws-p5-2x8xh100 --nodes 2 --gpus-per-node 8 --algo nvlstree -b 1G "
           f"-e 4G -f 4` against the measured p5 table (`data/measured/nccl-tests/{P5_TABLE}`, out-of-place rows; "
           "its provenance is in the replay section). NCCL's default choice picks NVLS Tree on this table from 4 MiB on "
           "(the replay section's p5 rows); forced here, these rows are NVLS Tree's alone. Error = (simulated - "
           "measured) / measured time.", ""]
    rows, errors = [], []
    for r in sim:
        if r["size_bytes"] not in measured:
            raise ReportError(f"p5 table has no row of {r['size_bytes']} B")
        m_time, m_algbw = measured[r["size_bytes"]]
        err = 100.0 * (r["time_us"] - m_time) / m_time
        errors.append(abs(err))
        rows.append((r["size_bytes"], f"{m_time:.1f}", f"{r['time_us']:.1f}", f"{m_algbw:.2f}",
                     f"{r['algbw_GBps']:.2f}", pct(err)))
    out += md_table(["size (B)", "measured us", "simulated us", "measured algbw GB/s", "simulated algbw GB/s",
                     "error"], "rrrrrr", rows)
    return out + ["", f"Median |error|: {median(errors):.1f} %.", ""]


# ---- Open MPI allreduce against the OSU files (tests/calibrate/test_mpi_model.cpp) ----

OSU_DIR = os.path.join(MEASURED, "osu-openmpi")
MPI_UNCAL = re.compile(r"^uncalibrated (\S+) 2-node algo4 files: (\d+) points, median relative error ([\d.]+) %$")
MPI_CV_ROW = re.compile(r"^(\S+)\s+(\S+\.txt)\s+(\S+)\s+(\S+)\s+(\d+)" + r"\s+([\d.]+)" * 4 + "$")
MPI_CV_ALL = re.compile(r"^(\S+)\s+ALL \(pooled\)" + r"\s+([\d.]+)" * 4 + "$")
MPI_CV_NOISE = re.compile(r"^(\S+)\s+noise floor of the repeated runs \(median \|t / per-size median - 1\|\) ([\d.]+) %; "
                          r"fitted model vs the per-size fastest run: median ([\d.]+) %$")
MPI_FIT_NET = re.compile(r"^# network (\S+): (\d+) points, RMS relative error ([\d.]+) % \(catalog\) -> ([\d.]+) % \(fit\)$")
MPI_FIT_SET = re.compile(r"^--set (\S+)=(\S+)  # catalog (\S+?)(, not measured.*)?$")
MPI_NOT_MEASURED = re.compile(r"^# not measured \((.+)\): (.+)$")


# ---- GPUDirect RDMA reads off and on, NVIDIA/nccl#371 (vgsim collective) ----

def measured_csv(name):
    """A data/measured CSV's path and rows (its '#' provenance lines skipped)."""
    path = os.path.join(MEASURED, name)
    with open(path, encoding="utf-8") as f:
        return path, list(csv.DictReader(line for line in f if not line.startswith("#")))


def gdr_read_section(vgsim, tmp):
    path, cases = measured_csv("nccl371-gdr-read.csv")
    out = ["## GPUDirect RDMA reads off and on: NVIDIA/nccl#371, 2 x 8 V100 PCIe", "",
           f"Measured: `{rel(path)}` (busbw as the reporter gave it, message size not stated), simulated on preset "
           "`nccl371-2x8xv100pcie` with `vgsim collective --cluster nccl371-2x8xv100pcie -g 8 --np 2 -b 512M -e 512M "
           "--nccl-version V [--gdr-read 1]`; the two defaults (sends staged) asserted within 15 % each by "
           "tests/cli/test_gdr_read_replay.cpp; with reads on, a **known gap**: nothing is staged, the ring's slices "
           "hide every step latency and the simulated busbw is the preset's assumed EDR line rate (the thread does not "
           "state the HCA's speed), where the thread measured 9.23 GB/s, as with 2.5.6's staged sends: a limit both "
           "runs share that no cited source names. "
           "Mechanism: on a PCIe-only host NCCL's default stages sends through host memory (NCCL_NET_GDR_READ off "
           "without NVLink, 2.5.6 and 2.7.8 alike); from 2.6 the ring search enters and leaves each node through GPUs "
           "under the HCA's switch (include/vgsim/sim/nic_ring_order.hpp), so that switch's uplink carries both the "
           "ring's crossing to the other switch and the staged send; 2.5's rank-order ring leaves from GPU7 and "
           "spreads them over two uplinks.", ""]
    rows = []
    for c in cases:
        args = [vgsim, "collective", "--cluster", "nccl371-2x8xv100pcie", "-g", "8", "--np", "2", "-b", "512M",
                "-e", "512M", "--nccl-version", c["nccl_version"]]
        if c["gdr_read"] != "default":
            args += ["--gdr-read", c["gdr_read"]]
        got = None
        for line in run(args).splitlines():
            cols = line.split()
            if len(cols) >= 8 and cols[0] == "536870912":
                got = float(cols[7])
        if got is None:
            raise ReportError(f"nccl#371: no 512 MiB row for NCCL {c['nccl_version']}")
        want = float(c["busbw_GBps"])
        rows.append((c["nccl_version"], c["gdr_read"], f"{want:.2f}", f"{got:.2f}", pct(100.0 * (got - want) / want)))
    out += md_table(["NCCL", "NCCL_NET_GDR_READ", "measured busbw GB/s", "simulated GB/s", "error"], "llrrr", rows)
    return out + [""]


def socket_table_section(vgsim, tmp):
    path, cases = measured_csv("nccl209-gcp-sockets.csv")
    out = ["## replay: NCCL over sockets on GCP, NVIDIA/nccl#209 (2 and 4 VMs, 1 and 8 V100 per VM)", "",
           f"Measured: `{rel(path)}` (busbw, mean of the three runs given), simulated on preset "
           "`gcp-n1-4x8xv100-32gbe` with `vgsim collective --cluster gcp-n1-4x8xv100-32gbe --nodes N --gpus-per-node G "
           "-b 128M -e 128M --nccl-version 2.4 --socket-nthreads T --nsocks-perthread S` (each row's settings); "
           "tests/cli/test_socket_replay.cpp asserts the 1-GPU rows within 15 % (issue 39) and the mechanism "
           "(streams per connection, the wire bound, 2.4.7's tree on 2 NVLink nodes); the 8-GPU rows are a **known "
           "gap**. On 1 GPU per VM one ring connection joins each VM pair; its 2 MiB chunks leave as 1 MiB slices, "
           "each forwarded as soon as it has arrived (NCCL's SlicePerChunk 2), so a slice's store-and-forward through "
           "host memory on both sides, kernel TCP and the fabric hide behind the next slice and the ring runs near the "
           "vNIC's TCP goodput. On 2 x 8 NCCL 2.4.7 runs a tree (init.cc ncclTreeThreshold: with NVLink on 2 nodes "
           "treebw = 1.5 x ringbw, an infinite threshold), which vgsim runs near 2(n-1)/n x the wire while the table "
           "shows half the wire (cause not known: NVIDIA/nccl#262 reports 2.4 rings on GCP V100s that ignore NVLink); "
           "on 4 x 8 the measured ring stays below the wire (cause not known); the per-stream rate of these VMs is not "
           "known (socket_threads.per_stream is the bare-metal default, 25 Gb/s), so no row is stream-limited here.",
           ""]
    rows = []
    for c in cases:
        args = [vgsim, "collective", "--cluster", "gcp-n1-4x8xv100-32gbe", "--nodes", c["nodes"], "--gpus-per-node",
                c["gpus_per_node"], "-b", "128M", "-e", "128M", "--nccl-version", "2.4", "--socket-nthreads",
                c["socket_nthreads"], "--nsocks-perthread", c["nsocks_perthread"]]
        got = None
        for line in run(args).splitlines():
            cols = line.split()
            if len(cols) >= 8 and cols[0] == "134217728":
                got = float(cols[7]) * 8
        if got is None:
            raise ReportError(f"nccl#209: no 128 MiB row for {c['nodes']} x {c['gpus_per_node']}")
        runs = [float(c[k]) for k in ("busbw_gbps_run1", "busbw_gbps_run2", "busbw_gbps_run3")]
        want = sum(runs) / len(runs)
        streams = int(c["socket_nthreads"]) * int(c["nsocks_perthread"])
        rows.append((f"{c['nodes']} x {c['gpus_per_node']}", f"{c['socket_nthreads']} x {c['nsocks_perthread']} = "
                     f"{streams}", f"{want:.1f}", f"{got:.1f}", pct(100.0 * (got - want) / want)))
    out += md_table(["nodes x GPUs", "threads x sockets = streams", "measured busbw Gb/s", "simulated Gb/s", "error"],
                    "llrrr", rows)
    return out + [""]


def mpi_case(exe, prefix):
    cases = [c for c in catch_cases(exe, "[osu]") if c.startswith(prefix)]
    if len(cases) != 1:
        raise ReportError(f"test_mpi_model: expected one '{prefix}' test case")
    return cases[0], run_case(exe, cases[0])


def pp(text):
    return f"{float(text):.1f} %"


def mpi_section(build):
    exe = find_executable(build, "test_mpi_model")
    uncal_case, lines = mpi_case(exe, "mpi model: uncalibrated")
    uncal = [(m[1], f"`osu-ompi-4x-{m[1]}`", m[2], pp(m[3])) for m in map(MPI_UNCAL.match, lines) if m]
    if not uncal:
        raise ReportError("test_mpi_model: the uncalibrated lines are missing")
    cv_case, lines = mpi_case(exe, "mpi model: cross-validation")
    rows, summary, params, fits, not_measured, net = [], [], [], [], None, None
    for line in lines:
        if m := MPI_CV_ROW.match(line):
            rows.append((m[1], f"`{m[2]}`", m[3], m[4], m[5]) + tuple(pp(x) for x in m.groups()[5:]))
        elif m := MPI_CV_ALL.match(line):
            rows.append((m[1], "**all files (pooled)**", "", "", "") + tuple(pp(x) for x in m.groups()[1:]))
            summary.append([m[1], pp(m[2]), pp(m[4])])
        elif m := MPI_CV_NOISE.match(line):
            if not summary or summary[-1][0] != m[1]:
                raise ReportError(f"test_mpi_model: noise-floor line of {m[1]} without its pooled row")
            summary[-1] += [pp(m[2]), pp(m[3])]
        elif m := MPI_FIT_NET.match(line):
            net = m[1]
            fits.append(f"{m[1]}: {m[2]} points, RMS relative error {pp(m[3])} with the catalog values, {pp(m[4])} "
                        "fitted")
        elif net and (m := MPI_FIT_SET.match(line)):
            params.append((net, f"`{m[1]}`", m[3], m[2], "not measured: kept (the data do not constrain it)"
                           if m[4] else ""))
        elif m := MPI_NOT_MEASURED.match(line):
            not_measured = (m[1], m[2])
    if not rows or len(summary) != len(fits) or any(len(s) != 5 for s in summary) or not params:
        raise ReportError("test_mpi_model: the cross-validation table is incomplete")
    nets = ", ".join(r[0] for r in uncal)
    out = ["## Collectives: Open MPI allreduce against the OSU files", "",
           "Measured: the OSU 5.7 `osu_allreduce` files of `data/measured/osu-openmpi` (Avg Latency per size; CPU "
           "buffers, one rank per node, 2 and 4 nodes, networks " + nets + "; github.com/dexhunter/allreduce-"
           "experiments, each file's first line gives its path and commit). The file name's algorithm (algoN) is what "
           "was requested; Open MPI ignores the request without `coll_tuned_use_dynamic_rules=1`, which no file "
           "states, so vgsim runs what the default (v3.1/v4.0) decision rule picks, and the six files of a group are "
           "repeated runs of one configuration (`data/measured/osu-openmpi/README.md`, findings 1 and 2). Error = "
           "|simulated - measured| / measured time per row; medians and maxima over rows.", "",
           "### Uncalibrated catalog physics, 2-node algo4 files", "",
           f"Written by `test_mpi_model` (tests/calibrate/test_mpi_model.cpp, \"{uncal_case}\"): every row of the "
           "2-node algo4 files (all size steps pooled) simulated on the network's preset with the catalog's `mpi.*` "
           "values, nothing fitted; the test asserts a median <= 25 % per network. The catalog values are "
           "assumptions within stated bounds, and three of them (stack latency, in-cache copy rate, single-core DRAM "
           "bandwidth) were chosen with these files in view (README, 'What vgsim reproduces'): a consistency check of "
           "the mechanism, not an independent validation.", ""]
    out += md_table(["network", "preset", "points", "median abs error"], "llrr", uncal)
    out += ["", "### Cross-validation by node count: fit 2 nodes, predict 4", "",
            f"Written by `test_mpi_model` (\"{cv_case}\"), the same table as `vgsim calibrate fit-mpi "
            "data/measured/osu-openmpi/allreduce-*.txt --cross-validate --points-per-file 6`: per network one set of "
            "physical parameters is fitted on the 2-node files (6 evenly spaced rows per file) and predicts every row "
            "of the 4-node files, which are held out; 'catalog' is the same prediction with the catalog values. The "
            "test asserts the fitted pooled median no worse than the catalog's by more than 2 points, <= 15 % on 10g, "
            "and, on 100g, <= 15 % against the per-size fastest of the six repeated runs (the 100g 4-node runs "
            "switch between two levels about 1.75x apart, README 'Noise and damaged files').", ""]
    out += md_table(["network", "predicted file", "points", "fitted median", "catalog median", "noise floor",
                     "fitted vs fastest run"], "llrrrrr",
                    [(s[0], "all 4-node files (pooled)", sum(int(r[4]) for r in rows if r[0] == s[0] and r[4]), s[1],
                      s[2], s[3], s[4]) for s in summary])
    out += ["", "Noise floor: median over rows of |t / (median of the six runs at that size) - 1|. Per file:", ""]
    out += md_table(["network", "predicted file", "requested", "vgsim runs", "points", "fitted median", "fitted max",
                     "catalog median", "catalog max"], "llllrrrrr", rows)
    out += ["", "Fitted parameters (" + "; ".join(fits) + "):", ""]
    out += md_table(["network", "parameter", "catalog", "fitted", "note"], "llrrl", params)
    if not_measured:
        out += ["", f"Not measured ({not_measured[0]}): {not_measured[1]}."]
    return out + [""]


# ---- CPU compute model against PaddlePaddle MKL-DNN (tests/workloads/models/test_cpu_compute_model.cpp) ----

CPU_HEAD = re.compile(r"^model\s+batch\s+mode\s+predicted\s+measured\s+error\s+role$")
CPU_ROW = re.compile(r"^(\w+)\s+(\d+)\s+(training|inference)\s+([\d.]+)\s+([\d.]+)\s+([+-]?[\d.]+)%\s+(fit|held out)$")
CPU_THREADS_HEAD = re.compile(r"^cores\s+predicted\s+measured$")
CPU_THREADS_ROW = re.compile(r"^(\d+)\s+([\d.]+)\s+([\d.]+)$")


def cpu_case(exe, prefix):
    cases = [c for c in catch_cases(exe, "[cpu]") if c.startswith(prefix)]
    if len(cases) != 1:
        raise ReportError(f"test_models: expected one '{prefix}' test case")
    return cases[0], run_case(exe, cases[0])


def cpu_compute_section(build):
    exe = find_executable(build, "test_models")
    case, lines = cpu_case(exe, "CPU compute model: out of sample")
    head = next((i for i, l in enumerate(lines) if CPU_HEAD.match(l)), None)
    if head is None:
        raise ReportError("test_models: the CPU compute table's header is missing")
    rows, fit, held, inference = [], [], [], []
    for line in lines[head + 1:]:
        m = CPU_ROW.match(line)
        if not m:
            break
        err = float(m[6])
        note = m[7]
        if m[3] == "inference":
            inference.append(err)
            note += "; known miss (no small-batch term)" if m[2] == "1" else ""
        (fit if m[7] == "fit" else held if m[3] == "training" else []).append(abs(err))
        rows.append((m[1], m[2], m[3], m[5], m[4], pct(err), note))
    if not rows or not fit or not held:
        raise ReportError("test_models: the CPU compute table has no fitted or no held-out rows")
    t_case, lines = cpu_case(exe, "CPU compute model: thread scaling")
    head = next((i for i, l in enumerate(lines) if CPU_THREADS_HEAD.match(l)), None)
    threads = []
    for line in lines[head + 1:] if head is not None else []:
        m = CPU_THREADS_ROW.match(line)
        if not m:
            break
        threads.append((m[1], m[3], m[2], pct(100.0 * (float(m[2]) - float(m[3])) / float(m[3]))))
    if not threads:
        raise ReportError("test_models: the CPU thread-scaling table is missing")
    out = ["## CPU compute: 2 x Xeon Gold 6148 against PaddlePaddle MKL-DNN", "",
           f"Written by `test_models` (tests/workloads/models/test_cpu_compute_model.cpp, \"{case}\"): single-node "
           "images/s of the CPU compute model (one process on the 40 cores of 2 x Xeon Gold 6148, the catalog's "
           "node) against the published PaddlePaddle MKL-DNN figures (benchmark/IntelOptimizedPaddle.md @ ea46de65; "
           "docs/SOURCES.md#cpu-training, grade A): training at batch 64 / 128 / 256, ResNet-50 "
           "inference at batch 1 and 16. `cpu.eff_compute` and `cpu.optimizer_bandwidth` are fitted to the six "
           "ResNet-50 and VGG-19 training rows ('fit'); GoogLeNet, AlexNet and inference are held out. Error = "
           "(simulated - measured) / measured. The test asserts fitted rows within 2.5 %, held-out training rows "
           "within 7 %, inference batch 16 within 25 %, and inference batch 1 as a miss (above 1.8x).", ""]
    out += md_table(["model", "batch", "mode", "measured img/s", "simulated img/s", "error", "role"], "lrlrrrl", rows)
    out += ["", f"Median |error|: fitted rows {median(fit):.1f} %, held-out training rows {median(held):.1f} %.", "",
            "### Thread scaling against PaddlePaddle Fluid + MKLML (not a validation)", "",
            f"Written by `test_models` (\"{t_case}\"): ResNet-50 training, batch 8 per core, on 1 to 32 cores of the "
            "same node, against PaddlePaddle issue #11620 (docs/SOURCES.md#cpu-training). The measurement used "
            "MKLML, a library 2.5x slower than the MKL-DNN the model is fitted to, so these rows are shown, not "
            "asserted as agreement: the model has no serial part and scales near-linearly, where Fluid + MKLML "
            "reaches 12.9x at 32 cores.", ""]
    out += md_table(["cores", "measured img/s", "simulated img/s", "error"], "rrrr", threads)
    return out + [""]


# ---- Large-model training (tests/sim/llm/test_megatron_tables.cpp) ----

LLM_T1_ROW = re.compile(r"^(megatron-\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([+-][\d.]+)%\s+([\d.]+)%"
                        r"\s+([\d.]+)%\s+([\d.]+)%\s*$")
LLM_T5_ROW = re.compile(r"^(\S+)\s+([\d.]+)\s+([\d.]+)\s+([+-][\d.]+)%\s+([\d.]+)\s+([\d.]+)\s+([+-][\d.]+)%\s*$")


LLM_NVLINK = re.compile(r"^capacity_scale\.nvlink fitted .*: ([\d.]+)\s*$")
LLM_NVLINK_ROW = re.compile(r"^\s*(\d+) B measured\s+([\d.]+) us, vgsim\s+([\d.]+) us \(([+-][\d.]+) %\), "
                            r"calibrated\s+([\d.]+) us \(([+-][\d.]+) %\)\s*$")
LLM_SAME = re.compile(r"^(megatron-\S+)\s+published ([\d.]+) s vs ([\d.]+) s \(([+-][\d.]+) %\); vgsim ([\d.]+) s vs "
                      r"([\d.]+) s \(([+-][\d.]+) %, dp sync ([\d.]+) s\)\s*$")
LLM_DP8 = re.compile(r"^Korthikanti 530B dp 1 -> dp 8: published \+([\d.]+) s, vgsim \+([\d.]+) s "
                     r"\(([+-][\d.]+) %\)\s*$")
LLM_T2_ROW = re.compile(r"^(ZeRO-3|PTD-P)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([+-][\d.]+)%\s+([\d.]+)%"
                        r"\s+([\d.]+)\s+([\d.]+)\s+[\d.]+\s*$")  # the last column (CPU seconds) is not reported
LLM_T2_MEM = re.compile(r"^ZeRO-3 memory per GPU: 175B dp 384 mb 4 ([\d.]+) GB \(ran\), 530B dp 560 mb 4 ([\d.]+) GB "
                        r"\(did not fit\), of ([\d.]+) GB\s*$")
LLM_T2_MEM640 = re.compile(r"^ZeRO-3 memory per GPU: 530B dp 640 mb 4 ([\d.]+) GB \(ran; known miss\), of which ZeRO-3 "
                           r"working set ([\d.]+) GB, recomputed layer ([\d.]+) GB\s*$")
LLM_FIG12 = re.compile(r"^batch\s+(\d+): 1F1B (\d+) vs ([\d.]+) \(([+-][\d.]+) %\), interleaved (\d+) vs ([\d.]+) "
                       r"\(([+-][\d.]+) %\), ratio ([\d.]+) vs ([\d.]+)\s*$")


def llm_section(build):
    exe = find_executable(build, "test_llm")
    cases = catch_cases(exe, "[validation]")
    t1 = [c for c in cases if c.startswith("Narayanan et al. SC'21 Table 1")]
    t5 = [c for c in cases if c.startswith("Korthikanti")]
    nv = [c for c in cases if c.startswith("NVLink calibration")]
    f12 = [c for c in cases if c.startswith("Interleaved vs 1F1B")]
    dp8 = [c for c in cases if c.startswith("Data-parallel sync")]
    if len(t1) != 1 or len(t5) != 1 or len(nv) != 1 or len(f12) != 1 or len(dp8) != 1:
        raise ReportError("test_llm: expected one Narayanan, one Korthikanti, one NVLink calibration, one Fig. 12 "
                          "and one data-parallel sync [validation] case")
    nv_lines = run_case(exe, nv[0])
    scale = [m[1] for line in nv_lines if (m := LLM_NVLINK.match(line))]
    nv_rows = [m for line in nv_lines if (m := LLM_NVLINK_ROW.match(line))]
    rows1 = [m for line in run_case(exe, t1[0]) if (m := LLM_T1_ROW.match(line))]
    t5_lines = run_case(exe, t5[0])
    rows5 = [m for line in t5_lines if (m := LLM_T5_ROW.match(line))]
    same = [m for line in t5_lines if (m := LLM_SAME.match(line))]
    fig12 = [m for line in run_case(exe, f12[0]) if (m := LLM_FIG12.match(line))]
    dp8_rows = [m for line in run_case(exe, dp8[0]) if (m := LLM_DP8.match(line))]
    counts = (len(rows1), len(rows5), len(scale), len(nv_rows), len(same), len(fig12), len(dp8_rows))
    if counts != (10, 4, 1, 3, 2, 2, 1):
        raise ReportError("test_llm: the Table 1 (10 rows), Table 5 (4 rows + 2 comparisons), NVLink (3 rows), "
                          "Fig. 12 (2 rows) or data-parallel sync (1 row) printout changed")
    out = ["## Large-model training: Megatron-LM SC'21 Tables 1 and 2 and Korthikanti et al. Table 5", "",
           f"Written by `test_llm` (tests/sim/llm/test_megatron_tables.cpp, \"{t1[0]}\" and \"{t5[0]}\"): "
           "`simulate_llm_iteration` on `selene-a100-384` (DGX A100 80GB nodes, NVSwitch, 8 x HDR 200G, idealised "
           "non-blocking fabric) with each row's launch settings (NVIDIA/Megatron-LM examples/sc21/run_table_1.sh @ "
           "6985e589: tp, pp, micro-batch, global batch, full recomputation, layers per virtual stage, torch DDP "
           "(gradient sync overlapping the last backward) for the rows up to 18.4B) and blocking pipeline send/recv "
           "(`llm.pp_blocking`, Megatron-LM's batch_isend_irecv + wait + synchronize; recalled, grade C). Achieved "
           "TFLOP/s per GPU are counted as the paper's eq. (3). The layer model's three efficiencies are fitted to "
           "three values of Korthikanti Table 4 (one 22B layer) with the TP collectives at the measured DGX A100 "
           "NVLink busbw; these tables are held out. Target of issue 17: within 10 %. The test asserts the rows "
           "within 10 % as such and the others as a known-miss band (+10..+18 %); calibrated on one run of the "
           "SC'21 software (next sections), all held-out rows are within 10 %.", "",
           f"NVLink calibration (development data, \"{nv[0]}\"): the engine's 8-GPU NVLink allreduce is faster than "
           "measured at the tables' TP sizes, so both tables run with `capacity_scale.nvlink` = "
           f"{scale[0]}, fitted to the total time of stas00's DGX A100 allreduce rows "
           "(data/measured/nccl-tests/gh-stas00-ml-engineering_allreduce_1x8xA100_nvlink.txt):", ""]
    out += md_table(["size (B)", "measured us", "vgsim us", "error", "calibrated us", "error"], "rrrrrr",
                    [(m[1], m[2], m[3], pct(float(m[4])), m[5], pct(float(m[6]))) for m in nv_rows])
    out += ["", "### Narayanan et al. SC'21 Table 1: TFLOP/s per GPU", ""]
    rows = [(m[1], m[2], m[3], m[4], m[5], m[6], pct(float(m[7])), m[8] + " %", m[9] + " %", m[10] + " %")
            for m in rows1]
    out += md_table(["model", "tp", "pp", "GPUs", "published TFLOP/s", "vgsim TFLOP/s", "error", "bubble+p2p",
                     "TP comm", "DP sync"], "lrrrrrrrrr", rows)
    errs = [abs(float(m[7])) for m in rows1]
    out += ["", f"Median |error|: {median(errs):.1f} %; rows within 10 %: {sum(e <= 10.0 for e in errs)} of 10.", "",
            "### Korthikanti et al. 2022 Table 5: iteration seconds (TP 8, DP 1)", ""]
    rows = [(m[1], m[2], m[3], pct(float(m[4])), m[5], m[6], pct(float(m[7]))) for m in rows5]
    out += md_table(["model", "full recompute (published)", "vgsim", "error", "SP + selective (published)", "vgsim",
                     "error"], "lrrrrrr", rows)
    out += ["", "### Why Table 1 still misses: the same per-pipeline work in both papers", "",
            "Table 1's 529.6B and 1008B rows run exactly the per-pipeline work of Table 5's full-recompute rows (tp 8, "
            "same pp and virtual stages, micro-batch 1, same micro-batches per pipeline) with dp 9 / 6. The published "
            "iteration implied by Table 1 (eq. (3) FLOPs / (GPUs x TFLOP/s)) is longer than Table 5's by far more "
            "than vgsim's dp sync; Korthikanti measured dp 8 at 530B as +1.32 s. So most of each Table 1 miss is the "
            "SC'21 runs being slower than the 2022 software at equal work, which vgsim's layer model (fitted on "
            "Table 4, 2022 software) does not have (data/reference/llm-table1-vs-table5.md).", ""]
    out += md_table(["model", "Table 1 implied s", "Table 5 s", "published difference", "vgsim Table 1 s",
                     "vgsim Table 5 s", "vgsim difference", "vgsim dp sync s"], "lrrrrrrr",
                    [(m[1], m[2], m[3], pct(float(m[4])), m[5], m[6], pct(float(m[7])), m[8]) for m in same])
    d = dp8_rows[0]
    out += ["", f"The data-parallel sync itself (\"{dp8[0]}\"): Korthikanti's 530B with SP + selective recomputation "
            f"goes from dp 1 to dp 8 in +{d[1]} s; vgsim adds +{d[2]} s ({pct(float(d[3]))}, a known miss; with "
            "4-byte gradients, as Megatron-LM reduces them under bf16, it would add about twice that, but the paper "
            "does not state its precision)."]
    out += ["", f"Same software as Table 1 at dp 1 (\"{f12[0]}\"; GPT-3 175B on 96 GPUs, tp 8, pp 12; values read "
            "off the plot, +-5 TFLOP/s, so only the interleaved / 1F1B ratio is asserted):", ""]
    out += md_table(["batch", "1F1B (plot)", "vgsim", "error", "interleaved (plot)", "vgsim", "error",
                     "ratio (plot)", "ratio vgsim"], "rrrrrrrrr",
                    [(m[1], m[2], m[3], pct(float(m[4])), m[5], m[6], pct(float(m[7])), m[8], m[9]) for m in fig12])
    return out + [""] + llm_figures(exe, cases) + llm_calibrated(exe, cases) + llm_table2(exe, cases)


LLM_FIG_POINT = re.compile(r"^batch\s+(\d+): (.+)$")
LLM_FIG_RATIO = re.compile(r"^\s+(.+): plot ([\d.]+) \[([\d.]+), ([\d.]+)\], vgsim ([\d.]+)\s*$")


def llm_figures(exe, cases):
    # tests/sim/llm/test_megatron_figures.cpp: Fig. 11 (pipeline weak scaling) and Fig. 18 (scatter/gather).
    out = []
    for prefix, title in (("Pipeline weak scaling", "Pipeline weak scaling, Narayanan et al. Fig. 11"),
                          ("Scatter/gather of pipeline", "Scatter/gather, Narayanan et al. Fig. 18")):
        found = [c for c in cases if c.startswith(prefix)]
        if len(found) != 1:
            raise ReportError(f"test_llm: expected one '{prefix}' [validation] case")
        lines = run_case(exe, found[0])
        points = [m for line in lines if (m := LLM_FIG_POINT.match(line))]
        ratios = [m for line in lines if (m := LLM_FIG_RATIO.match(line))]
        if len(points) != 2 or len(ratios) != 2:
            raise ReportError(f"test_llm: the '{prefix}' printout (2 points, 2 ratios) changed")
        out += [f"### {title} (plot-read, trend only)", "",
                f"Written by `test_llm` (tests/sim/llm/test_megatron_figures.cpp, \"{found[0]}\"); values read off "
                "the plot (+-5 TFLOP/s), so only the ratio between two points is asserted, within the interval the "
                "read-off error allows; absolute errors are printed, not asserted.", ""]
        out += [f"- batch {m[1]}: {m[2]}" for m in points]
        out += [""]
        out += md_table(["ratio", "plot", "interval", "vgsim"], "lrrr",
                        [(m[1], m[2], f"[{m[3]}, {m[4]}]", m[5]) for m in ratios])
        out += [""]
    return out


LLM_CAL_X = re.compile(r"^kernel-speed factor fitted on the 1\.7B row \(32 GPUs\): x = ([\d.]+) "
                       r"\(llm\.eff_gemm ([\d.]+) -> ([\d.]+)\)\s*$")
LLM_CAL_ROW = re.compile(r"^(\S+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([+-][\d.]+)%\s+([\d.]+)\s+([+-][\d.]+)%\s+"
                         r"(Table 1|Table 2 PTD-P)\s*$")


def llm_calibrated(exe, cases):
    # tests/sim/llm/test_megatron_calibrated.cpp: fit on Table 1's 1.7B row, Tables 1 and 2 (PTD-P) held out.
    cal = [c for c in cases if c.startswith("Narayanan et al. SC'21 Tables 1 and 2 calibrated")]
    if len(cal) != 1:
        raise ReportError("test_llm: expected one calibrated Tables 1 and 2 [validation] case")
    lines = run_case(exe, cal[0])
    x = [m for line in lines if (m := LLM_CAL_X.match(line))]
    rows = [m for line in lines if (m := LLM_CAL_ROW.match(line))]
    if len(x) != 1 or len(rows) != 15:
        raise ReportError("test_llm: the calibrated Tables 1 and 2 printout (factor line, 15 rows) changed")
    errs = [abs(float(m[7])) for m in rows]
    out = ["### Narayanan et al. SC'21 Tables 1 and 2 calibrated on one run of the same software", "",
           f"Written by `test_llm` (tests/sim/llm/test_megatron_calibrated.cpp, \"{cal[0]}\"). A user's protocol: "
           "measure the smallest configuration, fit, predict the larger ones. `calibrate::fit_training` (the "
           "`vgsim calibrate fit-training` of large-model rows, calibrate/llm_fit.hpp) sees only Table 1's 1.7B row "
           "(32 GPUs, tp 1, no exposed communication) and fits one factor x that scales the layer kernels' four "
           f"efficiencies together: x = {x[0][1]} (llm.eff_gemm {x[0][2]} -> {x[0][3]}), i.e. the SC'21 stack's "
           "kernels about 7 % slower than the 2022 stack the layer model was fitted on, as the same-work comparison "
           "above shows. The nine other Table 1 rows and Table 2's six PTD-P rows (the same Selene runs) are held "
           "out. Asserted: every held-out row within 10 % (issue 17's target).", ""]
    out += md_table(["model", "GPUs", "published TFLOP/s", "uncalibrated", "error", "calibrated", "error", "table"],
                    "lrrrrrrl", [(m[1], m[2], m[3], m[4], pct(float(m[5])), m[6], pct(float(m[7])), m[8])
                                 for m in rows])
    out += ["", f"Held-out rows within 10 %: {sum(e <= 10.0 for e in errs)} of {len(errs)}; median |error| "
            f"{median(errs):.1f} %, largest {max(errs):.1f} % (every row still optimistic: the fitted row has no "
            "communication, so what the larger rows lose to it beyond vgsim's model stays)."]
    return out + [""]


def llm_table2(exe, cases):
    # Narayanan SC'21 Table 2 (PTD-P vs ZeRO-3): the default case, the [.slow] 2,240-GPU ZeRO-3 row, the memory case.
    main = [c for c in cases if c.startswith("Narayanan et al. SC'21 Table 2: PTD-P")]
    slow = [c for c in cases if c.startswith("Narayanan et al. SC'21 Table 2: ZeRO-3 530B on 2,240")]
    mem = [c for c in cases if c.startswith("Narayanan et al. SC'21 Table 2: ZeRO-3 memory")]
    if len(main) != 1 or len(slow) != 1 or len(mem) != 1:
        raise ReportError("test_llm: expected the Table 2 [validation] cases (PTD-P vs ZeRO-3, the 2,240-GPU ZeRO-3 "
                          "row, ZeRO-3 memory)")
    rows = [m for line in run_case(exe, main[0]) if (m := LLM_T2_ROW.match(line))]
    rows[5:5] = [m for line in run_case(exe, slow[0]) if (m := LLM_T2_ROW.match(line))]
    mem_lines = run_case(exe, mem[0])
    memory = [m for line in mem_lines if (m := LLM_T2_MEM.match(line))]
    memory640 = [m for line in mem_lines if (m := LLM_T2_MEM640.match(line))]
    if len(rows) != 12 or len(memory) != 1 or len(memory640) != 1 or [m[1] for m in rows] != ["ZeRO-3"] * 6 + ["PTD-P"] * 6:
        raise ReportError("test_llm: the Table 2 printout (12 rows, memory line) changed")
    vg = [float(m[6]) for m in rows]
    out = ["### Narayanan et al. SC'21 Table 2: PTD-P vs DeepSpeed ZeRO-3, TFLOP/s per GPU", "",
           f"Written by `test_llm` (\"{main[0]}\", the 2,240-GPU ZeRO-3 row by \"{slow[0]}\", tagged [.slow]: "
           "over 60 s of CPU). Rows and provenance: data/reference/llm-table2-ptdp-vs-zero3.md (paper Table 2, "
           "grade [P]; the PTD-P split tp 8 x pp 12 / 35 is cli99/llm-analysis run_train.sh's encoding). PTD-P: "
           "1F1B, local DDP, micro-batch 1, full recomputation. ZeRO-3: tp 1, pp 1, dp = GPUs, zero_stage 3, one "
           "micro-batch per GPU, full recomputation assumed; per layer and micro-batch two fp16 weight allgathers "
           "and one fp16 gradient reduce-scatter, hidden behind the neighbouring layer's compute (one layer of "
           "prefetch). No DeepSpeed knob (prefetch bucket, overlap_comm, reduction precision) is pinned by a source. "
           "'implied GB/s': the ZeRO-3 traffic per layer (3 x 2 B x the layer's parameters) over the layer's "
           "published time; 'vgsim allgather GB/s': the engine's algorithm bandwidth for the per-layer allgather. "
           "Asserted: PTD-P rows in -10..+18 % (Table 1's offset); ZeRO-3 rows as known-miss bands at the measured "
           "errors.", ""]
    out += md_table(["scheme", "parameters (B)", "GPUs", "micro-batch", "published TFLOP/s", "vgsim TFLOP/s", "error",
                     "ZeRO-3 exposed", "implied GB/s", "vgsim allgather GB/s"], "lrrrrrrrrr",
                    [(m[1], m[2], m[3], m[4], m[5], m[6], pct(float(m[7])), m[8] + " %",
                      m[9] if m[1] == "ZeRO-3" else "", m[10] if m[1] == "ZeRO-3" else "") for m in rows])
    ratios = [vg[z] / vg[z + 6] for z in range(6)]
    out += ["", "The paper's findings: (1) ZeRO-3's TFLOP/s falls as GPUs grow at a fixed batch (175B 144 > 88 > 44, "
            f"530B 98 > 48): vgsim keeps the order ({vg[0]:.1f} > {vg[1]:.1f} > {vg[2]:.1f}; {vg[4]:.1f} > "
            f"{vg[5]:.1f}) but falls {vg[0] / vg[2]:.2f}x where the paper falls 3.27x. (2) PTD-P beats ZeRO-3 at "
            "every GPU count (published ZeRO-3 / PTD-P 0.31-0.94): not reproduced, vgsim's ZeRO-3 / PTD-P is "
            f"{min(ratios):.2f}-{max(ratios):.2f} (known miss: vgsim's tp 1 layer is compute-bound with its ZeRO-3 "
            "traffic hidden, while the published micro-batch 1 and 2 rows take the same time per layer, bound by "
            "ZeRO-3 traffic at an effective 16-18 GB/s per GPU).", "",
            f"Memory (\"{mem[0]}\"; model states, stored layer inputs, the layer full recomputation rebuilds and "
            "the ZeRO-3 working set: the gathered 16-bit weights and whole gradients of the current and the "
            f"prefetched layer): 175B ZeRO-3 at dp 384, micro-batch 4 (ran) needs {memory[0][1]} GB per GPU in "
            f"vgsim, of {memory[0][3]} GB: fits; 530B at dp 560, micro-batch 4, which the paper says did not fit, "
            f"needs {memory[0][2]} GB: does not fit either; 530B at dp 640, which the paper ran, needs "
            f"{memory640[0][1]} GB (known miss: of it the ZeRO-3 working set {memory640[0][2]} GB and the recomputed "
            f"layer {memory640[0][3]} GB; both published facts hold only if those transients total 35.5-37.4 GB, "
            "e.g. DeepSpeed gathering per submodule under a cap on live parameters, recalled, grade C).", ""]
    return out


# ---- CPU training scaling (vgsim train --scenario xeon-transformer-big-2ppn), simulated only ----

def cpu_scaling_section(vgsim, tmp):
    import json
    scenario = "xeon-transformer-big-2ppn"
    path = os.path.join(tmp, "cpu.json")
    run([vgsim, "train", "--scenario", scenario, "--json", path])
    with open(path, encoding="utf-8") as f:
        j = json.load(f)
    rows = j.get("scaling") or []
    if not rows:
        raise ReportError(f"vgsim train --scenario {scenario}: no scaling rows")
    unit = j["unit"]
    threads = next((p["value"] for p in j.get("params", []) if p["name"] == "cpu.threads_per_rank"), None)
    if j.get("sparse_as_dense") is not False or threads is None:
        raise ReportError(f"vgsim train --scenario {scenario}: expected the sparse-allgather mode and threads per rank")
    out = ["## CPU training scaling (simulated; no measurement)", "",
           f"Written by `vgsim train --scenario {scenario} --json` (its scaling table): the seed's CPU cluster, "
           "Transformer-big NMT with Horovod over Open MPI on 2 x Xeon Gold 6148 nodes and Omni-Path 100, "
           f"{j['ranks_per_node']} ranks per node x {threads} threads, 1 to {rows[-1]['nodes']} nodes, the sparse embedding "
           "gradient allgathered (Horovod's default) and, in the last columns, densified and allreduced "
           "(`horovod.sparse_as_dense`). No measurement of this system is in data/measured: the single-node compute "
           "rests on the CPU compute section's fit, and the Transformer's efficiency is not validated. Efficiency = "
           f"{unit} / (nodes x the 1-node {unit}) in the same gradient mode.", ""]
    out += md_table(["nodes", f"sparse allgather {unit}", "efficiency", f"dense allreduce {unit}", "efficiency",
                     "largest message per rank (B)"], "rrrrrr",
                    [(r["nodes"], f"{r['throughput']:.1f}", f"{100 * r['efficiency']:.1f} %",
                      f"{r['other_mode_throughput']:.1f}", f"{100 * r['other_mode_efficiency']:.1f} %",
                      r["largest_message_bytes"]) for r in rows])
    return out + [""]


# ---- the report ----

def commit():
    sha = run(["git", "rev-parse", "--short=12", "HEAD"]).strip()
    dirty = run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)docs/VALIDATION.md"])
    return sha + (" (with uncommitted changes)" if dirty.strip() else "")


def report(build):
    vgsim = find_executable(build, "vgsim")
    with tempfile.TemporaryDirectory(prefix="vgsim-validation-") as tmp:
        body = (replay_section(build) + calibrated_section(build) + nvls_section(vgsim, tmp)
                + nvls_tree_section(vgsim, tmp) + gdr_read_section(vgsim, tmp) + socket_table_section(vgsim, tmp)
                + mpi_section(build) + training_section(build)
                + cpu_compute_section(build) + llm_section(build) + mig_section(build) + seed_section(vgsim, tmp)
                + cpu_scaling_section(vgsim, tmp))
    head = ["# vgsim validation report", "",
            "<!-- Generated file: do not edit. Rewrite it with `tests/validation/report.py <build>` or "
            "`cmake --build <build> --target validation-report`. -->", "",
            f"Generated by `tests/validation/report.py` from commit {commit()}. Every figure below is printed by a "
            "test or by the vgsim executable (signs and medians are computed from the printed rows); the same "
            "sources and data give a byte-identical file. Measured data and its provenance: `data/measured/` (each "
            "file's header, the training CSV's source column). docs/ARCHITECTURE.md describes the mechanisms; this "
            "page holds the figures that change when a model changes. Engine speed: docs/BENCHMARKS.md.", ""]
    titles = [l[3:] for l in body if l.startswith("## ")]
    toc = [f"- [{t}](#{anchor(t)})" for t in titles] + [""]
    return "\n".join(head + toc + body).rstrip("\n") + "\n"


def main(argv):
    if len(argv) not in (2, 3):
        print(f"usage: {argv[0]} BUILD_DIR [OUT]  (OUT defaults to docs/VALIDATION.md)", file=sys.stderr)
        return 2
    out = argv[2] if len(argv) == 3 else os.path.join(ROOT, "docs", "VALIDATION.md")
    try:
        text = report(os.path.abspath(argv[1]))
    except ReportError as e:
        print(f"validation report: {e}", file=sys.stderr)
        return 1
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
