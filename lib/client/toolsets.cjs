'use strict';
// Toolsets of one client (a `Host`): the mirror of the core's tool-list cache (per server, by list
// epoch, so a listing is reused without a native round trip while it is current), Mastra tools
// built once per epoch (`lib/tools.cjs`), tools rebuilt from cached definitions, and the hooks of
// tools set aside for a malformed schema (`lib/schema-problems.cjs`) and of the tool lock
// (`lib/tool-pins.cjs`).
const { toolKeys, toolsText } = require('../native.cjs');
const { buildTool, toDefinition } = require('../tools.cjs');
const { sharedToolList, heldToolList } = require('../shared-schemas.cjs');
const { schemaInvalidError, isSchemaInvalid, problemOf } = require('../schema-problems.cjs');
const { gateExecute, isToolDrift } = require('../tool-pins.cjs');
const { log } = require('./events.cjs');
const { serverFailure, fold } = require('./outcomes.cjs');
const { fannedOut } = require('./spans.cjs');
const { METHODS } = require('./defaults.cjs');

/** Per-server tool listings; reused without a native round trip while every list is current. */
async function toolEntries(host, options) {
  const reused = currentToolEntries(host);
  if (reused) return reused;
  const outcomes = await fannedOut(host, METHODS.listTools, (metas) => listedTools(host.native, undefined, options?.perServerTimeoutMs, metas));
  for (const o of outcomes) {
    if (!o.ok) continue;
    const prev = host.toolCache.get(o.server);
    if (!prev || prev.epoch !== o.value.epoch) {
      host.toolCache.set(o.server, { epoch: o.value.epoch, session: o.value, tools: null });
      host.pins?.review(o.server, o.value.tools.map((e) => e.tool));
    }
  }
  host.toolNames = namesOf(outcomes.filter((o) => o.ok).map((o) => [o.server, o.value.tools.filter((e) => !e.schemaProblem).map((e) => e.tool.name)]));
  return outcomes;
}

/**
 * The core's listing of `server`'s tools (of every server's, without one), each listing's tools
 * being the process's shared parse for its `toolsKey`. The core sends the key alone; the text
 * crosses over (`toolsText`) only when no client of the process holds its parse, and in the rare
 * case the core no longer holds it either (the list changed in between), that server is listed
 * again, text and all.
 */
async function listedTools(native, server, timeoutMs, metas) {
  const outcomes = JSON.parse(await native.listTools(server, timeoutMs, metas, true));
  for (let i = 0; i < outcomes.length; i++) {
    const o = outcomes[i];
    if (!o.ok) continue;
    const key = o.value.toolsKey;
    let tools = heldToolList(key);
    if (!tools && key) {
      const text = toolsText(key);
      if (text != null) tools = sharedToolList(key, JSON.parse(text));
    }
    if (tools) o.value.tools = tools;
    else {
      const [again] = JSON.parse(await native.listTools(o.server, timeoutMs, metas, false));
      if (again.ok) again.value.tools = sharedToolList(again.value.toolsKey, again.value.tools);
      outcomes[i] = again;
    }
  }
  return outcomes;
}

/**
 * The names handed to Mastra (`server_tool`, made to fit and unique by the core:
 * src/core/tool_names.rs) for `[server, toolNames]` in the servers' order: by server, a `names`
 * map (tool -> name) and the `collisions` no name could be given to.
 */
function namesOf(perServer) {
  const pairs = [];
  for (const [server, tools] of perServer) for (const tool of tools) pairs.push([server, tool]);
  const keys = pairs.length ? toolKeys(pairs) : [];
  const out = new Map();
  for (const [server] of perServer) out.set(server, { names: new Map(), collisions: [] });
  pairs.forEach(([server, tool], i) => {
    const k = keys[i];
    const of = out.get(server);
    if (k.name !== undefined) of.names.set(tool, k.name);
    else of.collisions.push({ tool, wanted: k.collision, holder: k.holder });
  });
  return out;
}

