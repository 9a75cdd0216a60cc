'use strict';
// Skills (SEP-2640, `io.modelcontextprotocol/skills`) of a client's servers: listed, confirmed
// by URI, loaded and read. Every check (the entry's rules, each file's size and digest, the
// SKILL.md frontmatter against the entry's) is the core's (src/core/skills); a file that fails
// one is never handed out. Nothing is read ahead of need: `list` reads no file, `load` reads the
// SKILL.md, and a loaded skill reads a supporting file when `readFile` asks for it.
const { run } = require('./outcomes.cjs');

/** A loaded skill: what the core verified, and `readFile` against the entry it was loaded from. */
function loadedSkill(host, serverName, loaded) {
  const { entry, ...skill } = loaded;
  return Object.freeze({
    ...skill,
    server: serverName,
    readFile: (path) =>
      run(host, 'MCP_CLIENT_READ_SKILL_FILE_FAILED', { serverName, uri: skill.uri, path }, () =>
        host.native.readSkillFile(serverName, entry, String(path)),
      ),
  });
}

/**
 * `client.skills` of an `MCPClient` (every server, each call naming one) or, with `only` set, of
 * one server (`InternalMastraMCPClient`: the server argument is left out).
 */
function skills(host, only) {
  const listOne = (serverName) => run(host, 'MCP_CLIENT_LIST_SKILLS_FAILED', { serverName }, () => host.native.listSkills(serverName));
  const get = (serverName, uri) => run(host, 'MCP_CLIENT_GET_SKILL_FAILED', { serverName, uri }, () => host.native.getSkill(serverName, String(uri)));
  const load = async (serverName, skill) => {
    if (typeof skill !== 'string' && (skill === null || typeof skill !== 'object')) {
      throw new TypeError(`skills.load(${JSON.stringify(serverName)}, skill): skill must be an entry from skills.list() or the URI of a SKILL.md`);
    }
    const uri = typeof skill === 'string' ? skill : skill.uri;
    const loaded = await run(host, 'MCP_CLIENT_LOAD_SKILL_FAILED', { serverName, uri }, () => host.native.loadSkill(serverName, skill));
    return loadedSkill(host, serverName, loaded);
  };
  if (only !== undefined) {
    return { list: () => listOne(only), get: (uri) => get(only, uri), load: (skill) => load(only, skill) };
  }
  /** Every server's entries (`{ [server]: entries }`), with the servers that failed in `errors`. */
  const listWithErrors = async () => {
    const names = Object.keys(host.servers);
    const settled = await Promise.allSettled(names.map(listOne));
    const out = { skills: {}, errors: {} };
    settled.forEach((s, i) => {
      if (s.status === 'fulfilled') out.skills[names[i]] = s.value;
      else out.errors[names[i]] = s.reason?.message ?? String(s.reason);
    });
    return out;
  };
  return {
    list: async (serverName) => (serverName === undefined ? (await listWithErrors()).skills : listOne(serverName)),
    listWithErrors,
    get,
    load,
  };
}

module.exports = { skills };
