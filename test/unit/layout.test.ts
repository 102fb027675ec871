import { describe, expect, it } from 'vitest';
import { CONTROL_EXTENSION_URI, CONTROL_METHODS } from '../../adapters/a2a/control-contract.js';

describe('control contract', () => {
  it('namespaces every method under the extension so none collides with core A2A names', () => {
    for (const method of Object.values(CONTROL_METHODS)) {
      expect(method.startsWith('opentraining.control/')).toBe(true);
    }
    expect(CONTROL_EXTENSION_URI).toMatch(/^urn:opentraining:a2a:control:v\d+$/);
  });
});
