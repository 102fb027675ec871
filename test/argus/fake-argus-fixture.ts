/**
 * A bridge wired to the SIMULATED Argus MCP server as a real child over real stdio
 * (`node dist/simulator/argus/fake-argus-main.js`: run `npm run build` first). Each fixture
 * has its own state root, Argus home and campaign workdir; the bridge's log (the child's
 * stderr included) is recorded for the end-of-run canary scan.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildArgusEnv, campaignWorkdir, createArgusBridge, resolveArgusHome, type ArgusBridge, type ArgusBridgeOptions } from '../../adapters/argus/index.js';
import type { ScriptEntry } from '../../simulator/argus/fake-argus-state.js';
import { recordFile, removeScratch, scratchDir } from '../fixtures/scratch.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FAKE_ARGUS_MAIN = path.join(REPO_ROOT, 'dist/simulator/argus/fake-argus-main.js');

export interface FakeFixture {
  stateRoot: string;
  home: string;
  workdir: string;
  env: Record<string, string>;
  bridge: ArgusBridge;
  logs: string[];
  modelCalls: () => number;
  writeScript(script: Record<string, ScriptEntry>): void;
  /** Every line of fake-argus-record.jsonl (starts and tool calls), parsed. */
  records(): Record<string, unknown>[];
  /** The raw record file, for scans. */
  recordText(): string;
  /** A second bridge on the same home (same env), e.g. to show state survives a restart. */
  newBridge(overrides?: Partial<ArgusBridgeOptions>): ArgusBridge;
  dispose(): Promise<void>;
}

export async function fakeArgus(opts: Partial<ArgusBridgeOptions> & { extra?: Record<string, string | undefined>; envSecrets?: string[] } = {}): Promise<FakeFixture> {
  const stateRoot = await scratchDir('argus-bridge-');
  const home = resolveArgusHome(stateRoot);
  const workdir = campaignWorkdir(home, 'camp-1');
  mkdirSync(workdir, { recursive: true });
  mkdirSync(path.join(home, 'home'), { recursive: true });
  const env = buildArgusEnv({ home, path: process.env.PATH ?? '/usr/bin:/bin', backend: 'codex', extra: opts.extra, secrets: opts.envSecrets ?? [] });
  const logs: string[] = [];
  const record = recordFile('children', 'fake-argus-bridge');
  let calls = 0;
  const bridges: ArgusBridge[] = [];
  const make = (overrides: Partial<ArgusBridgeOptions> = {}) => {
    const b = createArgusBridge({
      command: process.execPath,
      args: [FAKE_ARGUS_MAIN],
      env,
      cwd: home,
      callTimeoutMs: 10_000,
      onModelCall: () => calls++,
      log: (line) => {
        logs.push(line);
        record(`${line}\n`);
      },
      ...opts,
      ...overrides,
    });
    bridges.push(b);
    return b;
  };
  const recordPath = path.join(home, 'fake-argus-record.jsonl');
  const recordText = () => (existsSync(recordPath) ? readFileSync(recordPath, 'utf8') : '');
  return {
    stateRoot,
    home,
    workdir,
    env,
    bridge: make(),
    logs,
    modelCalls: () => calls,
    writeScript: (script) => writeFileSync(path.join(home, 'fake-argus-script.json'), JSON.stringify(script)),
    recordText,
    records: () =>
      recordText()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    newBridge: make,
    async dispose() {
      await Promise.all(bridges.map((b) => b.close()));
      await removeScratch(stateRoot);
    },
  };
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
