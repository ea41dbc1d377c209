#!/usr/bin/env python3
"""Runs every example command of the project's Markdown documents, so that a documented command cannot rot.

Usage: run_examples.py [--check-readme] VGSIM_EXE REPO_ROOT FILE.md...

Rules (docs/COMMANDS.md, "Examples in these documents"):
- Every line of a fenced block tagged `sh` is a command (a line ending in a backslash continues on the next line;
  `#` comment lines and blank lines are skipped). Blocks tagged otherwise (`text`, `json`, `console`) are not run.
- A command's program must be `build/cli/vgsim` (the built vgsim, VGSIM_EXE, is run in its place) or one of the
  set-up programs CI itself runs in order (`.ci/setup`, `ctest`, `cmake`), which are skipped here; any other
  program fails the test, so that a document cannot show a command nobody runs. `a && b` runs each part.
- A trailing `# exit N` comment gives the expected exit status (default 0). Each command may take 300 s.
- The commands of one document run in order, in one scratch folder holding links to the repository's data folders
  (topologies/, workloads/, data/, calibrate/, notebooks/, docs/), so a command may read a file an earlier one wrote.
With --check-readme, the first FILE is also held to the README's rules: at most 150 lines, none over 200
characters, and no measured figure in its prose (a number with a unit of time, rate or a percent outside code).
Exit 0 when every command ran as expected, 1 otherwise (each failure printed with its file and line)."""
import os
import re
import shlex
import subprocess
import sys
import tempfile

SKIPPED = {'.ci/setup', 'ctest', 'cmake'}
LINKED = ['topologies', 'workloads', 'data', 'calibrate', 'notebooks', 'docs']
FIGURE = re.compile(r'\b\d[\d,.]*\s?(%|ms\b|us\b|s\b|min\b|GB/s|Gb/s|img/s|tokens/s|samples/s|x faster)')


def commands(path):
    """(line number, command text) for every command of the file's sh blocks."""
    out, block, pending, start = [], None, '', 0
    with open(path, encoding='utf-8') as f:
        for no, line in enumerate(f, 1):
            s = line.rstrip('\n')
            if s.lstrip().startswith('```'):
                tag = s.strip()[3:].strip()
                block = None if block is not None else tag
                continue
            if block != 'sh':
                continue
            text = s.strip()
            if not pending and (not text or text.startswith('#')):
                continue
            if not pending:
                start = no
            if text.endswith('\\'):
                pending += text[:-1] + ' '
                continue
            out.append((start, pending + text))
            pending = ''
    return out


def expected_status(cmd):
    m = re.search(r'#\s*exit\s+(\d+)\s*$', cmd)
    return (cmd[:m.start()].strip(), int(m.group(1))) if m else (cmd, 0)


def run_file(exe, root, path):
    failures, ran = [], 0
    with tempfile.TemporaryDirectory(prefix='vgsim-doc-') as scratch:
        for name in LINKED:
            if os.path.isdir(os.path.join(root, name)):
                os.symlink(os.path.join(root, name), os.path.join(scratch, name))
        env = dict(os.environ, VGSIM_DATA_DIR=root)
        for no, raw in commands(path):
            cmd, status = expected_status(raw)
            for part in [p.strip() for p in cmd.split('&&')]:
                argv = shlex.split(part)
                where = f'{os.path.relpath(path, root)}:{no}'
                if not argv:
                    failures.append(f'{where}: empty command part in: {raw}')
                    continue
                if argv[0] in SKIPPED:
                    continue
                if argv[0] not in ('build/cli/vgsim', 'vgsim'):
                    failures.append(f'{where}: program {argv[0]!r} is neither build/cli/vgsim nor a set-up step '
                                    f'({", ".join(sorted(SKIPPED))}); show it in a `text` block if it is a template')
                    continue
                argv[0] = exe
                try:
                    p = subprocess.run(argv, cwd=scratch, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       timeout=300, text=True)
                except subprocess.TimeoutExpired:
                    failures.append(f'{where}: timed out after 300 s: {part}')
                    continue
                ran += 1
                if p.returncode != status:
                    tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
                    failures.append(f'{where}: exit {p.returncode}, expected {status}: {part}\n    ' +
                                    '\n    '.join(tail))
    return ran, failures


def readme_rules(path):
    problems, block = [], False
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    if len(lines) > 150:
        problems.append(f'{path}: {len(lines)} lines, at most 150')
    for no, line in enumerate(lines, 1):
        if len(line) > 200:
            problems.append(f'{path}:{no}: {len(line)} characters, at most 200')
        if line.lstrip().startswith('```'):
            block = not block
            continue
        prose = re.sub(r'`[^`]*`', '', line)
        if not block and FIGURE.search(prose):
            problems.append(f'{path}:{no}: a measured figure ({FIGURE.search(prose).group(0)!r}); '
                            'figures drift: put them in docs/VALIDATION.md or docs/BENCHMARKS.md')
    return problems


def main(argv):
    check_readme = '--check-readme' in argv
    args = [a for a in argv if a != '--check-readme']
    if len(args) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    exe, root, files = os.path.abspath(args[0]), os.path.abspath(args[1]), args[2:]
    failures = readme_rules(os.path.join(root, files[0])) if check_readme else []
    total = 0
    for f in files:
        ran, fails = run_file(exe, root, os.path.join(root, f))
        total += ran
        failures += fails
        print(f'{f}: {ran} commands run')
    for f in failures:
        print('FAIL ' + f)
    print(f'{total} commands run, {len(failures)} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
