/**
 * The mail settings form's logic (mail-settings.tsx), pure so that it is unit-tested: the form's
 * draft from the saved settings, and the PUT body of only what changed (the service checks each
 * field and answers 422 by field).
 */
import type { operations } from '../../generated/api';

export type MailSettings =
  operations['getMailSettings']['responses'][200]['content']['application/json']['data']['settings'];
export type MailSettingsChange =
  operations['updateMailSettings']['requestBody']['content']['application/json'];

/** What the form edits: every field as the control holds it (the reopen window as typed text). */
export interface MailSettingsDraft {
  from_name: string;
  from_address: string;
  signature: string;
  acknowledge: boolean;
  ack_subject: string;
  ack_body: string;
  reopen_window_days: string;
  accept_list_mail: boolean;
}

export function draftOf(settings: MailSettings): MailSettingsDraft {
  return {
    from_name: settings.from_name,
    from_address: settings.from_address,
    signature: settings.signature,
    acknowledge: settings.acknowledge,
    ack_subject: settings.ack_subject,
    ack_body: settings.ack_body,
    reopen_window_days: String(settings.reopen_window_days),
    accept_list_mail: settings.accept_list_mail,
  };
}

/**
 * The fields of `draft` that differ from `saved`. The address is trimmed; a reopen window that is
 * not a whole number is sent as typed, for the server's 422 beside the field.
 */
export function settingsChange(saved: MailSettings, draft: MailSettingsDraft): MailSettingsChange {
  const change: Record<string, unknown> = {};
  const text = ['from_name', 'signature', 'ack_subject', 'ack_body'] as const;
  for (const field of text) if (draft[field] !== saved[field]) change[field] = draft[field];
  const address = draft.from_address.trim();
  if (address !== saved.from_address) change.from_address = address;
  for (const field of ['acknowledge', 'accept_list_mail'] as const)
    if (draft[field] !== saved[field]) change[field] = draft[field];
  const days = draft.reopen_window_days.trim();
  const parsed = /^\d+$/.test(days) ? Number(days) : days;
  if (parsed !== saved.reopen_window_days) change.reopen_window_days = parsed;
  return change;
}