/** The name handed to Mastra for a server's tool (as far as the last listing knows). */
function nameFor(host, server, tool) {
  const known = host.toolNames?.get(server);
  if (known && (known.names.has(tool) || known.collisions.some((c) => c.tool === tool))) return known.names.get(tool);
  return namesOf([[server, [tool]]]).get(server).names.get(tool);
}

/** Tools no name could be given to, as `*WithErrors` errors and one log entry each. */
function reportCollisions(host, folded) {
  for (const server of Object.keys(folded.tools ?? folded.toolsets ?? {})) {
    const collisions = host.toolNames?.get(server)?.collisions;
    if (!collisions?.length) continue;
    const text = collisions
      .map((c) => `tool "${c.tool}" of server ${server} has no name: "${c.wanted}" is already the name of tool "${c.holder[1]}" of server ${c.holder[0]}`)
      .join('; ');
    const message = `Left out ${collisions.length} tool(s) whose names collide: ${text}`;
    folded.errors[server] = folded.errors[server] ? `${folded.errors[server]}; ${message}` : message;
    folded.errorDetails[server] ??= { message, collisions };
    host.toolNames.warned ??= new Set();
    for (const c of collisions) {
      const once = `${server}\u0000${c.tool}`;
      if (host.toolNames.warned.has(once)) continue;
      host.toolNames.warned.add(once);
      log(host, server, 'warning', `Tool "${c.tool}" left out: its name "${c.wanted}" is already that of tool "${c.holder[1]}" of server ${c.holder[0]}`);
    }
  }
  return folded;
}

function currentToolEntries(host) {
  if (host.toolCache.size === 0) return undefined;
  const epochs = host.native.currentToolEpochs();
  const outcomes = [];
  for (const [server, epoch] of Object.entries(epochs)) {
    const cached = host.toolCache.get(server);
    if (epoch === null || !cached || cached.epoch !== epoch) return undefined;
    outcomes.push({ server, ok: true, value: cached.session, durationMs: 0 });
  }
  return outcomes;
}

/** What `lib/tools.cjs` builds a server's tools with (no closures: it calls the host). */
function toolContext(host, server, coreTools) {
  const def = host.servers[server] ?? {};
  return {
    host,
    native: host.native,
    server,
    def,
    deps: host.kit.deps,
    coreTools,
    telemetry: host.telemetry,
    // The request context reaches a custom fetch through the call id; no async context tracking.
    callContexts: def.fetch || def.eventSourceInit?.fetch ? host.callContexts : null,
  };
}

/** Mastra tools for one server's cached listing, built once per list epoch. */
function toolsFor(host, server, coreTools) {
  const cache = host.toolCache.get(server);
  // Built again when another server's listing changed this one's names.
  if (!cache.tools || cache.names !== host.toolNames?.get(server)) {
    const ctx = toolContext(host, server, coreTools);
    cache.tools = {};
    cache.names = host.toolNames?.get(server);
    for (const entry of cache.session.tools) {
      if (entry.schemaProblem) {
        warnSetAside(host, server, entry.tool.name, entry.schemaProblem);
        continue;
      }
      const key = nameFor(host, server, entry.tool.name);
      if (key === undefined) continue; // a collision, reported by `reportCollisions`
      try {
        const built = pinned(host, server, entry.tool.name, () => buildTool(ctx, entry, cache.session, key));
        if (built) cache.tools[entry.tool.name] = built;
      } catch (e) {
        log(host, server, 'error', `Failed to create Mastra tool wrapper for MCP tool: ${entry.tool.name}`, { error: e?.message });
      }
    }
  }
  return cache.tools;
}

/** One server's Mastra tools; throws that server's failure. */
async function serverTools(host, server) {
  const [outcomes, coreTools] = await Promise.all([toolEntries(host), host.kit.loadCoreTools()]);
  const o = outcomes.find((x) => x.server === server);
  if (!o.ok) throw serverFailure(host, server, o.error, 'MCP_CLIENT_GET_TOOLS_FAILED');
  return { ...toolsFor(host, server, coreTools) };
}

/**
 * Every server's tools folded under `key`: `'toolsets'` (a copy of each server's tools, as
 * `listToolsetsWithErrors` returns them) or `'tools'` (flat, by `server_tool`, as `listToolsWithErrors`).
 */
