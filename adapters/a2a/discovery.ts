/**
 * Discovery: find the agent card, decide the dialect and the JSON-RPC endpoint, detect what
 * the remote can do. Cards are tried under the configured base first (`agent-card.json`, then
 * the ≤0.2 `agent.json`), then at the origin root, all on the one configured origin.
 * @module
 */
import { cardCandidates, resolveRpcPath, type BaseUrl } from './base-url.js';
import { detectCapabilities, type CapabilityMap, type CapabilityName } from './capabilities.js';
import { agentCardSchema, selectEndpoint, type ProtocolVersion } from './card.js';
import type { ControlExtensionParams } from './control-contract.js';
import { err, ok, remoteError, type RemoteError, type Result } from './errors.js';
import type { RequestHeaders, HttpTransport } from './http.js';
import { REMOTE_TEXT_CAPS, sanitizeRemoteText } from './sanitize.js';

/** What the client learned about the remote; the probe prints most of it. */
export interface RemoteDescription {
  protocolVersion: ProtocolVersion;
  /** Where JSON-RPC calls go; always on the configured origin. */
  rpcUrl: string;
  agentName: string;
  capabilities: CapabilityMap;
  controlExtension: boolean;
  mutationsEnabled: boolean;
  unsupported: CapabilityName[];
  controlParams?: ControlExtensionParams;
}

/** Errors that only say "not here": try the next card location. */
const TRY_NEXT = new Set(['remote_http_status', 'remote_malformed', 'remote_redirect_refused', 'remote_too_large']);

/**
 * Fetches and interprets the agent card. Auth failures, timeouts and unreachable hosts stop
 * the search at once: the other locations are on the same origin and would fail the same way.
 */
export async function discoverRemote(
  http: HttpTransport,
  base: BaseUrl,
  headers: RequestHeaders,
  secrets: readonly string[],
): Promise<Result<RemoteDescription>> {
  let firstInformative: RemoteError | undefined;
  const remember = (e: RemoteError) => {
    if (e.httpStatus !== 404 && firstInformative === undefined) firstInformative = e;
  };

  for (const path of cardCandidates(base)) {
    const reply = await http.request('GET', path, headers);
    if (!reply.ok) {
      if (!TRY_NEXT.has(reply.error.code)) return reply;
      remember(reply.error);
      continue;
    }
    const { status, body, parsed } = reply.value;
    if (status < 200 || status >= 300) {
      remember(remoteError('remote_http_status', `the agent card request answered HTTP ${status}`, 'rejected', { httpStatus: status }));
      continue;
    }
    const card = parsed ? agentCardSchema.safeParse(body) : undefined;
    if (!card?.success) {
      remember(remoteError('remote_malformed', 'the agent card is not valid JSON of the expected shape', 'rejected'));
      continue;
    }
    const endpoint = selectEndpoint(card.data);
    if (!endpoint) {
      remember(remoteError('remote_malformed', 'the agent card offers no JSON-RPC interface for A2A 1.0, 0.3 or 0.2', 'rejected'));
      continue;
    }
    const report = detectCapabilities(card.data);
    return ok({
      protocolVersion: endpoint.protocolVersion,
      rpcUrl: `${base.origin}${resolveRpcPath(base, endpoint.advertisedUrl)}`,
      agentName: sanitizeRemoteText(card.data.name, secrets, REMOTE_TEXT_CAPS.cardName),
      ...report,
    });
  }
  return err(
    firstInformative ??
      remoteError('remote_http_status', 'no agent card was found under the base URL or at the origin root', 'rejected', {
        httpStatus: 404,
      }),
  );
}
