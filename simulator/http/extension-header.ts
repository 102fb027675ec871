/**
 * Activation of the control extension per request (`A2A-Extensions`, or the ≤0.3 spelling
 * `X-A2A-Extensions`). The simulator serves control calls either way but counts the ones
 * that were not activated, so a test can prove the client always activates it.
 * @module
 */
import type { Request, Response } from 'express';
import { CONTROL_EXTENSION_URI } from '../../adapters/a2a/control-contract.js';

const HEADERS = ['A2A-Extensions', 'X-A2A-Extensions'] as const;

const lists = (value: string | undefined, uri: string) =>
  value !== undefined && value.split(',').some((item) => item.trim() === uri);

export function extensionActivated(req: Request): boolean {
  return HEADERS.some((name) => lists(req.get(name), CONTROL_EXTENSION_URI));
}

/** Echoes the activation in the header spelling(s) the client used. */
export function echoActivation(req: Request, res: Response): void {
  for (const name of HEADERS) if (lists(req.get(name), CONTROL_EXTENSION_URI)) res.setHeader(name, CONTROL_EXTENSION_URI);
}