async function toolsets(host, options, key, errorId) {
  const [outcomes, coreTools] = await Promise.all([toolEntries(host, options), host.kit.loadCoreTools()]);
  const flat = key === 'tools';
  const folded = fold(host, outcomes, key, errorId, options, (server) => (flat ? toolsFor(host, server, coreTools) : { ...toolsFor(host, server, coreTools) }));
  reportDrift(host, folded, Object.keys(folded[key]));
  reportCollisions(host, folded);
  if (flat) {
    const all = {};
    for (const [server, tools] of Object.entries(folded.tools)) {
      for (const [name, tool] of Object.entries(tools)) all[nameFor(host, server, name) ?? tool.id] = tool;
    }
    folded.tools = all;
  }
  return folded;
}

/** The JSON-safe definitions of every listed tool, by server. */
async function definitions(host, options) {
  const outcomes = await toolEntries(host, options);
  return fold(host, outcomes, 'definitions', 'MCP_CLIENT_GET_TOOLS_FAILED', options, (server, value) => definitionsOf(server, value));
}

function definitionsOf(server, value) {
  const defs = {};
  for (const entry of value.tools) defs[entry.tool.name] = toDefinition(server, entry, value);
  return defs;
}

/**
 * A tool of a pinned server as the lock allows it: `undefined` when withheld, else built by
 * `build()` with approval required ('approve') and its calls judged by the lock again.
 */
function pinned(host, server, name, build, drift = host.pins?.driftOf(server, name)) {
  const pins = host.pins;
  if (!pins?.pins(server)) return build();
  if (drift) pins.warnOnce(server, drift, (level, message, details) => log(host, server, level, message, details));
  if (drift && pins.blocks) return undefined;
  const tool = build();
  if (drift && pins.mode === 'approve') tool.requireApproval = true;
  return gateExecute(tool, (t) => driftGate(host, server, name, t));
}

/**
 * Before a call of a pinned server's tool: the server's listing again if it changed (a
 * `list_changed`), and the lock's verdict on the tool as listed now.
 */
async function driftGate(host, server, name, tool) {
  const pins = host.pins;
  const cached = host.toolCache.get(server);
  const epoch = host.native.currentToolEpochs()[server];
  if (!cached || epoch === null || epoch === undefined || epoch !== cached.epoch) {
    const outcomes = await toolEntries(host);
    const o = outcomes.find((x) => x.server === server);
    if (o && !o.ok) throw serverFailure(host, server, o.error, 'MCP_CLIENT_TOOL_EXECUTION_FAILED');
  }
  const drift = pins.driftOf(server, name);
  if (!drift) return;
  pins.warnOnce(server, drift, (level, message, details) => log(host, server, level, message, details));
  // Withheld; or, with 'approve', not approved for the definition it has now: asked next time.
  if (pins.blocks || (pins.mode === 'approve' && !tool.requireApproval)) {
    if (pins.mode === 'approve') tool.requireApproval = true;
    throw pins.blockedError(host.kit.deps, server, drift);
  }
}

/** Withheld tools of the listed servers as `TOOL_DRIFT` errors of a `*WithErrors` result. */
function reportDrift(host, folded, servers) {
  if (!host.pins?.blocks) return folded;
  for (const server of servers) {
    const withheld = host.pins.withheld(server);
    if (!withheld.length) continue;
    const { message, details } = host.pins.report(server, withheld);
    folded.errors[server] = message;
    folded.errorDetails[server] = details;
  }
  return folded;
}

/** One warning per client and definition for a tool set aside for a malformed schema. */
function warnSetAside(host, server, toolName, problem) {
  host.setAside.warnOnce(server, toolName, problem, (level, message, details) => log(host, server, level, message, details));
}

