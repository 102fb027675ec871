/**
 * The `simulate` command, in process (Node 20 cannot spawn the .ts entry): exactly one JSON
 * readiness line on stdout, the token taken from the environment and never printed, and a
 * clean stop on SIGTERM.
 */
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerSimulate, runSimulate, type SimulateIo } from '../../bin/commands/simulate.js';
import type { RunningSimulator } from '../../simulator/index.js';
import { getJson } from './rpc.js';

const silent = { info: () => {}, warn: () => {}, error: () => {} };
let running: RunningSimulator | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  vi.restoreAllMocks();
});

function io(env: NodeJS.ProcessEnv = {}): SimulateIo & { lines: string[] } {
  const lines: string[] = [];
  return { lines, env, logger: silent, writeStdout: (text) => lines.push(text) };
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
    const out = io({ OPENTRAINING_A2A_TOKEN: 'never-print-me' });
    running = await runSimulate({ port: 0, protocol: '1.0', control: true, scenario: 'training', enforceEpochs: true }, out);
    expect(out.lines.join('')).not.toContain('never-print-me');
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } });
    const headers = { 'content-type': 'application/json', 'A2A-Version': '1.0' };
    expect((await fetch(`${running.url}/jsonrpc`, { method: 'POST', headers, body })).status).toBe(401);
    const authed = await fetch(`${running.url}/jsonrpc`, { method: 'POST', headers: { ...headers, authorization: 'Bearer never-print-me' }, body });
    expect(authed.status).toBe(200);
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
