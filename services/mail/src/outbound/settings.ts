/**
 * Per-project mail settings (project_mail_settings): read with the defaults of a project that has no
 * row, and updated field by field with every bad field named (docs/mail.md, "Outbound").
 */
import type pg from 'pg';
import { AppError } from '@tix/kit';
import { isEmailAddress } from './addresses.js';

export interface ProjectMailSettings {
  projectId: number;
  fromName: string;
  fromAddress: string;
  signature: string;
  acknowledge: boolean;
  ackSubject: string;
  ackBody: string;
  reopenWindowDays: number;
  acceptListMail: boolean;
  updatedAt: Date | null;
}

export const SETTINGS_LIMITS = {
  fromName: 200,
  signature: 10_000,
  ackSubject: 500,
  ackBody: 10_000,
  reopenWindowDays: { min: 0, max: 365 },
} as const;

/** The placeholders an acknowledgement template may use. */
export const ACK_PLACEHOLDERS = ['ticket.number', 'ticket.title', 'requester.name', 'project.name'] as const;

type Queryable = Pick<pg.Pool, 'query'>;

interface SettingsRow {
  project_id: number;
  from_name: string;
  from_address: string;
  signature: string;
  acknowledge: boolean;
  ack_subject: string;
  ack_body: string;
  reopen_window_days: number;
  accept_list_mail: boolean;
  updated_at: Date;
}

export function defaultSettings(projectId: number): ProjectMailSettings {
  return {
    projectId,
    fromName: '',
    fromAddress: '',
    signature: '',
    acknowledge: false,
    ackSubject: '',
    ackBody: '',
    reopenWindowDays: 14,
    acceptListMail: false,
    updatedAt: null,
  };
}

const fromRow = (row: SettingsRow): ProjectMailSettings => ({
  projectId: row.project_id,
  fromName: row.from_name,
  fromAddress: row.from_address,
  signature: row.signature,
  acknowledge: row.acknowledge,
  ackSubject: row.ack_subject,
  ackBody: row.ack_body,
  reopenWindowDays: row.reopen_window_days,
  acceptListMail: row.accept_list_mail,
  updatedAt: row.updated_at,
});

/** The project's settings, or the defaults when it has none saved. */
export async function readSettings(db: Queryable, projectId: number): Promise<ProjectMailSettings> {
  const { rows } = await db.query<SettingsRow>('SELECT * FROM project_mail_settings WHERE project_id = $1', [
    projectId,
  ]);
  return rows[0] ? fromRow(rows[0]) : defaultSettings(projectId);
}

export interface SettingsChange {
  fromName?: string;
  fromAddress?: string;
  signature?: string;
  acknowledge?: boolean;
  ackSubject?: string;
  ackBody?: string;
  reopenWindowDays?: number;
  acceptListMail?: boolean;
}

/** Every `{{...}}` of a template that is not a known placeholder. */
function unknownPlaceholders(template: string): string[] {
  const known = new Set<string>(ACK_PLACEHOLDERS);
  return [...template.matchAll(/\{\{\s*([^{}]*?)\s*\}\}/g)]
    .map((m) => m[1] ?? '')
    .filter((name) => !known.has(name));
}

// eslint-disable-next-line no-control-regex -- a header line must not carry CR, LF or NUL
const hasControl = (value: string) => /[\r\n\u0000]/.test(value);

/** 400 with every bad field named (the spec's envelope), or nothing. */
export function validateSettingsChange(change: SettingsChange): void {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (change.fromName !== undefined) {
    if (change.fromName.length > SETTINGS_LIMITS.fromName)
      add('from_name', `must be at most ${SETTINGS_LIMITS.fromName} characters`);
    if (hasControl(change.fromName)) add('from_name', 'must be one line');
  }
  if (change.fromAddress !== undefined && change.fromAddress !== '' && !isEmailAddress(change.fromAddress))
    add('from_address', 'must be an email address');
  if (change.signature !== undefined && change.signature.length > SETTINGS_LIMITS.signature)
    add('signature', `must be at most ${SETTINGS_LIMITS.signature} characters`);
  for (const [field, value, limit] of [
    ['ack_subject', change.ackSubject, SETTINGS_LIMITS.ackSubject],
    ['ack_body', change.ackBody, SETTINGS_LIMITS.ackBody],
  ] as const) {
    if (value === undefined) continue;
    if (value.length > limit) add(field, `must be at most ${limit} characters`);
    if (field === 'ack_subject' && hasControl(value)) add(field, 'must be one line');
    const unknown = unknownPlaceholders(value);
    if (unknown.length > 0)
      add(
        field,
        `unknown placeholder ${unknown.map((name) => `{{${name}}}`).join(', ')}; known: ${ACK_PLACEHOLDERS.map((name) => `{{${name}}}`).join(', ')}`,
      );
  }
  if (change.reopenWindowDays !== undefined) {
    const { min, max } = SETTINGS_LIMITS.reopenWindowDays;
    if (
      !Number.isInteger(change.reopenWindowDays) ||
      change.reopenWindowDays < min ||
      change.reopenWindowDays > max
    )
      add('reopen_window_days', `must be an integer from ${min} to ${max}`);
  }
  if (Object.keys(errors).length > 0) throw AppError.validation(errors);
}

/** Saves the change (creating the row with defaults for the rest) and answers the settings. */
export async function updateSettings(
  db: Queryable,
  projectId: number,
  change: SettingsChange,
): Promise<ProjectMailSettings> {
  if (!Number.isInteger(projectId) || projectId <= 0) throw AppError.badRequest('Invalid project id');
  validateSettingsChange(change);
  const { rows } = await db.query<SettingsRow>(
    `INSERT INTO project_mail_settings AS s (project_id, from_name, from_address, signature, acknowledge,
        ack_subject, ack_body, reopen_window_days, accept_list_mail)
     VALUES ($1, COALESCE($2, ''), lower(COALESCE($3, '')), COALESCE($4, ''), COALESCE($5, false),
        COALESCE($6, ''), COALESCE($7, ''), COALESCE($8, 14), COALESCE($9, false))
     ON CONFLICT (project_id) DO UPDATE SET
        from_name = COALESCE($2, s.from_name), from_address = lower(COALESCE($3, s.from_address)),
        signature = COALESCE($4, s.signature), acknowledge = COALESCE($5, s.acknowledge),
        ack_subject = COALESCE($6, s.ack_subject), ack_body = COALESCE($7, s.ack_body),
        reopen_window_days = COALESCE($8, s.reopen_window_days),
        accept_list_mail = COALESCE($9, s.accept_list_mail), updated_at = now()
     RETURNING *`,
    [
      projectId,
      change.fromName ?? null,
      change.fromAddress ?? null,
      change.signature ?? null,
      change.acknowledge ?? null,
      change.ackSubject ?? null,
      change.ackBody ?? null,
      change.reopenWindowDays ?? null,
      change.acceptListMail ?? null,
    ],
  );
  return fromRow(rows[0]!);
}
