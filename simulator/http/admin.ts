/**
 * The admin API under `/_sim/`, for out-of-process drivers (benchmarks, crash tests): the
 * same levers as the in-process handle. Loopback only and unauthenticated by design; it is
 * never part of the A2A surface and never faulted.
 * @module
 */
import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { SCENARIO_NAMES, type ScenarioName } from '../names.js';
import { MAX_TTL_SECONDS, MIN_TTL_SECONDS } from '../world/leases.js';
import { RIVAL_CONTROLLER_ID } from '../world/scenarios.js';
import type { World } from '../world/world.js';
import { FAULT_KINDS, type FaultInjector, type FaultSpec } from './fault-spec.js';

export interface AdminDeps {
  world: World;
  faults: FaultInjector;
  defaultScenario: ScenarioName;
  advanceClock: (seconds: number) => void;
}

const MAX_TASKS_PER_CALL = 100_000;
const MAX_ADVANCE_TIMES = 10_000;

const tasksBody = z.object({
  count: z.number().int().min(1).max(MAX_TASKS_PER_CALL).default(1),
  scenario: z.enum(SCENARIO_NAMES).optional(),
  contextId: z.string().min(1).optional(),
});
const advanceBody = z.object({ taskId: z.string().min(1).optional(), times: z.number().int().min(1).max(MAX_ADVANCE_TIMES).default(1) });
const takeoverBody = z.object({
  contextId: z.string().min(1),
  controllerId: z.string().min(1).default(RIVAL_CONTROLLER_ID),
  ttlSeconds: z.number().int().min(MIN_TTL_SECONDS).max(MAX_TTL_SECONDS).optional(),
});
const faultSchema = z.object({
  kind: z.enum(FAULT_KINDS),
  count: z.number().int().min(1).optional(),
  methods: z.array(z.string()).optional(),
  taskId: z.string().min(1).optional(),
  status: z.number().int().min(500).max(599).optional(),
  delayMs: z.number().int().min(0).max(600_000).optional(),
  bytes: z.number().int().min(1).max(64 * 1024 * 1024).optional(),
  location: z.string().min(1).optional(),
});
const faultsBody = z.union([faultSchema, z.array(faultSchema), z.object({ faults: z.array(faultSchema) })]);
const clockBody = z.object({ advanceSeconds: z.number().min(0) });
const ledgerQuery = z.object({ since: z.coerce.number().int().min(1).default(1) });

/** Parses a JSON body or answers 400 with the first problem. */
function body<T>(schema: z.ZodType<T>, req: Request, res: Response): T | undefined {
  const parsed = schema.safeParse(req.body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  res.status(400).json({ error: issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body' });
  return undefined;
}

export function adminRouter(deps: AdminDeps): Router {
  const { world, faults } = deps;
  const router = express.Router();
  router.use(express.json({ limit: '1mb' }));

  router.post('/tasks', (req, res) => {
    const b = body(tasksBody, req, res);
    if (b) res.json(world.createMany(b.count, b.scenario ?? deps.defaultScenario, b.contextId));
  });

  router.get('/tasks/:id', (req, res) => {
    const task = world.get(req.params.id);
    if (task) res.json(world.summary(task));
    else res.status(404).json({ error: 'no such task' });
  });

  router.post('/advance', (req, res) => {
    const b = body(advanceBody, req, res);
    if (!b) return;
    if (b.taskId !== undefined && !world.get(b.taskId)) {
      res.status(404).json({ error: 'no such task' });
      return;
    }
    let advanced = 0;
    for (let i = 0; i < b.times; i++) {
      if (b.taskId === undefined) advanced += world.advanceAll();
      else {
        const task = world.get(b.taskId)!;
        const before = task.revision;
        world.poll(b.taskId);
        if (task.revision !== before) advanced++;
      }
    }
    res.json({ advanced });
  });

  router.post('/takeover', (req, res) => {
    const b = body(takeoverBody, req, res);
    if (b) res.json({ lease: world.leases.force(b.contextId, b.controllerId, b.ttlSeconds) });
  });

  router.post('/faults', (req, res) => {
    const b = body(faultsBody, req, res);
    if (!b) return;
    const specs: FaultSpec[] = Array.isArray(b) ? b : 'faults' in b ? b.faults : [b];
    faults.inject(specs);
    res.json({ active: faults.active });
  });

  router.delete('/faults', (_req, res) => {
    faults.clear();
    res.json({ active: 0 });
  });

  router.post('/clock', (req, res) => {
    const b = body(clockBody, req, res);
    if (!b) return;
    deps.advanceClock(b.advanceSeconds);
    res.json({ now: new Date(world.now()).toISOString() });
  });

  router.get('/stats', (_req, res) => {
    res.json(world.stats.snapshot());
  });

  // Every mutation request received since `since` (a seq), with applied / rejected / replayed.
  router.get('/ledger', (req, res) => {
    const parsed = ledgerQuery.safeParse(req.query);
    if (!parsed.success) {
      res.status(400).json({ error: 'since: a whole number from 1' });
      return;
    }
    res.json(world.ledger.log.page(parsed.data.since));
  });

  // Target of the injected redirect: records whether a client followed it, and with credentials.
  router.all('/redirect-sink', (req, res) => {
    world.stats.redirectSinkHits++;
    if (req.get('authorization') || req.get('x-api-key')) world.stats.redirectSinkCredentialHits++;
    res.status(200).json({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'redirect target: the client followed a redirect' } });
  });

  return router;
}
