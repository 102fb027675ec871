/**
 * The agent card, read tolerantly: only the fields that decide the dialect, the endpoint and
 * the control extension are parsed; everything else a remote publishes is ignored.
 * @module
 */
import { z } from 'zod';

export type ProtocolVersion = '1.0' | '0.3' | '0.2.5';

const extensionSchema = z.object({
  uri: z.string(),
  required: z.boolean().optional(),
  params: z.record(z.string(), z.unknown()).nullish(),
});

export const agentCardSchema = z.object({
  name: z.string().default('unnamed agent'),
  /** 0.2.x/0.3: top-level version and endpoint. */
  protocolVersion: z.string().optional(),
  url: z.string().optional(),
  preferredTransport: z.string().optional(),
  additionalInterfaces: z.array(z.object({ url: z.string(), transport: z.string() })).optional(),
  /** 1.0: every endpoint with its binding and protocol version. */
  supportedInterfaces: z
    .array(z.object({ url: z.string(), protocolBinding: z.string(), protocolVersion: z.string().optional() }))
    .optional(),
  capabilities: z.object({ extensions: z.array(extensionSchema).nullish() }).nullish(),
});
export type AgentCard = z.infer<typeof agentCardSchema>;

/** What the card says about how to talk to the agent. */
export interface Endpoint {
  protocolVersion: ProtocolVersion;
  /** The advertised JSON-RPC URL, if the card names one (resolved against the base by the caller). */
  advertisedUrl: string | undefined;
}

const isJsonRpc = (binding: string | undefined) => binding === undefined || binding.toUpperCase() === 'JSONRPC';

/**
 * Picks the newest JSON-RPC interface the card offers. Returns null when it offers none this
 * client speaks (for example a gRPC-only 1.0 card).
 */
export function selectEndpoint(card: AgentCard): Endpoint | null {
  const interfaces = card.supportedInterfaces ?? [];
  const v1 = interfaces.find((i) => isJsonRpc(i.protocolBinding) && i.protocolVersion?.startsWith('1.'));
  if (v1) return { protocolVersion: '1.0', advertisedUrl: v1.url };
  const v03 = interfaces.find((i) => isJsonRpc(i.protocolBinding) && i.protocolVersion?.startsWith('0.3'));
  if (v03) return { protocolVersion: '0.3', advertisedUrl: v03.url };

  const version = card.protocolVersion;
  const legacy: ProtocolVersion | null =
    version === undefined || version.startsWith('0.2') ? '0.2.5' : version.startsWith('0.3') ? '0.3' : version.startsWith('1.') ? '1.0' : null;
  if (legacy === null) return null;
  if (isJsonRpc(card.preferredTransport) && card.url !== undefined) return { protocolVersion: legacy, advertisedUrl: card.url };
  const extra = card.additionalInterfaces?.find((i) => isJsonRpc(i.transport));
  if (extra) return { protocolVersion: legacy, advertisedUrl: extra.url };
  // A legacy card that names no endpoint at all is still served at the mount root.
  if (card.url === undefined && interfaces.length === 0) return { protocolVersion: legacy, advertisedUrl: undefined };
  return null;
}
