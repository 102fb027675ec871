/**
 * The Argus adapter: the only way this service talks to Argus (its stdio MCP server). Of the
 * A2A adapter it may reach the remote-text boundary (`sanitize.ts`, `remote-fields.ts`) and
 * nothing else, so no path leads from Argus to a mutation (dependency-cruiser rule
 * `argus-reaches-only-sanitize`).
 * @module
 */
export { ArgusConfigError, campaignWorkdir, resolveArgusHome } from './argus-home.js';
export { BACKEND_VARIABLES, buildArgusEnv, type ArgusEnvInput } from './argus-env.js';
export { ARGUS_TEXT_CAPS, type ArgusStatus, type ArgusTurn, type Outcome } from './argus-results.js';
export { ArgusEnvelopeError, buildDecisionEnvelope, buildOperatorAnswerEnvelope } from './envelope.js';
export { EVENT_KEY_PATTERN, eventKeyFileName, readProposal, type Proposal, type ProposalRead } from './proposal-file.js';
export { createArgusBridge, DEFAULT_ARGUS_CALL_TIMEOUT_MS, type ArgusBridge, type ArgusBridgeOptions } from './argus-client.js';

/** The argv of the real Argus MCP server after the interpreter (`ARGUS_SUPERVISOR_ARGUS_PYTHON`). */
export const ARGUS_MCP_ARGS: readonly string[] = ['-m', 'argus_skill.plugin.mcp_server'];