/** Rebuilds a tool from a cached definition; sync when `coreTools()` is. */
function hydrate(host, serverName, definition, coreTools, key) {
  const { deps } = host.kit;
  const fail = (e) => {
    if (isSchemaInvalid(e) || isToolDrift(e)) throw e;
    const { MastraError, ErrorDomain, ErrorCategory } = deps;
    throw new MastraError(
      {
        id: 'MCP_CLIENT_TOOL_HYDRATION_FAILED',
        domain: ErrorDomain.MCP,
        category: ErrorCategory.USER,
        text: `Failed to rebuild MCP tool "${definition?.name}" from its cached definition`,
        details: { toolName: definition?.name, serverName },
      },
      e,
    );
  };
  const build = (tools) => {
    const { server: session = {}, ...toolFields } = definition;
    const entry = host.native.describeDefinition(serverName, toolFields);
    if (entry.schemaProblem) throw schemaInvalidError(deps, serverName, entry.tool.name, entry.schemaProblem);
    const make = () =>
      buildTool(
        toolContext(host, serverName, tools),
        entry,
        { serverVersion: session.version, instructions: session.instructions },
        key ?? nameFor(host, serverName, entry.tool.name),
      );
    if (!host.pins?.pins(serverName)) return make();
    const drift = host.pins.definitionDrift(serverName, toolFields);
    const built = pinned(host, serverName, entry.tool.name, make, drift ?? null);
    if (!built) throw host.pins.blockedError(deps, serverName, drift);
    return built;
  };
  try {
    host.requireServer(serverName);
    const tools = coreTools();
    return typeof tools?.then === 'function' ? tools.then(build).catch(fail) : build(tools);
  } catch (e) {
    return fail(e);
  }
}

/** Lifecycle hook: after a disconnect, every listing is fetched again. */
function disconnected(host) {
  host.toolCache.clear();
}

/** Tools from cached definitions of every server still configured (`toolsFromDefinitions`). */
async function hydrateAll(host, definitionsByServer) {
  const out = {};
  const configured = [];
  for (const [serverName, defs] of Object.entries(definitionsByServer ?? {})) {
    if (!Object.prototype.hasOwnProperty.call(host.servers, serverName)) {
      host.owner.logger?.warn?.(`Skipping cached MCP tools for server "${serverName}": it is no longer configured`);
      continue;
    }
    configured.push([serverName, defs ?? {}]);
  }
  // Named as a listing of the same tools would name them.
  const names = namesOf(configured.map(([server, defs]) => [server, Object.keys(defs)]));
  for (const [serverName, defs] of configured) {
    const { names: keys, collisions } = names.get(serverName);
    for (const c of collisions) {
      log(host, serverName, 'warning', `Cached tool "${c.tool}" left out: its name "${c.wanted}" is already that of tool "${c.holder[1]}" of server ${c.holder[0]}`);
    }
    for (const [name, definition] of Object.entries(defs)) {
      const key = keys.get(name);
      if (key === undefined) continue;
      const tool = await hydrateOrSetAside(host, serverName, definition, host.kit.loadCoreTools, key);
      if (tool) out[key] = tool;
    }
  }
  return out;
}

/**
 * One server's tools from its cached definitions (`InternalMastraMCPClient.toolsFromDefinitions`),
 * by the server's own tool names, as `tools()` has them; without connecting.
 */
async function hydrateServer(host, serverName, defs, coreTools) {
  const out = {};
  for (const [name, definition] of Object.entries(defs ?? {})) {
    const tool = await hydrateOrSetAside(host, serverName, definition, coreTools);
    if (tool) out[definition?.name ?? name] = tool;
  }
  return out;
}

/**
 * A tool rebuilt from a cached definition, or `undefined`: a malformed definition is set aside
 * (one warning) as a listed one is, a drifted one of a pinned server withheld (and logged) as a
 * listed one is; any other failure surfaces.
 */
async function hydrateOrSetAside(host, serverName, definition, coreTools, key) {
  try {
    return await hydrate(host, serverName, definition, coreTools, key);
  } catch (e) {
    if (isToolDrift(e)) return undefined;
    if (!isSchemaInvalid(e)) throw e;
    const { toolName, problem } = problemOf(e);
    warnSetAside(host, serverName, toolName, problem);
    return undefined;
  }
}

module.exports = { listedTools, disconnected, toolEntries, toolsFor, serverTools, toolsets, definitions, definitionsOf, hydrate, hydrateAll, hydrateServer };
