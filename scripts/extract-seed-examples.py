#!/usr/bin/env python3
"""Extracts every TypeScript example of the MCPClient reference page (the seeds) into
__test__/typings/seeds/example-NN.mts, compiled by __test__/typings.test.mjs under --strict.

Usage: scripts/extract-seed-examples.py /work/shared/seeds/000_0041ca038269d00d.txt

Signature-only blocks (a method signature, not code) are skipped; each other block becomes a module as
scripts/example_modules.py describes.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from example_modules import example_module, is_signature  # noqa: E402

src = sys.argv[1]
out = os.path.join(os.path.dirname(__file__), '..', '__test__', 'typings', 'seeds')
os.makedirs(out, exist_ok=True)
text = open(src, encoding='utf8').read()
blocks = re.findall(r'```(\w*)\n(.*?)```', text, re.S)

count = 0
for i, (_lang, block) in enumerate(blocks):
    code = block.rstrip() + '\n'
    if is_signature(code) or i in (0, 39, 46):  # (0, 39, 46: multi-line signatures)
        continue
    header = (f'// Example {i} of the MCPClient reference page (seeds/{os.path.basename(src)}), extracted by\n'
              '// scripts/extract-seed-examples.py: imports and declarations above the marker, the example below.\n')
    with open(os.path.join(out, f'example-{i:02d}.mts'), 'w', encoding='utf8') as f:
        f.write(example_module(code, header))
    count += 1
print(f'{count} examples written to {os.path.normpath(out)}')
