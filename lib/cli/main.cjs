'use strict';
// `mastra-mcp`: a command-line client written on this package's public API.
const net = require('node:net');
const { spawn } = require('node:child_process');
const { parseArgs, parseJsonArgs, UsageError, HELP, COMMANDS } = require('./args.cjs');
const { loadConfig } = require('./config.cjs');
const { CliCredentials } = require('./token-store.cjs');
const { ProgressBar, Terminal, askElicitation } = require('./interactive.cjs');
const out = require('./output.cjs');

const EXIT = { OK: 0, FAILED: 1, USAGE: 2, INTERRUPTED: 130 };

class Failure extends Error {}

const SILENT_LOGGER = { debug() {}, info() {}, warn() {}, error() {}, trackException() {}, getTransports: () => new Map() };

class Cli {
  constructor(api, opts, config) {
    this.api = api;
    this.opts = opts;
    this.config = config;
    this.stderrTails = new Map();
  }

  /** Opens the credential store when a server of the config is remote (stdio ones need none). */
  async loadCredentials() {
    const urls = Object.values(this.config.servers)
      .map((def) => def?.url)
      .filter(Boolean)
      .map(String);
    if (urls.length === 0) return;
    this.tokens = new CliCredentials(this.api);
    await this.tokens.load(urls);
  }

