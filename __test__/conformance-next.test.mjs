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
 * Scenarios that pass only with `protocolVersion: '2026-07-28'`: none. With it left unset the
 * client opens with `initialize`, as `@mastra/mcp` 1.18 does, and that request also carries what a
 * 2026-07-28 request carries (`MCP-Protocol-Version` and `Mcp-Method` headers, the `_meta`
 * envelope), which a handshake-era server ignores.
 */
const pinnedOnly = {};

/** The skills scenarios and the check each must report as passed (not skipped: the client listed and loaded). */
const skillChecks = {
  'sep-2640-client-no-prefetch': 'sep-2640-host-no-prefetch',
  'sep-2640-client-verify-digest': 'sep-2640-host-verify-digest',
  'sep-2640-client-verify-size': 'sep-2640-host-size-mismatch-failure',
  'sep-2640-client-verify-frontmatter': 'sep-2640-host-frontmatter-comparison',
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
  for (const [scenario, check] of Object.entries(skillChecks)) {
    const line = results.get(scenario)?.out.split('\n').find((l) => l.includes(`[${check}`));
    assert.match(line ?? `${scenario}: no ${check} line`, /\] SUCCESS/, `${scenario} must exercise ${check}`);
  }
  const passingAnyway = [...results].filter(([s, r]) => !expected.includes(s) && passed(r)).map(([s]) => s);
  assert.deepEqual(passingAnyway, [], 'a scenario given a reason passes now: take it off its list');
});

test('conformance-next: every scenario the suite runs only at 2026-07-28 passes with protocolVersion 2026-07-28', async () => {
  const draftOnly = (await scenarios).filter((s) => s.versions.length === 1 && s.versions[0] === STATELESS).map((s) => s.name);
  assert.equal(draftOnly.length, 17, draftOnly.join(', '));
  const { names: failed, why } = failures(await suite.runAll(draftOnly, { CONFORMANCE_PIN: '1' }));
  assert.deepEqual(failed, [], why);
});
