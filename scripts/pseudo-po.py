#!/usr/bin/env python3
"""Regenerate Tests/AppTests/Fixtures/qps-ploc.po, the fifth language of the tests, from en.po.

A pseudo-translation (qps-ploc): every text accented and bracketed (⟦Çàţàļöĝ⟧), placeholders kept, three
plural forms. Any English on a page walked in it is a leak. Run after changing en.po (add-string.py
does); TranslationTests fails when the fixture lacks a key.
"""
import os, re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, 'Sources/App/Localization/Translations/en.po')
TARGET = os.path.join(ROOT, 'Tests/AppTests/Fixtures/qps-ploc.po')
ACCENTS = dict(zip('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
                   'àƀçđéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÀƁÇĐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ'))
KEEP = re.compile(r'(\{[a-z0-9_]+\}|\\n|\\"|\\\\)')


def pseudo(text):
    if not text:
        return text
    pieces = [p if KEEP.fullmatch(p) else ''.join(ACCENTS.get(c, c) for c in p) for p in KEEP.split(text)]
    return '⟦' + ''.join(pieces) + '⟧'


def main():
    out, in_header = [], True
    for line in open(SOURCE, encoding='utf-8').read().split('\n'):
        if in_header and line.startswith('"'):
            line = (line.replace('Language-Team: English', 'Language-Team: Pseudo').replace('Language: en', 'Language: qps')
                    .replace('X-Shelfmark-Code: en', 'X-Shelfmark-Code: qps-ploc').replace('X-Shelfmark-Name: English', 'X-Shelfmark-Name: Ƥšéûđö')
                    .replace('nplurals=2; plural=(n != 1);',
                             'nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);'))
        if line == '':
            in_header = False
        m = re.match(r'^(msgstr(?:\[\d\])?) "(.*)"$', line)
        if m and not in_header and m.group(2):
            line = f'{m.group(1)} "{pseudo(m.group(2))}"'
        out.append(line)
        if m and m.group(1) == 'msgstr[1]' and not in_header:
            out.append(f'msgstr[2] "{pseudo(m.group(2))}"')
    text = '\n'.join(out).replace(
        '# Shelfmark: the interface text in English, the source language of every translation.',
        '# A fifth language for the tests: a pseudo-translation (qps-ploc) of en.po, every text accented and\n'
        '# bracketed, with three plural forms, proving that a language is one file (TranslationTests).\n'
        '# Made by scripts/pseudo-po.py; do not edit by hand.')
    open(TARGET, 'w', encoding='utf-8').write(text)


if __name__ == '__main__':
    main()
