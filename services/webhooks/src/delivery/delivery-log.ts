/**
 * The delivery log use cases (additive endpoints): a page of a subscription's deliveries, newest
 * first, filtered by status, event type and creation time; redelivery: a new delivery of the same
 * event (same body, same webhook-id) to the same subscription, with its own 3 attempts, one at a
 * time or every failed one since a time (bounded per call). Only the subscription's owner (or an
 * admin) sees or redelivers; a deleted subscription has no log (404), a paused one takes no
 * redelivery (409: it would not be sent).
 */
import { AppError } from '@tix/kit';
import {
  MAX_BULK_REDELIVERIES,
  pageWindow,
  paginationOf,
  SUBSCRIBABLE_EVENT_TYPES,
  type Principal,
} from '@tix/protos';
import type { SubscriptionStore, WebhookRow } from '../subscriptions/subscription-store.js';
import { reachableBy, WEBHOOK_NOT_FOUND_MESSAGE } from '../subscriptions/manage-subscriptions.js';
import type { DeliveryFilter, DeliveryLogStore, DeliveryRow } from './delivery-log-store.js';

export const DELIVERY_NOT_FOUND_MESSAGE = 'Delivery not found';
export const WEBHOOK_PAUSED_MESSAGE = 'Webhook is paused; resume it (is_active: true) to redeliver';
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export const FILTER_MESSAGES = {
  status: `status must be one of ${DELIVERY_STATUSES.join(', ')}`,
  event: `event must be one of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`,
  since: 'since must be an ISO 8601 date-time such as 2026-05-02T10:11:00Z',
  until: 'until must be an ISO 8601 date-time such as 2026-05-02T10:11:00Z',
  order: 'since must be before until',
} as const;

/** A time given as text (the gateway checked its form; gRPC callers may not have). */
function validTime(text: string | undefined, message: string): string | undefined {
  if (text === undefined) return undefined;
  const time = new Date(text);
  if (Number.isNaN(time.getTime()) || time.getUTCFullYear() < 1) throw AppError.badRequest(message);
  return time.toISOString();
}

/** The filter as given, or 400 naming the first bad value. */
export function checkFilter(filter: DeliveryFilter): DeliveryFilter {
  if (filter.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(filter.status)) {
    throw AppError.badRequest(FILTER_MESSAGES.status);
  }
  if (filter.event !== undefined && !(SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(filter.event)) {
    throw AppError.badRequest(FILTER_MESSAGES.event);
  }
  const since = validTime(filter.since, FILTER_MESSAGES.since);
  const until = validTime(filter.until, FILTER_MESSAGES.until);
  if (since !== undefined && until !== undefined && since >= until) {
    throw AppError.badRequest(FILTER_MESSAGES.order);
  }
  return { status: filter.status, event: filter.event, since, until };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface DeliveryLogDeps {
  subscriptions: SubscriptionStore;
  deliveries: DeliveryLogStore;
  /** Wakes the delivery workers (a redelivery is due at once). */
  onQueued: () => void;
}

async function ownedWebhook(
  deps: DeliveryLogDeps,
  projectId: number,
  webhookId: number,
  principal: Principal | null,
): Promise<WebhookRow> {
  const hook = await deps.subscriptions.findOwned(projectId, reachableBy(principal), webhookId);
  if (!hook) throw AppError.notFound(WEBHOOK_NOT_FOUND_MESSAGE);
  return hook;
}

/** A page of the caller's subscription's deliveries matching `filter`, newest first. */
export async function listDeliveries(
  deps: DeliveryLogDeps,
  input: {
    projectId: number;
    webhookId: number;
    page: { page?: number; per_page?: number } | null;
    filter?: DeliveryFilter;
  },
  principal: Principal | null,
): Promise<{ rows: DeliveryRow[]; pagination: ReturnType<typeof paginationOf> }> {
  const filter = checkFilter(input.filter ?? {});
  await ownedWebhook(deps, input.projectId, input.webhookId, principal);
  const window = pageWindow(input.page);
  const { rows, total } = await deps.deliveries.page(input.webhookId, filter, window.offset, window.perPage);
  return { rows, pagination: paginationOf(total, window) };
}

/**
 * Queues a redelivery of the subscription's failed deliveries since `since` (see
 * DeliveryLogStore.redeliverFailed), at most MAX_BULK_REDELIVERIES per call.
 */
export async function redeliverFailed(
  deps: DeliveryLogDeps,
  input: { projectId: number; webhookId: number; since: string },
  principal: Principal | null,
): Promise<{ queued: number; remaining: number }> {
  // A body field: its problems are 422s naming it, as the gateway's validation answers them.
  const time = new Date(input.since);
  if (input.since === '' || Number.isNaN(time.getTime()) || time.getUTCFullYear() < 1) {
    throw AppError.validation({ since: [FILTER_MESSAGES.since] });
  }
  const since = time.toISOString();
  const hook = await ownedWebhook(deps, input.projectId, input.webhookId, principal);
  if (!hook.is_active) throw AppError.conflict(WEBHOOK_PAUSED_MESSAGE);
  const result = await deps.deliveries.redeliverFailed(input.webhookId, since, MAX_BULK_REDELIVERIES);
  if (result.queued > 0) deps.onQueued();
  return result;
}

/** Queues a redelivery of delivery `deliveryId` of the caller's subscription; answers the new delivery. */
export async function redeliver(
  deps: DeliveryLogDeps,
  input: { projectId: number; webhookId: number; deliveryId: string },
  principal: Principal | null,
): Promise<DeliveryRow> {
  if (!UUID.test(input.deliveryId)) throw AppError.badRequest('Invalid delivery id');
  const hook = await ownedWebhook(deps, input.projectId, input.webhookId, principal);
  if (!hook.is_active) throw AppError.conflict(WEBHOOK_PAUSED_MESSAGE);
  const original = await deps.deliveries.find(input.webhookId, input.deliveryId);
  if (!original) throw AppError.notFound(DELIVERY_NOT_FOUND_MESSAGE);
  const queued = await deps.deliveries.queueRedelivery(
    input.webhookId,
    original.event_id,
    original.event_type,
  );
  deps.onQueued();
  return queued;
}
