/**
 * Whether a new entry belongs in a feed with these filters: the same rules GET /api/activity applies
 * (docs/activity.md), for the entries the shared poll brings, which cover every project.
 */
import type { Activity } from './activity-poll';

export interface FeedFilters {
  projectId: number | null;
  type?: string;
  actorKind?: string;
  actorId?: number;
  ticketId?: number;
  field?: string;
  since?: string;
  until?: string;
}

function typeMatches(list: string, type: string): boolean {
  return list
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
    .some((item) => (item.endsWith('.*') ? type.startsWith(item.slice(0, -1)) : item === type));
}

const dayOrTime = (text: string) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);

export function matchesFilters(entry: Activity, filters: FeedFilters): boolean {
  // A project's feed also shows the global kill switch (project_id null).
  if (filters.projectId !== null && entry.project_id !== null && entry.project_id !== filters.projectId)
    return false;
  if (filters.type && !typeMatches(filters.type, entry.type)) return false;
  if (filters.actorKind && entry.actor.kind !== filters.actorKind) return false;
  if (filters.actorId !== undefined && entry.actor.user_id !== filters.actorId) return false;
  if (
    filters.ticketId !== undefined &&
    (entry.subject.type !== 'ticket' || entry.subject.id !== filters.ticketId)
  )
    return false;
  if (filters.field && !Object.hasOwn(entry.changes, filters.field)) return false;
  const at = new Date(entry.occurred_at);
  if (filters.since && at < dayOrTime(filters.since)) return false;
  if (filters.until && at >= dayOrTime(filters.until)) return false;
  return true;
}
