'use strict';
// Text output for the CLI: aligned tables and tool/resource/prompt content.

function oneLine(s, max) {
  const t = String(s ?? '').replace(/\s+/g, ' ').trim();
  return max && t.length > max ? `${t.slice(0, Math.max(0, max - 1))}…` : t;
}

/** Rows of strings under a header; the last column is cut to the terminal width. */
function table(header, rows, stream = process.stdout) {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => String(r[i] ?? '').length)));
  const cols = stream.isTTY ? stream.columns || 120 : Infinity;
  const lines = all.map((r) => {
    const head = r.slice(0, -1).map((c, i) => String(c ?? '').padEnd(widths[i])).join('  ');
    const last = String(r[r.length - 1] ?? '');
    const room = cols - head.length - 2;
    return `${head}${head ? '  ' : ''}${room > 10 && last.length > room ? `${last.slice(0, room - 1)}…` : last}`.trimEnd();
  });
  return `${lines.join('\n')}\n`;
}

function contentText(blocks) {
  const out = [];
  for (const b of blocks ?? []) {
    switch (b.type) {
      case 'text':
        out.push(b.text);
        break;
      case 'image':
      case 'audio':
        out.push(`[${b.type} ${b.mimeType ?? ''}, ${Buffer.byteLength(b.data ?? '', 'base64')} bytes]`);
        break;
      case 'resource':
        out.push(`[resource ${b.resource?.uri ?? ''}]`);
        if (typeof b.resource?.text === 'string') out.push(b.resource.text);
        else if (b.resource?.blob) out.push(`[${b.resource.mimeType ?? 'blob'}, ${Buffer.byteLength(b.resource.blob, 'base64')} bytes]`);
        break;
      case 'resource_link':
        out.push(`[link ${b.uri}]${b.name ? ` ${b.name}` : ''}`);
        break;
      default:
        out.push(JSON.stringify(b));
    }
  }
  return out.join('\n');
}

function resourceContentsText(contents) {
  return (contents ?? [])
    .map((c) => (typeof c.text === 'string' ? c.text : `[${c.mimeType ?? 'blob'} ${c.uri}, ${Buffer.byteLength(c.blob ?? '', 'base64')} bytes]`))
    .join('\n');
}

function promptText(result) {
  const lines = [];
  if (result.description) lines.push(`# ${result.description}`);
  for (const m of result.messages ?? []) {
    const blocks = Array.isArray(m.content) ? m.content : [m.content];
    lines.push(`${m.role}: ${contentText(blocks)}`);
  }
  return lines.join('\n');
}

module.exports = { table, oneLine, contentText, resourceContentsText, promptText };
