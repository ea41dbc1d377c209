#!/usr/bin/env python3
"""Fails when a tracked file cites a file outside the repository (issue 38 item 4). Usage:
no_outside_citations.py ROOT [--exclude PATH ...]

vgsim's reference notes live beside the repository, not in it: every fact they hold that vgsim uses is copied with
its public provenance into docs/SOURCES.md, and outputs, catalogs, presets and comments cite docs/SOURCES.md#<section>
or the public source. Two rules, over every tracked text file under ROOT (git ls-files; a walk of ROOT without git):
1. No citation of the reference folder: a path that starts with "shared/" (optionally after ../), or the file name of
   one of its notes (NOTES below), unless a tracked file of that name exists under ROOT.
2. Every docs/SOURCES.md#<section> cited names a "## <section>" heading of ROOT/docs/SOURCES.md.
Excluded: the files given with --exclude (the CI script that checks build inputs for that folder, this script, the
fixture that proves the check fails). Prints path:line: what and exits 1 on any finding, else exits 0."""
import os
import re
import subprocess
import sys

# The notes of the reference folder (its DOMAIN.md, DESIGN.md and reference/ files), by file name.
NOTES = ["DOMAIN.md", "DESIGN.md", "nccl-model.md", "training-measurements.md", "cpu-training.md", "openmpi.md",
         "horovod-internals.md", "nccl-tuning-by-version.md", "nccl-net-path-by-version.md", "workloads.md",
         "network-evidence/", "unblock-2026-12/", "mpi-cpu/", "nccl-horovod/"]
# "shared/" as the first component of a path: not inside a word or a longer path (libshared/, x/shared/).
SHARED = re.compile(r"(?<![\w./-])(?:\.\./)*shared/")
ANCHOR = re.compile(r"docs/SOURCES\.md#([A-Za-z0-9_-]+)")


def tracked(root):
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True).stdout
        return [p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith((".", "build"))]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
        return files


def note_patterns(files):
    present = {os.path.basename(f) for f in files}
    pats = []
    for n in NOTES:
        if n.endswith("/"):  # a folder of the reference notes: "mpi-cpu/..." as a path component
            pats.append((n, re.compile(r"(?<![\w.-])" + re.escape(n))))
        elif n not in present:  # a file name the repository does not have (workloads.md: only as a path's end)
            prefix = r"(?<![\w.-])" if n != "workloads.md" else r"(?<=reference/)"
            pats.append((n, re.compile(prefix + re.escape(n))))
    return pats


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__)
        return 2
    root, exclude = argv[0], set()
    rest = argv[1:]
    while rest:
        if rest[0] != "--exclude" or len(rest) < 2:
            print("usage: no_outside_citations.py ROOT [--exclude PATH ...]", file=sys.stderr)
            return 2
        exclude.add(rest[1])
        rest = rest[2:]
    files = tracked(root)
    notes = note_patterns(files)
    sources = os.path.join(root, "docs", "SOURCES.md")
    sections = set()
    if os.path.exists(sources):
        with open(sources, encoding="utf-8") as f:
            sections = {m.group(1) for m in re.finditer(r"^## ([A-Za-z0-9_-]+)\s*$", f.read(), re.M)}
    findings = []
    for rel in sorted(files):
        if rel in exclude or any(rel.startswith(e.rstrip("/") + "/") for e in exclude if e.endswith("/")):
            continue
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                lines = f.read().split("\n")
        except (UnicodeDecodeError, OSError):
            continue  # binary or unreadable: cites nothing
        for no, line in enumerate(lines, 1):
            m = SHARED.search(line)
            if m:
                findings.append(f"{rel}:{no}: cites '{line[m.start():m.start() + 40]}' (a folder outside the repository)")
            for name, pat in notes:
                if pat.search(line):
                    findings.append(f"{rel}:{no}: cites the reference note '{name}' (not in the repository)")
            for a in ANCHOR.finditer(line):
                if a.group(1) not in sections:
                    findings.append(f"{rel}:{no}: docs/SOURCES.md has no section '## {a.group(1)}'")
    for f in findings:
        print(f)
    if findings:
        print(f"{len(findings)} citation(s) outside the repository: copy the fact with its public provenance into "
              "docs/SOURCES.md and cite docs/SOURCES.md#<section>, or cite the public source", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
