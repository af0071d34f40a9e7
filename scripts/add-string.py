#!/usr/bin/env python3
"""Add a text to the interface in every language, then refresh the fifth-language test fixture.

    scripts/add-string.py KEY "translator comment" "English" "Deutsch" "Gaeilge" "中文"

Appends a `msgctxt KEY` entry to Sources/App/Localization/Translations/{en,de,ga,zh-Hans}.po (before
the counted phrases), with the comment and, when the text has named placeholders ({title}), their list
and the python-brace-format flag. Add `case KEY` to `L` in Sources/App/Localization/Keys.swift yourself.
Counted phrases (msgid_plural) are written by hand. Then run `make test-translations`.
"""
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CODES = ['en', 'de', 'ga', 'zh-Hans']


def quote(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n') + '"'


def main():
    if len(sys.argv) != 3 + len(CODES):
        sys.exit(__doc__)
    key, comment, texts = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not re.fullmatch(r'[A-Za-z][A-Za-z0-9]*', key):
        sys.exit(f'{key}: a key is a Swift identifier')
    names = list(dict.fromkeys(re.findall(r'\{([a-z0-9_]+)\}', texts[0])))
    for code, text in zip(CODES, texts):
        if set(re.findall(r'\{([a-z0-9_]+)\}', text)) != set(names):
            sys.exit(f'{code}: the placeholders differ from English ({names})')
    for code, text in zip(CODES, texts):
        path = os.path.join(ROOT, 'Sources/App/Localization/Translations', code + '.po')
        po = open(path, encoding='utf-8').read()
        if f'msgctxt "{key}"' in po:
            sys.exit(f'{code}.po already has {key}')
        entry = [f'#. {comment}']
        if names:
            entry += ['#. Placeholders: ' + ', '.join('{' + n + '}' for n in names), '#, python-brace-format']
        entry += [f'msgctxt "{key}"', 'msgid ' + quote(texts[0]), 'msgstr ' + quote(text), '']
        at = po.find('#. Counted phrase')
        at = len(po) if at < 0 else at
        open(path, 'w', encoding='utf-8').write(po[:at] + '\n'.join(entry) + '\n' + po[at:])
    subprocess.run([sys.executable, os.path.join(ROOT, 'scripts/pseudo-po.py')], check=True)


if __name__ == '__main__':
    main()
