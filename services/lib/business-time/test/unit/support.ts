/** Test helpers: a validated calendar or policy, or the test fails with its errors. */
import { type Calendar, type Policy, validateCalendar, validatePolicy } from '../../src/index.js';

export function calendar(input: unknown): Calendar {
  const result = validateCalendar(input);
  if (!result.ok) throw new Error(`invalid calendar: ${JSON.stringify(result.errors)}`);
  return result.value;
}

export function policy(input: unknown): Policy {
  const result = validatePolicy(input);
  if (!result.ok) throw new Error(`invalid policy: ${JSON.stringify(result.errors)}`);
  return result.value;
}

/** The same intervals on every listed weekday. */
export function week(days: string[], intervals: Array<[string, string]>): Record<string, unknown> {
  return Object.fromEntries(days.map((day) => [day, intervals.map(([start, end]) => ({ start, end }))]));
}

export const WORKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'];
export const EVERY_DAY = [...WORKDAYS, 'saturday', 'sunday'];
