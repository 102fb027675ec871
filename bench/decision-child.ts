/**
 * A real supervisor process whose decision runtime runs the SIMULATED Argus
 * (dist/simulator/argus/fake-argus-main.js, itself a real stdio child), for the kill-and-restart
 * decision test (test/decisions/kill-restart-decision.test.ts). `serve` cannot be used there:
 * it builds its decision runtime for the real Argus only, and its sweeps follow the heartbeat
 * clock. This entry is `serve` minus HTTP plus that one seam: the configuration comes from the
 * environment exactly as for `serve` (so `ARGUS_SUPERVISOR_FAULT_POINT` arms a crash point
 * here just as in the chaos runs), start() makes the real restart's initial sweep, and the
 * parent drives it over stdin, one JSON request per line:
 *
 *   {"id":1,"op":"campaigns","body":{...}}   → supervisor.campaigns(body)
 *   {"id":2,"op":"action","body":{...}}      → supervisor.campaignAction(body)
 *   {"id":3,"op":"sweep"}                    → one heartbeat sweep
 *   {"id":4,"op":"model_calls"}              → argus_supervisor_model_calls_total by runtime
 *
 * Each answer is one line `{"id":n,"result":...}`; the first line is `{"ready":true,"pid":n}`.
 * stdin closing stops the supervisor and exits 0. A crash point kills the process mid-request:
 * the parent sees the exit, never an answer.
 * @module
 */
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../adapters/logger.js';
import { createMetrics } from '../services/metrics/metrics.js';
import { createDecisionRuntime } from '../services/decisions/decision-runtime.js';
import { loadConfig } from '../services/config/config.js';
import { createSupervisor } from '../services/runtime/supervisor.js';

/** dist/bench/decision-child.js → dist/simulator/argus/fake-argus-main.js */
const FAKE_ARGUS_MAIN = fileURLToPath(new URL('../simulator/argus/fake-argus-main.js', import.meta.url));

interface Request {
  id: number;
  op: 'campaigns' | 'action' | 'sweep' | 'model_calls';
  body?: unknown;
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel });
  const metrics = createMetrics({ defaultMetrics: false });
  const decisions = createDecisionRuntime(config, { metrics, logger, simulatedArgusServer: FAKE_ARGUS_MAIN });
  const supervisor = await createSupervisor({ config, logger, metrics, decisions });
  await supervisor.start({ heartbeat: false });
  // As `serve` after a restart: every campaign is read once before anything else is asked.
  await supervisor.initialSweep();
  const write = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);
  write({ ready: true, pid: process.pid });

  const answer = async (req: Request): Promise<unknown> => {
    switch (req.op) {
      case 'campaigns':
        return supervisor.campaigns(req.body);
      case 'action':
        return supervisor.campaignAction(req.body);
      case 'sweep':
        return supervisor.sweep();
      case 'model_calls':
        return Object.fromEntries((await metrics.modelCalls.get()).values.map((v) => [String(v.labels.runtime), v.value]));
    }
  };
  // One request at a time, in order: the parent waits for each answer.
  for await (const line of createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const req = JSON.parse(line) as Request;
    write({ id: req.id, result: await answer(req) });
  }
  await supervisor.stop();
}

try {
  await main();
  process.exit(0);
} catch (error) {
  process.stderr.write(`decision child failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}
