import type { Command } from 'commander';
import { createLogger } from '../../adapters/logger.js';
import { createHttpServer, listen } from '../../server/http-server.js';
import { ConfigError, loadConfig, type SupervisorConfig } from '../../services/config/config.js';
import { applyHeapGrowth, HeapGrowthError, heapGrowthForServe } from '../../services/runtime/heap-growth.js';
import { withLocalKey, type LocalKey } from '../../services/runtime/local-key.js';
import { withSecretFiles } from '../../services/runtime/credential-files.js';
import { createSupervisor, type Supervisor } from '../../services/runtime/supervisor.js';
import { selectStoreBackend } from '../../persistence/postgres/backend.js';
import { exitWith, listenFailure, startupFailure } from './startup.js';

/** `argus-supervisor serve`: the API, the heartbeat and /metrics on one socket. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the supervisor: HTTP API, heartbeat and metrics on one listening socket.')
    .action(async () => {
      // Every start-up failure is one `code: sentence` line and exit 2 (bin/commands/startup.ts).
      let config: SupervisorConfig;
      let heapGrowth: number;
      try {
        config = loadConfig(process.env);
        heapGrowth = heapGrowthForServe(process.env, process.execArgv);
      } catch (e) {
        if (e instanceof ConfigError) exitWith(e.lines());
        if (e instanceof HeapGrowthError) exitWith([`${e.code}: ${e.message}`]);
        exitWith([startupFailure(e)]);
      }
      // No deployment secret: this listener is loopback or a socket (loadConfig refused anything
      // else), so the key is the local one under the state root, read or created now.
      let localKey: LocalKey | null;
      try {
        // Read once, here: OPENTRAINING_A2A_TOKEN_FILE, ARGUS_SUPERVISOR_API_KEY_FILE.
        config = await withSecretFiles(config);
        ({ config, localKey } = await withLocalKey(config));
      } catch (e) {
        exitWith([startupFailure(e)]);
      }
      const logger = createLogger({ level: config.logLevel });
      // ARGUS_SUPERVISOR_DATABASE_URL: one replica on a shared PostgreSQL (docs/scale-out.md);
      // absent, the embedded file store under the state root, exactly as before.
      const backend = await selectStoreBackend(process.env, { logger });
      if (!backend.ok) exitWith([`${backend.code}: ${backend.message}`]);
      let supervisor: Supervisor | null = null;
      try {
        supervisor = await createSupervisor({ config, logger, ...(backend.kind === 'postgres' ? { database: backend } : {}) });
        await supervisor.start();
        // After the boot load: a heap still growing toward its live set would pay one full
        // collection per 50% of growth (services/runtime/heap-growth.ts).
        applyHeapGrowth(heapGrowth);
      } catch (e) {
        await supervisor?.stop().catch(() => undefined);
        exitWith([startupFailure(e)]);
      }
      const app = createHttpServer({ supervisor, apiKey: config.apiKey, logger, session: { idleTtlMs: config.sessionTtlSeconds * 1000 }, allowedHosts: config.allowedHosts });
      let address: string;
      try {
        address = await listen(app, config.listen);
      } catch (e) {
        await supervisor.stop().catch(() => undefined);
        exitWith([listenFailure(e, config.listen)]);
      }
      // The files' paths only: never the key or the token, never a hash of either.
      const files = { ...(localKey ? { apiKeyFile: localKey.path } : {}), ...(config.apiKeyFile ? { apiKeyFile: config.apiKeyFile } : {}), ...(config.a2aTokenFile ? { a2aTokenFile: config.a2aTokenFile } : {}) };
      logger.info({ address, apiKeySource: config.apiKeySource, ...files }, 'argus-supervisor listening');
      // One JSON line on stdout so a parent process (tests, a plugin host) knows where we are.
      process.stdout.write(`${JSON.stringify({ ready: true, address })}\n`);
      const shutdown = async () => {
        await app.close();
        await supervisor.stop();
        process.exit(0);
      };
      process.once('SIGTERM', shutdown);
      process.once('SIGINT', shutdown);
    });
}
