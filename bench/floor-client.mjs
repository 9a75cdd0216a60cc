// The floor: the least a JavaScript MCP client must do. Hand-written JSON-RPC over stdio (newline-delimited
// JSON on a child's pipes) and over Streamable HTTP (fetch, JSON or one-event SSE answers). No validation, no
// schema conversion, no reconnects, no timeouts: what is left is the protocol's own cost in Node.
import { spawn } from 'node:child_process';

const PROTOCOL_VERSION = '2025-11-25';
const CLIENT_INFO = { name: 'bench-floor', version: '0.0.0' };

function initializeParams() {
  return { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO };
}

function rpcError(method, error) {
  const e = new Error(`${method} failed: ${error.message} (${error.code})`);
  e.code = error.code;
  return e;
}

export class StdioFloorClient {
  #child;
  #pending = new Map();
  #nextId = 1;
  #partial = []; // pieces of a line not yet ended
  #exited;

  constructor(command, args, env) {
    this.#child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], ...(env ? { env: { PATH: process.env.PATH, ...env } } : {}) });
    this.#exited = new Promise((resolve) => this.#child.once('exit', resolve));
    this.#child.once('exit', (code, signal) => {
      const err = new Error(`server exited (code ${code}, signal ${signal})`);
      for (const { reject } of this.#pending.values()) reject(err);
      this.#pending.clear();
    });
    this.#child.stdout.setEncoding('utf8');
    this.#child.stdout.on('data', (chunk) => this.#onData(chunk));
  }

  static async connect(command, args, env) {
    const client = new StdioFloorClient(command, args, env);
    await client.request('initialize', initializeParams());
    client.notify('notifications/initialized');
    return client;
  }

  #onData(chunk) {
    // Search only the new chunk for line ends: a 4 MB catalog arrives in many chunks.
    let start = 0;
    let nl;
    while ((nl = chunk.indexOf('\n', start)) !== -1) {
      let line = chunk.slice(start, nl);
      start = nl + 1;
      if (this.#partial.length > 0) {
        this.#partial.push(line);
        line = this.#partial.join('');
        this.#partial = [];
      }
      if (line.length > 0) this.#onMessage(JSON.parse(line));
    }
    if (start < chunk.length) this.#partial.push(chunk.slice(start));
  }

  #onMessage(msg) {
    const waiter = this.#pending.get(msg.id);
    if (!waiter) return;
    this.#pending.delete(msg.id);
    if (msg.error) waiter.reject(rpcError(waiter.method, msg.error));
    else waiter.resolve(msg.result);
  }

  request(method, params) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, method });
      this.#child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  notify(method, params) {
    this.#child.stdin.write(JSON.stringify({ jsonrpc: '2.0', method, params }) + '\n');
  }

  async listTools() {
    return (await this.request('tools/list', {})).tools;
  }

  callTool(name, args) {
    return this.request('tools/call', { name, arguments: args });
  }

  async close() {
    this.#child.stdin.end();
    await this.#exited;
  }
}

export class HttpFloorClient {
  #url;
  #session;
  #nextId = 1;
  #extraHeaders;

  constructor(url, headers) {
    this.#url = url;
    this.#extraHeaders = headers;
  }

  static async connect(url, headers) {
    const client = new HttpFloorClient(url, headers);
    await client.request('initialize', initializeParams());
    await client.notify('notifications/initialized');
    return client;
  }

  #headers() {
    const h = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
      ...this.#extraHeaders,
    };
    if (this.#session) h['mcp-session-id'] = this.#session;
    return h;
  }

  async #post(message) {
    const res = await fetch(this.#url, { method: 'POST', headers: this.#headers(), body: JSON.stringify(message) });
    const session = res.headers.get('mcp-session-id');
    if (session) this.#session = session;
    if (!res.ok) throw new Error(`${message.method}: HTTP ${res.status} ${await res.text()}`);
    return res;
  }

  async request(method, params) {
    const id = this.#nextId++;
    const res = await this.#post({ jsonrpc: '2.0', id, method, params });
    const type = res.headers.get('content-type') ?? '';
    let msg;
    if (type.startsWith('text/event-stream')) {
      // One or more events; the answer is the one carrying our id.
      for (const event of (await res.text()).split('\n\n')) {
        const data = event
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n');
        if (!data) continue;
        const m = JSON.parse(data);
        if (m.id === id) msg = m;
      }
      if (!msg) throw new Error(`${method}: the event stream ended without an answer`);
    } else {
      msg = await res.json();
    }
    if (msg.error) throw rpcError(method, msg.error);
    return msg.result;
  }

  async notify(method, params) {
    const res = await this.#post({ jsonrpc: '2.0', method, params });
    await res.arrayBuffer();
  }

  async listTools() {
    return (await this.request('tools/list', {})).tools;
  }

  callTool(name, args) {
    return this.request('tools/call', { name, arguments: args });
  }

  async close() {
    if (!this.#session) return;
    const res = await fetch(this.#url, { method: 'DELETE', headers: this.#headers() });
    await res.arrayBuffer();
  }
}
