'use strict';
// Resources, prompts and the other per-feature action objects of an `MCPClient` (a `Host`):
// `client.resources`, `client.prompts`, `client.tools`, `client.progress`, `client.elicitation`.
// Each is built once per client, on first access (getters, as `@mastra/mcp` declares them).
const { nativeCall } = require('../errors.cjs');
const { setHandler } = require('./events.cjs');
const { fold, run, connectFor, mastraError } = require('./outcomes.cjs');
const { fannedOut, traced } = require('./spans.cjs');
const { METHODS } = require('./defaults.cjs');

/** `listWithErrors` of one kind, over every server. */
function listWith(host, kind, errorId) {
  return async (options) => {
    const outcomes = await fannedOut(host, METHODS[kind], (metas) => host.native.listAll(kind, options?.perServerTimeoutMs, metas));
    return fold(host, outcomes, kind, errorId, options, (_server, value) => value);
  };
}

/** Registers a handler once its server is connected. */
async function onceConnected(host, kind, errorId, serverName, handler) {
  await connectFor(host, serverName, errorId, { serverName });
  await setHandler(host, kind, serverName, handler);
}

function resources(host) {
  const listWithErrors = listWith(host, 'resources', 'MCP_CLIENT_LIST_RESOURCES_FAILED');
  const templatesWithErrors = listWith(host, 'resourceTemplates', 'MCP_CLIENT_LIST_RESOURCE_TEMPLATES_FAILED');
  return {
    list: async () => (await listWithErrors()).resources,
    listWithErrors,
    templates: async () => (await templatesWithErrors()).resourceTemplates,
    templatesWithErrors,
    read: (serverName, uri) =>
      run(host, 'MCP_CLIENT_READ_RESOURCE_FAILED', { serverName, uri }, () =>
        traced(host, serverName, METHODS.readResource, undefined, { 'mcp.resource.uri': String(uri) }, (meta) =>
          host.native.readResource(serverName, uri, meta),
        ),
      ),
    subscribe: (serverName, uri) =>
      run(host, 'MCP_CLIENT_SUBSCRIBE_RESOURCE_FAILED', { serverName, uri }, () => host.native.subscribeResource(serverName, uri)),
    unsubscribe: (serverName, uri) =>
      run(host, 'MCP_CLIENT_UNSUBSCRIBE_RESOURCE_FAILED', { serverName, uri }, () => host.native.unsubscribeResource(serverName, uri)),
    onUpdated: (serverName, handler) => onceConnected(host, 'resourceUpdated', 'MCP_CLIENT_ON_UPDATED_RESOURCE_FAILED', serverName, handler),
    onListChanged: (serverName, handler) =>
      onceConnected(host, 'resourceListChanged', 'MCP_CLIENT_ON_LIST_CHANGED_RESOURCE_FAILED', serverName, handler),
  };
}

function prompts(host) {
  const listWithErrors = listWith(host, 'prompts', 'MCP_CLIENT_LIST_PROMPTS_FAILED');
  return {
    list: async () => (await listWithErrors()).prompts,
    listWithErrors,
    get: ({ serverName, name, args, version } = {}) =>
      run(host, 'MCP_CLIENT_GET_PROMPT_FAILED', { serverName, name, ...(version ? { version } : {}) }, () =>
        traced(host, serverName, METHODS.getPrompt, name, { 'gen_ai.prompt.name': String(name) }, (meta) =>
          host.native.getPrompt(serverName, name, args ?? undefined, meta),
        ),
      ),
    onListChanged: (serverName, handler) =>
      onceConnected(host, 'promptListChanged', 'MCP_CLIENT_ON_LIST_CHANGED_PROMPT_FAILED', serverName, handler),
  };
}

function tools(host) {
  return {
    onListChanged: (serverName, handler) =>
      onceConnected(host, 'toolListChanged', 'MCP_CLIENT_ON_LIST_CHANGED_TOOLS_FAILED', serverName, handler),
  };
}

function progress(host) {
  return {
    onUpdate: (serverName, handler) => onceConnected(host, 'progress', 'MCP_CLIENT_ON_UPDATE_PROGRESS_FAILED', serverName, handler),
  };
}

function elicitation(host) {
  return {
    onRequest: async (serverName, handler) => {
      try {
        host.requireServer(serverName);
        await nativeCall(host.native.enableElicitation(serverName));
        setHandler(host, 'elicitation', serverName, handler);
      } catch (e) {
        throw mastraError(host, 'MCP_CLIENT_ON_REQUEST_ELICITATION_FAILED', e, { serverName });
      }
    },
  };
}

module.exports = { resources, prompts, tools, progress, elicitation };
