/**
 * The `simulate` command: exactly one JSON readiness line on stdout, the token taken from the
 * environment and never printed (neither on stdout nor in a log line), and a clean stop on
 * SIGTERM. The runner is driven in process with the real logger writing to a captured stream;
 * the built command runs as a child so its own logger (the one an operator sees) is checked too.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerSimulate, runSimulate, type SimulateIo } from '../../bin/commands/simulate.js';
import type { RunningSimulator } from '../../simulator/index.js';
import { CANARY_PREFIX, canary } from '../fixtures/canary.js';
import { recordChildOutput } from '../fixtures/child-output.js';
import { captureLogs } from '../fixtures/log-capture.js';
import { getJson } from './rpc.js';

const CLI = fileURLToPath(new URL('../../dist/bin/argus-supervisor.js', import.meta.url));
let running: RunningSimulator | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  vi.restoreAllMocks();
});

function io(env: NodeJS.ProcessEnv = {}): SimulateIo & { lines: string[]; logs: string[] } {
  const lines: string[] = [];
  const { logger, lines: logs } = captureLogs('info');
  return { lines, logs, env, logger, writeStdout: (text) => lines.push(text) };
}

describe('simulate runner', () => {
  it('prints exactly one JSON line with url, protocol, port and control', async () => {
    const out = io();
    running = await runSimulate({ port: 0, protocol: '0.3', control: false, scenario: 'steady', enforceEpochs: true }, out);
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0]!.endsWith('\n')).toBe(true);
    expect(out.lines[0]!.trim().split('\n')).toHaveLength(1);
    const ready = JSON.parse(out.lines[0]!);
    expect(ready).toEqual({ url: `http://127.0.0.1:${running.port}/a2a`, protocol: '0.3', port: running.port, control: false });
    const card = await getJson(`${ready.url}/.well-known/agent-card.json`);
    expect(card.protocolVersion).toBe('0.3.0');
  });

  it('takes the token from OPENTRAINING_A2A_TOKEN and never prints it', async () => {
    const token = canary('simulate-token');
    const out = io({ OPENTRAINING_A2A_TOKEN: token });
    running = await runSimulate({ port: 0, protocol: '1.0', control: true, scenario: 'training', enforceEpochs: true }, out);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } });
    const headers = { 'content-type': 'application/json', 'A2A-Version': '1.0' };
    expect((await fetch(`${running.url}/jsonrpc`, { method: 'POST', headers, body })).status).toBe(401);
    const authed = await fetch(`${running.url}/jsonrpc`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${token}` }, body });
    expect(authed.status).toBe(200);
    // The logger really wrote: the start line is there. No line, nor stdout, carries the token
    // (counted with includes() so that a failure does not print it either).
    expect(out.logs.map((l) => JSON.parse(l).msg)).toContain('simulator listening');
    expect([...out.lines, ...out.logs].filter((l) => l.includes(token)).length).toBe(0);
  });
});

describe('simulate command as a process', () => {
  it('logs its start and stop to stderr, and neither stream ever carries the token', async () => {
    const token = canary('simulate-cli-token');
    const child = recordChildOutput(
      spawn(process.execPath, [CLI, 'simulate', '--port', '0'], { env: { PATH: process.env.PATH ?? '', OPENTRAINING_A2A_TOKEN: token }, stdio: ['ignore', 'pipe', 'pipe'] }),
      'simulate-cli',
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      for (let i = 0; i < 500 && !stdout.includes('\n'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      const ready = JSON.parse(stdout) as { url: string };
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } });
      const headers = { 'content-type': 'application/json', 'A2A-Version': '1.0', authorization: `Bearer ${token}` };
      expect((await fetch(`${ready.url}/jsonrpc`, { method: 'POST', headers, body })).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await closed).toBe(0);
    const messages = stderr.trim().split('\n').map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(messages).toEqual(expect.arrayContaining(['simulator listening', 'simulator stopping']));
    expect([stdout.includes(token), stderr.includes(token), stderr.includes(CANARY_PREFIX)]).toEqual([false, false, false]);
  });
});

describe('simulate command', () => {
  it('parses its options, prints one line, and stops on SIGTERM', async () => {
    const writes: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    const program = new Command().exitOverride();
    registerSimulate(program);
    const done = program.parseAsync(['simulate', '--protocol', '0.2', '--no-control', '--scenario', 'steady'], { from: 'user' });
    for (let i = 0; i < 200 && writes.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(writes).toHaveLength(1);
    const ready = JSON.parse(writes[0]!);
    expect(ready).toMatchObject({ protocol: '0.2', control: false });
    const card = await getJson(`http://127.0.0.1:${ready.port}/.well-known/agent.json`);
    expect(card.capabilities.extensions).toEqual([]);
    process.emit('SIGTERM');
    await done;
    await expect(fetch(`http://127.0.0.1:${ready.port}/.well-known/agent.json`)).rejects.toThrow();
    expect(writes).toHaveLength(1);
  });

  it('rejects an unknown protocol', async () => {
    const program = new Command().exitOverride().configureOutput({ writeErr: () => {} });
    registerSimulate(program);
    await expect(program.parseAsync(['simulate', '--protocol', '2.0'], { from: 'user' })).rejects.toThrow(/protocol/);
  });
});
