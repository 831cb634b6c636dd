/**
 * How the assistant's screens word things: action types, confidences, percentages, times and the
 * values an action or prediction touched. One place, so the panel, the queue and the admin agree.
 */
import {
  AUTONOMOUS_ACTION_STATUSES,
  type AutonomousActionStatus,
  type AutonomyActionType as ActionType,
} from '@tix/contract';
import type { components } from '../../generated/api';

export type AutonomousAction = components['schemas']['AutonomousAction'];
export type Prediction = components['schemas']['Prediction'];
export type AiSource = components['schemas']['AiSource'];

export { AUTONOMY_ACTION_TYPES as ACTION_TYPES } from '@tix/contract';
export type { AutonomyActionType as ActionType } from '@tix/contract';

const ACTION_LABELS: Record<ActionType, string> = {
  set_priority: 'Set priority',
  assign: 'Assign',
  add_tags: 'Add tags',
  close_duplicate: 'Close as duplicate',
  post_internal_note: 'Post an internal note',
  send_reply: 'Send a reply',
};

export function actionLabel(type: string): string {
  return ACTION_LABELS[type as ActionType] ?? type.replace(/_/g, ' ');
}

/** The queue's status filter: the contract's statuses, the one still being written (`executing`) last. */
export const ACTION_STATUSES = [
  ...AUTONOMOUS_ACTION_STATUSES.filter((status) => status !== 'executing'),
  'executing',
] as const satisfies readonly AutonomousActionStatus[];

export function statusLabel(status: string): string {
  const text = status.replace(/_/g, ' ');
  return text[0]!.toUpperCase() + text.slice(1);
}

/** 0.8234 -> "82%". */
export function percent(value: number | null | undefined, digits = 0): string {
  return value === null || value === undefined ? '–' : `${(value * 100).toFixed(digits)}%`;
}

/** A confidence with its label: "91% (high)". */
export function confidenceText(confidence: number, label: string): string {
  return `${percent(confidence)} (${label})`;
}

/** A timestamp in the reader's locale, short. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Any JSON value as a short phrase: lists joined, null as "none". */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map(valueText).join(', ');
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([key, inner]) => `${key.replace(/_/g, ' ')} ${valueText(inner)}`)
      .join('; ');
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** "priority: medium → high; tags: none → login" for an action's before and after. */
export function changeText(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return fields.map(
    (field) => `${field.replace(/_/g, ' ')}: ${valueText(before[field])} → ${valueText(after[field])}`,
  );
}
