/**
 * @tix/protos: the contracts between Tix processes.
 * - gRPC service definitions, loaded once with LOADER_OPTIONS and typed by the generated types;
 * - the generated message types, one namespace per proto package;
 * - the fleet map and the presenters of service messages;
 * - everything of @tix/contract (vocabulary, roles, event catalogue, resource schemas), re-exported
 *   so that a process needs one import; code that runs in a browser imports @tix/contract itself.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType as ActivityProto } from '../generated/activity_service.js';
import type { ProtoGrpcType as AiProto } from '../generated/ai_service.js';
import type { ProtoGrpcType as AttachmentProto } from '../generated/attachment_service.js';
import type { ProtoGrpcType as CommentProto } from '../generated/comment_service.js';
import type { ProtoGrpcType as CustomerProto } from '../generated/customer_service.js';
import type { ProtoGrpcType as MailProto } from '../generated/mail_service.js';
import type { ProtoGrpcType as LookupProto } from '../generated/lookup_service.js';
import type { ProtoGrpcType as SlaProto } from '../generated/sla_service.js';
import type { ProtoGrpcType as TicketProto } from '../generated/ticket_service.js';
import type { ProtoGrpcType as WebhookProto } from '../generated/webhook_service.js';
import type { ActivityServiceHandlers } from '../generated/tix/activity/v1/ActivityService.js';
import type { AiServiceHandlers } from '../generated/tix/ai/v1/AiService.js';
import type { AttachmentServiceHandlers } from '../generated/tix/attachment/v1/AttachmentService.js';
import type { CommentServiceHandlers } from '../generated/tix/comment/v1/CommentService.js';
import type { CustomerServiceHandlers } from '../generated/tix/customer/v1/CustomerService.js';
import type { MailServiceHandlers } from '../generated/tix/mail/v1/MailService.js';
import type { LookupServiceHandlers } from '../generated/tix/lookup/v1/LookupService.js';
import type { SlaServiceHandlers } from '../generated/tix/sla/v1/SlaService.js';
import type { TicketServiceHandlers } from '../generated/tix/ticket/v1/TicketService.js';
import type { WebhookServiceHandlers } from '../generated/tix/webhook/v1/WebhookService.js';
import { SERVICE_PROTO_FILES, type ServiceName } from './fleet.js';
import { LOADER_OPTIONS } from './loader-options.js';

export { LOADER_OPTIONS, PROTO_ROOT } from './loader-options.js';
export * from '@tix/contract';
export * from './fleet.js';
export * from './presenters.js';

export type * as common from '../generated/tix/common/v1/index.js';
export type * as lookup from '../generated/tix/lookup/v1/index.js';
export type * as ticket from '../generated/tix/ticket/v1/index.js';
export type * as comment from '../generated/tix/comment/v1/index.js';
export type * as attachment from '../generated/tix/attachment/v1/index.js';
export type * as webhook from '../generated/tix/webhook/v1/index.js';
export type * as activity from '../generated/tix/activity/v1/index.js';
export type * as ai from '../generated/tix/ai/v1/index.js';
export type * as mail from '../generated/tix/mail/v1/index.js';
export type * as customer from '../generated/tix/customer/v1/index.js';
export type * as sla from '../generated/tix/sla/v1/index.js';

type TixProto = LookupProto &
  TicketProto &
  CommentProto &
  AttachmentProto &
  WebhookProto &
  ActivityProto &
  AiProto &
  MailProto &
  CustomerProto &
  SlaProto;

let loaded: TixProto | undefined;

/** Loads every contract once (synchronously) and returns the typed package tree. */
function tixProto(): TixProto {
  loaded ??= grpc.loadPackageDefinition(
    protoLoader.loadSync([...SERVICE_PROTO_FILES], LOADER_OPTIONS),
  ) as unknown as TixProto;
  return loaded;
}

/** The client constructors (with their `service` definitions) of every Tix service, by service name. */
export function serviceConstructors() {
  const { tix } = tixProto();
  return {
    lookup: tix.lookup.v1.LookupService,
    tickets: tix.ticket.v1.TicketService,
    comments: tix.comment.v1.CommentService,
    attachments: tix.attachment.v1.AttachmentService,
    webhooks: tix.webhook.v1.WebhookService,
    activity: tix.activity.v1.ActivityService,
    ai: tix.ai.v1.AiService,
    mail: tix.mail.v1.MailService,
    customers: tix.customer.v1.CustomerService,
    sla: tix.sla.v1.SlaService,
  } as const;
}

export type ServiceConstructors = ReturnType<typeof serviceConstructors>;

/** The generated grpc-js handler interface of every service, by service name. */
export interface ServiceHandlersMap {
  lookup: LookupServiceHandlers;
  tickets: TicketServiceHandlers;
  comments: CommentServiceHandlers;
  attachments: AttachmentServiceHandlers;
  webhooks: WebhookServiceHandlers;
  activity: ActivityServiceHandlers;
  ai: AiServiceHandlers;
  mail: MailServiceHandlers;
  customers: CustomerServiceHandlers;
  sla: SlaServiceHandlers;
}
/** The grpc-js service definition of one service (what a server registers, what a client calls). */
export type ServiceDefinitionOf<N extends ServiceName> = ServiceConstructors[N]['service'];

/** The service definition of one service, by name. */
export function serviceDefinition<N extends ServiceName>(name: N): ServiceDefinitionOf<N> {
  return serviceConstructors()[name].service;
}
