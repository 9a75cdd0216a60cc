"""What scripts/extract-seed-examples.py (the 1.18 page) and scripts/extract-v2-examples.py (2.0's pages) share:
turning one TypeScript example of a docs page into a module that `tsc --strict` can check.

Above the `// ---- example ----` marker a module only imports and declares what the example uses without
defining; below it the example is verbatim except for elisions the page leaves for the reader (`{/* ... */}`
where a required field goes, an Agent without name/model), which are filled minimally and marked
`/* elision filled */`. A top-level `return` fragment is wrapped in an elicitation handler.
"""
import re

SIGNATURE = re.compile(r'^(async \w+\(|\w+\(.*\):|constructor\(|async get\(|async onUpdate\()')
MCP_VALUES = ['MCPClient', 'MCPOAuthClientProvider', 'createOAuthCallbackServer', 'getCallbackUrlCandidates',
              'createSimpleTokenProvider', 'InMemoryOAuthStorage']
# Free names the pages use without defining them, and what declares them.
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


def is_signature(code):
    """A block that is a method signature, not code."""
    lines = code.strip().splitlines()
    return (not lines or (len(lines) == 1 and SIGNATURE.match(lines[0]))
            or bool(SIGNATURE.match(lines[0]) and lines[-1].rstrip().endswith(('>', ')')) and 'new ' not in code))


def example_module(code, header, free=FREE):
    """The text of the module for one example: `header`, then what it needs declared, then the example."""
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

    decls = [d for n, d in free.items() if re.search(r'(?<![/\'-])\b' + n + r'\b(?![/\'-])', rest) and not defined(n)]
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
    head = '\n'.join(imports + pre + decls)
    return header + (head + '\n' if head else '') + '// ---- example ----\n' + rest + 'export {}\n'
