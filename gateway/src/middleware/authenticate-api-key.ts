/**
 * API key authentication on the API host: `Authorization: Bearer <key>` (or `X-API-Key: <key>`).
 * No key -> 401 `API key required`; a malformed, unknown or revoked key -> 401 `Invalid API key`.
 * The principal it establishes travels with every service call of the request.
 */
import type { Request, RequestHandler } from 'express';
import { AppError } from '@tix/kit';
import type { ApiKeyAuthenticator } from '../auth/api-key-authenticator.js';

export const API_KEY_REQUIRED_MESSAGE = 'API key required';

const BEARER = /^Bearer(?:\s+(.*))?$/i;

/**
 * The API key a request presents: the Bearer token, else X-API-Key; '' when one is presented but
 * empty; null when the request presents none (other Authorization schemes are not API keys).
 */
export function readApiKey(request: Request): string | null {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const match = BEARER.exec(authorization.trim());
    if (match) return (match[1] ?? '').trim();
  }
  const header = request.headers['x-api-key'];
  if (typeof header === 'string') return header.trim();
  return null;
}

/** Authenticates the request's API key and sets request.principal. */
export function authenticateApiKey(authenticator: ApiKeyAuthenticator): RequestHandler {
  return async (request, response, next) => {
    const key = readApiKey(request);
    if (key === null) {
      response.setHeader('WWW-Authenticate', 'Bearer');
      throw AppError.unauthenticated(API_KEY_REQUIRED_MESSAGE);
    }
    try {
      request.principal = await authenticator.authenticate(key, request.correlationId);
    } catch (error) {
      if (error instanceof AppError && error.kind === 'unauthenticated') {
        response.setHeader('WWW-Authenticate', 'Bearer error="invalid_token"');
      }
      throw error;
    }
    next();
  };
}
