// Skills (SEP-2640) from a server on the official TypeScript SDK (fixtures/skills-server.mjs),
// through both doors: `MCPClient.skills` over stdio and `InternalMastraMCPClient.skills` over
// Streamable HTTP. What a user sees: the listing (every page) reads no file; a load reads only the
// SKILL.md; a file is read when asked; a SKILL.md that differs from its entry (digest, size,
// frontmatter) is refused and nothing of the skill is handed out; paths cannot leave the skill.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InternalMastraMCPClient, MCPClient } from '../index.mjs';
import { fixturePath, nodeBin, startUrlServer } from './fixtures/helpers.mjs';

const SERVER = fixturePath('skills-server.mjs');
const PDF = 'skill://pdf-processing/SKILL.md';

const stdioClient = (env = {}) =>
  new MCPClient({ id: `skills-${Math.random()}`, servers: { docs: { command: nodeBin, args: [SERVER, 'stdio'], env: { ...env } } } });

/** The files the server says were read so far, through its own `reads` tool. */
async function readsOf(tools, name) {
  const result = await tools[name].execute({}, {});
  return JSON.parse(result.content[0].text);
}

describe('skills through MCPClient over stdio', () => {
  test('a listing follows every page and reads no file; a load reads the SKILL.md only, verified; a file when asked', async () => {
    const client = stdioClient();
    try {
      const listed = await client.skills.list('docs');
      assert.deepEqual(
        listed.map((s) => s.uri),
        [PDF, 'skill://acme/billing/refunds/SKILL.md'],
      );
      assert.deepEqual(listed[0].frontmatter.metadata, { version: 2.1, tags: ['pdf', 'forms'] });
      const tools = await client.listTools();
      assert.deepEqual(await readsOf(tools, 'docs_reads'), [], 'listing read nothing');

      const skill = await client.skills.load('docs', listed[0]);
      assert.equal(skill.server, 'docs');
      assert.equal(skill.name, 'pdf-processing');
      assert.equal(skill.root, 'skill://pdf-processing');
      assert.equal(skill.dynamic, false);
      assert.deepEqual(skill.files, ['SKILL.md', 'references/FORMS.md']);
      assert.match(skill.instructions, /^\n# PDF processing\nFill forms/);
      assert.ok(skill.text.startsWith('---\nname: pdf-processing'));
      assert.deepEqual(await readsOf(tools, 'docs_reads'), [PDF], 'a load reads the SKILL.md alone');

      const forms = await skill.readFile('references/FORMS.md');
      assert.deepEqual(forms, { uri: 'skill://pdf-processing/references/FORMS.md', path: 'references/FORMS.md', text: '# Forms\nField by field.\n' });
      assert.deepEqual(await readsOf(tools, 'docs_reads'), [PDF, 'skill://pdf-processing/references/FORMS.md']);
    } finally {
      await client.disconnect();
    }
  });

  test('a file the entry does not list, or a path out of the skill, is refused unread', async () => {
    const client = stdioClient();
    try {
      const skill = await client.skills.load('docs', PDF); // by URI: confirmed with skills/get
      assert.deepEqual(skill.files, ['SKILL.md', 'references/FORMS.md']);
      await assert.rejects(skill.readFile('references/OTHER.md'), (e) => {
        assert.equal(e.id, 'MCP_CLIENT_READ_SKILL_FILE_FAILED');
        assert.match(e.message, /not one of the files the entry of skill:\/\/pdf-processing\/SKILL\.md lists/);
        return true;
      });
      await assert.rejects(skill.readFile('../acme/billing/refunds/SKILL.md'), /not a path inside the skill/);
      const tools = await client.listTools();
      assert.deepEqual(await readsOf(tools, 'docs_reads'), [PDF]);
      await assert.rejects(client.skills.get('docs', 'skill://nothing/SKILL.md'), (e) => {
        assert.equal(e.id, 'MCP_CLIENT_GET_SKILL_FAILED');
        assert.match(e.message, /no skill at skill:\/\/nothing\/SKILL\.md/);
        return true;
      });
    } finally {
      await client.disconnect();
    }
  });

  for (const [tamper, why] of [
    ['digest', /digest sha256:[0-9a-f]{64} where its entry says/],
    ['size', /bytes where its entry says/],
    ['frontmatter', /frontmatter differs from its entry's in license/],
  ]) {
    test(`a SKILL.md whose ${tamper} differs from its entry is refused, and nothing of the skill is handed out`, async () => {
      const client = stdioClient({ SKILLS_TAMPER: tamper });
      try {
        const [pdf, refunds] = await client.skills.list('docs');
        await assert.rejects(client.skills.load('docs', pdf), (e) => {
          assert.equal(e.id, 'MCP_CLIENT_LOAD_SKILL_FAILED');
          assert.match(e.message, /skill:\/\/pdf-processing\/SKILL\.md from server docs failed verification, not used/);
          assert.match(e.message, why);
          return true;
        });
        // Another skill of the same server still loads.
        assert.equal((await client.skills.load('docs', refunds)).name, 'refunds');
      } finally {
        await client.disconnect();
      }
    });
  }

  test('a server without the extension lists no skills, and loading from it says why', async () => {
    const client = new MCPClient({
      id: `skills-none-${Math.random()}`,
      servers: { docs: { command: nodeBin, args: [SERVER, 'stdio'] }, plain: { command: nodeBin, args: [fixturePath('stdio-server.mjs')] } },
    });
    try {
      const all = await client.skills.list();
      assert.deepEqual(Object.keys(all).sort(), ['docs', 'plain']);
      assert.deepEqual(all.plain, []);
      assert.equal(all.docs.length, 2);
      await assert.rejects(client.skills.load('plain', PDF), /server plain: it does not declare the skills extension \(io\.modelcontextprotocol\/skills\)/);
    } finally {
      await client.disconnect();
    }
  });
});

describe('skills through InternalMastraMCPClient over Streamable HTTP', () => {
  let server;
  let tampered;
  before(async () => {
    server = await startUrlServer('skills-server', nodeBin, [SERVER, 'http']);
    tampered = await startUrlServer('skills-server (tampered)', nodeBin, [SERVER, 'http'], { env: { SKILLS_TAMPER: 'digest' } });
  });
  after(async () => {
    await server?.stop();
    await tampered?.stop();
  });

  test('list, load and read on the per-server client, verified the same way', async () => {
    const client = new InternalMastraMCPClient({ name: 'docs', server: { url: new URL(server.url) } });
    try {
      const listed = await client.skills.list();
      assert.equal(listed.length, 2);
      const skill = await client.skills.load(listed[1]);
      assert.equal(skill.name, 'refunds');
      assert.deepEqual(skill.files, ['SKILL.md']);
      const pdf = await client.skills.load(PDF);
      assert.equal((await pdf.readFile('references/FORMS.md')).text, '# Forms\nField by field.\n');
      assert.equal((await client.skills.get(PDF)).frontmatter.license, 'Apache-2.0');
    } finally {
      await client.disconnect();
    }
  });

  test('a tampered SKILL.md is refused on the per-server client too', async () => {
    const client = new InternalMastraMCPClient({ name: 'docs', server: { url: new URL(tampered.url) } });
    try {
      await assert.rejects(client.skills.load(PDF), /failed verification, not used: .*digest/);
    } finally {
      await client.disconnect();
    }
  });
});
