"""IRIS's FileSpec: wildcard patterns (`*`, `?`) separated by `;`, each matching a whole file name."""
import re


def file_spec_matcher(spec):
    patterns = []
    for part in (spec or '').split(';'):
        part = part.strip()
        if part:
            patterns.append(re.compile('^' + ''.join('.*' if c == '*' else '.' if c == '?' else re.escape(c) for c in part) + '$', re.S))
    if not patterns:
        return lambda name: True
    return lambda name: any(p.match(name) for p in patterns)
