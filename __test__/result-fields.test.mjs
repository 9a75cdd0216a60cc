// A server's answer reaches the caller as the server sent it, whatever the door: stdio or
// Streamable HTTP (our HTTP client or the user's `fetch`), MCPClient's tools and resources or InternalMastraMCPClient's tools. The fields a
// server adds beside the spec's (a vendor field, a result `_meta`) and the key order of its
// `structuredContent` are kept, as @mastra/mcp 1.18 keeps them (the SDK's result schemas pass
// unknown fields through); the same scenarios run against 1.18 (the anchor) and ours.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as ours from '../index.mjs';
import { nodeBin, fixturePath, startUrlServer } from './fixtures/helpers.mjs';
import { REPORT, PLAIN } from './fixtures/result-fields-server.mjs';

const require = createRequire(import.meta.url);
const implementations = { ours, anchor: require('@mastra/mcp') };
const serverPath = fixturePath('result-fields-server.mjs');

let http;
before(async () => {
  http = await startUrlServer('result-fields server', nodeBin, [serverPath, 'http']);
});
const clients = [];
after(async () => {
  await Promise.all(clients.map((c) => c.disconnect().catch(() => {})));
  await http?.stop();
});

const transports = {
  stdio: () => ({ command: nodeBin, args: [serverPath, 'stdio'] }),
  streamableHttp: () => ({ url: new URL(http.url) }),
  'a user fetch': () => ({ url: new URL(http.url), fetch: (url, init) => fetch(url, init) }),
};

/** The tools' answers as a Mastra agent gets them: structured content alone when there is one. */
async function assertToolAnswers(tools) {
  // Compared as text: the key order of the structured content is the server's.
  assert.equal(JSON.stringify(await tools.report.execute({}, {})), JSON.stringify(REPORT.structuredContent));
  assert.deepEqual(await tools.plain.execute({}, {}), PLAIN);
}

let ids = 0;
for (const [impl, { MCPClient, InternalMastraMCPClient }] of Object.entries(implementations)) {
  for (const [transport, define] of Object.entries(transports)) {
    test(`${impl} over ${transport}: MCPClient's tool and resource answers keep the server's own fields`, async () => {
      const c = new MCPClient({ id: `result-fields-${impl}-${transport}-${ids++}`, servers: { s: define() } });
      clients.push(c);
      const { s } = await c.listToolsets();
      await assertToolAnswers(s);
      assert.deepEqual(await c.resources.read('s', 'note://1'), {
        contents: [{ uri: 'note://1', mimeType: 'text/plain', text: 'a note' }],
        vendorNote: 'read',
      });
    });

    test(`${impl} over ${transport}: InternalMastraMCPClient's tool and resource answers keep the server's own fields`, async () => {
      const c = new InternalMastraMCPClient({ name: 's', server: define() });
      clients.push(c);
      await c.connect();
      await assertToolAnswers(await c.tools());
      assert.equal((await c.readResource('note://1')).vendorNote, 'read');
    });
  }
}
