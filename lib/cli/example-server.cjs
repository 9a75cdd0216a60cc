#!/usr/bin/env node
'use strict';
// The CLI's bundled example MCP server: stdio, no dependencies, no network. It is what
// `mastra-mcp` talks to when no config file is found, so the CLI runs with no set-up.
// Tools: echo, add, countdown (progress, cancellable), ask (elicitation). One resource, one prompt.
const readline = require('node:readline');

const PROTOCOLS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
let clientCaps = {};
let nextId = 1;
const pendingRequests = new Map(); // our request id -> resolve
const running = new Map(); // request id -> { cancelled }
let inFlight = 0;
let closed = false;

const send = (msg) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...msg })}\n`);
const text = (t) => ({ content: [{ type: 'text', text: t }] });

const tools = [
  {
    name: 'echo',
    description: 'Echoes back the message',
    inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'Message to echo' } }, required: ['message'] },
    run: async (a) => text(`Echo: ${a.message}`),
  },
  {
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    run: async (a) => {
      const sum = a.a + a.b;
      if (!Number.isFinite(sum)) return { ...text(`The sum of ${a.a} and ${a.b} is not a finite number`), isError: true };
      return { ...text(String(sum)), structuredContent: { sum } };
    },
  },
  {
    name: 'countdown',
    description: 'Counts down, reporting progress each step (cancellable)',
    inputSchema: { type: 'object', properties: { steps: { type: 'number', default: 5 }, intervalMs: { type: 'number', default: 200 } } },
    run: async (a, ctx) => {
      const steps = a.steps ?? 5;
      for (let i = 1; i <= steps; i++) {
        await new Promise((r) => setTimeout(r, a.intervalMs ?? 200));
        if (ctx.state.cancelled) return text('cancelled');
        if (ctx.progressToken !== undefined) {
          send({ method: 'notifications/progress', params: { progressToken: ctx.progressToken, progress: i, total: steps, message: `step ${i} of ${steps}` } });
        }
      }
      return text(`Counted down ${steps} steps`);
    },
  },
  {
    name: 'ask',
    description: 'Asks the user for their name (elicitation)',
    inputSchema: { type: 'object', properties: {} },
    run: async () => {
      if (!clientCaps.elicitation) return { ...text('The client does not support elicitation'), isError: true };
      const answer = await request('elicitation/create', {
        message: 'What is your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
      });
      return text(answer.action === 'accept' ? `Hello, ${answer.content?.name}!` : `No answer (${answer.action})`);
    },
  },
];

const README = 'This is the example server bundled with mastra-mcp-native.';

function request(method, params) {
  const id = `s${nextId++}`;
  send({ id, method, params });
  return new Promise((resolve) => pendingRequests.set(id, resolve));
}

async function handle(msg) {
  const p = msg.params ?? {};
  switch (msg.method) {
    case 'initialize':
      clientCaps = p.capabilities ?? {};
      return {
        protocolVersion: PROTOCOLS.includes(p.protocolVersion) ? p.protocolVersion : PROTOCOLS[0],
        capabilities: { tools: {}, resources: {}, prompts: {} },
        serverInfo: { name: 'mastra-mcp-example', version: '1.0.0' },
        instructions: 'An example server: try the echo, add, countdown and ask tools.',
      };
    case 'ping':
      return {};
    case 'tools/list':
      return { tools: tools.map(({ run, ...t }) => t) };
    case 'tools/call': {
      const tool = tools.find((t) => t.name === p.name);
      if (!tool) throw Object.assign(new Error(`Unknown tool: ${p.name}`), { code: -32602 });
      const state = { cancelled: false };
      running.set(msg.id, state);
      try {
        return await tool.run(p.arguments ?? {}, { progressToken: p._meta?.progressToken, state });
      } finally {
        running.delete(msg.id);
      }
    }
    case 'resources/list':
      return { resources: [{ uri: 'example://readme', name: 'readme', mimeType: 'text/plain' }] };
    case 'resources/templates/list':
      return { resourceTemplates: [] };
    case 'resources/read':
      if (p.uri !== 'example://readme') throw Object.assign(new Error(`Unknown resource: ${p.uri}`), { code: -32002 });
      return { contents: [{ uri: p.uri, mimeType: 'text/plain', text: README }] };
    case 'prompts/list':
      return { prompts: [{ name: 'greet', description: 'Greets someone', arguments: [{ name: 'name', required: true }] }] };
    case 'prompts/get':
      if (p.name !== 'greet') throw Object.assign(new Error(`Unknown prompt: ${p.name}`), { code: -32602 });
      return { messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${p.arguments?.name ?? 'someone'}.` } }] };
    default:
      throw Object.assign(new Error(`Method not found: ${msg.method}`), { code: -32601 });
  }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return send({ id: null, error: { code: -32700, message: 'Parse error' } });
  }
  if (msg.method === undefined) {
    pendingRequests.get(msg.id)?.(msg.result ?? { action: 'cancel' });
    pendingRequests.delete(msg.id);
    return;
  }
  if (msg.method === 'notifications/cancelled') {
    const state = running.get(msg.params?.requestId);
    if (state) state.cancelled = true;
    return;
  }
  if (msg.id === undefined) return;
  inFlight++;
  handle(msg)
    .then(
      (result) => send({ id: msg.id, result }),
      (e) => send({ id: msg.id, error: { code: e.code ?? -32603, message: e.message } }),
    )
    .finally(() => {
      if (--inFlight === 0 && closed) process.exit(0);
    });
}).on('close', () => {
  // End of input: finish the calls in flight, then exit.
  closed = true;
  if (inFlight === 0) process.exit(0);
});
