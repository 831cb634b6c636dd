/**
 * The ticket routes (spec "Tickets", plus the additive merge and restore), each a thin chain:
 * scope -> project context -> validation (tickets.schemas.ts, ticket-actions.schemas.ts) -> one
 * TicketService call -> the spec's JSON. Reads need tickets:read, DELETE tickets:delete, every other
 * write tickets:write. Domain rules (statuses of the project for writes, versions, placement, custom
 * fields) live in the ticket service; its errors pass through unchanged.
 */
import type { Router } from 'express';
import { presentTicket } from '@tix/protos';
import { sendData, sendDataStream } from '../../http/envelope.js';
import { callContext, requireProject, type ProjectContext } from '../../http/request-context.js';
import { defineRoute } from '../../http/routing.js';
import { handleValidated, invalidQuery } from '../../http/validate.js';
import { projectContext } from '../../middleware/project-context.js';
import { requireScope } from '../../middleware/require-scope.js';
import type { ProjectResolver } from '../../projects/project-resolver.js';
import { requireService, type ServiceClients } from '../../services.js';
import {
  bulkUpdateRequest,
  createTicketRequest,
  listTicketsRequest,
  moveTicketRequest,
  presentBulkResult,
  presentTicketPage,
  searchTicketsRequest,
  updateTicketRequest,
} from './tickets.mapping.js';
import { bulkUpdateBody, mergeTicketBody, moveTicketBody } from './ticket-actions.schemas.js';
import { createTicketBody, listTicketsQuery, ticketIdParams, updateTicketBody } from './tickets.schemas.js';

/** A search streams every match; it may take longer than a single call's default deadline. */
const SEARCH_DEADLINE_MS = 60_000;

/**
 * The list filter `status` must name a status of the project (400 otherwise). The project, with its
 * workflow, is already resolved (and cached), so this costs no call.
 */
export function checkStatusFilter(project: ProjectContext, status: string | undefined): void {
  if (status === undefined || project.statuses.some((candidate) => candidate.slug === status)) return;
  const slugs = project.statuses.map((candidate) => candidate.slug).join(', ');
  throw invalidQuery({ status: [`status must be a status of the project: ${slugs}`] });
}

/** Registers the /tickets routes on the API router. */
export function ticketRoutes(
  router: Router,
  deps: { services: ServiceClients; projects: ProjectResolver },
): void {
  const tickets = () => requireService(deps.services, 'tickets');
  const inProject = projectContext({ resolver: deps.projects });
  const read = requireScope('tickets:read');
  const write = requireScope('tickets:write');

  // Before /tickets/:id, so that `bulk-update` is a path of its own (GET on it is 405, not an id).
  defineRoute(router, '/tickets/bulk-update', {
    post: [
      write,
      inProject,
      ...handleValidated({ body: bulkUpdateBody }, async ({ body }, request, response) => {
        const result = await tickets().BulkUpdateTickets(
          bulkUpdateRequest(requireProject(request).id, body),
          callContext(request),
        );
        sendData(response, presentBulkResult(result));
      }),
    ],
  });

  defineRoute(router, '/tickets', {
    get: [
      read,
      inProject,
      ...handleValidated({ query: listTicketsQuery }, async ({ query }, request, response) => {
        const project = requireProject(request);
        checkStatusFilter(project, query.status);
        if (query.q !== undefined) {
          // Spec: with q, every match and no pagination; streamed, however many there are.
          const matches = tickets().SearchTickets(
            searchTicketsRequest(project.id, { ...query, q: query.q }),
            {
              ...callContext(request),
              deadlineMs: SEARCH_DEADLINE_MS,
            },
          );
          await sendDataStream(response, 'tickets', matches, { present: presentTicket });
          return;
        }
        const page = await tickets().ListTickets(listTicketsRequest(project.id, query), callContext(request));
        sendData(response, presentTicketPage(page));
      }),
    ],
    post: [
      write,
      projectContext({ resolver: deps.projects, acceptBodyProjectId: true }),
      ...handleValidated({ body: createTicketBody }, async ({ body }, request, response) => {
        const created = await tickets().CreateTicket(
          createTicketRequest(requireProject(request).id, body),
          callContext(request),
        );
        sendData(response, { ticket: presentTicket(created) }, 201);
      }),
    ],
  });

  defineRoute(router, '/tickets/:id', {
    get: [
      read,
      inProject,
      ...handleValidated({ params: ticketIdParams }, async ({ params }, request, response) => {
        const found = await tickets().GetTicket(
          { project_id: requireProject(request).id, id: params.id },
          callContext(request),
        );
        sendData(response, { ticket: presentTicket(found) });
      }),
    ],
    put: [
      write,
      inProject,
      ...handleValidated(
        { params: ticketIdParams, body: updateTicketBody },
        async ({ params, body }, request, response) => {
          const updated = await tickets().UpdateTicket(
            updateTicketRequest(requireProject(request).id, params.id, body),
            callContext(request),
          );
          sendData(response, { ticket: presentTicket(updated) });
        },
      ),
    ],
    delete: [
      requireScope('tickets:delete'),
      inProject,
      ...handleValidated({ params: ticketIdParams }, async ({ params }, request, response) => {
        const { message } = await tickets().DeleteTicket(
          { project_id: requireProject(request).id, id: params.id },
          callContext(request),
        );
        sendData(response, { message });
      }),
    ],
  });

  defineRoute(router, '/tickets/:id/status', {
    patch: [
      write,
      inProject,
      ...handleValidated(
        { params: ticketIdParams, body: moveTicketBody },
        async ({ params, body }, request, response) => {
          const moved = await tickets().MoveTicket(
            moveTicketRequest(requireProject(request).id, params.id, body),
            callContext(request),
          );
          sendData(response, { ticket: presentTicket(moved) });
        },
      ),
    ],
  });

  defineRoute(router, '/tickets/:id/merge', {
    post: [
      write,
      inProject,
      ...handleValidated(
        { params: ticketIdParams, body: mergeTicketBody },
        async ({ params, body }, request, response) => {
          const merged = await tickets().MergeTicket(
            { project_id: requireProject(request).id, id: params.id, target_id: body.target_id },
            callContext(request),
          );
          sendData(response, { ticket: presentTicket(merged) });
        },
      ),
    ],
  });

  defineRoute(router, '/tickets/:id/restore', {
    post: [
      write,
      inProject,
      ...handleValidated({ params: ticketIdParams }, async ({ params }, request, response) => {
        const restored = await tickets().RestoreTicket(
          { project_id: requireProject(request).id, id: params.id },
          callContext(request),
        );
        sendData(response, { ticket: presentTicket(restored) });
      }),
    ],
  });
}
