#!/usr/bin/env python3
"""Extracts every TypeScript example of @mastra/mcp 2.0's MCPClient reference page
(dist/docs/references/reference-tools-mcp-client.md of the 2.0.0 package) and the client-side examples of its
migration guide (reference-migrations-mcp-v2.md; of a diff block, the code after the change) into
__test__/typings/v2/*.mts, compiled by __test__/typings.test.mjs under --strict against our index.d.ts.
A 2.0 project's client code must compile unchanged against our typings.

Usage: scripts/extract-v2-examples.py <dir of 2.0's dist/docs/references>

Same conventions as scripts/extract-seed-examples.py (the 1.18 page). Examples that are stale on the
2.0 page itself (not 2.0's API) are skipped with the reason in SKIP.

Signature-only blocks (a method signature, not code) are skipped; each other block becomes a module as
scripts/example_modules.py describes.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from example_modules import FREE as BASE_FREE, example_module, is_signature  # noqa: E402

refs = sys.argv[1]
out = os.path.join(os.path.dirname(__file__), '..', '__test__', 'typings', 'v2')
os.makedirs(out, exist_ok=True)
for old in os.listdir(out):
    if old.endswith('.mts'):
        os.remove(os.path.join(out, old))

# Blocks of the reference page that are not 2.0 client code, by index (reason).
SKIP = {
    0: 'multi-line signature',
    47: 'multi-line signature',
    54: 'multi-line signature',
    71: 'stale on the 2.0 page: the SSE fallback and eventSourceInit, which 2.0 removed (ours keeps them: the 1.18 seeds compile them)',
}
# Client-side blocks of the migration guide (the others are server code: MCPServer, createTool, startHTTP).
MIGRATION_CLIENT = {5, 6, 7, 8, 9, 13, 14}

def after_diff(block):
    """The code a diff block changes to: `-` lines dropped, `+` markers removed, indentation kept."""
    lines = []
    for line in block.splitlines():
        if line.startswith('-'):
            continue
        lines.append(' ' + line[1:] if line.startswith('+') else line)
    return '\n'.join(lines) + '\n'

pages = []
text = open(os.path.join(refs, 'reference-tools-mcp-client.md'), encoding='utf8').read()
pages.append(('reference', 'reference-tools-mcp-client.md', [(i, l, b) for i, (l, b) in enumerate(re.findall(r'```(\w*)\n(.*?)```', text, re.S)) if i not in SKIP]))
text = open(os.path.join(refs, 'reference-migrations-mcp-v2.md'), encoding='utf8').read()
mig = re.findall(r'```(\w*)\n(.*?)```', text, re.S)
def wrap_fragment(code):
    """A migration fragment that is part of an MCPClient's options, wrapped in one (marked)."""
    first = code.lstrip().split('\n', 1)[0]
    if first.startswith('servers:'):
        return 'const mcp = new MCPClient({ /* fragment wrapped */\n' + code + '})\n'
    if first.startswith('url:'):
        return 'const mcp = new MCPClient({ servers: { weather: { /* fragment wrapped */\n' + code + '} } })\n'
    return code

pages.append(('migration', 'reference-migrations-mcp-v2.md',
              [(i, l, wrap_fragment(after_diff(b) if l == 'diff' else b)) for i, (l, b) in enumerate(mig) if i in MIGRATION_CLIENT]))

# Free names 2.0's pages use beyond the 1.18 page's.
FREE = {
    **BASE_FREE,
    'cache': 'declare const cache: { get(key: string): Promise<string>; set(key: string, value: string): Promise<unknown> }',
    'refresh': 'declare function refresh(uri: string): void',
    'askUser': 'declare function askUser(...args: unknown[]): Promise<{ action: "accept" | "decline" | "cancel"; content?: Record<string, string> }>',
}

count = 0
for page, page_file, blocks in pages:
  for i, _lang, block in blocks:
    code = block.rstrip() + '\n'
    if is_signature(code):
        continue
    header = (f'// Example {i} of @mastra/mcp 2.0\'s {page_file}, extracted by\n'
              '// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.\n')
    with open(os.path.join(out, f'{page}-{i:02d}.mts'), 'w', encoding='utf8') as f:
        f.write(example_module(code, header, FREE))
    count += 1
print(f'{count} examples written to {os.path.normpath(out)}')
