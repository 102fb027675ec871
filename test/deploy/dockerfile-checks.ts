/**
 * What the image must be, checked on the Dockerfile's syntax tree (dockerfile-ast) since no
 * Docker engine runs here. Each check returns the problems it found (empty: it holds), so a
 * test can show each one failing on a mutated Dockerfile.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { isExcluded, type IgnorePattern } from './dockerignore.js';

export const PORT = '7860';
export const STATE_ROOT = '/a0/usr/argus-supervisor';
export const CLI_IN_PACKAGE = 'dist/bin/argus-supervisor.js';

export interface CheckContext {
  repoRoot: string;
  ignore: IgnorePattern[];
  /** runtime/source-lock.json */
  lock: { argus: { venv: string }; foreman: { venv: string } };
  /** package.json `files`: what the package ships. */
  packageFiles: string[];
  /** tsconfig.build.json `include`: what the build compiles. */
  buildIncludes: string[];
}

export interface Stage {
  name: string | null;
  base: string;
  instructions: Instruction[];
}

const kw = (i: Instruction) => i.getKeyword();
const words = (i: Instruction) => i.getArguments().map((a) => a.getValue());

/** The argv of an exec-form (JSON array) instruction, or null for the shell form. */
export function execForm(i: Instruction): string[] | null {
  let raw = (i.getRawArgumentsContent() ?? '').replace(/\\\r?\n\s*/g, ' ').trim();
  if (kw(i) === 'HEALTHCHECK') raw = raw.replace(/^CMD\s+/i, '');
  if (!raw.startsWith('[')) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) && parsed.every((s) => typeof s === 'string') ? parsed : null;
  } catch {
    return null; // Docker runs an invalid JSON array as a shell string
  }
}

/** What an instruction runs, as one string (exec form joined, shell form as written). */
const commandText = (i: Instruction) => (execForm(i) ?? words(i)).join(' ');
/** A shell command split at && || ; | so each part is one program call. */
const segments = (i: Instruction) => commandText(i).split(/&&|\|\||;|\|/).map((s) => s.trim());

export function stagesOf(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const i of DockerfileParser.parse(text).getInstructions()) {
    if (kw(i) === 'FROM') {
      const args = words(i);
      const as = args.findIndex((a) => a.toUpperCase() === 'AS');
      stages.push({ name: as >= 0 ? (args[as + 1] ?? null) : null, base: args.find((a) => !a.startsWith('--')) ?? '', instructions: [] });
    } else stages.at(-1)?.instructions.push(i);
  }
  return stages;
}

/** The stage and the stages it is built FROM, nearest first. */
function chain(stages: Stage[], stage: Stage): Stage[] {
  const out = [stage];
  for (let s = stage; ; ) {
    const parent = stages.find((p) => p.name !== null && p.name === s.base && !out.includes(p));
    if (!parent) return out;
    out.push((s = parent));
  }
}

const all = (stages: Stage[], key: string) => stages.flatMap((s) => s.instructions.filter((i) => kw(i) === key));

function envOf(stages: Stage[]): Map<string, string> {
  const env = new Map<string, string>();
  for (const s of [...stages].reverse())
    for (const i of s.instructions.filter((x) => kw(x) === 'ENV'))
      for (const p of (i as unknown as { getProperties(): { getName(): string; getValue(): string | null }[] }).getProperties()) env.set(p.getName(), p.getValue() ?? '');
  return env;
}

const fromFlag = (i: Instruction) => (i as unknown as { getFromFlag(): { getValue(): string | null } | null }).getFromFlag()?.getValue() ?? null;
const runs = (s: Stage, pattern: RegExp) => s.instructions.some((i) => kw(i) === 'RUN' && pattern.test(commandText(i)));
const buildStage = (stages: Stage[]) => stages.slice(0, -1).find((s) => runs(s, /\bnpm\s+ci\b/)) ?? null;

/** The folder the final stage puts the package in: where the build stage's output is copied. */
export function packageRoot(stages: Stage[]): string | null {
  const build = buildStage(stages);
  const copy = stages.at(-1)!.instructions.find((i) => kw(i) === 'COPY' && build && fromFlag(i) === build.name);
  return copy ? path.posix.normalize(words(copy).at(-1)!).replace(/\/$/, '') : null;
}

/** The `node -e` script of the final stage's RUN that writes build-info.json, or null. */
export function buildInfoScript(stages: Stage[]): string | null {
  const run = stages.at(-1)!.instructions.find((i) => kw(i) === 'RUN' && /build-info\.json/.test(commandText(i)));
  const argv = run ? execForm(run) : null;
  return argv && argv[0] === 'node' && argv[1] === '-e' && argv.length === 3 ? argv[2]! : null;
}

