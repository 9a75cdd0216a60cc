'use strict';
// The terminal side of `call`: a progress bar on stderr and elicitation questions on a TTY.
const readline = require('node:readline');

/** A one-line progress bar, redrawn in place on a TTY stream; silent elsewhere. */
class ProgressBar {
  constructor(stream = process.stderr) {
    this.stream = stream;
    this.enabled = !!stream.isTTY;
    this.shown = false;
  }

  update({ progress, total, message }) {
    if (!this.enabled) return;
    const width = 30;
    let line;
    if (typeof total === 'number' && total > 0) {
      const ratio = Math.max(0, Math.min(1, progress / total));
      const filled = Math.round(ratio * width);
      line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${progress}/${total} ${Math.round(ratio * 100)}%`;
    } else {
      line = `[${'.'.repeat(Math.min(width, Math.max(1, Math.round(progress))))}] ${progress}`;
    }
    if (message) line += ` ${message}`;
    const cols = this.stream.columns || 80;
    if (line.length > cols - 1) line = line.slice(0, cols - 1);
    this.stream.write(`\r\x1b[K${line}`);
    this.shown = true;
  }

  clear() {
    if (this.shown) this.stream.write('\r\x1b[K');
    this.shown = false;
  }
}

/** Reads answers line by line from a TTY; lines typed ahead are kept, not lost. */
class Terminal {
  #rl;
  #lines = [];
  #waiters = [];
  #interrupts = [];

  constructor(input = process.stdin, output = process.stderr) {
    this.input = input;
    this.output = output;
  }

  #open() {
    if (this.#rl) return;
    this.#rl = readline.createInterface({ input: this.input, output: this.output, terminal: !!this.input.isTTY });
    this.#rl.on('line', (line) => {
      const w = this.#waiters.shift();
      if (w) w.resolve(line);
      else this.#lines.push(line);
    });
    this.#rl.on('close', () => {
      for (const w of this.#waiters.splice(0)) w.resolve(null);
    });
    // Ctrl-C while reading: readline owns the keypress, so the process gets no SIGINT.
    this.#rl.on('SIGINT', () => {
      for (const w of this.#waiters.splice(0)) w.resolve(null);
      for (const f of this.#interrupts) f();
    });
  }

  onInterrupt(f) {
    this.#interrupts.push(f);
  }

  /** One answer, or `null` on end of input / Ctrl-C. */
  ask(question) {
    this.#open();
    this.output.write(question);
    const queued = this.#lines.shift();
    if (queued !== undefined) {
      this.output.write(`${queued}\n`);
      return Promise.resolve(queued);
    }
    return new Promise((resolve) => this.#waiters.push({ resolve }));
  }

  close() {
    this.#rl?.close();
    this.#rl = undefined;
  }
}

function coerce(raw, schema) {
  const type = schema.type;
  const options = schema.enum ?? schema.oneOf?.map((o) => o.const) ?? schema.items?.enum;
  if (type === 'boolean') {
    if (/^(y|yes|true|1)$/i.test(raw)) return { value: true };
    if (/^(n|no|false|0)$/i.test(raw)) return { value: false };
    return { error: 'answer y or n' };
  }
  if (type === 'number' || type === 'integer') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || (type === 'integer' && !Number.isInteger(n))) return { error: `enter ${type === 'integer' ? 'an integer' : 'a number'}` };
    return { value: n };
  }
  if (type === 'array' && options) {
    const picked = raw.split(',').map((s) => s.trim()).filter(Boolean);
    const bad = picked.find((p) => !options.includes(p));
    return bad ? { error: `choose from ${options.join(', ')}` } : { value: picked };
  }
  if (options) {
    const byIndex = /^\d+$/.test(raw) ? options[Number(raw) - 1] : undefined;
    const v = options.includes(raw) ? raw : byIndex;
    return v === undefined ? { error: `choose from ${options.join(', ')}` } : { value: v };
  }
  return { value: raw };
}

/**
 * Answers an elicitation request by asking on the terminal: accept (then each field),
 * decline or cancel. End of input or Ctrl-C cancels.
 */
async function askElicitation(term, params) {
  const out = term.output;
  out.write(`\n${params.message}\n`);
  if (params.mode === 'url' || params.url) {
    out.write(`Open: ${params.url}\n`);
  }
  const choice = await term.ask('Respond? [a]ccept, [d]ecline, [c]ancel (a): ');
  if (choice === null) return { action: 'cancel' };
  const c = choice.trim().toLowerCase();
  if (c === 'd' || c === 'decline') return { action: 'decline' };
  if (c === 'c' || c === 'cancel') return { action: 'cancel' };
  if (params.mode === 'url' || params.url) return { action: 'accept' };
  const schema = params.requestedSchema ?? { properties: {} };
  const required = new Set(schema.required ?? []);
  const content = {};
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const label = prop.title ?? key;
    const options = prop.enum ?? prop.oneOf?.map((o) => o.const) ?? prop.items?.enum;
    const hints = [
      prop.type,
      prop.format,
      options ? `one of: ${options.join(', ')}` : undefined,
      prop.default !== undefined ? `default ${JSON.stringify(prop.default)}` : undefined,
      required.has(key) ? 'required' : 'optional',
    ].filter(Boolean);
    if (prop.description) out.write(`  ${prop.description}\n`);
    for (;;) {
      const raw = await term.ask(`${label} (${hints.join(', ')}): `);
      if (raw === null) return { action: 'cancel' };
      if (raw === '') {
        if (prop.default !== undefined) {
          content[key] = prop.default;
          break;
        }
        if (!required.has(key)) break;
        out.write('  a value is required\n');
        continue;
      }
      const r = coerce(raw, prop);
      if (r.error) {
        out.write(`  ${r.error}\n`);
        continue;
      }
      content[key] = r.value;
      break;
    }
  }
  return { action: 'accept', content };
}

module.exports = { ProgressBar, Terminal, askElicitation };
