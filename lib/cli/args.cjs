'use strict';
// Command-line parsing for `mastra-mcp`: global flags anywhere, then a command and its operands.

class UsageError extends Error {}

const COMMANDS = {
  servers: { min: 0, max: 0, usage: 'servers' },
  tools: { min: 0, max: 1, usage: 'tools [server]' },
  call: { min: 2, max: 3, usage: 'call <server> <tool> [json-args]' },
  resources: { min: 0, max: 1, usage: 'resources [server]' },
  read: { min: 2, max: 2, usage: 'read <server> <uri>' },
  prompts: { min: 0, max: 1, usage: 'prompts [server]' },
  prompt: { min: 2, max: 3, usage: 'prompt <server> <name> [json-args]' },
  auth: { min: 1, max: 1, usage: 'auth <server>' },
  typegen: { min: 0, max: 0, usage: 'typegen [--config FILE] [--out FILE]' },
  lock: { min: 0, max: 0, usage: 'lock [--config FILE] [--out FILE] [--check | --update]' },
  help: { min: 0, max: 1, usage: 'help [command]' },
};

const HELP = `Usage: mastra-mcp [options] <command> [arguments]

Talks to the MCP servers of a config file (Claude Desktop, Claude Code, Cursor, VS Code or Windsurf
format). Without --config it reads ./mcp.json or ./.mcp.json, else the bundled example server.

Commands:
  servers                              connect every server: transport, protocol, status, instructions
  tools [server]                       list tools
  call <server> <tool> [json-args]     call a tool and print its result (Ctrl-C cancels)
  resources [server]                   list resources
  read <server> <uri>                  read a resource
  prompts [server]                     list prompts
  prompt <server> <name> [json-args]   get a prompt
  auth <server>                        authorize with OAuth in the browser and store the tokens
  typegen                              write TypeScript contracts of every server's tools (--out,
                                       default mcp-types.ts) for \`new MCPClient<MCPServers>\`;
                                       --config may also name a module exporting an MCPClient
  lock                                 write the tool lock of every server (--out, default
                                       mcp-lock.json): each tool's reviewed definition and hash;
                                       --check: exit 1 with a diff when the servers no longer
                                       match it; --update: rewrite it

Options:
  -c, --config FILE      the config file to use
      --format NAME      the file's dialect: claude-desktop, claude-code, cursor, vscode, windsurf, generic
      --input ID=VALUE   a value for a VS Code \${input:ID} (repeatable; or set MCP_INPUT_<ID>)
      --timeout MS       request timeout in milliseconds
      --out FILE         typegen, lock: the file to write (default mcp-types.ts, mcp-lock.json)
      --check            lock: compare the servers with the lock file; write nothing
      --update           lock: rewrite the lock file after a change you accept
      --json             machine-readable output on stdout
  -v, --verbose          show the servers' stderr
  -h, --help             this help

Exit codes: 0 ok, 1 a call or connection failed, 2 bad usage or config.`;

function parseArgs(argv) {
  const opts = { json: false, verbose: false, inputs: {}, help: false };
  const rest = [];
  const value = (i, name) => {
    if (i + 1 >= argv.length) throw new UsageError(`${name} needs a value`);
    return argv[i + 1];
  };
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i];
    let inline;
    if (a.startsWith('--') && a.includes('=')) [a, inline] = [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)];
    const take = (name) => (inline !== undefined ? inline : value(i++, name));
    switch (a) {
      case '--':
        rest.push(...argv.slice(i + 1));
        i = argv.length;
        break;
      case '-c':
      case '--config':
        opts.config = take(a);
        break;
      case '--format':
        opts.format = take(a);
        break;
      case '--out':
        opts.out = take(a);
        break;
      case '--input': {
        const kv = take(a);
        const eq = kv.indexOf('=');
        if (eq <= 0) throw new UsageError(`--input expects ID=VALUE, got "${kv}"`);
        opts.inputs[kv.slice(0, eq)] = kv.slice(eq + 1);
        break;
      }
      case '--timeout': {
        const t = Number(take(a));
        if (!Number.isFinite(t) || t <= 0) throw new UsageError('--timeout expects a positive number of milliseconds');
        opts.timeout = t;
        break;
      }
      case '--json':
        opts.json = true;
        break;
      case '--check':
        opts.check = true;
        break;
      case '--update':
        opts.update = true;
        break;
      case '-v':
      case '--verbose':
        opts.verbose = true;
        break;
      case '-h':
      case '--help':
        opts.help = true;
        break;
      default:
        if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option ${a}`);
        rest.push(argv[i]);
    }
  }
  const [command, ...operands] = rest;
  if (opts.help || command === undefined) return { command: 'help', operands: command ? [command] : [], opts };
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`unknown command "${command}" (try --help)`);
  if ((opts.check || opts.update) && command !== 'lock') throw new UsageError(`${opts.check ? '--check' : '--update'} is an option of lock`);
  if (opts.check && opts.update) throw new UsageError('lock: --check and --update exclude each other');
  if (operands.length < spec.min || operands.length > spec.max) throw new UsageError(`usage: mastra-mcp ${spec.usage}`);
  return { command, operands, opts };
}

/** `[json-args]`: a JSON object. */
function parseJsonArgs(text, what) {
  if (text === undefined) return {};
  let v;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${what} must be a JSON object: ${e.message}`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new UsageError(`${what} must be a JSON object`);
  return v;
}

module.exports = { parseArgs, parseJsonArgs, UsageError, HELP, COMMANDS };
