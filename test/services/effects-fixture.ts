/**
 * The campaign effects against a real loopback simulator, run as actors exactly as the chart
 * invokes them (`createActor(logic, { input }).start()` + `toPromise`). The deps record every
 * call the effects make outside the wire, so a test can say what was (not) read or written.
 */
import { createActor, toPromise, type AnyActorLogic, type InputFrom, type OutputFrom } from 'xstate';
import { createA2AClient, type A2AClient } from '../../adapters/a2a/index.js';
import { startSimulator, type RunningSimulator, type SimulatorOptions } from '../../simulator/index.js';
import { createCampaignEffects, type EffectDeps, type JournalIntentRecord } from '../../services/campaign/effects.js';

export const CONTROLLER = 'argus-effects-test';

export interface EffectsWorld {
  sim: RunningSimulator;
  client: A2AClient;
  effects: ReturnType<typeof createCampaignEffects>;
  deps: EffectDeps;
  /** Keys the fake document has published; `publishedKeys` answers with a copy. */
  published: Set<string>;
  calls: { publishedKeys: number; journal: JournalIntentRecord[] };
  /** All A2A requests the simulator has counted so far (card fetches included). */
  requests(method?: string): number;
  close(): Promise<void>;
}

export async function effectsWorld(simOptions: SimulatorOptions = {}, over: Partial<EffectDeps> = {}): Promise<EffectsWorld> {
  const sim = await startSimulator({ port: 0, ...simOptions });
  const client = createA2AClient({ baseUrl: sim.url });
  // Discovery happens once per client; do it now so request counts see only the effect's work.
  const discovered = await client.discover();
  if (!discovered.ok) throw new Error(`discovery failed: ${discovered.error.code}`);
  const published = new Set<string>();
  const calls: EffectsWorld['calls'] = { publishedKeys: 0, journal: [] };
  const deps: EffectDeps = {
    controllerId: CONTROLLER,
    remote: client,
    now: () => new Date(),
    journal: async (_campaignId, intent) => {
      calls.journal.push(intent);
    },
    publishedKeys: async () => {
      calls.publishedKeys++;
      return new Set(published);
    },
    ...over,
  };
  return {
    sim,
    client,
    deps,
    effects: createCampaignEffects(deps),
    published,
    calls,
    requests: (method) => {
      const counts = sim.stats().requests;
      return method ? (counts[method] ?? 0) : Object.values(counts).reduce((a, b) => a + b, 0);
    },
    async close() {
      await client.close();
      await sim.close();
    },
  };
}

/** Runs one effect to its output, as an invoke would. */
export function run<L extends AnyActorLogic>(logic: L, input: InputFrom<L>): Promise<OutputFrom<L>> {
  return toPromise(createActor(logic, { input }).start()) as Promise<OutputFrom<L>>;
}
