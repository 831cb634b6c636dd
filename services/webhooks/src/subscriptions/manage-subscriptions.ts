/**
 * The subscription use cases: list the caller's, create one (validating every field and the target
 * policy, answering the secret this once), delete one. A subscription belongs to the user who made
 * it: another user's, or one in another project, is answered 404 like a missing one.
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
  try {
    await vetTarget(input.url, deps.targetMode, deps.resolver);
  } catch (error) {
    if (!(error instanceof TargetRefused)) throw error;
    errors.url = [error.message];
  }
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
