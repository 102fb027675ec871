/**
 * A JSON-RPC error raised by the simulator's own logic (control extension, 0.2 dialect).
 * The HTTP layer turns it into `{error: {code, message}}`; the SDK never sees it.
 * @module
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** Standard JSON-RPC and A2A core codes the simulator raises itself. */
export const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  unsupportedOperation: -32004,
} as const;