/** The final stage's HEALTHCHECK argv, or null. */
export function healthcheckArgv(stages: Stage[]): string[] | null {
  const hc = all([stages.at(-1)!], 'HEALTHCHECK').at(-1);
  return hc ? execForm(hc) : null;
}

type Check = (stages: Stage[], ctx: CheckContext) => string[];

const INSTALLER =
  /\b(?:apt-get|apt|aptitude|apk|dnf|yum|microdnf|pip3?|pipx|easy_install|conda|uv|npx|yarn|pnpm|corepack|curl|wget)\b|\bnpm\s+(?:i|install|ci|add|update|exec|x)\b|\bpython3?\s+-m\s+(?:pip|ensurepip)\b|\bgem\s+install\b/;
const DEPENDENCY_INSTALL = /\bnpm\s+(?:i|install|ci|add)\b|\bpip3?\s+install\b|-m\s+pip\b|\byarn\b|\bpnpm\b/;

export const CHECKS: Record<string, Check> = {
  multi_stage(stages) {
    if (stages.length < 2) return [`one stage only (${stages.length})`];
    const final = stages.at(-1)!;
    const problems: string[] = [];
    if (!final.instructions.some((i) => kw(i) === 'COPY' && fromFlag(i) !== null)) problems.push('the final stage copies nothing from a build stage');
    const build = buildStage(stages);
    if (build && chain(stages, final).includes(build)) problems.push('the final stage is built on the stage that ran npm ci (dev dependencies and sources)');
    return problems;
  },

  build_steps(stages) {
    const build = buildStage(stages);
    if (!build) return ['no build stage runs npm ci'];
    const at = (p: RegExp) => build.instructions.findIndex((i) => kw(i) === 'RUN' && p.test(commandText(i)));
    const lockCopied = build.instructions.findIndex((i) => kw(i) === 'COPY' && words(i).includes('package-lock.json'));
    const problems: string[] = [];
    if (lockCopied < 0 || lockCopied > at(/\bnpm\s+ci\b/)) problems.push('npm ci runs before package-lock.json is copied');
    const text = build.instructions.filter((i) => kw(i) === 'RUN').map(commandText).join(' && ');
    const order = [/\bnpm\s+ci\b/, /\bnpm\s+run\s+build\b/, /\bnpm\s+prune\s+--omit=dev\b/].map((p) => text.search(p));
    if (order[1]! < 0) problems.push('the build stage never runs npm run build');
    if (order[2]! < 0) problems.push('the build stage never runs npm prune --omit=dev');
    if (order[1]! >= 0 && order[2]! >= 0 && !(order[0]! < order[1]! && order[1]! < order[2]!)) problems.push('not in the order npm ci, npm run build, npm prune --omit=dev');
    if (!stages.at(-1)!.instructions.some((i) => kw(i) === 'COPY' && fromFlag(i) === build.name)) problems.push('the final stage does not copy the build stage output');
    return problems;
  },

  user(stages) {
    const final = stages.at(-1)!;
    const user = all([final], 'USER').at(-1);
    if (!user) return ['the final stage sets no USER (it would run as root)'];
    const [name, group] = (words(user)[0] ?? '').split(':');
    if (name === '1000' && (group === undefined || group === '1000')) return [];
    const created = chain(stages, final)
      .flatMap((s) => s.instructions.filter((i) => kw(i) === 'RUN').flatMap(segments))
      .some((seg) => /\b(?:useradd|adduser)\b/.test(seg) && /(?:-u|--uid)[ =]1000\b/.test(seg) && seg.split(/\s+/).at(-1) === name);
    return created ? [] : [`USER ${words(user)[0]} is neither 1000 nor a user this Dockerfile creates with uid 1000`];
  },

  port(stages) {
    const final = stages.at(-1)!;
    const problems: string[] = [];
    if (!all([final], 'EXPOSE').some((i) => words(i).some((w) => w === PORT || w === `${PORT}/tcp`))) problems.push(`the final stage does not EXPOSE ${PORT}`);
    if (envOf(chain(stages, final)).get('PORT') !== PORT) problems.push(`ENV PORT is not ${PORT}`);
    return problems;
  },

  state_root(stages) {
    const final = stages.at(-1)!;
    const env = envOf(chain(stages, final));
    const problems: string[] = [];
    if (env.get('ARGUS_SUPERVISOR_STATE_ROOT') !== STATE_ROOT) problems.push(`ENV ARGUS_SUPERVISOR_STATE_ROOT is not ${STATE_ROOT}`);
    // Inside a container loopback is unreachable from outside; 0.0.0.0 makes serve demand the key.
    if (env.get('HOST') !== '0.0.0.0') problems.push('ENV HOST is not 0.0.0.0');
    const segs = final.instructions.filter((i) => kw(i) === 'RUN').flatMap(segments);
    if (!segs.some((s) => /^mkdir\b/.test(s) && s.split(/\s+/).includes(STATE_ROOT))) problems.push(`the final stage does not create ${STATE_ROOT}`);
    if (!segs.some((s) => /^chown\s+(?:-R\s+)?1000(?::1000)?\s/.test(s) && s.split(/\s+/).at(-1) === STATE_ROOT)) problems.push(`${STATE_ROOT} is not chowned to 1000`);
    return problems;
  },

  healthcheck(stages) {
    const hc = all([stages.at(-1)!], 'HEALTHCHECK').at(-1);
    if (!hc) return ['the final stage has no HEALTHCHECK'];
    const argv = execForm(hc);
    if (!argv) return ['HEALTHCHECK is not an exec-form CMD (or is NONE)'];
    const problems: string[] = [];
    if (argv[0] !== 'node') problems.push(`HEALTHCHECK runs ${argv[0]}, not node`);
    if (!argv.some((a) => /\/health(?![\w/-])/.test(a))) problems.push('HEALTHCHECK does not ask /health');
    return problems;
  },

  no_runtime_install(stages) {
    const final = stages.at(-1)!;
    const problems: string[] = [];
    const root = packageRoot(stages);
    for (const key of ['ENTRYPOINT', 'CMD', 'HEALTHCHECK']) {
      for (const i of all([final], key)) {
        const argv = execForm(i);
        if (!argv) problems.push(`${key} is a shell string (exec form only: it must run node, not a script that could install)`);
        else if (INSTALLER.test(argv.join(' '))) problems.push(`${key} installs or downloads at run time: ${argv.join(' ').slice(0, 80)}`);
      }
    }
    const entry = all([final], 'ENTRYPOINT').at(-1);
    const argv = entry ? (execForm(entry) ?? []) : [];
    const program = argv[0] && /(?:^|\/)tini$/.test(argv[0]) ? argv.slice(argv[1] === '--' ? 2 : 1) : argv;
    if (program[0] !== 'node' || program[1] !== (root ? `${root}/${CLI_IN_PACKAGE}` : '\0')) problems.push(`ENTRYPOINT does not run node ${root ?? '<package>'}/${CLI_IN_PACKAGE}`);
    for (const s of chain(stages, final))
      for (const i of s.instructions.filter((x) => kw(x) === 'RUN' && DEPENDENCY_INSTALL.test(commandText(x))))
        problems.push(`stage ${s.name ?? '(unnamed)'} of the final image installs dependencies itself: ${commandText(i).slice(0, 80)}`);
    if (final.instructions.some((i) => kw(i) === 'ONBUILD')) problems.push('the final stage has ONBUILD triggers');
    return problems;
  },

  build_info(stages) {
    const final = stages.at(-1)!;
    const problems: string[] = [];
    const runIndex = final.instructions.findIndex((i) => kw(i) === 'RUN' && /build-info\.json/.test(commandText(i)));
    const argIndex = final.instructions.findIndex((i) => kw(i) === 'ARG' && words(i).some((w) => w.split('=')[0] === 'SOURCE_SHA'));
    if (runIndex < 0) return ['the final stage writes no build-info.json'];
    if (argIndex < 0 || argIndex > runIndex) problems.push('ARG SOURCE_SHA is not declared before build-info.json is written');
    const script = buildInfoScript(stages);
    if (!script) problems.push('build-info.json is not written by an exec-form node -e script');
    else if (!/process\.env\.SOURCE_SHA\b/.test(script)) problems.push('the build-info.json script does not read SOURCE_SHA');
    const workdir = final.instructions.slice(0, runIndex).filter((i) => kw(i) === 'WORKDIR').at(-1);
    const root = packageRoot(stages);
    if (!root || !workdir || path.posix.normalize(words(workdir)[0] ?? '') !== root) problems.push(`build-info.json is not written at the package root (${root ?? 'none'})`);
    return problems;
  },

  runtime_lock(stages, ctx) {
    const final = stages.at(-1)!;
    const problems: string[] = [];
    const copiesRuntime = (s: Stage) => s.instructions.find((i) => kw(i) === 'COPY' && fromFlag(i) === null && words(i).slice(0, -1).some((w) => /^\.?\/?runtime\/?$/.test(w)));
    const builder = stages.slice(0, -1).find((s) => copiesRuntime(s) && runs(s, /install-(?:argus|foreman|runtime)\.sh/));
    if (!builder) return ['no build stage copies runtime/ (the source lock) and runs its install scripts'];
    const dest = words(copiesRuntime(builder)!).at(-1)!.replace(/\/$/, '');
    const gated = (name: string) =>
      builder.instructions.some((i) => kw(i) === 'RUN' && segments(i).some((s) => s.includes(`${dest}/install-${name}.sh`) && /ARGUS_SUPERVISOR_IMAGE_BUILD=1/.test(s)));
    for (const name of ['argus', 'foreman'] as const) if (!gated(name)) problems.push(`${dest}/install-${name}.sh is not run with ARGUS_SUPERVISOR_IMAGE_BUILD=1`);
    if (runs(builder, /ARGUS_SUPERVISOR_SOURCE_LOCK=/)) problems.push('the install points away from runtime/source-lock.json');
    if (runs(builder, DEPENDENCY_INSTALL)) problems.push('the runtime stage installs Python packages beside the lock');
    const env = envOf(chain(stages, final));
    for (const [name, variable] of [['argus', 'ARGUS_SUPERVISOR_ARGUS_PYTHON'], ['foreman', 'ARGUS_SUPERVISOR_FOREMAN_PYTHON']] as const) {
      const venv = ctx.lock[name].venv;
      if (!final.instructions.some((i) => kw(i) === 'COPY' && fromFlag(i) === builder.name && words(i).join(' ') === `${venv} ${venv}`)) problems.push(`the final stage does not copy ${venv} from ${builder.name}`);
      if (env.get(variable) !== `${venv}/bin/python`) problems.push(`${variable} is not ${venv}/bin/python`);
    }
    // The venvs link to the interpreter they were made with: both stages must share its stage.
    const pythonStage = (s: Stage) => chain(stages, s).find((c) => runs(c, /apt-get\s+install\b.*\spython3(?:\s|$)/));
    if (!pythonStage(builder) || pythonStage(builder) !== pythonStage(final)) problems.push('the venvs are not built on the python3 the final image runs');
    return problems;
  },

  copies(stages, ctx) {
    const problems: string[] = [];
    for (const i of all(stages, 'COPY').filter((x) => fromFlag(x) === null)) {
      for (const src of words(i).slice(0, -1)) {
        const rel = path.posix.normalize(src).replace(/\/$/, '');
        const full = path.join(ctx.repoRoot, rel);
        if (!existsSync(full)) problems.push(`COPY ${src}: no such path in the repository`);
        else if (isExcluded(rel, ctx.ignore)) problems.push(`COPY ${src}: excluded by .dockerignore`);
        else for (const f of filesUnder(ctx.repoRoot, rel)) if (isExcluded(f, ctx.ignore)) problems.push(`COPY ${src}: ${f} is excluded by .dockerignore`);
      }
    }
    const build = buildStage(stages);
    const buildCopies = new Set(build ? build.instructions.filter((i) => kw(i) === 'COPY').flatMap((i) => words(i).slice(0, -1).map((w) => path.posix.normalize(w).replace(/\/$/, ''))) : []);
    for (const need of [...ctx.buildIncludes, ...ctx.packageFiles.filter((f) => f !== 'dist')]) {
      const top = need.split('/')[0]!;
      if (!buildCopies.has(need) && !buildCopies.has(top)) problems.push(`the build stage does not copy ${need} (tsconfig.build.json include or package.json files)`);
    }
    return problems;
  },
};

function filesUnder(root: string, rel: string): string[] {
  const full = path.join(root, rel);
  if (!statSync(full).isDirectory()) return [];
  return readdirSync(full, { withFileTypes: true }).flatMap((e) => {
    const child = `${rel}/${e.name}`;
    return e.isDirectory() ? [child, ...filesUnder(root, child)] : [child];
  });
}

export function checkDockerfile(text: string, ctx: CheckContext): Record<string, string[]> {
  const stages = stagesOf(text);
  if (stages.length === 0) return Object.fromEntries(Object.keys(CHECKS).map((k) => [k, ['no FROM']]));
  return Object.fromEntries(Object.entries(CHECKS).map(([name, check]) => [name, check(stages, ctx)]));
}
