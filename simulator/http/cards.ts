/**
 * Agent cards per dialect. 1.0 is the SDK's proto card (served by its agentCardHandler);
 * 0.3 and 0.2.5 are the JSON shapes those generations published, written out by hand so
 * they look exactly like a server of that generation (0.2.5: FastA2A's card at the origin
 * root `agent.json`, with the endpoint under `url`).
 * @module
 */
import type { AgentCard, AgentExtension } from '@a2a-js/sdk';
import {
  CONTROL_EXTENSION_URI,
  CONTROL_METHOD_NAMES,
  FENCED_MUTATIONS,
  type ControlExtensionParams,
} from '../../adapters/a2a/control-contract.js';

export interface CardInputs {
  origin: string;
  control: boolean;
  advertiseEpochEnforcement: boolean;
  secured: boolean;
}

const NAME = 'OpenTraining (simulated)';
const DESCRIPTION = 'Simulated remote ML-training agent: runs training campaigns as long-running A2A tasks.';
const VERSION = '1.0.0-sim';
const MODES = ['text/plain', 'application/json'];
const SKILL = {
  id: 'run-training',
  name: 'Run a training campaign',
  description: 'Prepares data, trains, evaluates and reports; one task per attempt, one context per campaign.',
  tags: ['training', 'ml', 'evaluation'],
};
const EXTENSION_DESCRIPTION = 'Controller lease, epoch fencing and request readback';

export const v1RpcUrl = (origin: string) => `${origin}/a2a/jsonrpc`;
export const v02RpcUrl = (origin: string) => `${origin}/a2a/`;

function extensionParams(inputs: CardInputs): ControlExtensionParams {
  return {
    methods: [...CONTROL_METHOD_NAMES],
    mutations: [...FENCED_MUTATIONS],
    epochEnforcement: inputs.advertiseEpochEnforcement,
    requestReadback: true,
    leaseScope: 'context',
  };
}

const jsonExtensions = (inputs: CardInputs) =>
  inputs.control ? [{ uri: CONTROL_EXTENSION_URI, description: EXTENSION_DESCRIPTION, required: false, params: extensionParams(inputs) }] : [];

/** The SDK-side card. For 0.3 it names a 0.3 JSONRPC interface, which the SDK's legacy path requires. */
export function protoCard(inputs: CardInputs, protocolVersion: '1.0' | '0.3'): AgentCard {
  const extensions: AgentExtension[] = inputs.control
    ? [{ uri: CONTROL_EXTENSION_URI, description: EXTENSION_DESCRIPTION, required: false, params: { ...extensionParams(inputs) } }]
    : [];
  return {
    name: NAME,
    description: DESCRIPTION,
    supportedInterfaces: [{ url: v1RpcUrl(inputs.origin), protocolBinding: 'JSONRPC', tenant: '', protocolVersion }],
    provider: undefined,
    version: VERSION,
    capabilities: { streaming: false, pushNotifications: false, extensions, extendedAgentCard: false },
    securitySchemes: inputs.secured
      ? {
          bearer: { scheme: { $case: 'httpAuthSecurityScheme', value: { description: 'Bearer token', scheme: 'Bearer', bearerFormat: '' } } },
          apiKey: { scheme: { $case: 'apiKeySecurityScheme', value: { description: 'API key', location: 'header', name: 'X-API-KEY' } } },
        }
      : {},
    securityRequirements: inputs.secured ? [{ schemes: { bearer: { list: [] } } }, { schemes: { apiKey: { list: [] } } }] : [],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: [{ ...SKILL, examples: [], inputModes: [], outputModes: [], securityRequirements: [] }],
    signatures: [],
  };
}

const legacySecurity = (inputs: CardInputs) =>
  inputs.secured
    ? {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
        },
        security: [{ bearer: [] }, { apiKey: [] }],
      }
    : {};

export function v03Card(inputs: CardInputs): Record<string, unknown> {
  return {
    protocolVersion: '0.3.0',
    name: NAME,
    description: DESCRIPTION,
    url: v1RpcUrl(inputs.origin),
    preferredTransport: 'JSONRPC',
    version: VERSION,
    capabilities: { streaming: false, pushNotifications: false, extensions: jsonExtensions(inputs) },
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: [SKILL],
    ...legacySecurity(inputs),
  };
}

export function v02Card(inputs: CardInputs): Record<string, unknown> {
  return {
    name: NAME,
    description: DESCRIPTION,
    url: v02RpcUrl(inputs.origin),
    version: VERSION,
    protocolVersion: '0.2.5',
    capabilities: { streaming: false, pushNotifications: false, stateTransitionHistory: false, extensions: jsonExtensions(inputs) },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: [SKILL],
    ...legacySecurity(inputs),
  };
}
