// Long calls that live while they work (docs/servers-and-transports.md, "Long calls and progress"): a
// progress notification for a call moves its deadline by its timeout, up to `maxTotalTimeout`; a call
// that says nothing keeps its timeout. Over stdio and Streamable HTTP, against fixtures/tool-names-server.mjs
// (the TypeScript SDK's McpServer): `work` runs 20 s reporting progress every second, `silent_work` runs
// 20 s without a word; the timeout is 3 s.
import { describe, test, after } from 'node:test';
import assert from 'node:assert/strict';
import { MCPClient } from '../index.mjs';
import { fixturePath, nodeBin, startUrlServer } from './fixtures/helpers.mjs';

const server = fixturePath('tool-names-server.mjs');
const cleanups = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

// One HTTP server for the file, started by the first test that needs it (the tests run concurrently:
// they share the one start, so no second server is left running).
let http;
async function definition(transport) {
  if (transport === 'stdio') return { command: nodeBin, args: [server, 'stdio'] };
  if (!http) {
    http = startUrlServer('tool-names fixture (HTTP)', nodeBin, [server, 'http']);
    cleanups.unshift(async () => (await http).stop());
  }
  return { url: new URL((await http).url) };
}

let nextId = 0;
async function toolsOf(transport, options = {}) {
  const c = new MCPClient({ id: `long-calls-${nextId++}`, servers: { w: { ...(await definition(transport)), timeout: 3000, ...options } } });
  cleanups.push(() => c.disconnect());
  return c.listTools();
}

for (const transport of ['stdio', 'http']) {
  describe(`long calls (${transport})`, { concurrency: true }, () => {
    test('a 20 s tool reporting progress every second outlives its 3 s timeout', async () => {
      const tools = await toolsOf(transport);
      const result = await tools.w_work.execute({ ms: 20_000, everyMs: 1000 }, {});
      assert.match(result.content[0].text, /^worked 20000 ms in \d+ steps$/);
    });

    test('the same tool under maxTotalTimeout: 8000 ends there, and the error names that bound', async () => {
      const tools = await toolsOf(transport, { maxTotalTimeout: 8000 });
      await assert.rejects(tools.w_work.execute({ ms: 20_000, everyMs: 1000 }, {}), (e) => {
        assert.match(e.message, /8000 ms, its maxTotalTimeout/);
        return true;
      });
    });

    test('a silent tool still times out at its 3 s timeout', async () => {
      const tools = await toolsOf(transport);
      await assert.rejects(tools.w_silent_work.execute({ ms: 20_000 }, {}), (e) => {
        assert.match(e.message, /timed out after 3000 ms/);
        assert.doesNotMatch(e.message, /maxTotalTimeout/);
        return true;
      });
    });

    test('resetTimeoutOnProgress: false keeps the 3 s timeout however much progress comes', async () => {
      const tools = await toolsOf(transport, { resetTimeoutOnProgress: false });
      await assert.rejects(tools.w_work.execute({ ms: 20_000, everyMs: 1000 }, {}), /timed out after 3000 ms/);
    });
  });
}
