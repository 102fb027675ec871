/**
 * An operator's text (objective, answer, instruction, reason) that carries our own API key or
 * the remote's token is refused at the API edge, before anything is stored, shown, sent or
 * handed to a model: a pasted credential would otherwise live in the document and every view.
 * @module
 */
import { containsSecret } from '../../adapters/argus/argus-env.js';
import { apiError, type ApiError } from '../contract/api-errors.js';

const SECRET_IN_REQUEST = "A text field carries this service's own credential (its API key or the remote's token); nothing was stored or sent.";

/** The refusal for a request whose text fields carry one of `secrets` (any case), else null. */
export function secretInRequest(req: object, secrets: readonly (string | null)[]): ApiError | null {
  const known = secrets.filter((s): s is string => s !== null && s !== '');
  const texts = Object.values(req).filter((v): v is string => typeof v === 'string');
  return known.length > 0 && containsSecret(texts, known) ? apiError('invalid_request', SECRET_IN_REQUEST) : null;
}
