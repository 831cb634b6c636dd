/**
 * An activity entry as the fold makes it and log-store.ts writes it: the shape fold.ts and
 * assistant-entries.ts both build.
 */
import type { EventActor, FieldChange } from '@tix/protos';

export interface EntryDraft {
  foldKey: string;
  eventId: string;
  type: string;
  occurredAt: string;
  projectId: number | null;
  actor: EventActor;
  ticketId: number | null;
  changes: Record<string, FieldChange>;
  comment: { id: number; isInternal: boolean; excerpt: string } | null;
  filename: string | null;
  /** ai.* entries: what their summary says beyond `changes`. */
  details: AssistantDetails | null;
}

/** What an ai.* entry's summary needs beyond its changes. */
export type AssistantDetails =
  | { version: number | null }
  | { reason: string | null }
  | { action_id: number | null; action_type: string | null; review_note: string | null }
  | {
      action_type: string | null;
      executed: number | null;
      reverted: number | null;
      revert_rate: number | null;
      window_hours: number | null;
    };
