import type { Command } from 'commander';

/**
 * The CLI's table of contents. Each command module is imported only when it is the one asked
 * for (all of them for help), so `serve` does not load the simulator or the demo: a refused
 * start (`state_root_locked`, a config problem) answers in well under a second.
 */
const COMMANDS: Record<string, () => Promise<(program: Command) => void>> = {
  serve: async () => (await import('./serve.js')).registerServe,
  probe: async () => (await import('./probe.js')).registerProbe,
  simulate: async () => (await import('./simulate.js')).registerSimulate,
  demo: async () => (await import('./demo.js')).registerDemo,
  chart: async () => (await import('./chart.js')).registerChart,
  // The shared PostgreSQL database, read and written directly (docs/scale-out.md).
  replicas: async () => (await import('./replicas.js')).registerReplicas,
  import: async () => (await import('./import.js')).registerImport,
  // The client of a running serve (bin/commands/client, docs/cli.md).
  campaigns: async () => (await import('./client/index.js')).registerCampaigns,
  act: async () => (await import('./client/index.js')).registerAct,
  status: async () => (await import('./client/index.js')).registerStatus,
  events: async () => (await import('./client/index.js')).registerEvents,
  // Generated from the whole tree: asking for it registers every command.
  completion: async () => (await import('./client/completion.js')).registerCompletion,
};

export async function registerCommands(program: Command, argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const named = argv.find((arg) => !arg.startsWith('-'));
  const wanted = named !== undefined && named in COMMANDS && named !== 'completion' ? [named] : Object.keys(COMMANDS);
  for (const name of wanted) (await COMMANDS[name]!())(program);
}
