/**
 * The A2A client and the Argus bridge are class instances: their token and redaction secrets live
 * in true private fields, so a client that is spread, serialized or inspected (a log line, a
 * debug dump, `{ ...real, control }` in a test) shows none of them.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createA2AClient } from '../../adapters/a2a/index.js';
import { createArgusBridge } from '../../adapters/argus/argus-client.js';
import { canary } from '../fixtures/canary.js';

const shown = (value: object): string => `${JSON.stringify({ ...value })}\n${inspect(value, { depth: 6, showHidden: true })}`;

describe('secrets held privately', () => {
  it('an A2A client shows neither its token nor its redaction secrets', async () => {
    const token = canary('client-token');
    const redact = canary('client-redact');
    const client = createA2AClient({ baseUrl: 'http://127.0.0.1:9/a2a', token, redact: [redact] });
    try {
      const text = shown(client);
      expect(text).toContain('getTask');
      expect(text).not.toContain(token);
      expect(text).not.toContain(redact);
    } finally {
      await client.close();
    }
  });

  it('an Argus bridge shows neither its secrets nor its child environment', async () => {
    const secret = canary('bridge-secret');
    const inEnv = canary('bridge-env');
    const bridge = createArgusBridge({ command: '/bin/false', args: [], env: { OPENAI_API_KEY: inEnv }, cwd: '/', secrets: [secret] });
    try {
      const text = shown(bridge);
      expect(text).toContain('createProject');
      expect(text).not.toContain(secret);
      expect(text).not.toContain(inEnv);
    } finally {
      await bridge.close();
    }
  });
});
