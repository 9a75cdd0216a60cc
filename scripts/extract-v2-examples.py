#!/usr/bin/env python3
"""Extracts every TypeScript example of @mastra/mcp 2.0's MCPClient reference page
(dist/docs/references/reference-tools-mcp-client.md of the 2.0.0 package) and the client-side examples of its
migration guide (reference-migrations-mcp-v2.md; of a diff block, the code after the change) into
__test__/typings/v2/*.mts, compiled by __test__/typings.test.mjs under --strict against our index.d.ts.
A 2.0 project's client code must compile unchanged against our typings.

Usage: scripts/extract-v2-examples.py <dir of 2.0's dist/docs/references>

Same conventions as scripts/extract-seed-examples.py (the 1.18 page). Examples that are stale on the
2.0 page itself (not 2.0's API) are skipped with the reason in SKIP.

Signature-only blocks (a method signature, not code) are skipped. Above the `// ---- example ----`
marker each file only imports and declares what the example uses without defining; below it the
example is verbatim except for elisions the page leaves for the reader (`{/* ... */}` where a
required field goes, an Agent without name/model), which are filled minimally and marked
`/* elision filled */`. A top-level `return` fragment is wrapped in an elicitation handler.
"""
import os
import re
import sys

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

SIGNATURE = re.compile(r'^(async \w+\(|\w+\(.*\):|constructor\(|async get\(|async onUpdate\()')
MCP_VALUES = ['MCPClient', 'MCPOAuthClientProvider', 'createOAuthCallbackServer', 'getCallbackUrlCandidates',
              'createSimpleTokenProvider', 'InMemoryOAuthStorage']
FREE = {
    'mcp': 'declare const mcp: MCPClient',
    'mcpClient': 'declare const mcpClient: MCPClient',
    'agent': 'declare const agent: Agent',
    'prompt': 'declare const prompt: string',
    'model': "declare const model: `${string}/${string}`",
    'untrustedConfig': 'declare const untrustedConfig: { serverUrl: string }',
    'expectedState': 'declare const expectedState: string',
    'Database': 'interface Database { query(sql: string, params: unknown[]): Promise<any[]> }',
    'db': 'declare const db: { query(sql: string, params: unknown[]): Promise<any[]> }',
    'collectUserInput': 'declare function collectUserInput(schema: unknown): Promise<Record<string, string>>',
    'promptUser': 'declare function promptUser(field: Record<string, unknown>): Promise<string | null>',
    'getAuthToken': 'declare function getAuthToken(options: { timeoutMs: number }): Promise<string | null>',
    'openai': "declare function openai(model: string): `${string}/${string}`",
    'myRequestContext': 'declare const myRequestContext: RequestContext',
    'cache': 'declare const cache: { get(key: string): Promise<string>; set(key: string, value: string): Promise<unknown> }',
    'refresh': 'declare function refresh(uri: string): void',
    'askUser': 'declare function askUser(...args: unknown[]): Promise<{ action: "accept" | "decline" | "cancel"; content?: Record<string, string> }>',
}
ELISIONS = [
    ("new MCPClient({/* ...servers configuration... */})",
     "new MCPClient({ servers: {} /* elision filled */ /* ...servers configuration... */ })"),
    ("clientMetadata: {/* ... */},",
     "clientMetadata: { redirect_uris: ['http://localhost:3000/callback'] /* elision filled */ },"),
    ("new Agent({ id: 'agent', tools",
     "new Agent({ id: 'agent', name: 'agent', instructions: 'Help.', model: 'openai/gpt-5' /* elision filled */, tools"),
]

count = 0
for page, page_file, blocks in pages:
  for i, _lang, block in blocks:
    code = block.rstrip() + '\n'
    lines = code.strip().splitlines()
    if not lines or (len(lines) == 1 and SIGNATURE.match(lines[0])) or SIGNATURE.match(lines[0]) and lines[-1].rstrip().endswith(('>', ')')) and 'new ' not in code:
        continue
    body = code
    for a, b in ELISIONS:
        body = body.replace(a, b)
    if body.lstrip().startswith('return'):
        body = 'export const handler: ElicitationHandler = async () => {\n' + body + '}\n'
    imports = re.findall(r'^import .*$', body, re.M)
    rest = re.sub(r'^import .*\n', '', body, flags=re.M)
    imported = set()
    for imp in imports:
        m = re.search(r'\{(.*)\}', imp)
        if m:
            imported |= {x.strip().split(' as ')[-1] for x in m.group(1).split(',')}
    def defined(name):
        return (re.search(r'(const|let|function|class|interface)\s+' + name + r'\b', rest)
                or re.search(r'(const|let)\s*\{[^}]*\b' + name + r'\b[^}]*\}\s*=', rest) or name in imported)
    decls = [d for n, d in FREE.items() if re.search(r'(?<![/\'-])\b' + n + r'\b(?![/\'-])', rest) and not defined(n)]
    need = [x for x in MCP_VALUES if re.search(r'\b' + x + r'\b', rest) and x not in imported]
    if any(': MCPClient' in d for d in decls) and 'MCPClient' not in imported and 'MCPClient' not in need:
        need.append('MCPClient')
    pre = []
    if 'ElicitationHandler' in rest:
        pre.append("import type { ElicitationHandler } from '@mastra/mcp'")
    if (any(': Agent' in d for d in decls) or re.search(r'\bnew Agent\b', rest)) and 'Agent' not in imported:
        pre.append("import { Agent } from '@mastra/core/agent'")
    if any('RequestContext' in d for d in decls):
        pre.append("import type { RequestContext } from '@mastra/core/request-context'")
    if need:
        pre.append('import { ' + ', '.join(need) + " } from '@mastra/mcp'")
    header = (f'// Example {i} of @mastra/mcp 2.0\'s {page_file}, extracted by\n'
              '// scripts/extract-v2-examples.py: imports and declarations above the marker, the example below.\n')
    head = '\n'.join(imports + pre + decls)
    with open(os.path.join(out, f'{page}-{i:02d}.mts'), 'w', encoding='utf8') as f:
        f.write(header + (head + '\n' if head else '') + '// ---- example ----\n' + rest + 'export {}\n')
    count += 1
print(f'{count} examples written to {os.path.normpath(out)}')
