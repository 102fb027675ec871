/**
 * The CLI for daily use (issue 20): `campaigns list` filters and `--limit`, `--watch` redrawing
 * once per change from the event stream, `--url` over the environment, `--timeout` against a
 * server that accepts and never answers, exit codes (usage 2 at the top level too, an unknown
 * campaign 1 with `campaign_not_found`, `events --campaign nope` included), every table line
 * within 80 columns (`--wide` for the rest), colour only on a terminal and never with NO_COLOR,
 * and shell completion generated from the command tree.
 */
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSyncOutput } from '../fixtures/child-output.js';
import { spawnStreamingCli } from '../fixtures/cli-stream.js';
import { CLI_ENTRY, REPO_ROOT, createScope, until } from '../fixtures/supervisor-harness.js';
import { failed, ok, startCliWorld, type CliWorld } from './cli-harness.js';
import { useColour } from '../../bin/commands/client/run.js';

const scope = createScope();
let w: CliWorld;
const LONG = `a-very-long-campaign-id-that-goes-on-${'x'.repeat(60)}`;
beforeAll(async () => {
  w = await startCliWorld(scope);
  // Campaigns without a task are never read: nothing changes them but the test.
  for (const id of ['d-obs-1', 'd-obs-2', 'd-paused', LONG]) ok(await w.cli(['campaigns', 'create', '--id', id, '--objective', `objective of ${id} with many words in it to be long`]));
  ok(await w.cli(['act', 'd-paused', 'pause']));
}, 60_000);
afterAll(() => scope.dispose());

const ids = (table: string) => table.trim().split('\n').slice(1).map((l) => l.split(/\s+/)[0]);

