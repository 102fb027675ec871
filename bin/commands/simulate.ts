/**
 * `argus-supervisor simulate`: runs the bundled OpenTraining A2A simulator on 127.0.0.1 and
 * prints exactly one JSON line on stdout when it is ready, so a parent process (demo,
 * benchmark, crash test) can read the URL. Logs go to stderr; the token, if any, comes from
 * OPENTRAINING_A2A_TOKEN and is never printed.
 * @module
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { pino } from 'pino';
import {
  SCENARIO_NAMES,
  SIM_LISTINGS,
  SIM_PROTOCOLS,
  startSimulator,
  type RunningSimulator,
  type ScenarioName,
  type SimListing,
  type SimProtocol,
  type SimulatorLogger,
} from '../../simulator/index.js';
import { exitWith, listenFailure } from './startup.js';

export interface SimulateCliOptions {
  port: number;
  protocol: SimProtocol;
  control: boolean;
  scenario: ScenarioName;
  enforceEpochs: boolean;
  pollsPerStage?: number;
  listing?: SimListing;
}

export interface SimulateIo {
  /** Receives the single readiness line (with its newline). */
  writeStdout: (text: string) => void;
  env: NodeJS.ProcessEnv;
  logger: SimulatorLogger;
}

/** The readiness line: everything a parent needs to connect, nothing secret. */
export interface SimulateReady {
  url: string;
  protocol: SimProtocol;
  port: number;
  control: boolean;
}

const defaultIo = (): SimulateIo => ({
  writeStdout: (text) => process.stdout.write(text),
  env: process.env,
  logger: pino({ name: 'simulator' }, pino.destination({ fd: 2, sync: true })),
});

/** Starts the simulator and prints the readiness line. The caller owns `close()`. */
export async function runSimulate(options: SimulateCliOptions, io: SimulateIo = defaultIo()): Promise<RunningSimulator> {
  const sim = await startSimulator({
    port: options.port,
    protocol: options.protocol,
    control: options.control,
    scenario: options.scenario,
    enforceEpochs: options.enforceEpochs,
    ...(options.pollsPerStage !== undefined ? { pollsPerStage: options.pollsPerStage } : {}),
    ...(options.listing !== undefined ? { listing: options.listing } : {}),
    token: io.env['OPENTRAINING_A2A_TOKEN'] || undefined,
    logger: io.logger,
  });
  const ready: SimulateReady = { url: sim.url, protocol: sim.protocol, port: sim.port, control: sim.control };
  io.writeStdout(`${JSON.stringify(ready)}\n`);
  return sim;
}

function integer(min: number, max: number) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    return value;
  };
}

/** Resolves on the first SIGTERM or SIGINT. */
function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve(signal);
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

export function registerSimulate(program: Command): void {
  program
    .command('simulate')
    .description('run the bundled OpenTraining A2A simulator on 127.0.0.1 (prints one JSON line when ready)')
    .option('--port <n>', 'TCP port; 0 picks a free one', integer(0, 65535), 0)
    .addOption(new Option('--protocol <version>', 'A2A dialect to speak').choices(SIM_PROTOCOLS).default('1.0'))
    .option('--no-control', 'omit the control extension (a read-only remote)')
    .addOption(new Option('--scenario <name>', 'scenario of tasks created by SendMessage').choices(SCENARIO_NAMES).default('training'))
    .option('--no-enforce-epochs', 'naive remote: apply stale mutations and count them instead of rejecting')
    .option('--polls-per-stage <n>', 'polls spent in each training stage', integer(1, 1000))
    .addOption(new Option('--listing <mode>', 'ListTasks: off (method not found), spec, or sdk-memory (the SDK in-memory store)').choices(SIM_LISTINGS).default('off'))
    .action(async (options: SimulateCliOptions) => {
      const io = defaultIo();
      let sim: RunningSimulator;
      try {
        sim = await runSimulate(options, io);
      } catch (e) {
        // One `code: sentence` line and exit 2, like `serve` (bin/commands/startup.ts).
        exitWith([listenFailure(e, { kind: 'tcp', host: '127.0.0.1', port: options.port })]);
      }
      const signal = await untilSignal();
      io.logger.info({ signal }, 'simulator stopping');
      await sim.close();
    });
}
