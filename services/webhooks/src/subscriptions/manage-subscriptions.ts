/**
 * The subscription use cases: list the caller's, create one (validating every field and the target
 * policy, answering the secret this once), read, change (url, events, pause and resume), rotate the
 * secret, delete. A subscription belongs to the user who made it: another user's, or one in another
 * project, is answered 404 like a missing one (admins reach every one of the project).
 */
import { AppError, requirePrincipal } from '@tix/kit';
import type { Principal } from '@tix/protos';
import { TargetRefused, vetTarget, type Resolver, type TargetMode } from '../delivery/target-policy.js';
import type { SecretBox } from './secret-box.js';
import type { OwnerScope, SubscriptionStore, WebhookRow } from './subscription-store.js';
import {
  checkEvents,
  generateSecret,
  MAX_WEBHOOKS_PER_PROJECT,
  secretProblem,
  SUBSCRIPTION_MESSAGES,
} from './subscription-rules.js';

export const WEBHOOK_NOT_FOUND_MESSAGE = 'Webhook not found';
export const NOTHING_TO_CHANGE_MESSAGE = 'Give at least one of url, events, is_active';
/** Rotation overlap: how long the previous secret keeps signing unless the caller says (seconds). */
export const ROTATION_OVERLAP = { defaultSeconds: 86_400, maxSeconds: 604_800 } as const;
export const OVERLAP_MESSAGE = `overlap_seconds must be an integer from 0 to ${ROTATION_OVERLAP.maxSeconds}`;
export const WEBHOOK_DELETED_MESSAGE = 'Webhook deleted';

export interface SubscriptionDeps {
  subscriptions: SubscriptionStore;
  secrets: SecretBox;
  targetMode: TargetMode;
  resolver: Resolver;
}

export interface CreateWebhookInput {
  projectId: number;
  url: string;
  events: readonly string[];
  /** Absent: generated. */
  secret: string | undefined;
}

export const EVERY_OWNER_FOR_ADMINS_MESSAGE = "Only an admin can list every owner's webhooks";

/**
 * The subscriptions a caller reaches by id: an admin manages every subscription of the project
 * (the roles table); anyone else only their own (another's answers 404, as if absent).
 */
export function reachableBy(principal: Principal | null): OwnerScope {
  const caller = requirePrincipal(principal);
  return caller.role === 'admin' ? 'every_owner' : { userId: caller.user_id };
}

/**
 * The live subscriptions in the project: the caller's own (the spec's list), or with `allOwners`
 * every owner's, for admins (403 for anyone else).
 */
export function listWebhooks(
  deps: SubscriptionDeps,
  input: { projectId: number; allOwners: boolean },
  principal: Principal | null,
): Promise<WebhookRow[]> {
  const caller = requirePrincipal(principal);
  if (!input.allOwners) return deps.subscriptions.listOwned(input.projectId, { userId: caller.user_id });
  if (caller.role !== 'admin') throw AppError.permissionDenied(EVERY_OWNER_FOR_ADMINS_MESSAGE);
  return deps.subscriptions.listOwned(input.projectId, 'every_owner');
}

/**
 * Creates a subscription for the caller. 422 with every field's problems at once: url (syntax,
 * scheme, credentials, target policy), events (empty, unknown names), secret (format), and the
 * project's subscription limit.
 */
export async function createWebhook(
  deps: SubscriptionDeps,
  input: CreateWebhookInput,
  principal: Principal | null,
): Promise<WebhookRow & { secret: string }> {
  const userId = requirePrincipal(principal).user_id;
  const errors: Record<string, string[]> = {};
  const urlProblem = await targetProblem(deps, input.url);
  if (urlProblem) errors.url = [urlProblem];
  const events = checkEvents(input.events);
  if ('problem' in events) errors.events = [events.problem];
  const secret = input.secret ?? generateSecret();
  const problem = input.secret === undefined ? null : secretProblem(input.secret);
  if (problem) errors.secret = [problem];
  if (Object.keys(errors).length > 0 || 'problem' in events) throw AppError.validation(errors);

  const row = await deps.subscriptions.insert({
    projectId: input.projectId,
    userId,
    url: input.url,
    events: events.events,
    sealedSecret: deps.secrets.seal(secret),
    projectLimit: MAX_WEBHOOKS_PER_PROJECT,
  });
  if (!row) throw AppError.validation({ project_id: [SUBSCRIPTION_MESSAGES.projectFull] });
  return { ...row, secret };
}

