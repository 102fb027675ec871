/**
 * Capability detection: a pure function from the agent card to the nine logical capabilities.
 * Standard A2A gives discover, status and evidence. Every mutation needs the control
 * extension with epoch enforcement, because a mutation without a fenced lease cannot be told
 * apart from one sent by a stale controller. Missing means unsupported, never faked.
 * @module
 */
import { z } from 'zod';
import { CONTROL_EXTENSION_URI, type ControlExtensionParams } from './control-contract.js';
import type { AgentCard } from './card.js';

export const CAPABILITY_NAMES = [
  'discover',
  'submit',
  'status',
  'evidence',
  'claim_control',
  'renew_control',
  'release_control',
  'intervene',
  'cancel',
] as const;
export type CapabilityName = (typeof CAPABILITY_NAMES)[number];
export type CapabilityMap = Record<CapabilityName, boolean>;

export interface CapabilityReport {
  capabilities: CapabilityMap;
  /** The card declares the control extension URI (whether or not its params are usable). */
  controlExtension: boolean;
  /** Lease claim and renew with epoch enforcement: the minimum for any fenced mutation. */
  mutationsEnabled: boolean;
  /** The capabilities that are false, in CAPABILITY_NAMES order. */
  unsupported: CapabilityName[];
  /** The extension's params when they parse; absent otherwise. */
  controlParams?: ControlExtensionParams;
}

const controlParamsSchema = z.object({
  methods: z.array(z.string()).default([]),
  mutations: z.array(z.string()).default([]),
  epochEnforcement: z.boolean().default(false),
  requestReadback: z.boolean().default(false),
  leaseScope: z.literal('context').default('context'),
});

/**
 * @example detectCapabilities(plainCard).mutationsEnabled // false: read-only observation
 */
export function detectCapabilities(card: AgentCard): CapabilityReport {
  const declared = card.capabilities?.extensions?.find((e) => e.uri === CONTROL_EXTENSION_URI);
  const parsed = declared ? controlParamsSchema.safeParse(declared.params ?? {}) : undefined;
  const params: ControlExtensionParams | undefined = parsed?.success ? parsed.data : undefined;

  const fenced = params?.epochEnforcement === true;
  const method = (name: string) => fenced && params.methods.includes(name);
  // Authority is only as good as its readback: without lease.get a claim could not be verified.
  const readback = method('lease.get');
  const claim = method('lease.claim') && readback;
  const renew = method('lease.renew') && readback;
  const mutationsEnabled = claim && renew;
  const mutation = (name: string) => mutationsEnabled && params !== undefined && params.mutations.includes(name);

  const capabilities: CapabilityMap = {
    discover: true,
    submit: mutation('submit'),
    status: true,
    evidence: true,
    claim_control: claim,
    renew_control: renew,
    release_control: method('lease.release') && readback,
    intervene: mutation('intervene') && method('intervene'),
    cancel: mutation('cancel'),
  };
  const report: CapabilityReport = {
    capabilities,
    controlExtension: declared !== undefined,
    mutationsEnabled,
    unsupported: CAPABILITY_NAMES.filter((name) => !capabilities[name]),
  };
  if (params) report.controlParams = params;
  return report;
}
