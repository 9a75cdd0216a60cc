// Tools a model can use safely (docs/tool-safety.md), part one: a tool whose input or output schema is
// not a valid JSON Schema of its dialect is set aside between its healthy siblings, with one warning
// through the server's logger, in every listing, from cached definitions and when hydrated; the raw
// catalog is still given as the server sent it. Over stdio and Streamable HTTP, against a fixture
// server whose catalog is a file (fixtures/catalog-server.mjs). Also: MCPClientServerProxy reads a
// resource as the transport returned it.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, rmSync } from 'node:fs';
import { MCPClient, InternalMastraMCPClient } from '../index.mjs';
import { startCatalogServer, catalogServerDef, SAFE_CATALOG, ALL_MALFORMED } from './fixtures/catalog.mjs';
import { tmpFile } from './fixtures/helpers.mjs';

const cleanups = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

let nextId = 0;
function client(servers) {
  const c = new MCPClient({ id: `tool-safety-${nextId++}`, servers });
  cleanups.push(() => c.disconnect());
  return c;
}

function catalogFile(catalog) {
  const path = tmpFile('tool-safety-catalog');
  writeFileSync(path, JSON.stringify(catalog));
  cleanups.push(() => rmSync(path, { force: true }));
  return path;
}

/** A server definition over `transport` serving `catalog`, with a logger collecting its entries. */
async function serverWith(transport, catalog) {
  const path = catalogFile(catalog);
  const logs = [];
  const def = await catalogServerDef(transport, path, cleanups);
  return { def: { ...def, logger: (entry) => logs.push(entry) }, logs, path };
}

const warningsAbout = (logs, tool) => logs.filter((l) => l.level === 'warning' && l.message.includes(`"${tool}"`));

