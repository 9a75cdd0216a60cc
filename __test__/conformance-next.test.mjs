// The official MCP conformance suite's next release, 0.2.0-alpha.12 (the devDependency
// `@modelcontextprotocol/conformance-next`; it needs Node >= 22), in client mode, driving our
// MCPClient through __test__/conformance/client.mjs, which uses only the documented API. Every
// scenario runs with the client at its defaults (no `protocolVersion`); the scenarios the suite
// runs only at the 2026-07-28 revision run once more with `protocolVersion: '2026-07-28'`, as
// the suite asks (MCP_CONFORMANCE_PROTOCOL_VERSION). Every scenario the suite lists is expected
// to pass, or not to pass for a reason given below. The DPoP scenarios ask for sender-constrained
// tokens: the client program sets `dpop: true` on its provider there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { conformance, failures, passed } from './conformance/run.mjs';

const require = createRequire(import.meta.url);
const suite = conformance(require.resolve('@modelcontextprotocol/conformance-next/dist/index.js'));
const STATELESS = '2026-07-28';

/** Scenarios that do not pass, each with the reason; every other listed scenario must pass. */
const notPassing = {};

/**
 * With `protocolVersion` left unset the client opens with the `initialize` handshake, as
 * `@mastra/mcp` 1.18 does, so that every server that worked under 1.18 sees the same first
 * request. These scenarios judge that very first request by the 2026-07-28 rules (its
 * `MCP-Protocol-Version` header and `_meta`, its `Mcp-Method` header), so they pass only pinned.
 */
const pinnedOnly = {
  'request-metadata': 'the first request, initialize, carries no MCP-Protocol-Version header or _meta',
  'http-standard-headers': 'the first request, initialize, carries no Mcp-Method header (the mock answers the handshake, so the session stays 2025-11-25)',
};

const scenarios = suite.list();

test('conformance-next: the suite lists its 48 client scenarios, and every reason given is for one of them', async () => {
  const names = (await scenarios).map((s) => s.name);
  assert.equal(names.length, 48, names.join(', '));
  const unknown = [...Object.keys(notPassing), ...Object.keys(pinnedOnly)].filter((s) => !names.includes(s));
  assert.deepEqual(unknown, []);
});

test('conformance-next: every scenario passes with the client at its defaults, but the ones given a reason', async () => {
  const names = (await scenarios).map((s) => s.name);
  const results = await suite.runAll(names);
  const expected = names.filter((s) => !(s in notPassing) && !(s in pinnedOnly));
  const { names: failed, why } = failures(new Map([...results].filter(([s]) => expected.includes(s))));
  assert.deepEqual(failed, [], why);
  const passingAnyway = [...results].filter(([s, r]) => !expected.includes(s) && passed(r)).map(([s]) => s);
  assert.deepEqual(passingAnyway, [], 'a scenario given a reason passes now: take it off its list');
});

test('conformance-next: every scenario the suite runs only at 2026-07-28 passes with protocolVersion 2026-07-28', async () => {
  const draftOnly = (await scenarios).filter((s) => s.versions.length === 1 && s.versions[0] === STATELESS).map((s) => s.name);
  assert.equal(draftOnly.length, 17, draftOnly.join(', '));
  const { names: failed, why } = failures(await suite.runAll(draftOnly, { CONFORMANCE_PIN: '1' }));
  assert.deepEqual(failed, [], why);
});
