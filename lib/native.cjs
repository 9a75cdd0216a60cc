'use strict';
// Loads the native addon: the binary built in this checkout (`npm run build`), else the platform package
// npm installed as an optional dependency (`mastra-mcp-native-<platform>`). Every candidate is a literal
// `require(...)` so bundlers can trace it (and include it, or refuse it at build time). When nothing
// loads, throws one error that names the platform, what was tried and what to do.
const { readFileSync } = require('node:fs');
const { version } = require('../package.json');

// Which C library the running Node links against (prebuilt Linux binaries exist for glibc and musl):
// `ldd` names musl on musl systems (a cheap read); only without it, Node's diagnostic report
// (which costs about 10 ms at start-up) is asked.
function linuxLibc() {
  try {
    return readFileSync('/usr/bin/ldd', 'utf8').includes('musl') ? 'musl' : 'gnu';
  } catch {
    // no ldd: ask the diagnostic report below
  }
  try {
    const saved = process.report.excludeNetwork;
    let report;
    try {
      process.report.excludeNetwork = true; // no DNS lookups for the report
      report = process.report.getReport();
    } finally {
      process.report.excludeNetwork = saved;
    }
    if (report?.header?.glibcVersionRuntime) return 'gnu';
    if (report?.sharedObjects?.some?.((f) => f.includes('libc.musl-') || f.includes('ld-musl-'))) return 'musl';
  } catch {
    // no diagnostic report either
  }
  return 'gnu';
}

/** The platform key of this process: `linux-x64-gnu`, `linux-arm64-musl`, `darwin-arm64`, `win32-x64-msvc`, ... */
function platformKey(platform = process.platform, arch = process.arch, libc = platform === 'linux' ? linuxLibc() : undefined) {
  if (platform === 'linux') return `linux-${arch}-${libc}`;
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

// For each supported platform: the binary a checkout builds, then the platform package. Literal paths only.
const CANDIDATES = {
  'linux-x64-gnu': [
    ['./mastra-mcp-native.linux-x64-gnu.node', () => require('../mastra-mcp-native.linux-x64-gnu.node')],
    ['mastra-mcp-native-linux-x64-gnu', () => require('mastra-mcp-native-linux-x64-gnu')],
  ],
  'linux-x64-musl': [
    ['./mastra-mcp-native.linux-x64-musl.node', () => require('../mastra-mcp-native.linux-x64-musl.node')],
    ['mastra-mcp-native-linux-x64-musl', () => require('mastra-mcp-native-linux-x64-musl')],
  ],
  'linux-arm64-gnu': [
    ['./mastra-mcp-native.linux-arm64-gnu.node', () => require('../mastra-mcp-native.linux-arm64-gnu.node')],
    ['mastra-mcp-native-linux-arm64-gnu', () => require('mastra-mcp-native-linux-arm64-gnu')],
  ],
  'linux-arm64-musl': [
    ['./mastra-mcp-native.linux-arm64-musl.node', () => require('../mastra-mcp-native.linux-arm64-musl.node')],
    ['mastra-mcp-native-linux-arm64-musl', () => require('mastra-mcp-native-linux-arm64-musl')],
  ],
  'darwin-x64': [
    ['./mastra-mcp-native.darwin-x64.node', () => require('../mastra-mcp-native.darwin-x64.node')],
    ['mastra-mcp-native-darwin-x64', () => require('mastra-mcp-native-darwin-x64')],
  ],
  'darwin-arm64': [
    ['./mastra-mcp-native.darwin-arm64.node', () => require('../mastra-mcp-native.darwin-arm64.node')],
    ['mastra-mcp-native-darwin-arm64', () => require('mastra-mcp-native-darwin-arm64')],
  ],
  'win32-x64-msvc': [
    ['./mastra-mcp-native.win32-x64-msvc.node', () => require('../mastra-mcp-native.win32-x64-msvc.node')],
    ['mastra-mcp-native-win32-x64-msvc', () => require('mastra-mcp-native-win32-x64-msvc')],
  ],
  'win32-arm64-msvc': [
    ['./mastra-mcp-native.win32-arm64-msvc.node', () => require('../mastra-mcp-native.win32-arm64-msvc.node')],
    ['mastra-mcp-native-win32-arm64-msvc', () => require('mastra-mcp-native-win32-arm64-msvc')],
  ],
};

const SUPPORTED = Object.keys(CANDIDATES);

function firstLine(e) {
  return String(e?.message ?? e).split('\n')[0];
}

function missingBinaryError(key, tried) {
  const supported = SUPPORTED.includes(key);
  const lines = [
    supported
      ? `mastra-mcp-native: no native binary could be loaded for this platform (${key}, Node ${process.version}).`
      : `mastra-mcp-native: this platform (${key}, Node ${process.version}) has no prebuilt binary; supported: ${SUPPORTED.join(', ')}.`,
  ];
  if (tried.length) {
    lines.push('Tried:');
    for (const [what, e] of tried) lines.push(`  - ${what}: ${firstLine(e)}`);
  }
  lines.push('To fix it:');
  if (supported) {
    lines.push(
      `  - install the platform package: npm install mastra-mcp-native-${key}@${version}` +
        ' (npm skips it with --omit=optional / --no-optional, or when the lockfile was made on another platform:' +
        ' then delete node_modules and package-lock.json and install again);',
    );
  }
  lines.push('  - or build the binary from source with Rust (cargo): in a checkout of mastra-mcp-native run `npm ci && npm run build`.');
  const error = new Error(lines.join('\n'));
  error.code = 'MASTRA_MCP_NATIVE_BINARY_MISSING';
  error.platform = key;
  error.tried = tried.map(([what, e]) => ({ candidate: what, error: e }));
  return error;
}

function loadNative(key = platformKey()) {
  const tried = [];
  for (const [what, load] of CANDIDATES[key] ?? []) {
    try {
      const binding = load();
      if (binding && typeof binding.NativeClient === 'function') return binding;
      tried.push([what, new Error('loaded, but it is not this package\'s binary (no NativeClient export)')]);
    } catch (e) {
      tried.push([what, e]);
    }
  }
  throw missingBinaryError(key, tried);
}

module.exports = loadNative();
