#!/usr/bin/env python3
"""Extracts every TypeScript example of the MCPClient reference page (the seeds) into
__test__/typings/seeds/example-NN.mts, compiled by __test__/typings.test.mjs under --strict.

Usage: scripts/extract-seed-examples.py /work/shared/seeds/000_0041ca038269d00d.txt

Signature-only blocks (a method signature, not code) are skipped. Above the `// ---- example ----`
marker each file only imports and declares what the example uses without defining; below it the
example is verbatim except for elisions the page leaves for the reader (`{/* ... */}` where a
required field goes, an Agent without name/model), which are filled minimally and marked
`/* elision filled */`. A top-level `return` fragment is wrapped in an elicitation handler.
"""
import os
import re
import sys

src = sys.argv[1]
out = os.path.join(os.path.dirname(__file__), '..', '__test__', 'typings', 'seeds')
os.makedirs(out, exist_ok=True)
text = open(src, encoding='utf8').read()
blocks = re.findall(r'```(\w*)\n(.*?)```', text, re.S)

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
for i, (_lang, block) in enumerate(blocks):
    code = block.rstrip() + '\n'
    lines = code.strip().splitlines()
    if not lines or (len(lines) == 1 and SIGNATURE.match(lines[0])) or SIGNATURE.match(lines[0]) and lines[-1].rstrip().endswith(('>', ')')) and 'new ' not in code:
        continue
    if i in (0, 39, 46):  # multi-line signatures
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
    header = (f'// Example {i} of the MCPClient reference page (seeds/{os.path.basename(src)}), extracted by\n'
              '// scripts/extract-seed-examples.py: imports and declarations above the marker, the example below.\n')
    head = '\n'.join(imports + pre + decls)
    with open(os.path.join(out, f'example-{i:02d}.mts'), 'w', encoding='utf8') as f:
        f.write(header + (head + '\n' if head else '') + '// ---- example ----\n' + rest + 'export {}\n')
    count += 1
print(f'{count} examples written to {os.path.normpath(out)}')
