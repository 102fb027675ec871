import type { Command } from 'commander';
import { createLogger } from '../../adapters/logger.js';
import { createHttpServer, listen } from '../../server/http-server.js';
import { ConfigError, loadConfig } from '../../services/config.js';
import { createSupervisor } from '../../services/supervisor.js';

/** `argus-supervisor serve`: the API, the heartbeat and /metrics on one socket. */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Run the supervisor: HTTP API, heartbeat and metrics on one listening socket.')
    .action(async () => {
      let config;
      try {
        config = loadConfig(process.env);
      } catch (e) {
        if (e instanceof ConfigError) {
          for (const line of e.problems) process.stderr.write(`config: ${line}\n`);
          process.exit(2);
        }
        throw e;
      }
      const logger = createLogger();
      const supervisor = await createSupervisor({ config, logger });
      await supervisor.start();
      const app = createHttpServer({ supervisor, apiKey: config.apiKey, logger });
      const address = await listen(app, config.listen);
      logger.info({ address, apiKeySource: config.apiKeySource }, 'argus-supervisor listening');
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
