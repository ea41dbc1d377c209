#!/usr/bin/env python3
"""Compares the six algoN files of each (network, nodes, step) group of this folder (issue 15; README.md here).

Prints, per group: the median over sizes >= 256 KB of time(algoN) / time(algo4), and the median over sizes of the
spread (max - min) / median across the group's files. Standard library only. Usage: python3 compare_algorithms.py [DIR]
"""
import glob
import os
import statistics as st
import sys


def load(path):
    rows = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        size, t = line.split()[:2]
        rows[int(size)] = float(t)
    return rows


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for net in ("10g", "100g"):
        for nodes in ("2", "4"):
            for step in ("1k", "1m", "10m"):
                files = {a: load(p) for a in range(1, 7)
                         for p in glob.glob(f"{d}/allreduce-{net}-{nodes}cpu-algo{a}-step{step}.txt")}
                if not files:
                    continue
                common = set.intersection(*[set(r) for r in files.values()])
                big = sorted(s for s in common if s >= 256000)
                ratios = " ".join(f"a{a}/a4={st.median(files[a][s] / files[4][s] for s in big):.2f}"
                                  for a in sorted(files) if big)
                spread = st.median((max(f[s] for f in files.values()) - min(f[s] for f in files.values()))
                                   / st.median(f[s] for f in files.values()) for s in common)
                print(f"{net:>4} {nodes} nodes step{step:<3} sizes {len(common):3d}  {ratios}  "
                      f"spread median {100 * spread:.1f} %")


if __name__ == "__main__":
    main()
