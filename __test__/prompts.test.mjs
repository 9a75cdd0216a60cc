// Prompts: list every page; get returns the GetPromptResult fields plus the prompt; a failed get is a MastraError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stdioFixtureServer } from './fixtures/helpers.mjs';
import { useTestbed } from './fixtures/testbed.mjs';

const { client } = useTestbed('prompts');

test('prompts: list all pages; get returns the GetPromptResult fields plus prompt', async () => {
  const c = client({ fx: stdioFixtureServer() });
  const list = await c.prompts.list();
  assert.deepEqual(list.fx.map((p) => p.name).sort(), ['greeting', 'talk']);
  const got = await c.prompts.get({ serverName: 'fx', name: 'talk', args: { topic: 'rust' } });
  assert.equal(got.messages[0].content.text, 'Talk about rust');
  assert.equal(got.prompt.name, 'talk');
  await assert.rejects(c.prompts.get({ serverName: 'fx', name: 'talk', args: {} }), (e) => e.id === 'MCP_CLIENT_GET_PROMPT_FAILED');
});
