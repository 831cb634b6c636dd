/**
 * A fake ticket service: a real gRPC server (kit startGrpcServer, port 0) that records every request
 * as the service decodes it (so tests see what crossed the wire: absent optionals, null wrappers) and
 * answers with plausible tickets (the API's JSON, as the service sends them) built from the request. Tests swap handlers with `override`.
 */
import { serviceDefinition, type ticket, type TicketJson } from '@tix/protos';
import { AppError, startGrpcServer, type CallContext, type RunningGrpcServer } from '@tix/kit';
import { testLogger } from '@tix/kit/testing';

type Handler = (request: never, context: CallContext) => unknown;

/** The JSON the gateway must show for ticketMessage() with nothing overridden. */
export const TICKET_JSON: TicketJson = {
  id: 42,
  project_id: 1,
  ticket_type_id: 1,
  project_ref_id: 7,
  ticket_number: 'ACME-7',
  title: 'Printer on fire',
  description: null,
  status: 'open',
  status_label: 'Open',
  priority: 'medium',
  priority_label: 'Medium',
  assigned_to: null,
  created_by: 10,
  updated_by: null,
  custom_fields: { severity: 'high' },
  source_type: 'api',
  requester_id: null,
  cc: [],
  merged_into_id: null,
  version: 1,
  created_at: '2025-01-02T03:04:05.000Z',
  updated_at: '2025-01-02T03:04:05.000Z',
  tags: [],
  resolution_type: null,
  closed_at: null,
};

/**
 * A ticket as the service would send it (ApiTicket): TICKET_JSON with `overrides`, `merged_into`
 * added when merged, as JSON text beside its id and version.
 */
export function ticketMessage(overrides: Partial<TicketJson> = {}): ticket.ApiTicket {
  const json: TicketJson = { ...TICKET_JSON, ...overrides };
  if (json.merged_into_id !== null) json.merged_into = json.merged_into_id;
  return { id: json.id, version: json.version, json: Buffer.from(JSON.stringify(json)) };
}

/** Tickets as one JSON array (`tickets_json` of a page, lane, bulk result or search batch). */
export function ticketsJson(tickets: ticket.ApiTicket[]): Buffer {
  return Buffer.from(`[${tickets.map((one) => Buffer.from(one.json as Buffer).toString('utf8')).join(',')}]`);
}

/** One batch of SearchTicketsJson: the tickets as the API's JSON array. */
export function ticketsJsonBatch(tickets: ticket.ApiTicket[]): ticket.TicketsJson {
  return { tickets_json: ticketsJson(tickets) };
}

const defaultHandlers: Record<string, Handler> = {
  ListTickets(request: ticket.ListTicketsRequest__Output) {
    const tickets_json = ticketsJson([ticketMessage({ project_id: request.project_id })]);
    return { tickets_json, pagination: { total: 1, page: request.page?.page, per_page: 50, total_pages: 1 } };
  },
  /** Streamed: the batches to yield (each a JSON array, as the service's cursor batches). */
  SearchTicketsJson(request: ticket.SearchTicketsRequest__Output) {
    return [ticketsJsonBatch([ticketMessage({ project_id: request.project_id })])];
  },
  CreateTicket(request: ticket.CreateTicketRequest__Output) {
    return ticketMessage({ project_id: request.project_id, title: request.title });
  },
  GetTicket(request: ticket.GetTicketRequest__Output) {
    return ticketMessage({ id: request.id, project_id: request.project_id });
  },
  UpdateTicket(request: ticket.UpdateTicketRequest__Output) {
    return ticketMessage({ id: request.id, project_id: request.project_id, version: 2 });
  },
  DeleteTicket() {
    return { message: 'Ticket deleted' };
  },
  RestoreTicket(request: ticket.RestoreTicketRequest__Output) {
    return ticketMessage({ id: request.id, version: 3 });
  },
  MoveTicket(request: ticket.MoveTicketRequest__Output) {
    return ticketMessage({ id: request.id, status: request.status, status_label: 'Closed', version: 2 });
  },
  BulkUpdateTickets(request: ticket.BulkUpdateTicketsRequest__Output) {
    const [first, ...rest] = request.ticket_ids;
    return {
      success_count: first === undefined ? 0 : 1,
      failed_count: rest.length,
      failed_ids: rest,
      tickets_json: ticketsJson(first === undefined ? [] : [ticketMessage({ id: first, version: 2 })]),
    };
  },
  MergeTicket(request: ticket.MergeTicketRequest__Output) {
    return ticketMessage({
      id: request.id,
      merged_into_id: request.target_id,
      status: 'closed',
      status_label: 'Closed',
      resolution_type: 'duplicate',
      version: 2,
    });
  },
  GetBoard() {
    return {
      lanes: [
        {
          status: 'open',
          label: 'Open',
          is_closed: false,
          tickets_json: ticketsJson([ticketMessage()]),
          count: 3,
        },
        { status: 'closed', label: 'Closed', is_closed: true, tickets_json: ticketsJson([]), count: 0 },
      ],
      total: 3,
    };
  },
};

export interface FakeTickets {
  address: string;
  server: RunningGrpcServer;
  /** Calls received, by method. */
  calls: Record<string, number>;
  /** The most recent request (as decoded by the server), by method. */
  lastRequest: Record<string, any>;
  /** The context of the most recent call, by method. */
  lastContext: Record<string, CallContext>;
  /** Replaces one handler until reset(). */
  override(method: string, handler: Handler): void;
  reset(): void;
  stop(): Promise<void>;
}

/** Starts the fake on 127.0.0.1, port 0. */
export async function startFakeTickets(): Promise<FakeTickets> {
  const overrides: Record<string, Handler> = {};
  const calls: Record<string, number> = {};
  const lastRequest: Record<string, any> = {};
  const lastContext: Record<string, CallContext> = {};
  const definition = serviceDefinition('tickets') as Record<string, { responseStream: boolean }>;
  const handle = async (method: string, request: never, context: CallContext) => {
    calls[method] = (calls[method] ?? 0) + 1;
    lastRequest[method] = request;
    lastContext[method] = context;
    const handler = overrides[method] ?? defaultHandlers[method];
    if (!handler) throw new AppError('not_implemented', `${method} is not faked`);
    return await handler(request, context);
  };
  const handlers = new Proxy(
    {},
    {
      // Streaming methods yield the messages their handler returns.
      get: (_target, method: string) =>
        definition[method]?.responseStream
          ? async function* (request: never, context: CallContext) {
              yield* (await handle(method, request, context)) as unknown[];
            }
          : (request: never, context: CallContext) => handle(method, request, context),
    },
  );
  const server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    services: [{ name: 'tickets', definition: serviceDefinition('tickets'), handlers }],
    logger: testLogger('fake-tickets'),
  });
  return {
    address: `127.0.0.1:${server.port}`,
    server,
    calls,
    lastRequest,
    lastContext,
    override(method, handler) {
      overrides[method] = handler;
    },
    reset() {
      for (const record of [overrides, calls, lastRequest, lastContext]) {
        for (const key of Object.keys(record)) delete record[key];
      }
    },
    stop: () => server.shutdown(100),
  };
}