for (const transport of ['stdio', 'http']) {
  test(`${transport}: a malformed tool is left out of every listing, with one warning naming server, tool and pointer`, async () => {
    const { def, logs } = await serverWith(transport, SAFE_CATALOG);
    const c = client({ coins: def });

    const tools = await c.listTools();
    assert.deepEqual(Object.keys(tools).sort(), ['coins_echo', 'coins_price']);
    const toolsets = await c.listToolsets();
    assert.deepEqual(Object.keys(toolsets.coins).sort(), ['echo', 'price']);
    const withErrors = await c.listToolsWithErrors();
    assert.deepEqual(Object.keys(withErrors.tools).sort(), ['coins_echo', 'coins_price']);
    assert.deepEqual(withErrors.errors, {});
    assert.deepEqual(withErrors.errorDetails, {});
    const setsWithErrors = await c.listToolsetsWithErrors();
    assert.deepEqual(Object.keys(setsWithErrors.toolsets.coins).sort(), ['echo', 'price']);
    assert.deepEqual(setsWithErrors.errors, {});
    await c.listTools();

    const quote = warningsAbout(logs, 'quote');
    assert.equal(quote.length, 1, `one warning for quote, got ${JSON.stringify(logs)}`);
    assert.match(quote[0].message, /coins/);
    assert.match(quote[0].message, /inputSchema/);
    assert.match(quote[0].message, /at \/properties\/required/);
    assert.equal(quote[0].serverName, 'coins');
    assert.equal(quote[0].details.toolName, 'quote');
    assert.equal(quote[0].details.pointer, '/properties/required');
    const report = warningsAbout(logs, 'report');
    assert.equal(report.length, 1);
    assert.equal(report[0].details.schema, 'outputSchema');
    assert.equal(report[0].details.pointer, '/properties/n/type');
    assert.equal(logs.filter((l) => l.level === 'warning').length, 2, 'nothing else is warned about');

    // The healthy siblings work.
    assert.deepEqual((await tools.coins_price.execute({ coin: 'BTC' }, {})).content, [{ type: 'text', text: 'price:{"coin":"BTC"}' }]);
  });

  test(`${transport}: listToolDefinitions gives the raw catalog; cached definitions set the malformed one aside without connecting`, async () => {
    const { def, logs } = await serverWith(transport, SAFE_CATALOG);
    const c = client({ coins: def });
    const definitions = await c.listToolDefinitions();
    assert.deepEqual(Object.keys(definitions.coins), SAFE_CATALOG.tools.map((t) => t.name));
    for (const tool of SAFE_CATALOG.tools) {
      assert.deepEqual(definitions.coins[tool.name].inputSchema, tool.inputSchema, `${tool.name} as sent`);
      if (tool.outputSchema) assert.deepEqual(definitions.coins[tool.name].outputSchema, tool.outputSchema);
    }
    assert.equal(logs.filter((l) => l.level === 'warning').length, 0, 'listing definitions warns of nothing');

    // A cold client whose server cannot even start: hydration must not connect.
    const coldLogs = [];
    const cold = client({ coins: { command: '/nonexistent/mcp-server', args: [], logger: (e) => coldLogs.push(e) } });
    const hydrated = await cold.toolsFromDefinitions({ definitions });
    assert.deepEqual(Object.keys(hydrated).sort(), ['coins_echo', 'coins_price']);
    assert.equal(warningsAbout(coldLogs, 'quote').length, 1);
    assert.equal(warningsAbout(coldLogs, 'quote')[0].details.pointer, '/properties/required');
    await cold.toolsFromDefinitions({ definitions });
    assert.equal(warningsAbout(coldLogs, 'quote').length, 1, 'once per client and definition');
    assert.equal(warningsAbout(coldLogs, 'report').length, 1);

    // Explicitly: a dedicated error, before connecting.
    await assert.rejects(cold.toolFromDefinition({ serverName: 'coins', definition: definitions.coins.quote }), (e) => {
      assert.equal(e.id, 'MCP_TOOL_SCHEMA_INVALID');
      assert.match(e.message, /"quote"/);
      assert.match(e.message, /"coins"/);
      assert.match(e.message, /\/properties\/required/);
      assert.equal(e.details.pointer, '/properties/required');
      assert.equal(e.details.serverName, 'coins');
      return true;
    });
    // Any other failure of a bulk hydration still surfaces.
    await assert.rejects(
      cold.toolsFromDefinitions({ definitions: { coins: { ...definitions.coins, broken: null } } }),
      (e) => e.id === 'MCP_CLIENT_TOOL_HYDRATION_FAILED',
    );
    // The rebuilt healthy tools call the server (here the listing client's, which can start).
    const warm = await c.toolsFromDefinitions({ definitions });
    assert.deepEqual((await warm.coins_echo.execute({ message: 'hi' }, {})).content, [{ type: 'text', text: 'echo:{"message":"hi"}' }]);
  });

  test(`${transport}: a server whose every tool is malformed lists no tools and no error`, async () => {
    const good = await serverWith(transport, SAFE_CATALOG);
    const bad = await serverWith(transport, ALL_MALFORMED);
    const c = client({ coins: good.def, broken: bad.def });
    const { tools, errors } = await c.listToolsWithErrors();
    assert.deepEqual(Object.keys(tools).sort(), ['coins_echo', 'coins_price']);
    assert.deepEqual(errors, {});
    const toolsets = await c.listToolsets();
    assert.deepEqual(toolsets.broken, {});
    assert.equal(bad.logs.filter((l) => l.level === 'warning').length, ALL_MALFORMED.tools.length);
  });
}

test('InternalMastraMCPClient (the per-server client) sets malformed tools aside too', async () => {
  const { def, logs } = await serverWith('stdio', SAFE_CATALOG);
  const internal = new InternalMastraMCPClient({ name: 'coins', server: def });
  cleanups.push(() => internal.disconnect());
  assert.deepEqual(Object.keys(await internal.tools()).sort(), ['echo', 'price']);
  await internal.tools();
  assert.equal(warningsAbout(logs, 'quote').length, 1);
  const definitions = await internal.toolDefinitions();
  assert.deepEqual(definitions.quote.inputSchema, SAFE_CATALOG.tools[1].inputSchema);
  assert.throws(() => internal.toolFromDefinition({ definition: definitions.quote }), (e) => e.id === 'MCP_TOOL_SCHEMA_INVALID');
});

