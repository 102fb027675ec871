/**
 * The Dockerfile, checked without a Docker engine: its syntax tree (dockerfile-ast) against what
 * the image must be (test/deploy/dockerfile-checks.ts), every check shown failing on a mutated
 * copy, and the two scripts it embeds (the build-info writer, the health check) run for real.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordChildOutput, recordSyncOutput } from '../fixtures/child-output.js';
import { removeScratch, scratchDir } from '../fixtures/scratch.js';
import { REPO_ROOT } from '../fixtures/supervisor-harness.js';
import { buildInfoScript, checkDockerfile, healthcheckArgv, stagesOf, type CheckContext } from './dockerfile-checks.js';
import { isExcluded, parseDockerignore } from './dockerignore.js';

const DOCKERFILE = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
const DOCKERIGNORE = readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8');
const json = (rel: string) => JSON.parse(readFileSync(path.join(REPO_ROOT, rel), 'utf8')) as Record<string, unknown>;
const context = (ignore = DOCKERIGNORE): CheckContext => ({
  repoRoot: REPO_ROOT,
  ignore: parseDockerignore(ignore),
  lock: json('runtime/source-lock.json') as unknown as CheckContext['lock'],
  packageFiles: json('package.json').files as string[],
  buildIncludes: json('tsconfig.build.json').include as string[],
});

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** The real Dockerfile with one edit; throws when the edit matches nothing (a mutation that is no mutation). */
function mutate(from: string | RegExp, to: string, text = DOCKERFILE): string {
  const out = text.replace(from, to);
  if (out === text) throw new Error(`mutation matched nothing: ${String(from)}`);
  return out;
}
/** The final stage's instructions, without its FROM line. */
const finalBody = DOCKERFILE.slice(DOCKERFILE.indexOf('\n', DOCKERFILE.lastIndexOf('\nFROM ') + 1));

