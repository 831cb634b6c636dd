/** The one assertion for the spec's error envelope, shared by the gateway's tests and the e2e suite. */
import { expect } from 'chai';

/** What both test HTTP clients answer: the status, the decoded body, and (e2e) the raw text. */
export interface EnvelopeResponse {
  status: number;
  body: unknown;
  text?: string;
}

/**
 * Asserts the response is exactly `{ ok: false, error: { code, message[, validation_errors] } }`
 * with `code` as its HTTP status. `message` may be a pattern for messages that carry a value.
 * `validation`: the whole `validation_errors` object, or just the fields it must name; without it
 * the error must carry none.
 */
export function expectError(
  response: EnvelopeResponse,
  code: number,
  message: string | RegExp,
  validation?: Record<string, unknown> | readonly string[],
): void {
  const shown = response.text ?? JSON.stringify(response.body);
  expect(response.status, shown).to.equal(code);
  const body = response.body as { ok?: unknown; error?: Record<string, unknown> } | undefined;
  expect(body && Object.keys(body).sort(), shown).to.deep.equal(['error', 'ok']);
  expect(body!.ok, shown).to.equal(false);
  const { validation_errors: fields, ...error } = body!.error ?? {};
  if (typeof message === 'string') {
    expect(error, shown).to.deep.equal({ code, message });
  } else {
    expect(Object.keys(error).sort(), shown).to.deep.equal(['code', 'message']);
    expect(error.code, shown).to.equal(code);
    expect(error.message, shown).to.match(message);
  }
  if (validation === undefined) expect(fields, shown).to.equal(undefined);
  else if (Array.isArray(validation)) expect(Object.keys(fields ?? {}), shown).to.have.members(validation);
  else expect(fields, shown).to.deep.equal(validation);
}