test('InternalMastraMCPClient.toolsFromDefinitions sets malformed cached definitions aside without connecting; other failures reject', async () => {
  const { def } = await serverWith('stdio', SAFE_CATALOG);
  const lister = new InternalMastraMCPClient({ name: 'coins', server: def });
  cleanups.push(() => lister.disconnect());
  const definitions = JSON.parse(JSON.stringify(await lister.toolDefinitions()));
  const bad = await serverWith('stdio', ALL_MALFORMED);
  const badLister = new InternalMastraMCPClient({ name: 'broken', server: bad.def });
  cleanups.push(() => badLister.disconnect());
  const allMalformed = JSON.parse(JSON.stringify(await badLister.toolDefinitions()));

  // A cold per-server client whose server cannot even start: hydration must not connect.
  const coldLogs = [];
  const cold = (name) => {
    const c = new InternalMastraMCPClient({ name, server: { command: '/nonexistent/mcp-server', args: [], logger: (e) => coldLogs.push(e) } });
    cleanups.push(() => c.disconnect());
    return c;
  };
  const coins = cold('coins');
  assert.deepEqual(Object.keys(await coins.toolsFromDefinitions({ definitions })).sort(), ['echo', 'price']);
  assert.equal(warningsAbout(coldLogs, 'quote').length, 1);
  // Bulk hydration across a server whose every definition is malformed: nothing, no error.
  assert.deepEqual(await cold('broken').toolsFromDefinitions({ definitions: allMalformed }), {});
  assert.equal(coldLogs.filter((l) => l.level === 'warning').length, 1 + Object.keys(allMalformed).length + 1);
  // An unrelated failure still rejects.
  await assert.rejects(coins.toolsFromDefinitions({ definitions: { ...definitions, broken: null } }), (e) => e.id === 'MCP_CLIENT_TOOL_HYDRATION_FAILED');
  // Explicit hydration of a malformed one: the dedicated error, before connecting.
  assert.throws(() => coins.toolFromDefinition({ definition: definitions.quote }), (e) => e.id === 'MCP_TOOL_SCHEMA_INVALID');
});

test('without a server logger, the warning goes to the Mastra logger, once', async () => {
  const { def } = await serverWith('stdio', SAFE_CATALOG);
  delete def.logger;
  const c = client({ coins: def });
  const warned = [];
  const noop = () => {};
  c.__setLogger({ warn: (m, d) => warned.push({ m, d }), info: noop, debug: noop, error: noop, trackException: noop });
  await c.listTools();
  await c.listToolsets();
  const quote = warned.filter((w) => w.m.includes('"quote"'));
  assert.equal(quote.length, 1);
  assert.match(quote[0].m, /\[coins\]/);
  assert.equal(quote[0].d.pointer, '/properties/required');
});

for (const transport of ['stdio', 'http']) {
  test(`${transport}: MCPClientServerProxy reads a resource as the transport returned it`, async () => {
    const { def } = await serverWith(transport, SAFE_CATALOG);
    const c = client({ coins: def });
    const uri = 'ui://widget/card';
    const direct = await c.resources.read('coins', uri);
    const proxy = c.toMCPServerProxies().coins;
    const read = await proxy.readResource(uri);
    assert.deepEqual(read._meta, direct._meta);
    assert.deepEqual(read._meta, { 'app/served-by': 'catalog-fixture' });
    assert.equal(read.contents.length, 4, 'every item');
    assert.deepEqual(read.contents[0]._meta, { ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: true } });
    assert.equal(read.contents[0].text, '<p>card</p>');
    assert.equal(read.contents[0].mimeType, 'text/html;profile=mcp-app');
    assert.equal(read.contents[1].blob, 'iVBORw0KGgo=');
    assert.deepEqual(read.contents[1]._meta, { ui: { role: 'icon' } });
    assert.equal(read.contents[2].text, '', 'an empty text is kept');
    assert.equal(read.contents[3].uri, uri, 'an item naming no URI gets the one read');
    assert.equal(read.contents[3].text, 'no uri of its own');
  });
}