describe('the Dockerfile', () => {
  it('passes every check', () => {
    const problems = checkDockerfile(DOCKERFILE, context());
    expect(Object.keys(problems).sort()).toEqual(['build_info', 'build_steps', 'copies', 'healthcheck', 'multi_stage', 'no_runtime_install', 'port', 'runtime_lock', 'state_root', 'user']);
    expect(problems).toEqual(Object.fromEntries(Object.keys(problems).map((k) => [k, []])));
    expect(stagesOf(DOCKERFILE).map((s) => s.name)).toEqual(['base', 'runtimes', 'build', 'image']);
  });

  const MUTATIONS: [string, string, () => string, RegExp][] = [
    ['multi_stage', 'a single stage', () => `FROM node:20-bookworm-slim${finalBody.replace(/^COPY --from=.*$/gm, '')}`, /one stage only/],
    ['multi_stage', 'a final stage built on the build stage', () => mutate('FROM base AS image', 'FROM build AS image'), /built on the stage that ran npm ci/],
    ['multi_stage', 'a final stage that copies from no stage', () => mutate(/^COPY --from=.*$/gm, ''), /copies nothing from a build stage/],
    ['build_steps', 'no npm prune --omit=dev', () => mutate(' && npm prune --omit=dev --no-audit --no-fund \\\n', ' '), /never runs npm prune --omit=dev/],
    ['build_steps', 'no npm run build', () => mutate('RUN npm run build \\\n &&', 'RUN'), /never runs npm run build/],
    ['build_steps', 'npm ci before the lock is copied', () => mutate('COPY package.json package-lock.json ./\n', 'COPY package.json ./\n'), /before package-lock.json is copied/],
    ['build_steps', 'npm install instead of npm ci', () => mutate('RUN npm ci ', 'RUN npm install '), /no build stage runs npm ci/],
    ['user', 'USER root', () => mutate('USER 1000:1000', 'USER root'), /neither 1000 nor a user/],
    ['user', 'USER node (a name this file does not create)', () => mutate('USER 1000:1000', 'USER node'), /neither 1000 nor a user/],
    ['user', 'no USER', () => mutate('USER 1000:1000\n', ''), /sets no USER/],
    ['user', 'uid 1000 with another group', () => mutate('USER 1000:1000', 'USER 1000:0'), /neither 1000 nor a user/],
    ['port', 'EXPOSE 8080', () => mutate('EXPOSE 7860', 'EXPOSE 8080'), /does not EXPOSE 7860/],
    ['port', 'PORT=3000', () => mutate('PORT=7860', 'PORT=3000'), /ENV PORT is not 7860/],
    ['state_root', 'another state root', () => mutate('ARGUS_SUPERVISOR_STATE_ROOT=/a0/usr/argus-supervisor', 'ARGUS_SUPERVISOR_STATE_ROOT=/data'), /STATE_ROOT is not/],
    ['state_root', 'a state root not chowned to 1000', () => mutate(' && chown 1000:1000 /a0/usr/argus-supervisor \\\n', ' '), /not chowned to 1000/],
    ['state_root', 'HOST=127.0.0.1', () => mutate('HOST=0.0.0.0', 'HOST=127.0.0.1'), /ENV HOST is not 0.0.0.0/],
    ['healthcheck', 'no HEALTHCHECK', () => mutate(/^HEALTHCHECK [^\n]*\\\n[^\n]*\n/m, ''), /no HEALTHCHECK/],
    ['healthcheck', 'HEALTHCHECK NONE', () => mutate(/^HEALTHCHECK [^\n]*\\\n[^\n]*\n/m, 'HEALTHCHECK NONE\n'), /not an exec-form CMD/],
    ['healthcheck', 'a health check that asks /metrics', () => mutate(/path: '\/health'/g, "path: '/metrics'"), /does not ask \/health/],
    ['healthcheck', 'a curl health check', () => mutate(/^HEALTHCHECK [^\n]*\\\n[^\n]*\n/m, 'HEALTHCHECK CMD ["curl", "-f", "http://127.0.0.1:7860/health"]\n'), /runs curl, not node/],
    ['no_runtime_install', 'CMD that runs npm install first', () => mutate('CMD ["serve"]', 'CMD ["sh", "-c", "npm install && node /app/dist/bin/argus-supervisor.js serve"]'), /CMD installs or downloads at run time/],
    ['no_runtime_install', 'ENTRYPOINT that apt-get installs', () => mutate(/^ENTRYPOINT .*$/m, 'ENTRYPOINT ["sh", "-c", "apt-get install -y python3 && exec node /app/dist/bin/argus-supervisor.js serve"]'), /ENTRYPOINT installs or downloads/],
    ['no_runtime_install', 'a shell-form CMD', () => mutate('CMD ["serve"]', 'CMD pip install argus-skill; node /app/dist/bin/argus-supervisor.js serve'), /CMD is a shell string/],
    ['no_runtime_install', 'an ENTRYPOINT through a wrapper script', () => mutate(/^ENTRYPOINT .*$/m, 'ENTRYPOINT ["/app/start.sh"]'), /ENTRYPOINT does not run node \/app\/dist/],
    ['no_runtime_install', 'npm ci in the final stage', () => mutate('WORKDIR /app\n', 'WORKDIR /app\nRUN npm ci --omit=dev\n'), /installs dependencies itself/],
    ['build_info', 'no ARG SOURCE_SHA', () => mutate('ARG SOURCE_SHA\n', ''), /ARG SOURCE_SHA is not declared/],
    ['build_info', 'a script that writes another file', () => mutate("writeFileSync('build-info.json'", "writeFileSync('info.json'"), /writes no build-info.json/],
    ['build_info', 'a shell-form writer', () => mutate(/^RUN \["node", "-e", "const s = process.env.SOURCE_SHA.*$/m, 'RUN echo "{\\"source_sha\\": \\"$SOURCE_SHA\\"}" > build-info.json'), /not written by an exec-form node -e script/],
    ['build_info', 'a writer that ignores SOURCE_SHA', () => mutate("const s = process.env.SOURCE_SHA || '';", "const s = process.env.GIT_SHA || '';"), /does not read SOURCE_SHA/],
    ['build_info', 'build-info.json outside the package root', () => mutate('WORKDIR /app\n', 'WORKDIR /tmp\n'), /not written at the package root/],
    ['runtime_lock', 'no Foreman install', () => mutate(' \\\n && ARGUS_SUPERVISOR_IMAGE_BUILD=1 /build/runtime/install-foreman.sh', ''), /install-foreman.sh is not run/],
    ['runtime_lock', 'an install without the build gate', () => mutate('ARGUS_SUPERVISOR_IMAGE_BUILD=1 /build/runtime/install-argus.sh', '/build/runtime/install-argus.sh'), /install-argus.sh is not run with/],
    ['runtime_lock', 'pip from the index instead of the lock', () => mutate(/^COPY runtime\/ \/build\/runtime\/\nRUN [^\n]*\\\n[^\n]*\n/m, 'RUN python3 -m venv /opt/venv-argus && /opt/venv-argus/bin/pip install argus-skill\n'), /no build stage copies runtime\//],
    ['runtime_lock', 'another lock', () => mutate('RUN ARGUS_SUPERVISOR_IMAGE_BUILD=1 /build', 'RUN export ARGUS_SUPERVISOR_SOURCE_LOCK=/tmp/lock.json && ARGUS_SUPERVISOR_IMAGE_BUILD=1 /build'), /points away from runtime\/source-lock.json/],
    ['runtime_lock', 'a venv copied elsewhere', () => mutate('/opt/venv-foreman /opt/venv-foreman', '/opt/venv-foreman /opt/foreman'), /does not copy \/opt\/venv-foreman/],
    ['runtime_lock', 'a Python path that is not the venv', () => mutate('ARGUS_SUPERVISOR_ARGUS_PYTHON=/opt/venv-argus/bin/python', 'ARGUS_SUPERVISOR_ARGUS_PYTHON=/usr/bin/python3'), /ARGUS_PYTHON is not \/opt\/venv-argus\/bin\/python/],
    ['runtime_lock', 'venvs built on another python', () => mutate('FROM base AS runtimes', 'FROM python:3.11-slim AS runtimes'), /not built on the python3 the final image runs/],
    ['copies', 'a path the repository lacks', () => mutate('COPY server/ server/', 'COPY srv/ server/'), /COPY srv\/: no such path/],
    ['copies', 'a compiled folder left out', () => mutate('COPY bench/ bench/\n', ''), /does not copy bench/],
    ['copies', 'a shipped folder left out', () => mutate('COPY docs/ docs/\n', ''), /does not copy docs/],
  ];

  it.each(MUTATIONS)('%s fails on %s', (check, _label, make, expected) => {
    const problems = checkDockerfile(make(), context());
    expect(problems[check]!.join('\n')).toMatch(expected);
  });

  it.each([
    ['runtime', /COPY runtime\/: excluded by .dockerignore/],
    ['**/*.ts', /server\/http-server.ts is excluded by .dockerignore/],
    ['docs/*.md', /docs\/api.md is excluded/],
  ])('copies fails when .dockerignore adds %s', (pattern, expected) => {
    expect(checkDockerfile(DOCKERFILE, context(`${DOCKERIGNORE}\n${pattern}\n`)).copies!.join('\n')).toMatch(expected);
  });

  it('accepts a named user only when this file creates it with uid 1000', () => {
    const named = mutate('USER 1000:1000', 'RUN useradd --uid 1000 --no-create-home argus\nUSER argus');
    expect(checkDockerfile(named, context()).user).toEqual([]);
    const other = mutate('USER 1000:1000', 'RUN useradd --uid 1001 --no-create-home argus\nUSER argus');
    expect(checkDockerfile(other, context()).user).toEqual([expect.stringMatching(/neither 1000/)]);
  });
});

describe('.dockerignore matching (Docker builder semantics)', () => {
  const patterns = parseDockerignore(DOCKERIGNORE);
  it.each([
    ['node_modules/x/index.js', true],
    ['bench/node_modules/x.js', true],
    ['.git/HEAD', true],
    ['dist/index.js', true],
    ['test/deploy/dockerfile.test.ts', true],
    ['server/x.log', true],
    ['.argus-supervisor/local-api-key', true],
    ['simulator/run/.argus-supervisor/campaigns/c.json', true],
    ['build-info.json', true],
    ['.env.local', true],
    ['server/http-server.ts', false],
    ['runtime/source-lock.json', false],
    ['docs/api.md', false],
    ['distance.ts', false],
    ['package-lock.json', false],
  ])('%s excluded: %s', (rel, excluded) => {
    expect(isExcluded(rel, patterns)).toBe(excluded);
  });

  it('re-includes with ! and lets the last match decide', () => {
    const p = parseDockerignore('docs\n!docs/api.md\n*.md\n');
    expect([isExcluded('docs/other.md', p), isExcluded('docs/api.md', p), isExcluded('README.md', p), isExcluded('docs/x.png', p)]).toEqual([true, false, true, true]);
    expect(isExcluded('docs/api.md', parseDockerignore('docs\n!docs/api.md\n'))).toBe(false);
  });
});

describe('the scripts the Dockerfile embeds, run for real', () => {
  const stages = stagesOf(DOCKERFILE);

  it('the build-info step writes {"source_sha"} in its working directory and refuses a missing or short SHA', async () => {
    const script = buildInfoScript(stages)!;
    expect(script).toEqual(expect.any(String));
    const run = async (sha: string | undefined) => {
      const dir = await scratchDir('argus-build-info-run-');
      cleanups.push(() => removeScratch(dir));
      const env: Record<string, string> = { PATH: process.env.PATH ?? '', ...(sha === undefined ? {} : { SOURCE_SHA: sha }) };
      const r = recordSyncOutput('build-info-step', spawnSync(process.execPath, ['-e', script], { cwd: dir, env, encoding: 'utf8' }));
      const written = await readFile(path.join(dir, 'build-info.json'), 'utf8').catch(() => null);
      return { status: r.status, written, stderr: r.stderr };
    };
    const sha = 'a1b2c3d4e5'.repeat(4);
    const ok = await run(sha);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.written!)).toEqual({ source_sha: sha });
    for (const bad of [undefined, '', 'a1b2c3d', sha.toUpperCase(), `${sha}0`]) {
      const refused = await run(bad);
      expect(refused).toMatchObject({ status: 1, written: null });
      expect(refused.stderr).toMatch(/SOURCE_SHA must be the full 40-hex commit/);
    }
  });

  async function server(status: number, onlyPath = '/health'): Promise<{ port: string; close: () => Promise<void>; paths: string[] }> {
    const paths: string[] = [];
    const s: Server = createServer((req, res) => {
      paths.push(req.url ?? '');
      res.statusCode = req.url === onlyPath ? status : 404;
      res.end('{}');
    });
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    let closed: Promise<void> | null = null;
    const close = () => (closed ??= new Promise<void>((resolve) => s.close(() => resolve())));
    cleanups.push(close);
    return { port: String((s.address() as AddressInfo).port), close, paths };
  }

  function healthcheck(env: Record<string, string>): Promise<number | null> {
    const [cmd, ...args] = healthcheckArgv(stages)!;
    expect(cmd).toBe('node');
    const child = recordChildOutput(spawn(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] }), 'healthcheck');
    return new Promise((resolve) => child.once('close', (code) => resolve(code)));
  }

  it('the health check passes on 200 from /health and fails on anything else', async () => {
    const healthy = await server(200);
    expect(await healthcheck({ PORT: healthy.port })).toBe(0);
    expect(healthy.paths).toEqual(['/health']);
    const sick = await server(503);
    expect(await healthcheck({ PORT: sick.port })).toBe(1);
    const elsewhere = await server(200, '/healthz');
    expect(await healthcheck({ PORT: elsewhere.port })).toBe(1);
    await healthy.close();
    expect(await healthcheck({ PORT: healthy.port })).toBe(1); // nothing listens
  });

  it('the health check asks the Unix socket when ARGUS_SUPERVISOR_SOCKET is set', async () => {
    const dir = await scratchDir('argus-hc-sock-');
    cleanups.push(() => removeScratch(dir));
    const socketPath = path.join(dir, 's.sock');
    const s = createServer((req, res) => {
      res.statusCode = req.url === '/health' ? 200 : 404;
      res.end();
    });
    await new Promise<void>((resolve) => s.listen(socketPath, resolve));
    cleanups.push(() => new Promise<void>((resolve) => s.close(() => resolve())));
    expect(await healthcheck({ ARGUS_SUPERVISOR_SOCKET: socketPath, PORT: '1' })).toBe(0);
    expect(await healthcheck({ ARGUS_SUPERVISOR_SOCKET: path.join(dir, 'absent.sock') })).toBe(1);
  });
});