/** Deletes a subscription the caller reaches; 404 when it is not theirs (nor an admin's to manage), not in the project, or gone. */
export async function deleteWebhook(
  deps: SubscriptionDeps,
  input: { projectId: number; id: number },
  principal: Principal | null,
): Promise<{ message: string }> {
  const deleted = await deps.subscriptions.deleteOwned(input.projectId, reachableBy(principal), input.id);
  if (!deleted) throw AppError.notFound(WEBHOOK_NOT_FOUND_MESSAGE);
  return { message: WEBHOOK_DELETED_MESSAGE };
}

/** Why the target policy refuses `url` (create and PATCH alike), or null. */
async function targetProblem(deps: SubscriptionDeps, url: string): Promise<string | null> {
  try {
    await vetTarget(url, deps.targetMode, deps.resolver);
    return null;
  } catch (error) {
    if (!(error instanceof TargetRefused)) throw error;
    return error.message;
  }
}

/** One subscription the caller reaches (never its secret); 404 otherwise. */
export async function getWebhook(
  deps: SubscriptionDeps,
  input: { projectId: number; id: number },
  principal: Principal | null,
): Promise<WebhookRow> {
  const row = await deps.subscriptions.findOwned(input.projectId, reachableBy(principal), input.id);
  if (!row) throw AppError.notFound(WEBHOOK_NOT_FOUND_MESSAGE);
  return row;
}

export interface UpdateWebhookInput {
  projectId: number;
  id: number;
  url?: string | undefined;
  events?: readonly string[] | undefined;
  isActive?: boolean | undefined;
}

/**
 * Changes what is given of url, events and is_active, validated as create validates them (422 with
 * every field's problems; the URL through the same target policy). Pausing ends the pending
 * deliveries as failed; events while paused are not queued. 404 as for delete.
 */
export async function updateWebhook(
  deps: SubscriptionDeps,
  input: UpdateWebhookInput,
  principal: Principal | null,
): Promise<WebhookRow> {
  const owner = reachableBy(principal);
  if (input.url === undefined && input.events === undefined && input.isActive === undefined) {
    throw AppError.validation({ body: [NOTHING_TO_CHANGE_MESSAGE] });
  }
  // 404 before 422: a caller learns nothing about the fields of a subscription it cannot reach.
  if (!(await deps.subscriptions.findOwned(input.projectId, owner, input.id))) {
    throw AppError.notFound(WEBHOOK_NOT_FOUND_MESSAGE);
  }
  const errors: Record<string, string[]> = {};
  if (input.url !== undefined) {
    const problem = await targetProblem(deps, input.url);
    if (problem) errors.url = [problem];
  }
  const events = input.events === undefined ? undefined : checkEvents(input.events);
  if (events && 'problem' in events) errors.events = [events.problem];
  if (Object.keys(errors).length > 0) throw AppError.validation(errors);

  const row = await deps.subscriptions.updateOwned(input.projectId, owner, input.id, {
    ...(input.url === undefined ? {} : { url: input.url }),
    ...(events && 'events' in events ? { events: events.events } : {}),
    ...(input.isActive === undefined ? {} : { isActive: input.isActive }),
  });
  if (!row) throw AppError.notFound(WEBHOOK_NOT_FOUND_MESSAGE);
  return row;
}

/**
 * A new generated secret for the subscription, answered this once. The replaced secret keeps
 * signing `webhook-signature` beside the new one for `overlapSeconds` (default a day, at most 7).
 */
export async function rotateWebhookSecret(
  deps: SubscriptionDeps,
  input: { projectId: number; id: number; overlapSeconds: number | undefined },
  principal: Principal | null,
): Promise<WebhookRow & { secret: string }> {
  const overlap = input.overlapSeconds ?? ROTATION_OVERLAP.defaultSeconds;
  if (!Number.isInteger(overlap) || overlap < 0 || overlap > ROTATION_OVERLAP.maxSeconds) {
    throw AppError.validation({ overlap_seconds: [OVERLAP_MESSAGE] });
  }
  const secret = generateSecret();
  const row = await deps.subscriptions.rotateSecret(
    input.projectId,
    reachableBy(principal),
    input.id,
    deps.secrets.seal(secret),
    overlap,
  );
  if (!row) throw AppError.notFound(WEBHOOK_NOT_FOUND_MESSAGE);
  return { ...row, secret };
}
