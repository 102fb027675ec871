/**
 * The wire side of a fenced mutation: the one place a mutation is sent, with authority in
 * metadata only, and how the adapter's answer maps onto the machine's relay outcomes.
 * @module
 */
import type { A2AClient } from '../../adapters/a2a/index.js';
import type { RemoteError } from '../../adapters/a2a/errors.js';
import type { Mutation, RelayMutationOutput } from '../../machines/campaign.types.js';
import type { ApiErrorCode } from '../contract/api-errors.js';

/**
 * Maps the adapter's answer onto the machine's three relay outcomes. An applied submit carries
 * the task it created (the binding learns it from here); the other mutations carry null. An
 * answer is mapped like a submit: a lease_* refusal means the lease is lost; a refusal such as
 * `task_not_awaiting_input` is a plain rejection; a timeout after the send is in doubt.
 */
export function relayOutcome(result: SendResult, requestId: string): RelayMutationOutput {
  if (result.ok) return { outcome: 'applied', requestId, taskId: result.taskId };
  const { code, outcome } = result.error;
  if (outcome === 'ambiguous') return { outcome: 'ambiguous', requestId, code };
  return { outcome: 'rejected', requestId, code, leaseLost: code.startsWith('lease_') };
}

export type SendResult = { ok: true; taskId: string | null } | { ok: false; error: RemoteError };

/** The one place a fenced mutation goes on the wire; authority rides in metadata only. */
export async function send(
  remote: A2AClient,
  mutation: Mutation,
  authority: { controllerId: string; epoch: number; requestId: string },
  target: { contextId: string; taskId: string },
): Promise<SendResult> {
  switch (mutation.kind) {
    case 'submit': {
      const r = await remote.submit({ text: mutation.text, contextId: target.contextId, authority });
      return r.ok ? { ok: true, taskId: r.value.id } : r;
    }
    case 'intervene': {
      const r = await remote.control.intervene({ taskId: target.taskId, instruction: mutation.instruction, authority });
      return r.ok ? { ok: true, taskId: null } : r;
    }
    case 'cancel': {
      const r = await remote.cancel(target.taskId, { authority });
      return r.ok ? { ok: true, taskId: null } : r;
    }
    case 'release': {
      const r = await remote.control.leaseRelease({ contextId: target.contextId, ...authority });
      return r.ok ? { ok: true, taskId: null } : r;
    }
    case 'answer': {
      // The remote's own question gets one fenced SendMessage to that task; it creates nothing.
      const r = await remote.reply({ taskId: target.taskId, contextId: target.contextId, text: mutation.text, authority });
      return r.ok ? { ok: true, taskId: null } : r;
    }
  }
}

export function remoteRefusalCode(code: string | undefined): ApiErrorCode {
  if (code === 'lease_stale_epoch') return 'lease_stale_epoch';
  if (code === 'lease_not_held' || code === 'lease_held') return 'lease_not_held';
  return 'remote_rejected';
}

