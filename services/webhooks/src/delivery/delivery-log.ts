/**
 * The delivery log use cases (additive endpoints): a page of a subscription's deliveries, newest
 * first, and redelivery: a new delivery of the same event (same body, same webhook-id) to the same
 * subscription, with its own 3 attempts. Only the subscription's owner sees or redelivers; a
 * deleted subscription has no log (404).
 */
import { AppError } from '@tix/kit';
import { pageWindow, paginationOf, type Principal } from '@tix/protos';
import type { SubscriptionStore } from '../subscriptions/subscription-store.js';
import { reachableBy, WEBHOOK_NOT_FOUND_MESSAGE } from '../subscriptions/manage-subscriptions.js';
import type { DeliveryLogStore, DeliveryRow } from './delivery-log-store.js';

export const DELIVERY_NOT_FOUND_MESSAGE = 'Delivery not found';

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
): Promise<void> {
  if (!(await deps.subscriptions.findOwned(projectId, reachableBy(principal), webhookId))) {
    throw AppError.notFound(WEBHOOK_NOT_FOUND_MESSAGE);
  }
}

/** A page of the caller's subscription's deliveries, newest first. */
export async function listDeliveries(
  deps: DeliveryLogDeps,
  input: { projectId: number; webhookId: number; page: { page?: number; per_page?: number } | null },
  principal: Principal | null,
): Promise<{ rows: DeliveryRow[]; pagination: ReturnType<typeof paginationOf> }> {
  await ownedWebhook(deps, input.projectId, input.webhookId, principal);
  const window = pageWindow(input.page);
  const { rows, total } = await deps.deliveries.page(input.webhookId, window.offset, window.perPage);
  return { rows, pagination: paginationOf(total, window) };
}

/** Queues a redelivery of delivery `deliveryId` of the caller's subscription; answers the new delivery. */
export async function redeliver(
  deps: DeliveryLogDeps,
  input: { projectId: number; webhookId: number; deliveryId: string },
  principal: Principal | null,
): Promise<DeliveryRow> {
  if (!UUID.test(input.deliveryId)) throw AppError.badRequest('Invalid delivery id');
  await ownedWebhook(deps, input.projectId, input.webhookId, principal);
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
