// Checks a built addon without running it: its format and architecture, the N-API entry point exported, and what it
// imports (Mach-O: dylibs, symbols left to dynamic lookup, minimum macOS; PE: DLLs; ELF: machine only).
//   node scripts/check-binary.mjs FILE [--expect TRIPLE]     prints a JSON report, exits 1 when a check fails
import { readFileSync } from 'node:fs';

const MACHO_CPU = { 0x01000007: 'x86_64', 0x0100000c: 'aarch64' };
const PE_MACHINE = { 0x8664: 'x86_64', 0xaa64: 'aarch64' };
const ELF_MACHINE = { 62: 'x86_64', 183: 'aarch64' };

const cstr = (b, off) => b.toString('latin1', off, b.indexOf(0, off));
const version = (v) => `${v >>> 16}.${(v >> 8) & 0xff}.${v & 0xff}`;

function macho(b) {
  const cpu = MACHO_CPU[b.readUInt32LE(4)];
  const filetype = b.readUInt32LE(12);
  const ncmds = b.readUInt32LE(16);
  const flags = b.readUInt32LE(24);
  const dylibs = [];
  let minos;
  let symtab;
  let off = 32;
  for (let i = 0; i < ncmds; i++) {
    const cmd = b.readUInt32LE(off);
    const size = b.readUInt32LE(off + 4);
    if (cmd === 0xc || cmd === 0x80000018 || cmd === 0x8000001f) dylibs.push(cstr(b, off + b.readUInt32LE(off + 8)));
    else if (cmd === 0x32) minos = version(b.readUInt32LE(off + 12));
    else if (cmd === 0x24) minos = version(b.readUInt32LE(off + 8));
    else if (cmd === 0x2) symtab = { symoff: b.readUInt32LE(off + 8), nsyms: b.readUInt32LE(off + 12), stroff: b.readUInt32LE(off + 16) };
    off += size;
  }
  const exported = [];
  const dynamicLookup = [];
  if (symtab) {
    for (let i = 0; i < symtab.nsyms; i++) {
      const s = symtab.symoff + i * 16;
      const name = cstr(b, symtab.stroff + b.readUInt32LE(s));
      const type = b[s + 4];
      const desc = b.readUInt16LE(s + 6);
      if (!(type & 0x01)) continue; // N_EXT only
      if ((type & 0x0e) === 0x0e) exported.push(name);
      else if ((type & 0x0e) === 0) {
        // Bound to none of the imported dylibs (self, flat or dynamic lookup): left for the host process.
        const ordinal = (desc >> 8) & 0xff;
        if (ordinal === 0 || ordinal > dylibs.length) dynamicLookup.push(name);
      }
    }
  }
  const system = (d) => d.startsWith('/usr/lib/') || d.startsWith('/System/Library/Frameworks/');
  return {
    format: 'Mach-O',
    arch: cpu,
    dylib: filetype === 6,
    twoLevelNamespace: Boolean(flags & 0x80),
    minimumMacOS: minos,
    entryPoint: exported.includes('_napi_register_module_v1'),
    imports: dylibs,
    nonSystemImports: dylibs.filter((d) => !system(d)),
    libSystem: dylibs.includes('/usr/lib/libSystem.B.dylib'),
    // Left for the host (node) to provide at load time: N-API itself, and nothing else.
    dynamicLookupNotNapi: dynamicLookup.filter((n) => !n.startsWith('_napi_') && !n.startsWith('_node_api_')),
    dynamicLookupCount: dynamicLookup.length,
  };
}

function pe(b) {
  const pe = b.readUInt32LE(0x3c);
  const arch = PE_MACHINE[b.readUInt16LE(pe + 4)];
  const nsect = b.readUInt16LE(pe + 6);
  const optSize = b.readUInt16LE(pe + 20);
  const opt = pe + 24;
  const dirs = opt + (b.readUInt16LE(opt) === 0x20b ? 112 : 96);
  const sections = [];
  for (let i = 0; i < nsect; i++) {
    const s = opt + optSize + i * 40;
    sections.push({ va: b.readUInt32LE(s + 12), size: b.readUInt32LE(s + 16), raw: b.readUInt32LE(s + 20) });
  }
  const at = (rva) => {
    const s = sections.find((x) => rva >= x.va && rva < x.va + Math.max(x.size, 1));
    return s ? rva - s.va + s.raw : -1;
  };
  const exported = [];
  const exp = at(b.readUInt32LE(dirs));
  if (b.readUInt32LE(dirs) && exp >= 0) {
    const n = b.readUInt32LE(exp + 24);
    const names = at(b.readUInt32LE(exp + 32));
    for (let i = 0; i < n; i++) exported.push(cstr(b, at(b.readUInt32LE(names + i * 4))));
  }
  const imports = [];
  let imp = b.readUInt32LE(dirs + 8) ? at(b.readUInt32LE(dirs + 8)) : -1;
  while (imp >= 0 && b.readUInt32LE(imp + 12)) {
    imports.push(cstr(b, at(b.readUInt32LE(imp + 12))));
    imp += 20;
  }
  return { format: 'PE', arch, dll: Boolean(b.readUInt16LE(pe + 22) & 0x2000), entryPoint: exported.includes('napi_register_module_v1'), imports };
}

function elf(b) {
  return { format: 'ELF', arch: ELF_MACHINE[b.readUInt16LE(18)], sharedObject: b.readUInt16LE(16) === 3 };
}

export function checkBinary(file, expectTriple) {
  const b = readFileSync(file);
  const magic = b.readUInt32LE(0);
  const report = magic === 0xfeedfacf ? macho(b) : b.readUInt16LE(0) === 0x5a4d ? pe(b) : magic === 0x464c457f ? elf(b) : { format: 'unknown' };
  const failures = [];
  if (expectTriple) {
    const [cpu, , os] = expectTriple.split('-');
    const format = { linux: 'ELF', darwin: 'Mach-O', windows: 'PE' }[os];
    if (report.format !== format) failures.push(`format ${report.format}, expected ${format}`);
    if (report.arch !== cpu) failures.push(`architecture ${report.arch}, expected ${cpu}`);
  }
  if (report.entryPoint === false) failures.push('napi_register_module_v1 is not exported');
  if (report.format === 'Mach-O') {
    if (!report.dylib) failures.push('not a dylib');
    if (!report.libSystem) failures.push('does not import libSystem');
    if (report.nonSystemImports.length) failures.push(`imports non-system libraries: ${report.nonSystemImports.join(', ')}`);
    if (report.dynamicLookupNotNapi.length) failures.push(`symbols left to dynamic lookup that are not N-API: ${report.dynamicLookupNotNapi.slice(0, 5).join(', ')}…`);
  }
  return { file, ...report, ok: failures.length === 0, failures };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, flag, triple] = process.argv.slice(2);
  const report = checkBinary(file, flag === '--expect' ? triple : undefined);
  console.log(JSON.stringify(report, null, 2));
  process.exit(report.ok ? 0 : 1);
}