describe('campaigns list: filters, limit, width, colour', () => {
  it('--state and --attention keep only matching rows; --limit cuts and says so', async () => {
    expect(ids(ok(await w.cli(['campaigns', 'list', '--state', 'paused'])))).toEqual(['d-paused']);
    expect(ids(ok(await w.cli(['campaigns', 'list', '--state', 'observing'])))).toEqual([LONG.slice(0, 17) + '…', 'd-obs-1', 'd-obs-2']);
    expect(ids(ok(await w.cli(['campaigns', 'list', '--state', 'observing,paused', '--attention', 'idle'])))).toHaveLength(4);
    expect(ok(await w.cli(['campaigns', 'list', '--attention', 'needs-you']))).toBe('No campaigns.\n');
    const limited = ok(await w.cli(['campaigns', 'list', '--limit', '2']));
    expect(limited.trim().split('\n')).toHaveLength(4);
    expect(limited).toContain('2 of 4 matching campaigns shown (--limit).');
    const json = JSON.parse(ok(await w.cli(['campaigns', 'list', '--state', 'paused', '--json'])));
    expect(json.campaigns.map((c: { campaign_id: string }) => c.campaign_id)).toEqual(['d-paused']);
  });

  it('a filter value that names nothing is a usage error (exit 2)', async () => {
    failed(await w.cli(['campaigns', 'list', '--state', 'observnig']), 2, 'usage');
    failed(await w.cli(['campaigns', 'list', '--attention', '']), 2, 'usage');
    failed(await w.cli(['campaigns', 'list', '--limit', '0']), 2, 'usage');
  });

  it('every line fits 80 columns by default; --wide shows the long id whole and the PENDING column', async () => {
    const narrow = ok(await w.cli(['campaigns', 'list']));
    for (const line of narrow.trimEnd().split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(narrow.split('\n')[0]).toMatch(/^CAMPAIGN\s+STATE\s+ATTENTION\s+HEALTH\s+STAGE\s+LEASE$/);
    const status = ok(await w.cli(['status']));
    const table = status.slice(status.indexOf('CAMPAIGN'));
    for (const line of table.trimEnd().split('\n')) if (!line.startsWith('  ')) expect(line.length, line).toBeLessThanOrEqual(80);
    const wide = ok(await w.cli(['campaigns', 'list', '--wide']));
    expect(wide.split('\n')[0]).toMatch(/PENDING$/);
    expect(wide).toContain(LONG);
  });

  it('no colour when piped or with NO_COLOR; colour on a terminal (a pty from script(1))', async () => {
    expect(ok(await w.cli(['campaigns', 'list']))).not.toContain('\u001b[');
    expect(useColour({ isTTY: true }, {})).toBe(true);
    expect(useColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColour({ isTTY: false }, {})).toBe(false);
    const inPty = (extra: Record<string, string>) =>
      recordSyncOutput(
        'cli-list-pty',
        spawnSync('script', ['-qec', `${process.execPath} ${CLI_ENTRY} campaigns list --state paused`, '/dev/null'], {
          cwd: REPO_ROOT,
          env: { PATH: process.env.PATH ?? '', TERM: 'xterm', ARGUS_SUPERVISOR_URL: w.serve.address, ARGUS_SUPERVISOR_STATE_ROOT: w.stateRoot, ...extra },
          encoding: 'utf8',
          timeout: 20_000,
        }),
      );
    const coloured = inPty({});
    expect(coloured.status, coloured.stderr).toBe(0);
    expect(coloured.stdout).toMatch(/\u001b\[2md-paused|\u001b\[2mpaused/);
    const plain = inPty({ NO_COLOR: '1' });
    expect(plain.status).toBe(0);
    expect(plain.stdout).toContain('paused');
    expect(plain.stdout).not.toContain('\u001b[');
  });
});

describe('where and how long', () => {
  it('--url wins over ARGUS_SUPERVISOR_URL', async () => {
    const r = await w.cli(['campaigns', 'list', '--state', 'paused', '--url', w.serve.address], { ARGUS_SUPERVISOR_URL: 'http://127.0.0.1:9' });
    expect(ids(ok(r))).toEqual(['d-paused']);
    failed(await w.cli(['campaigns', 'list', '--url', 'http://127.0.0.1:9']), 1, 'server_unreachable');
    failed(await w.cli(['campaigns', 'list', '--url', 'ftp://x']), 2, 'usage');
  });

  it('--timeout gives up on a server that accepts and never answers', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    scope.defer(silent, (s) => {
      sockets.forEach((x) => x.destroy());
      return new Promise<void>((resolve) => s.close(() => resolve()));
    });
    const port = (silent.address() as net.AddressInfo).port;
    const t0 = Date.now();
    const line = failed(await w.cli(['campaigns', 'list', '--url', `http://127.0.0.1:${port}`, '--timeout', '0.5']), 1, 'server_timeout');
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(line).toBe(`server_timeout: http://127.0.0.1:${port} did not answer within 0.5 s (--timeout)`);
    failed(await w.cli(['campaigns', 'list', '--timeout', 'soon']), 2, 'usage');
  });
});

describe('exit codes and the one error style', () => {
  it('usage errors exit 2 at the top level too, as `usage: <sentence>`', async () => {
    for (const args of [['frobnicate'], ['campaigns', 'list', '--bogus'], ['campaigns', 'frob'], ['chart', '--nope'], ['completion', 'tcsh'], []]) {
      const r = await w.cli(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      if (args.length) expect(r.stderr.split('\n')[0], args.join(' ')).toMatch(/^usage: \S/);
    }
  });

  it('an unknown campaign exits 1 with campaign_not_found, events --campaign included', async () => {
    failed(await w.cli(['events', '--campaign', 'nope']), 1, 'campaign_not_found');
    failed(await w.cli(['events', '--campaign', 'nope', '--follow']), 1, 'campaign_not_found');
    failed(await w.cli(['campaigns', 'get', 'nope']), 1, 'campaign_not_found');
    failed(await w.cli(['act', 'nope', 'pause']), 1, 'campaign_not_found');
    expect(ok(await w.cli(['events', '--campaign', 'd-obs-1']))).toBe('No events.\n');
  });
});

describe('campaigns list --watch', () => {
  it('prints one redraw per change it shows, and none for a change it does not', async () => {
    const watch = spawnStreamingCli(scope, ['campaigns', 'list', '--watch', '--state', 'observing,paused'], { ARGUS_SUPERVISOR_URL: w.serve.address, ARGUS_SUPERVISOR_STATE_ROOT: w.stateRoot }, 'cli-list-watch');
    const redraws = () => watch.out.split('\n').filter((l) => l.startsWith('-- ')).length;
    await until(() => redraws() === 1, 'the first table', 5000);
    expect(watch.out).toMatch(/^-- \S+Z {2}4 campaigns {2}\(Ctrl-C stops\)\nCAMPAIGN/);
    ok(await w.cli(['act', 'd-obs-1', 'pause']));
    await until(() => redraws() === 2, 'one redraw for the pause', 5000);
    expect(watch.out.split('-- ').at(-1)).toMatch(/^\S+Z {2}4 campaigns[\s\S]*\nd-obs-1\s+paused/m);
    ok(await w.cli(['act', 'd-obs-1', 'resume']));
    await until(() => redraws() === 3, 'one redraw for the resume', 5000);
    ok(await w.cli(['campaigns', 'create', '--id', 'd-new', '--objective', 'o']));
    await until(() => redraws() === 4, 'one redraw for the new campaign', 5000);
    expect(watch.out.split('-- ').at(-1)).toMatch(/5 campaigns[\s\S]*\nd-new\s+observing/);
    // An observe of a campaign without a task changes nothing the table shows.
    await w.cli(['act', 'd-obs-2', 'observe']);
    await new Promise((r) => setTimeout(r, 800));
    expect(redraws()).toBe(4);
    await watch.stop();
    expect(watch.err).toBe('');
    w.results.push({ code: 0, stdout: watch.out, stderr: watch.err });
  });
});

describe('completion', () => {
  it('bash completes commands, subcommands and options from the command tree', async () => {
    const script = ok(await w.cli(['completion', 'bash']));
    const complete = (words: string[]) =>
      recordSyncOutput('bash-completion', spawnSync('bash', ['-c', `${script}\nCOMP_WORDS=(${words.map((x) => `'${x}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _argus_supervisor; echo "\${COMPREPLY[@]}"`], { encoding: 'utf8' })).stdout.trim();
    expect(complete(['argus-supervisor', 'camp'])).toBe('campaigns');
    expect(complete(['argus-supervisor', 'campaigns', ''])).toBe('list get history create --help');
    expect(complete(['argus-supervisor', 'campaigns', 'list', '--st'])).toBe('--state');
    expect(complete(['argus-supervisor', 'campaigns', 'list', '--state', 'paused', '--w'])).toBe('--watch --wide');
    expect(complete(['argus-supervisor', 'events', '--'])).toContain('--follow');
    const zsh = ok(await w.cli(['completion', 'zsh']));
    expect(zsh).toContain('bashcompinit');
    const fish = ok(await w.cli(['completion', 'fish']));
    expect(fish).toContain("complete -c argus-supervisor -f -n '__fish_use_subcommand' -a 'campaigns'");
    expect(fish).toMatch(/-n '__fish_seen_subcommand_from campaigns; and __fish_seen_subcommand_from list' -l watch/);
  });
});
