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
  /** Until when the previous secret (rotation) still signs; null when there is none (or it ended). */
  previous_secret_expires_at: Date | null;
}

/** A subscription with its sealed secrets, for sending a ping. */
export interface WebhookWithSecrets extends WebhookRow {
  secret: string;
  /** Sealed; null when there is none or its overlap ended. */
  previous_secret: string | null;
}

/** What PATCH changes; absent fields stay. */
export interface WebhookChanges {
  url?: string;
  events?: string[];
  isActive?: boolean;
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
  /**
   * Applies `changes` to the live subscription `id` of `owner`; null when there is none. Pausing
   * (isActive false) ends its pending deliveries as failed in the same statement.
   */
  updateOwned(
    projectId: number,
    owner: OwnerScope,
    id: number,
    changes: WebhookChanges,
  ): Promise<WebhookRow | null>;
  /**
   * Replaces the secret: the current one becomes the previous one, signing until `overlapSeconds`
   * from now (0: not at all); null when there is no such subscription.
   */
  rotateSecret(
    projectId: number,
    owner: OwnerScope,
    id: number,
    sealedSecret: string,
    overlapSeconds: number,
  ): Promise<WebhookRow | null>;
  /** The live subscription `id` of `owner` with its sealed secrets (a ping signs with them). */
  findWithSecrets(projectId: number, owner: OwnerScope, id: number): Promise<WebhookWithSecrets | null>;
}

/** The `user_id` parameter of an owner filter: NULL matches every owner. */
const ownerParameter = (owner: OwnerScope): number | null => (owner === 'every_owner' ? null : owner.userId);

// An ended overlap reads as none, so nobody has to clear it.
const PREVIOUS_EXPIRY =
  'CASE WHEN previous_secret_expires_at > now() THEN previous_secret_expires_at END AS previous_secret_expires_at';
const COLUMNS = `id, project_id, user_id, url, events, is_active, created_at, ${PREVIOUS_EXPIRY}`;
/** The same columns, qualified for a statement whose FROM has several tables (alias w). */
const W_COLUMNS = `w.id, w.project_id, w.user_id, w.url, w.events, w.is_active, w.created_at,
  CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret_expires_at END AS previous_secret_expires_at`;

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
             UPDATE webhooks SET deleted_at = now(), is_active = false, secret = 'deleted:',
                    previous_secret = NULL, previous_secret_expires_at = NULL
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

    async updateOwned(projectId, owner, id, changes) {
      const { rows } = await pool.query<WebhookRow>(
        prepared(
          `WITH changed AS (
             UPDATE webhooks w SET
               url = coalesce($4, w.url),
               events = coalesce($5::text[], w.events),
               is_active = coalesce($6, w.is_active)
              WHERE w.id = $3 AND w.project_id = $1 AND ($2::int IS NULL OR w.user_id = $2) AND w.deleted_at IS NULL
             RETURNING ${W_COLUMNS}
           ), ended AS (
             -- Paused: what was pending will not be sent (the workers also check before each attempt).
             UPDATE deliveries SET status = 'failed', updated_at = now()
              WHERE webhook_id IN (SELECT id FROM changed WHERE NOT is_active) AND status = 'pending'
           )
           SELECT * FROM changed`,
          [
            projectId,
            ownerParameter(owner),
            id,
            changes.url ?? null,
            changes.events ?? null,
            changes.isActive ?? null,
          ],
        ),
      );
      return rows[0] ?? null;
    },

    async rotateSecret(projectId, owner, id, sealedSecret, overlapSeconds) {
      const { rows } = await pool.query<WebhookRow>(
        prepared(
          `UPDATE webhooks w SET
             previous_secret = CASE WHEN $5::int > 0 THEN w.secret END,
             previous_secret_expires_at = CASE WHEN $5::int > 0 THEN now() + $5::int * interval '1 second' END,
             secret = $4
            WHERE w.id = $3 AND w.project_id = $1 AND ($2::int IS NULL OR w.user_id = $2) AND w.deleted_at IS NULL
           RETURNING ${W_COLUMNS}`,
          [projectId, ownerParameter(owner), id, sealedSecret, overlapSeconds],
        ),
      );
      return rows[0] ?? null;
    },

    async findWithSecrets(projectId, owner, id) {
      const { rows } = await pool.query<WebhookWithSecrets>(
        prepared(
          `SELECT ${COLUMNS}, secret,
                  CASE WHEN previous_secret_expires_at > now() THEN previous_secret END AS previous_secret
             FROM webhooks
            WHERE id = $3 AND project_id = $1 AND ($2::int IS NULL OR user_id = $2) AND deleted_at IS NULL`,
          [projectId, ownerParameter(owner), id],
        ),
      );
      return rows[0] ?? null;
    },
  };
}
