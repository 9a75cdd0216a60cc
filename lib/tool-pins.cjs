'use strict';
// An MCPClient's tool lock (`toolLock`, `onToolDrift`; docs/tool-safety.md): which listed tools of a
// pinned server differ from the lock or are not in it, and what the client does with them —
// 'block' withholds them (reported under TOOL_DRIFT, and a tool handed out earlier rejects its
// calls), 'approve' keeps them behind Mastra's tool approval, 'warn' keeps them and logs. The drift
// itself is the core's (src/core/tool_lock.rs, through lib/tool-lock.cjs).
const { readToolLock, serverDrift, describeDrift } = require('./tool-lock.cjs');

const MODES = ['block', 'approve', 'warn'];
const TOOL_DRIFT = 'TOOL_DRIFT';

class ToolPins {
  #lock;
  #mode;
  #drift = new Map(); // server -> Map(tool name -> drift) of the listing reviewed last
  #warned = new Set();

  /** The pins of a client's options, or `undefined` without a `toolLock`. Throws a TypeError on bad options. */
  static from({ toolLock, onToolDrift }) {
    if (toolLock === undefined || toolLock === null) {
      if (onToolDrift !== undefined) throw new TypeError('onToolDrift needs a toolLock (a path to mcp-lock.json, or the parsed lock)');
      return undefined;
    }
    const mode = onToolDrift ?? 'block';
    if (!MODES.includes(mode)) throw new TypeError(`onToolDrift must be one of ${MODES.map((m) => `'${m}'`).join(', ')} (got ${JSON.stringify(onToolDrift)})`);
    return new ToolPins(readToolLock(toolLock), mode);
  }

  constructor(lock, mode) {
    this.#lock = lock;
    this.#mode = mode;
  }

  get mode() {
    return this.#mode;
  }

  /** Whether the lock pins this server (a server it does not name is not checked). */
  pins(server) {
    return Object.prototype.hasOwnProperty.call(this.#lock.servers, server);
  }

  /** Reviews a server's listing (the tool objects as listed); call once per new listing. */
  review(server, tools) {
    if (!this.pins(server)) return;
    const byName = new Map();
    for (const d of serverDrift(this.#lock, server, tools) ?? []) if (d.kind !== 'removed') byName.set(d.tool, d);
    this.#drift.set(server, byName);
  }

  /** How a listed tool differs from the lock (`undefined`: it matches, or the server is not pinned). */
  driftOf(server, name) {
    return this.#drift.get(server)?.get(name);
  }

  /** How one definition (a cached one being rebuilt) differs from the lock. */
  definitionDrift(server, definition) {
    if (!this.pins(server)) return undefined;
    return (serverDrift(this.#lock, server, [definition]) ?? []).find((d) => d.kind !== 'removed');
  }

  /** Whether a drifted tool is withheld. */
  get blocks() {
    return this.#mode === 'block';
  }

  /** The withheld tools of a server's listing reviewed last (empty unless blocking). */
  withheld(server) {
    return this.blocks ? [...(this.#drift.get(server)?.values() ?? [])] : [];
  }

  /** Logs a drifted tool once per client and definition: `log(level, message, details)`. */
  warnOnce(server, drift, log) {
    const key = `${server}\u0000${drift.tool}\u0000${drift.actual}`;
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    const what = this.#mode === 'block' ? 'withheld' : this.#mode === 'approve' ? 'kept behind tool approval' : 'kept';
    log('warning', `Tool "${drift.tool}" differs from the tool lock and is ${what}:\n${describeDrift(server, drift)}`, {
      code: TOOL_DRIFT,
      toolName: drift.tool,
      drift,
    });
  }

  /** `{ message, details }` of a server whose drifted tools were withheld (for the `*WithErrors` results). */
  report(server, drifts) {
    const names = drifts.map((d) => `${d.tool} (${d.kind === 'added' ? 'not in the lock' : `changed: ${d.changes.map((c) => c.pointer || '/').join(', ')}`})`);
    const message = `Tools of MCP server ${server} differ from the tool lock and are withheld: ${names.join('; ')}`;
    return { message, details: { message, code: TOOL_DRIFT, drift: drifts } };
  }

  /** The error a withheld tool's `execute` rejects with. */
  blockedError(deps, server, drift) {
    const { MastraError, ErrorDomain, ErrorCategory } = deps;
    return new MastraError({
      id: TOOL_DRIFT,
      domain: ErrorDomain.MCP,
      category: ErrorCategory.THIRD_PARTY,
      text: `Tool "${drift.tool}" of MCP server ${server} differs from the tool lock; it is not called:\n${describeDrift(server, drift)}`,
      details: { serverName: server, toolName: drift.tool, kind: drift.kind, expected: drift.expected ?? null, actual: drift.actual ?? null },
    });
  }
}

/**
 * Puts `gate()` in front of a tool's `execute`: a tool handed out before a `list_changed` refetch
 * is judged by the lock again before each call.
 */
function gateExecute(tool, gate) {
  const execute = tool.execute;
  if (typeof execute !== 'function') return tool;
  tool.execute = async function gatedExecute(input, context) {
    await gate(tool);
    return execute.call(this, input, context);
  };
  return tool;
}

/** Whether an error is a `TOOL_DRIFT` refusal. */
function isToolDrift(error) {
  return error?.id === TOOL_DRIFT;
}

module.exports = { ToolPins, gateExecute, isToolDrift, TOOL_DRIFT };
