/**
 * Dockerfile.agent-zero, the Agent Zero host image with argus-supervisor inside, checked without
 * a Docker engine (none runs here, so the image was never built): its syntax tree
 * (dockerfile-ast, through ./dockerfile-checks.ts) against the spec's paths and the plugin's own
 * defaults, each check shown failing on a mutated copy.
 *
 * - the host's image is the final stage's base; Node 20 and our package come from a build stage;
 * - the paths agree with the plugin's default_config.yaml (sidecar.node, sidecar.entry,
 *   state_root /a0/usr/argus-supervisor) and the runtime lock (/opt/venv-argus);
 * - nothing is installed at run time: no CMD/ENTRYPOINT of ours, the final stage's RUNs are the
 *   gated venv builds, a mkdir and the build-info writer, and the plugin's Python runs no installer;
 * - no credential is a build argument, an ENV or a copied file.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Instruction } from 'dockerfile-ast';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../fixtures/supervisor-harness.js';
import { execForm, stagesOf, type Stage } from './dockerfile-checks.js';
import { isExcluded, parseDockerignore } from './dockerignore.js';

const DOCKERFILE = readFileSync(path.join(REPO_ROOT, 'Dockerfile.agent-zero'), 'utf8');
const PLUGIN = 'integrations/agent-zero/usr/plugins/argus_supervisor';
const PROFILE = 'integrations/agent-zero/agents/argus-supervisor';
const pluginDefaults = (): { state_root: string; sidecar: { node: string; entry: string } } => {
  // default_config.yaml is flat enough for a line read: no YAML parser is a dependency here.
  const text = readFileSync(path.join(REPO_ROOT, PLUGIN, 'default_config.yaml'), 'utf8');
  const value = (key: string) => text.match(new RegExp(`^\\s*${key}:\\s*(\\S+)\\s*$`, 'm'))?.[1] ?? '';
  return { state_root: value('state_root'), sidecar: { node: value('node'), entry: value('entry') } };
};
const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'runtime/source-lock.json'), 'utf8')) as { argus: { venv: string }; foreman: { venv: string } };
const ignore = parseDockerignore(readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8'));

const kw = (i: Instruction) => i.getKeyword();
const words = (i: Instruction) => i.getArguments().map((a) => a.getValue());
const text = (i: Instruction) => (execForm(i) ?? words(i)).join(' ');
const fromFlag = (i: Instruction) => (i as unknown as { getFromFlag(): { getValue(): string | null } | null }).getFromFlag()?.getValue() ?? null;
const argDefault = (t: string, name: string) => t.match(new RegExp(`^ARG ${name}=(\\S+)`, 'm'))?.[1] ?? null;
const filesUnder = (rel: string): string[] =>
  statSync(path.join(REPO_ROOT, rel)).isDirectory() ? readdirSync(path.join(REPO_ROOT, rel)).flatMap((n) => filesUnder(path.posix.join(rel, n))) : [rel];
/** A program call that installs something (the same families ./dockerfile-checks.ts refuses at run time). */
const INSTALLER = /\b(?:apt-get|apt|apk|dnf|yum|pip3?|pipx|conda|uv|npx|yarn|pnpm|corepack|curl|wget)\b|\bnpm\s+(?:i|install|ci|add|update|exec|x)\b|-m\s+pip\b/;
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSW|CREDENTIAL/i;