  print(text) {
    if (text) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  printJson(value) {
    process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  note(text) {
    process.stderr.write(`${text}\n`);
  }

  requireServer(name) {
    if (this.config.servers[name]) return;
    const why = this.config.disabled.includes(name) ? 'is disabled in' : 'is not in';
    const where = this.config.file ?? 'the bundled example config';
    const known = Object.keys(this.config.servers).join(', ') || '(none)';
    throw new UsageError(`server "${name}" ${why} ${where} (servers: ${known})`);
  }

  /** A client for some (default: all) servers of the config. */
  client(names = Object.keys(this.config.servers), extra = {}) {
    const servers = {};
    for (const name of names) {
      const def = { ...this.config.servers[name], onToolError: 'return', ...extra[name] };
      if (def.command) def.stderr = this.opts.verbose ? 'inherit' : 'pipe';
      if (def.url && !def.authProvider && this.tokens) {
        const stored = this.tokens.entry(def.url);
        if (stored?.redirectUrl) def.authProvider = this.oauthProvider(name, def.url, stored.redirectUrl, false);
      }
      servers[name] = def;
    }
    const client = new this.api.MCPClient({ id: `mastra-mcp-cli-${process.pid}`, servers, timeout: this.opts.timeout });
    client.__setLogger?.(SILENT_LOGGER);
    for (const name of names) {
      const stream = client.getServerStderr(name);
      if (!stream) continue;
      this.stderrTails.set(name, '');
      stream.on('data', (d) => this.stderrTails.set(name, (this.stderrTails.get(name) + d).slice(-2000)));
    }
    this.live = client;
    return client;
  }

  oauthProvider(name, serverUrl, redirectUrl, interactive) {
    const { MCPOAuthClientProvider } = this.api;
    return new MCPOAuthClientProvider({
      redirectUrl,
      clientMetadata: {
        client_name: 'mastra-mcp CLI',
        redirect_uris: [redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      storage: this.tokens.storageFor(serverUrl),
      onRedirectToAuthorization: (url) => {
        if (!interactive) throw new Error(`MCP server ${name} needs authorization: run \`mastra-mcp auth ${name}\``);
        this.note(`Open this URL to authorize ${name}:\n  ${url.href}`);
        openBrowser(url.href);
      },
    });
  }

  /** A failure message, with the tail of the server's stderr when it has one. */
  describe(name, err) {
    let msg = err?.message ?? String(err);
    if (this.config.servers[name]?.url && /HTTP 401|requires authorization|Unauthorized/.test(msg) && !msg.includes('mastra-mcp auth')) {
      msg += ` (run \`mastra-mcp auth ${name}\`)`;
    }
    const tail = this.stderrTails.get(name)?.trim();
    return tail && !this.opts.json ? `${msg}\n  server stderr: ${tail.split('\n').slice(-3).join('\n  ')}` : msg;
  }

  transportOf(name) {
    return this.config.transports[name] ?? (this.config.servers[name]?.url ? 'http' : 'stdio');
  }

  // ---- commands ----------------------------------------------------------------------------
  async servers() {
    const names = Object.keys(this.config.servers);
    const client = this.client(names);
    const rows = await Promise.all(
      names.map(async (name) => {
        try {
          const info = await client.getServerSessionInfo(name);
          const transport = this.transportOf(name) === 'http' && client.sessionIds[name] ? 'streamable-http' : this.transportOf(name);
          return { name, transport, status: 'connected', protocolVersion: info.protocolVersion, serverVersion: info.serverVersion, instructions: info.instructions };
        } catch (e) {
          return { name, transport: this.transportOf(name), status: 'failed', error: this.describe(name, e) };
        }
      }),
    );
    for (const name of this.config.disabled) rows.push({ name, transport: '', status: 'disabled' });
    if (this.opts.json) this.printJson({ config: this.config.file, format: this.config.format, servers: rows });
    else {
      this.print(`config: ${this.config.file ?? 'bundled example server'} (${this.config.format})`);
      this.print(
        out.table(
          ['SERVER', 'TRANSPORT', 'PROTOCOL', 'STATUS', 'VERSION'],
          rows.map((r) => [r.name, r.transport, r.protocolVersion ?? '', r.status, r.serverVersion ?? '']),
        ),
      );
      for (const r of rows) {
        if (r.instructions) this.print(`${r.name} instructions: ${out.oneLine(r.instructions, 300)}`);
        if (r.error) this.print(`${r.name} error: ${r.error}`);
      }
    }
    return rows.some((r) => r.status === 'failed') ? EXIT.FAILED : EXIT.OK;
  }

  #reportErrors(errors) {
    for (const [server, message] of Object.entries(errors ?? {})) this.note(`mastra-mcp: ${server}: ${this.describe(server, { message })}`);
    return Object.keys(errors ?? {}).length ? EXIT.FAILED : EXIT.OK;
  }

  #names(server) {
    if (server === undefined) return Object.keys(this.config.servers);
    this.requireServer(server);
    return [server];
  }

  async tools(server) {
    const client = this.client(this.#names(server));
    const { definitions, errors } = await client.listToolDefinitionsWithErrors();
    const list = [];
    for (const [s, defs] of Object.entries(definitions)) {
      for (const d of Object.values(defs)) list.push({ server: s, name: d.name, description: d.description, inputSchema: d.inputSchema, annotations: d.annotations });
    }
    if (this.opts.json) this.printJson({ tools: list, errors });
    else {
      const args = (schema) => Object.keys(schema?.properties ?? {}).map((k) => ((schema.required ?? []).includes(k) ? k : `${k}?`)).join(', ');
      this.print(out.table(['SERVER', 'TOOL', 'ARGS', 'DESCRIPTION'], list.map((t) => [t.server, t.name, args(t.inputSchema), out.oneLine(t.description)])));
    }
    return this.#reportErrors(errors);
  }

  async call(server, toolName, jsonArgs) {
    this.requireServer(server);
    const args = parseJsonArgs(jsonArgs, 'json-args');
    const client = this.client([server]);
    const term = process.stdin.isTTY ? new Terminal() : undefined;
    const bar = new ProgressBar();
    const controller = new AbortController();
    let interrupted = false;
    const interrupt = () => {
      // A second Ctrl-C does not wait for the cancelled call to settle.
      if (interrupted) process.exit(EXIT.INTERRUPTED);
      interrupted = true;
      bar.clear();
      controller.abort(new Error('Cancelled by the user (Ctrl-C)'));
    };
    term?.onInterrupt(interrupt);
    // The CLI is an application: it may own Ctrl-C (the library installs no signal handlers).
    process.on('SIGINT', interrupt);
    try {
      await client.elicitation.onRequest(server, async (params) => {
        if (!term) {
          this.note(`mastra-mcp: ${server} asked for input (“${params.message}”); declined: stdin is not a terminal`);
          return { action: 'decline' };
        }
        bar.clear();
        return askElicitation(term, params);
      });
      const runId = `mastra-mcp-${process.pid}-${Date.now()}`;
      await client.progress.onUpdate(server, (p) => {
        if (p.progressToken === runId) bar.update(p);
      });
      const tool = await this.#findTool(client, server, toolName);
      let result;
      try {
        result = await tool.execute(args, { abortSignal: controller.signal, runId });
      } catch (e) {
        bar.clear();
        if (interrupted) {
          this.note(`mastra-mcp: call to ${server}/${toolName} cancelled`);
          return EXIT.INTERRUPTED;
        }
        throw new Failure(`${server}/${toolName}: ${this.describe(server, e)}`);
      }
      bar.clear();
      return this.#printToolResult(server, toolName, result);
    } catch (e) {
      if (e instanceof Failure || e instanceof UsageError) throw e;
      throw new Failure(this.describe(server, e));
    } finally {
      process.off('SIGINT', interrupt);
      term?.close();
    }
  }

  async #findTool(client, server, toolName) {
    // A server may add tools after initializing (announced by tools/list_changed): wait a bit.
    let changed;
    const listChanged = new Promise((resolve) => (changed = resolve));
    await client.tools.onListChanged(server, () => changed());
    for (let attempt = 0; attempt < 2; attempt++) {
      const { toolsets, errors } = await client.listToolsetsWithErrors();
      if (errors[server]) throw new Failure(`${server}: ${this.describe(server, { message: errors[server] })}`);
      const tool = toolsets[server]?.[toolName];
      if (tool) return tool;
      if (attempt === 0) {
        let timer;
        const waited = await Promise.race([listChanged.then(() => true), new Promise((r) => (timer = setTimeout(r, 3000, false)))]);
        clearTimeout(timer);
        if (!waited) break;
      }
    }
    const { toolsets } = await client.listToolsetsWithErrors();
    const known = Object.keys(toolsets[server] ?? {}).join(', ');
    throw new Failure(`${server}: no tool named "${toolName}" (tools: ${known || 'none'})`);
  }

  #printToolResult(server, toolName, result) {
    // A Mastra validation failure comes back as a value, not a throw.
    if (result && result.error === true && typeof result.message === 'string' && !Array.isArray(result.content)) {
      throw new Failure(`${server}/${toolName}: ${result.message}`);
    }
    const content = Array.isArray(result?.content) ? result.content : this.api.getMcpCallToolContent?.(result);
    const structured = Array.isArray(result?.content) ? result.structuredContent : result;
    const isError = result?.isError === true;
    if (this.opts.json) {
      this.printJson({ server, tool: toolName, isError, content: content ?? [], ...(structured !== undefined && structured !== result?.content ? { structuredContent: structured } : {}) });
    } else if (Array.isArray(result?.content) || !structured || typeof structured !== 'object') {
      (isError ? process.stderr : process.stdout).write(`${out.contentText(content ?? [])}\n`);
    } else {
      this.print(JSON.stringify(structured, null, 2));
    }
    return isError ? EXIT.FAILED : EXIT.OK;
  }

  async resources(server) {
    const client = this.client(this.#names(server));
    const { resources, errors } = await client.resources.listWithErrors();
    const list = Object.entries(resources).flatMap(([s, rs]) => rs.map((r) => ({ server: s, ...r })));
    if (this.opts.json) this.printJson({ resources: list, errors });
    else this.print(out.table(['SERVER', 'URI', 'MIME', 'NAME'], list.map((r) => [r.server, r.uri, r.mimeType ?? '', out.oneLine(r.title ?? r.name)])));
    return this.#reportErrors(errors);
  }

  async read(server, uri) {
    this.requireServer(server);
    const client = this.client([server]);
    let result;
    try {
      result = await client.resources.read(server, uri);
    } catch (e) {
      throw new Failure(`${server}: ${this.describe(server, e)}`);
    }
    if (this.opts.json) this.printJson(result);
    else this.print(out.resourceContentsText(result.contents));
    return EXIT.OK;
  }

  async prompts(server) {
    const client = this.client(this.#names(server));
    const { prompts, errors } = await client.prompts.listWithErrors();
    const list = Object.entries(prompts).flatMap(([s, ps]) => ps.map((p) => ({ server: s, ...p })));
    if (this.opts.json) this.printJson({ prompts: list, errors });
    else {
      const args = (p) => (p.arguments ?? []).map((a) => (a.required ? a.name : `${a.name}?`)).join(', ');
      this.print(out.table(['SERVER', 'PROMPT', 'ARGS', 'DESCRIPTION'], list.map((p) => [p.server, p.name, args(p), out.oneLine(p.description)])));
    }
    return this.#reportErrors(errors);
  }

  async prompt(server, name, jsonArgs) {
    this.requireServer(server);
    const args = parseJsonArgs(jsonArgs, 'json-args');
    const client = this.client([server]);
    let result;
    try {
      result = await client.prompts.get({ serverName: server, name, args });
    } catch (e) {
      throw new Failure(`${server}: ${this.describe(server, e)}`);
    }
    if (this.opts.json) this.printJson(result);
    else this.print(out.promptText(result));
    return EXIT.OK;
  }

  /**
   * Every server's tool definitions for `command` (typegen, lock): from the MCPClient a module
   * exports when --config names one, else from the config file's servers. Fails when any server
   * could not be listed.
   */
  async #catalog(command) {
    const typegen = require('../typegen/cli.cjs');
    let client;
    let source;
    if (typegen.isModulePath(this.opts.config)) {
      const loaded = await typegen.loadClientModule(this.opts.config, UsageError);
      client = loaded.client;
      client.__setLogger?.(SILENT_LOGGER);
      this.live = client;
      source = `${this.opts.config} (export ${loaded.exportName})`;
    } else {
      if (this.config.format === 'builtin') {
        throw new UsageError(`${command} needs your servers: pass --config FILE (an MCP config file, or a module exporting an MCPClient), or run it where ./mcp.json or ./.mcp.json is`);
      }
      for (const name of this.config.disabled) this.note(`mastra-mcp: ${command}: ${name} is disabled: left out`);
      client = this.client();
      source = this.config.file;
    }
    const { definitions, errors } = await client.listToolDefinitionsWithErrors();
    if (Object.keys(errors ?? {}).length) {
      this.#reportErrors(errors);
      throw new Failure(`${command}: no file written: ${Object.keys(errors).join(', ')} could not be listed`);
    }
    return { definitions, source };
  }

  /** `typegen`: contracts of every server's tools, written to --out (default mcp-types.ts). */
  async typegen() {
    const typegen = require('../typegen/cli.cjs');
    const { generate } = require('../typegen/generate.cjs');
    const { definitions, source } = await this.#catalog('typegen');
    const { source: text, warnings } = generate(definitions);
    const out = require('node:path').resolve(this.opts.out ?? 'mcp-types.ts');
    typegen.writeAtomically(out, text);
    const servers = typegen.serverSummary(definitions);
    for (const w of warnings) this.note(`mastra-mcp: typegen: ${w}`);
    if (this.opts.json) this.printJson({ out, from: source, servers, warnings });
    else {
      const tools = servers.reduce((n, s) => n + s.tools, 0);
      const list = servers.map((s) => `${s.name}${s.version ? ` ${s.version}` : ''}`).join(', ');
      this.print(`Wrote ${out}: ${tools} tool${tools === 1 ? '' : 's'} from ${servers.length} server${servers.length === 1 ? '' : 's'}${list ? ` (${list})` : ''}`);
    }
    return EXIT.OK;
  }

  /** `lock`: the tool lock of every server (--out, default mcp-lock.json); --check compares, --update rewrites. */
  async lock() {
    const { definitions, source } = await this.#catalog('lock');
    const result = require('./lock.cjs').lock(this.api, definitions, this.opts);
    if (this.opts.json) this.printJson({ ...result, from: source });
    else if (result.diff) {
      this.print(result.diff);
      this.note(`mastra-mcp: lock: ${result.summary}`);
    } else this.print(result.summary);
    return result.ok ? EXIT.OK : EXIT.FAILED;
  }

  async auth(server) {
    this.requireServer(server);
    const def = this.config.servers[server];
    if (!def.url) throw new UsageError(`server "${server}" is a stdio server: only http and sse servers use OAuth`);
    const stored = this.tokens.entry(def.url);
    const redirectUrl = stored?.redirectUrl ?? `http://127.0.0.1:${await freePort()}/oauth/callback`;
    await this.tokens.setRedirectUrl(def.url, redirectUrl);
    const provider = this.oauthProvider(server, def.url, redirectUrl, true);
    const client = this.client([server], { [server]: { authProvider: provider } });
    try {
      await client.authenticate(server); // the browser wait: the default 5 minutes
      await client.getServerSessionInfo(server);
    } catch (e) {
      throw new Failure(`${server}: ${this.describe(server, e)}`);
    }
    if (this.opts.json) this.printJson({ server, authorized: true, tokenStore: this.tokens.where });
    else this.print(`Authorized ${server}; tokens stored in ${this.tokens.where}`);
    return EXIT.OK;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function openBrowser(url) {
  if (process.env.MASTRA_MCP_NO_BROWSER || process.env.BROWSER === 'none') return;
  const [cmd, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : [process.env.BROWSER || 'xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
  } catch {
    // The URL is printed: the user can open it by hand.
  }
}

/** Runs the CLI; resolves to the exit code. */
async function main(argv, api = require('../../index.js')) {
  let parsed;
  try {
    parsed = parseArgs(argv);
  } catch (e) {
    process.stderr.write(`mastra-mcp: ${e.message}\n`);
    return EXIT.USAGE;
  }
  const { command, operands, opts } = parsed;
  if (command === 'help') {
    const spec = COMMANDS[operands[0]];
    process.stdout.write(spec ? `Usage: mastra-mcp ${spec.usage}\n` : `${HELP}\n`);
    return operands[0] && !spec ? EXIT.USAGE : EXIT.OK;
  }
  let cli;
  try {
    // `typegen --config module.mjs` reads its servers from the module's MCPClient, not a config file.
    const moduleConfig = (command === 'typegen' || command === 'lock') && require('../typegen/cli.cjs').isModulePath(opts.config);
    const config = moduleConfig ? { file: opts.config, format: 'module', servers: {}, transports: {}, disabled: [] } : await loadConfig(api, opts);
    cli = new Cli(api, opts, config);
    await cli.loadCredentials();
    return await cli[command](...operands);
  } catch (e) {
    if (e instanceof api.MCPConfigError || e instanceof UsageError) {
      process.stderr.write(`mastra-mcp: ${e.message}\n`);
      return EXIT.USAGE;
    }
    const detail = e instanceof Failure || !opts.verbose ? e?.message ?? String(e) : e?.stack ?? String(e);
    process.stderr.write(`mastra-mcp: ${detail}\n`);
    return EXIT.FAILED;
  } finally {
    await cli?.live?.disconnect().catch(() => {});
  }
}

module.exports = { main, EXIT };
