/**
 * Spec Authentication 2: API keys work only on the API host. A request to the app (session) host
 * that presents one is refused with 401 and the spec's exact message, whatever its path.
 */
import type { RequestHandler } from 'express';
import { AppError } from '@tix/kit';
import { readApiKey } from './authenticate-api-key.js';

export const API_KEY_ON_APP_HOST_MESSAGE = 'API key authentication is only available on the API subdomain';

/** Refuses API keys on the app role; passes everything else. */
export function apiKeyOnlyOnApiHost(): RequestHandler {
  return (request, _response, next) => {
    if (request.hostRole === 'app' && readApiKey(request) !== null) {
      throw AppError.unauthenticated(API_KEY_ON_APP_HOST_MESSAGE);
    }
    next();
  };
}
