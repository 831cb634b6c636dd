/** SQL for subscriptions (the webhooks table): the only module that reads or writes it for the API. */
import type pg from 'pg';
import { prepared } from '../db.js';

export interface WebhookRow {
  id: number;
  project_id: number;
  user_id: number;
  url: string;
  events: string[];
  is_active: boolean;
  created_at: Date;
}

export interface NewWebhook {
  projectId: number;
  userId: number;
  url: string;
  events: string[];
  /** The secret as SecretBox.seal stored it. */
  sealedSecret: string;
  /** Live subscriptions a project may have; the insert is refused past it. */
  projectLimit: number;
}

/** Whose subscriptions a call reaches: one user's, or (an admin's calls) every owner's in the project. */
export type OwnerScope = { userId: number } | 'every_owner';

export interface SubscriptionStore {
  /** The live subscriptions of `owner` in the project, oldest first. */
  listOwned(projectId: number, owner: OwnerScope): Promise<WebhookRow[]>;
  /** Inserts a subscription; null when the project already has `projectLimit` live ones. */
  insert(webhook: NewWebhook): Promise<WebhookRow | null>;
  /** The live subscription `id` of `owner` in the project, or null. */
  findOwned(projectId: number, owner: OwnerScope, id: number): Promise<WebhookRow | null>;
  /**
   * Deletes the live subscription `id` of `owner` in the project (soft: the row stays for the log
   * until retention removes it, its secret is wiped now); false when there is no such subscription.
   */
  deleteOwned(projectId: number, owner: OwnerScope, id: number): Promise<boolean>;
}

/** The `user_id` parameter of an owner filter: NULL matches every owner. */
const ownerParameter = (owner: OwnerScope): number | null => (owner === 'every_owner' ? null : owner.userId);

const COLUMNS = 'id, project_id, user_id, url, events, is_active, created_at';

/** The store over `pool`. */
export function createSubscriptionStore(pool: pg.Pool): SubscriptionStore {
  return {
    async listOwned(projectId, owner) {
      const { rows } = await pool.query<WebhookRow>(
        prepared(
          `SELECT ${COLUMNS} FROM webhooks
            WHERE project_id = $1 AND ($2::int IS NULL OR user_id = $2) AND deleted_at IS NULL ORDER BY id`,
          [projectId, ownerParameter(owner)],
        ),
      );
      return rows;
    },

    async insert(webhook) {
      const { rows } = await pool.query<WebhookRow>(
        prepared(
          `INSERT INTO webhooks (project_id, user_id, url, events, secret)
           SELECT $1, $2, $3, $4::text[], $5
            WHERE (SELECT count(*) FROM webhooks WHERE project_id = $1 AND deleted_at IS NULL) < $6
           RETURNING ${COLUMNS}`,
          [
            webhook.projectId,
            webhook.userId,
            webhook.url,
            webhook.events,
            webhook.sealedSecret,
            webhook.projectLimit,
          ],
        ),
      );
      return rows[0] ?? null;
    },

    async findOwned(projectId, owner, id) {
      const { rows } = await pool.query<WebhookRow>(
        prepared(
          `SELECT ${COLUMNS} FROM webhooks
            WHERE id = $3 AND project_id = $1 AND ($2::int IS NULL OR user_id = $2) AND deleted_at IS NULL`,
          [projectId, ownerParameter(owner), id],
        ),
      );
      return rows[0] ?? null;
    },

    async deleteOwned(projectId, owner, id) {
      // Its pending deliveries end with it (they are never claimed again); the workers also check
      // right before each attempt, for those already in memory.
      const { rows } = await pool.query<{ deleted: number }>(
        prepared(
          `WITH gone AS (
             UPDATE webhooks SET deleted_at = now(), is_active = false, secret = 'deleted:'
              WHERE id = $3 AND project_id = $1 AND ($2::int IS NULL OR user_id = $2) AND deleted_at IS NULL
             RETURNING id
           ), ended AS (
             UPDATE deliveries SET status = 'failed', updated_at = now()
              WHERE webhook_id IN (SELECT id FROM gone) AND status = 'pending'
           )
           SELECT count(*)::int AS deleted FROM gone`,
          [projectId, ownerParameter(owner), id],
        ),
      );
      return rows[0]?.deleted === 1;
    },
  };
}
