/** How the CLI tells a service's refusal from a service that did not answer, and prints each. */
import { GENERIC_MESSAGES, type AppError } from '@tix/kit';

/** A service the command needs is not deployed or did not answer; the message names it (exit 3). */
export class ServiceUnreachable extends Error {
  override readonly name = 'ServiceUnreachable';
}

/** True when the call failed in transport (no tix error metadata came back), not by the service's decision. */
export function isTransportFailure(error: AppError): boolean {
  return (
    (error.kind === 'unavailable' || error.kind === 'timeout') &&
    error.message === GENERIC_MESSAGES[error.kind]
  );
}

/** "did not get an answer from" or "cannot reach", for a transport failure. */
export function transportProblem(error: AppError): string {
  return error.kind === 'timeout' ? 'did not get an answer from' : 'cannot reach';
}

/** The refusal's message, status and validation errors, one per line. */
export function describeServiceError(error: AppError): string {
  const lines = [`tix: ${error.message} (${error.httpStatus} ${error.kind})`];
  for (const [field, messages] of Object.entries(error.validationErrors ?? {})) {
    for (const message of Array.isArray(messages) ? messages : [messages])
      lines.push(`  ${field}: ${String(message)}`);
  }
  return `${lines.join('\n')}\n`;
}
