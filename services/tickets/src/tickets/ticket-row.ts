/** A ticket as stored: the shape every store query returns and every use case works on. */
import type { ResolutionType, TicketPriority } from '@tix/protos';
import type { SourceType } from '../shared/caller.js';

/** A ticket priority (TICKET_PRIORITIES in @tix/protos). */
export type Priority = TicketPriority;

/** What a change may set on a ticket (everything else is bookkeeping). */
export interface TicketState {
  title: string;
  description: string | null;
  status: string;
  priority: Priority;
  assignedTo: number | null;
  customFields: Record<string, unknown>;
  tags: string[];
  resolutionType: ResolutionType | null;
  mergedIntoId: number | null;
  /** The customer who asked (customers service id), or null. */
  requesterId: number | null;
  /** Customers copied on the ticket, never the requester. */
  cc: number[];
}

export interface TicketRow extends TicketState {
  id: number;
  projectId: number;
  ticketTypeId: number;
  projectRefId: number;
  createdBy: number;
  updatedBy: number | null;
  sourceType: SourceType;
  version: number;
  /** Fractional-indexing key: the ticket's position in its status lane. */
  laneRank: string;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
  /** When the ticket moved into a closed status (null while its status is open); the store's. */
  closedAt: Date | null;
}

/** The mutable part of a row, for deriving the next state of a change. */
export function stateOf(row: TicketRow): TicketState {
  return {
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    assignedTo: row.assignedTo,
    customFields: row.customFields,
    tags: row.tags,
    resolutionType: row.resolutionType,
    mergedIntoId: row.mergedIntoId,
    requesterId: row.requesterId,
    cc: row.cc,
  };
}
