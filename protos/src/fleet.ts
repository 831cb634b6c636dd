/**
 * The fleet map, declared once: every service with its default gRPC and metrics ports, its database,
 * its gRPC contract and the durable event queues it consumes; the gateway's ports; and how the
 * environment names a service's address and database. The gateway, the services, the kit, the
 * launcher, the image builds and the deploy tests all read it here (the Kubernetes manifests cannot,
 * so tests/deploy holds them to it).
 */

/** What the fleet says about one service. */
export interface FleetService {
  /** The gRPC port when GRPC_PORT is unset (also the port its callers default to). */
  grpcPort: number;
  /** The /metrics port when METRICS_PORT is unset (distinct, so one machine can run the whole fleet). */
  metricsPort: number;
  /** Its own PostgreSQL database. */
  database: string;
  /** Its gRPC contract, relative to PROTO_ROOT. */
  proto: string;
  /**
   * The durable event queues it consumes, each with the routing-key patterns bound on the events
   * exchange (the kit's durableQueue declares them, producers and consumers alike). A binding is not a
   * queue argument: adding one to a queue that already exists is no redeclaration conflict, and it
   * only routes events published from then on.
   */
  queues: Readonly<Record<string, readonly string[]>>;
}

export const FLEET = {
  lookup: {
    grpcPort: 50051,
    metricsPort: 9401,
    database: 'tix_lookup',
    proto: 'tix/lookup/v1/lookup_service.proto',
    queues: {},
  },
  tickets: {
    grpcPort: 50052,
    metricsPort: 9402,
    database: 'tix_tickets',
    proto: 'tix/ticket/v1/ticket_service.proto',
    // Its view of lookup: it forgets cached workflows and ticket types on these, and moves the
    // tickets of a removed status (project.updated's statuses_removed).
    queues: {
      'tickets.lookup-events': ['project.updated', 'ticket_type.updated'],
      'tickets.customer-events': ['customer.merged'],
    },
  },
  comments: {
    grpcPort: 50053,
    metricsPort: 9403,
    database: 'tix_comments',
    proto: 'tix/comment/v1/comment_service.proto',
    queues: {},
  },
  attachments: {
    grpcPort: 50054,
    metricsPort: 9404,
    database: 'tix_attachments',
    proto: 'tix/attachment/v1/attachment_service.proto',
    queues: {},
  },
  webhooks: {
    grpcPort: 50055,
    metricsPort: 9405,
    database: 'tix_webhooks',
    proto: 'tix/webhook/v1/webhook_service.proto',
    queues: { 'webhooks.events': ['ticket.*', 'comment.*', 'attachment.*'] },
  },
  activity: {
    grpcPort: 50057,
    metricsPort: 9407,
    database: 'tix_activity',
    proto: 'tix/activity/v1/activity_service.proto',
    // Every change to tickets, comments and attachments, and the assistant's autonomy events.
    queues: { 'activity.events': ['ticket.*', 'comment.*', 'attachment.*', 'ai.*'] },
  },
  ai: {
    grpcPort: 50056,
    metricsPort: 9406,
    database: 'tix_ai',
    proto: 'tix/ai/v1/ai_service.proto',
    // The assistant's corpus: tickets and their comments as they change.
    queues: { 'ai.events': ['ticket.*', 'comment.*'] },
  },
  mail: {
    grpcPort: 50058,
    metricsPort: 9408,
    database: 'tix_mail',
    proto: 'tix/mail/v1/mail_service.proto',
    // Public staff comments are mailed to the requester and CCs (docs/mail.md, "Outbound").
    queues: { 'mail.comments': ['comment.created'] },
  },
  customers: {
    grpcPort: 50059,
    metricsPort: 9409,
    database: 'tix_customers',
    proto: 'tix/customer/v1/customer_service.proto',
    queues: {},
  },
  sla: {
    grpcPort: 50060,
    metricsPort: 9410,
    database: 'tix_sla',
    proto: 'tix/sla/v1/sla_service.proto',
    // Each ticket's SLA clocks: the ticket's writes and its comments (docs/sla.md, "The service").
    queues: { 'sla.events': ['ticket.*', 'comment.*'] },
  },
} as const satisfies Record<string, FleetService>;

export type ServiceName = keyof typeof FLEET;

export const SERVICE_NAMES = Object.keys(FLEET) as ServiceName[];

/** Every service contract, relative to PROTO_ROOT (FLEET's `proto`, in fleet order). */
export const SERVICE_PROTO_FILES: readonly string[] = SERVICE_NAMES.map((name) => FLEET[name].proto);

/**
 * The gateway's default ports: the API host (/v1), the session host (/api, the console) and
 * /metrics.
 */
export const GATEWAY_DEFAULT_PORTS = { api: 8080, app: 8081, metrics: 9400 } as const;

/** Every process of the fleet: the gateway and the services. */
export type FleetProcessName = 'gateway' | ServiceName;

/** The /metrics port of a process when METRICS_PORT is unset. */
export function defaultMetricsPort(name: FleetProcessName): number {
  return name === 'gateway' ? GATEWAY_DEFAULT_PORTS.metrics : FLEET[name].metricsPort;
}

/** Env variable holding a service's address for its callers, e.g. TICKETS_SERVICE_ADDR=tickets:50052. */
export function serviceAddressVariable(name: ServiceName): string {
  return `${name.toUpperCase()}_SERVICE_ADDR`;
}

/** Env variable that overrides a service's database URL, e.g. TICKETS_DATABASE_URL. */
export function serviceDatabaseVariable(name: ServiceName): string {
  return `${name.toUpperCase()}_DATABASE_URL`;
}

/** The value of <NAME>_SERVICE_ADDR that says "this service is not deployed" (development only). */
export const SERVICE_NOT_DEPLOYED = 'none';