function check(t: string): Record<string, string[]> {
  const stages = stagesOf(t);
  const final = stages.at(-1)!;
  const build: Stage | undefined = stages.slice(0, -1).find((s) => s.instructions.some((i) => kw(i) === 'RUN' && /\bnpm\s+ci\b/.test(text(i))));
  const copyFrom = (source: string) => final.instructions.find((i) => kw(i) === 'COPY' && build && fromFlag(i) === build.name && words(i)[words(i).length - 2] === source);
  const dest = (i: Instruction | undefined) => (i ? path.posix.normalize(words(i).at(-1)!).replace(/\/$/, '') : null);
  const defaults = pluginDefaults();
  const out: Record<string, string[]> = { host_base: [], build_stage: [], paths: [], plugin_copied: [], no_runtime_install: [], no_secret_build_args: [] };

  if (final.base !== '${A0_IMAGE}') out.host_base!.push(`the final stage is built on ${final.base}, not \${A0_IMAGE}`);
  if (!/^agent0ai\/agent-zero:/.test(argDefault(t, 'A0_IMAGE') ?? '')) out.host_base!.push('ARG A0_IMAGE does not default to agent0ai/agent-zero');

  if (!build) out.build_stage!.push('no build stage runs npm ci');
  else {
    if (!build.instructions.some((i) => kw(i) === 'RUN' && /npm prune --omit=dev/.test(text(i)))) out.build_stage!.push('the build stage never runs npm prune --omit=dev');
    const main = argDefault(readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8'), 'NODE_IMAGE');
    if (build.base !== '${NODE_IMAGE}' || !/^node:20[-.]/.test(argDefault(t, 'NODE_IMAGE') ?? '') || argDefault(t, 'NODE_IMAGE') !== main) out.build_stage!.push('the build stage is not ./Dockerfile\'s node:20 NODE_IMAGE');
  }

  const pkg = dest(copyFrom('/out/package'));
  const node = dest(copyFrom('/usr/local/bin/node'));
  if (pkg === null || `${pkg}/dist/bin/argus-supervisor.js` !== defaults.sidecar.entry) out.paths!.push(`the package is copied to ${pkg}, but sidecar.entry is ${defaults.sidecar.entry}`);
  if (node === null || node !== defaults.sidecar.node) out.paths!.push(`node is copied to ${node}, but sidecar.node is ${defaults.sidecar.node}`);
  if (lock.argus.venv !== '/opt/venv-argus') out.paths!.push(`the Argus venv is ${lock.argus.venv}, not /opt/venv-argus`);
  for (const name of ['argus', 'foreman']) {
    const gated = final.instructions.some((i) => kw(i) === 'RUN' && text(i).split('&&').some((s) => /ARGUS_SUPERVISOR_IMAGE_BUILD=1/.test(s) && s.includes(`${pkg}/runtime/install-${name}.sh`)));
    if (!gated) out.paths!.push(`${pkg}/runtime/install-${name}.sh is not run with ARGUS_SUPERVISOR_IMAGE_BUILD=1`);
  }
  if (defaults.state_root !== '/a0/usr/argus-supervisor') out.paths!.push(`the plugin's state_root is ${defaults.state_root}`);
  if (!final.instructions.some((i) => kw(i) === 'RUN' && text(i).includes(`mkdir -p ${defaults.state_root}`) && text(i).includes(`chmod 0700 ${defaults.state_root}`))) out.paths!.push('the state root is not made 0700');
  const info = final.instructions.find((i) => kw(i) === 'RUN' && /build-info\.json/.test(text(i)));
  if (!info || !text(info).includes(`${pkg}/build-info.json`)) out.paths!.push('build-info.json is not written into the package');

  for (const [source, target] of [[PLUGIN, '/git/agent-zero/usr/plugins/argus_supervisor'], [PROFILE, '/git/agent-zero/agents/argus-supervisor']] as const) {
    const copy = final.instructions.find((i) => kw(i) === 'COPY' && fromFlag(i) === null && words(i)[0]?.replace(/\/$/, '') === source);
    if (!copy || dest(copy) !== target) out.plugin_copied!.push(`${source} is not copied to ${target}`);
    else for (const f of filesUnder(source)) if (isExcluded(f, ignore)) out.plugin_copied!.push(`${f} is excluded by .dockerignore`);
  }

  for (const i of final.instructions) {
    if (['CMD', 'ENTRYPOINT', 'HEALTHCHECK', 'USER', 'EXPOSE'].includes(kw(i))) out.no_runtime_install!.push(`the final stage sets ${kw(i)}: the host's own must stay`);
    if (kw(i) !== 'RUN') continue;
    // An exec-form RUN is one program call; a shell-form one, a call per && || ; | part.
    const parts = execForm(i) ? [text(i)] : text(i).split(/&&|\|\||;|\|/).map((s) => s.trim());
    for (const part of parts) {
      const allowed = /^ARGUS_SUPERVISOR_IMAGE_BUILD=1 \S+\/runtime\/install-(?:argus|foreman)\.sh$/.test(part) || /^(?:mkdir -p|chmod 0700) \S+$/.test(part) || part.startsWith('/opt/node-argus/bin/node -e ');
      if (!allowed) out.no_runtime_install!.push(`the final stage runs "${part.slice(0, 60)}"`);
    }
  }
  for (const f of filesUnder(PLUGIN).filter((f) => f.endsWith('.py'))) {
    const calls = readFileSync(path.join(REPO_ROOT, f), 'utf8').match(/["'](?:npm|npx|pip3?|apt-get|apt|yarn|pnpm|curl|wget)["']|["']-m["'],\s*["']pip["']/g);
    if (calls) out.no_runtime_install!.push(`${f} starts an installer (${calls.join(', ')})`);
  }

  for (const s of stages)
    for (const i of s.instructions) {
      if (kw(i) === 'ARG' || kw(i) === 'ENV') for (const w of words(i)) if (SECRET_NAME.test(w.split('=')[0]!)) out.no_secret_build_args!.push(`${kw(i)} ${w.split('=')[0]}`);
      if (kw(i) === 'COPY' && words(i).slice(0, -1).some((w) => /(?:^|\/)(?:\.env|[^/]*(?:key|token|secret)[^/]*)$/i.test(w.replace(/\/$/, '')))) out.no_secret_build_args!.push(`COPY ${words(i).join(' ')}`);
      if (kw(i) === 'RUN' && /--mount=type=secret/.test(i.getRawArgumentsContent() ?? '')) out.no_secret_build_args!.push('a RUN mounts a build secret');
    }
  return out;
}

function mutate(from: string | RegExp, to: string): string {
  const out = DOCKERFILE.replace(from, to);
  if (out === DOCKERFILE) throw new Error(`mutation matched nothing: ${String(from)}`);
  return out;
}

describe('Dockerfile.agent-zero (checked statically; never built here)', () => {
  it('passes every check', () => {
    const problems = check(DOCKERFILE);
    expect(problems).toEqual(Object.fromEntries(Object.keys(problems).map((k) => [k, []])));
    expect(stagesOf(DOCKERFILE).map((s) => s.name)).toEqual(['build', 'host']);
    expect(existsSync(path.join(REPO_ROOT, PLUGIN, 'plugin.yaml'))).toBe(true);
    expect(isExcluded('Dockerfile.agent-zero', ignore)).toBe(true); // not part of the context it builds
  });

  const MUTATIONS: [string, string, () => string, RegExp][] = [
    ['host_base', 'our own image as the base', () => mutate('FROM ${A0_IMAGE} AS host', 'FROM ${NODE_IMAGE} AS host'), /not \$\{A0_IMAGE\}/],
    ['build_stage', 'node 22 for the build', () => mutate('ARG NODE_IMAGE=node:20-bookworm-slim', 'ARG NODE_IMAGE=node:22-bookworm-slim'), /node:20 NODE_IMAGE/],
    ['paths', 'the package elsewhere', () => mutate('/out/package /opt/argus-supervisor', '/out/package /opt/argus'), /sidecar.entry is/],
    ['paths', 'node at another path', () => mutate('/usr/local/bin/node /opt/node-argus/bin/node', '/usr/local/bin/node /usr/bin/node'), /sidecar.node is/],
    ['paths', 'an ungated venv build', () => mutate('ARGUS_SUPERVISOR_IMAGE_BUILD=1 /opt/argus-supervisor/runtime/install-argus.sh', '/opt/argus-supervisor/runtime/install-argus.sh'), /install-argus.sh is not run/],
    ['plugin_copied', 'the plugin left out', () => mutate(/^COPY integrations\/agent-zero\/usr.*$/m, ''), /is not copied to/],
    ['no_runtime_install', 'npm install at start', () => `${DOCKERFILE}\nCMD ["sh", "-c", "npm install -g argus-supervisor && exec /exe/initialize.sh"]\n`, /sets CMD/],
    ['no_runtime_install', 'an apt-get in the host stage', () => mutate('RUN mkdir -p', 'RUN apt-get install -y nodejs && mkdir -p'), /runs "apt-get install/],
    ['no_secret_build_args', 'a token build argument', () => mutate('ARG SOURCE_SHA', 'ARG OPENTRAINING_A2A_TOKEN\nARG SOURCE_SHA'), /ARG OPENTRAINING_A2A_TOKEN/],
    ['no_secret_build_args', 'a baked key', () => mutate('ARG SOURCE_SHA', 'ENV ARGUS_SUPERVISOR_API_KEY=x\nARG SOURCE_SHA'), /ENV ARGUS_SUPERVISOR_API_KEY/],
    ['no_secret_build_args', 'a copied key file', () => mutate('ARG SOURCE_SHA', 'COPY local-api-key /a0/usr/argus-supervisor/\nARG SOURCE_SHA'), /COPY local-api-key/],
  ];
  it.each(MUTATIONS)('%s fails on %s', (name, _label, make, expected) => {
    expect(check(make())[name]!.join('\n')).toMatch(expected);
  });

  it('the plugin check sees an installer call in the plugin', () => {
    expect(INSTALLER.test('npm install x')).toBe(true);
    expect('subprocess.run(["npm", "install"])'.match(/["'](?:npm|npx|pip3?|apt-get|apt|yarn|pnpm|curl|wget)["']/g)).toEqual(['"npm"']);
  });
});
