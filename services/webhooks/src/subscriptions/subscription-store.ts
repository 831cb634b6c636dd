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

export interface SubscriptionStore {
  /** The user's live subscriptions in the project, oldest first. */
  listOwned(projectId: number, userId: number): Promise<WebhookRow[]>;
  /** Inserts a subscription; null when the project already has `projectLimit` live ones. */
  insert(webhook: NewWebhook): Promise<WebhookRow | null>;
  /** The user's live subscription `id` in the project, or null. */
  findOwned(projectId: number, userId: number, id: number): Promise<WebhookRow | null>;
  /**
   * Deletes the user's live subscription `id` in the project (soft: the row stays for the log until
   * retention removes it, its secret is wiped now); false when there is no such subscription.
   */
  deleteOwned(projectId: number, userId: number, id: number): Promise<boolean>;
}

const COLUMNS = 'id, project_id, user_id, url, events, is_active, created_at';

/** The store over `pool`. */
export function createSubscriptionStore(pool: pg.Pool): SubscriptionStore {
  return {
    async listOwned(projectId, userId) {
      const { rows } = await pool.query<WebhookRow>(
        prepared(
          `SELECT ${COLUMNS} FROM webhooks
            WHERE project_id = $1 AND user_id = $2 AND deleted_at IS NULL ORDER BY id`,
          [projectId, userId],
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

    async findOwned(projectId, userId, id) {
      const { rows } = await pool.query<WebhookRow>(
        prepared(
          `SELECT ${COLUMNS} FROM webhooks
            WHERE id = $3 AND project_id = $1 AND user_id = $2 AND deleted_at IS NULL`,
          [projectId, userId, id],
        ),
      );
      return rows[0] ?? null;
    },

    async deleteOwned(projectId, userId, id) {
      // Its pending deliveries end with it (they are never claimed again); the workers also check
      // right before each attempt, for those already in memory.
      const { rows } = await pool.query<{ deleted: number }>(
        prepared(
          `WITH gone AS (
             UPDATE webhooks SET deleted_at = now(), is_active = false, secret = 'deleted:'
              WHERE id = $3 AND project_id = $1 AND user_id = $2 AND deleted_at IS NULL
             RETURNING id
           ), ended AS (
             UPDATE deliveries SET status = 'failed', updated_at = now()
              WHERE webhook_id IN (SELECT id FROM gone) AND status = 'pending'
           )
           SELECT count(*)::int AS deleted FROM gone`,
          [projectId, userId, id],
        ),
      );
      return rows[0]?.deleted === 1;
    },
  };
}
