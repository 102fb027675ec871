/**
 * What differs between A2A 1.0, 0.3 and 0.2.5 on the wire: method names, the version and
 * extension headers, message shape, the non-blocking flag and how SendMessage wraps its task.
 * Everything the three share lives elsewhere.
 * @module
 */
import { CONTROL_EXTENSION_URI, type ControlAuthority } from './control-contract.js';
import type { ProtocolVersion } from './card.js';

export interface Dialect {
  readonly version: ProtocolVersion;
  readonly methods: { readonly send: string; readonly get: string; readonly cancel: string };
  /** Version and extension-activation headers for this dialect. */
  versionHeaders(extension: boolean): Record<string, string>;
  getTaskParams(taskId: string): Record<string, unknown>;
  /** A new task in `contextId`, or, with `taskId`, a follow-up message to that existing task. */
  sendParams(text: string, contextId: string | undefined, authority: ControlAuthority, taskId?: string): Record<string, unknown>;
  cancelParams(taskId: string, authority: ControlAuthority): Record<string, unknown>;
  /** The task inside a send result, or undefined when the agent answered with a bare message. */
  taskOfSendResult(result: unknown): unknown;
}

const authorityMetadata = (authority: ControlAuthority) => ({
  [CONTROL_EXTENSION_URI]: { controllerId: authority.controllerId, epoch: authority.epoch, requestId: authority.requestId },
});

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const v1: Dialect = {
  version: '1.0',
  methods: { send: 'SendMessage', get: 'GetTask', cancel: 'CancelTask' },
  versionHeaders: (extension): Record<string, string> =>
    extension ? { 'a2a-version': '1.0', 'a2a-extensions': CONTROL_EXTENSION_URI } : { 'a2a-version': '1.0' },
  getTaskParams: (id) => ({ id, historyLength: 0 }),
  sendParams: (text, contextId, authority, taskId) => ({
    message: {
      // The request id doubles as message id so a remote that dedupes on messageId dedupes this send.
      messageId: authority.requestId,
      role: 'ROLE_USER',
      parts: [{ text }],
      ...(contextId === undefined ? {} : { contextId }),
      ...(taskId === undefined ? {} : { taskId }),
      metadata: authorityMetadata(authority),
      extensions: [CONTROL_EXTENSION_URI],
    },
    configuration: { returnImmediately: true },
  }),
  cancelParams: (id, authority) => ({ id, metadata: authorityMetadata(authority) }),
  // 1.0 wraps the result: {task} or {message}.
  taskOfSendResult: (result) => (isRecord(result) ? result.task : undefined),
};

function legacy(version: '0.3' | '0.2.5'): Dialect {
  return {
    version,
    methods: { send: 'message/send', get: 'tasks/get', cancel: 'tasks/cancel' },
    versionHeaders(extension) {
      const headers: Record<string, string> = version === '0.3' ? { 'a2a-version': '0.3' } : {};
      if (extension) {
        headers['a2a-extensions'] = CONTROL_EXTENSION_URI;
        headers['x-a2a-extensions'] = CONTROL_EXTENSION_URI;
      }
      return headers;
    },
    // Legacy servers (the 0.2.5/0.3 SDKs, FastA2A) treat historyLength 0 as "everything"
    // (`slice(-0)`), so a long task's poll would grow without bound. Asking for the last entry
    // keeps the poll small everywhere and still carries a 0.2.5 host's answer, which lives in history.
    getTaskParams: (id) => ({ id, historyLength: 1 }),
    sendParams: (text, contextId, authority, taskId) => ({
      message: {
        kind: 'message',
        messageId: authority.requestId,
        role: 'user',
        parts: [{ kind: 'text', text }],
        ...(contextId === undefined ? {} : { contextId }),
        ...(taskId === undefined ? {} : { taskId }),
        metadata: authorityMetadata(authority),
        extensions: [CONTROL_EXTENSION_URI],
      },
      configuration: { blocking: false },
    }),
    cancelParams: (id, authority) => ({ id, metadata: authorityMetadata(authority) }),
    // Legacy results are the task itself, discriminated by `kind`.
    taskOfSendResult: (result) => (isRecord(result) && result.kind !== 'message' ? result : undefined),
  };
}

export const DIALECTS: Readonly<Record<ProtocolVersion, Dialect>> = {
  '1.0': v1,
  '0.3': legacy('0.3'),
  '0.2.5': legacy('0.2.5'),
};
