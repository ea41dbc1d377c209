#!/usr/bin/env python3
"""Fails when a function body in the project's C++ sources is longer than the limit (issue 14: no function over
120 lines outside generated tables). Usage: function_length.py [--limit N] [--list] ROOT FOLDER...

A function is a brace block opened at namespace or class scope whose header (the text since the previous ';', '{' or
'}') has a parameter list; lambdas and local classes count toward the function that holds them. Comments, string and
character literals (raw strings included) are blanked first, so braces inside them do not count. Length is the number
of lines from the line where the header starts to the closing brace. A file whose first lines contain
'generated table' is skipped."""
import os
import re
import sys


def strip(src):
    """Blanks comments and literals, keeping newlines so line numbers stay."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            i = j
        elif src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', src[i:j]))
            i = j
        elif c == 'R' and src.startswith('R"', i) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == '_')):
            k = src.find('(', i + 2)
            delim = ')' + src[i + 2:k] + '"'
            j = src.find(delim, k)
            j = n if j < 0 else j + len(delim)
            out.append(re.sub(r'[^\n]', ' ', src[i:j]))
            i = j
        elif c == '"' or (c == "'" and not (i > 0 and src[i - 1].isalnum())):  # ' after a digit: separator 1'000
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == '\\' else 1
            out.append(re.sub(r'[^\n]', ' ', src[i:j + 1]))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


SCOPE = re.compile(r'\b(namespace|class|struct|union|enum)\b')


def functions(text):
    """Yields (name, first line, last line) of every function body at namespace or class scope."""
    stack = []  # kinds of open blocks: 'scope' (namespace, class, extern "C") or 'func' or 'other'
    header_start = 0
    start = None  # (offset of header, name) of the function being read
    for m in re.finditer(r'[{};]', text):
        ch, pos = m.group(), m.start()
        in_func = any(k == 'func' for k in stack)
        if ch == '{':
            header = text[header_start:pos]
            if in_func:
                kind = 'other'
            elif SCOPE.search(header) and '(' not in header.split('=')[0]:
                kind = 'scope'
            elif re.search(r'\)\s*(const|noexcept|override|final|mutable|->[^{]*|:[^{]*|\s)*$', header, re.S):
                kind = 'func'
                name = re.search(r'([~\w:<>]+)\s*\([^()]*', header)
                off = len(header) - len(header.lstrip())
                start = (header_start + off, name.group(1) if name else '?')
            elif 'extern' in header:
                kind = 'scope'
            else:
                kind = 'other'  # a brace initializer at namespace scope
            stack.append(kind)
            header_start = pos + 1
        elif ch == '}':
            kind = stack.pop() if stack else 'scope'
            if kind == 'func' and not any(k == 'func' for k in stack):
                first = text.count('\n', 0, start[0]) + 1
                last = text.count('\n', 0, pos) + 1
                yield start[1], first, last
            header_start = pos + 1
        else:
            if not in_func:
                header_start = pos + 1
    return


def main(argv):
    limit, listing = 120, False
    args = []
    it = iter(argv)
    for a in it:
        if a == '--limit':
            limit = int(next(it))
        elif a == '--list':
            listing = True
        else:
            args.append(a)
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root, folders = args[0], args[1:]
    long_ones = []
    for folder in folders:
        for d, _, files in os.walk(os.path.join(root, folder)):
            for f in sorted(files):
                if not f.endswith(('.cpp', '.hpp', '.cu', '.h')):
                    continue
                path = os.path.join(d, f)
                with open(path, encoding='utf-8') as fh:
                    src = fh.read()
                if 'generated table' in src[:2000]:
                    continue
                for name, first, last in functions(strip(src)):
                    lines = last - first + 1
                    if lines > limit or listing:
                        long_ones.append((lines, os.path.relpath(path, root), first, name))
    long_ones.sort(reverse=True)
    for lines, path, first, name in long_ones:
        if lines > limit or listing:
            print(f'{path}:{first}: {name}: {lines} lines')
    over = [x for x in long_ones if x[0] > limit]
    if over:
        print(f'{len(over)} function(s) over {limit} lines (split them along their concepts)', file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
