/**
 * The services the mail processor talks to, real and on fresh databases, for the tests that run it:
 * lookup (with one project and its default ticket type), tickets, comments, customers, an S3 test
 * server and attachments. `stop()` stops them in reverse order.
 */
import { createServiceClient } from '@tix/kit';
import {
  startTestAttachmentServer,
  startTestS3Server,
  type TestS3Server,
} from '@tix/attachment-service/testing';
import { startTestCommentServer } from '@tix/comment-service/testing';
import { startTestCustomerServer } from '@tix/customer-service/testing';
import { startTestLookupServer } from '@tix/lookup-service/testing';
import { startTestTicketServer } from '@tix/ticket-service/testing';

export interface MailPeers {
  projectId: number;
  s3: TestS3Server;
  lookupAddress: string;
  ticketsAddress: string;
  commentsAddress: string;
  customersAddress: string;
  attachmentsAddress: string;
  /** The tickets service's database (arrange states no RPC makes, e.g. a ticket closed long ago). */
  ticketsDatabaseUrl: string;
  stop(): Promise<void>;
}

export async function startMailPeers(options: {
  label: string;
  project: { name: string; slug: string; prefix: string };
}): Promise<MailPeers> {
  const { label } = options;
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const each of stops.reverse()) await each().catch(() => undefined);
  };
  try {
    const lookup = await startTestLookupServer({ label: `${label}_lookup` });
    stops.push(() => lookup.stop());
    const directory = createServiceClient('lookup', lookup.address, { deadlineMs: 10_000 });
    const project = await directory.CreateProject({ ...options.project, description: '', statuses: [] });
    await directory.CreateTicketType({
      project_id: project.id,
      name: 'Question',
      slug: 'question',
      description: '',
      is_default: true,
      field_schema_json: '',
    });
    directory.close();
    const tickets = await startTestTicketServer({ lookupAddress: lookup.address, label: `${label}_tickets` });
    stops.push(() => tickets.stop());
    const comments = await startTestCommentServer({
      ticketsAddress: tickets.address,
      label: `${label}_comments`,
    });
    stops.push(() => comments.stop());
    const customers = await startTestCustomerServer({ label: `${label}_customers` });
    stops.push(() => customers.stop());
    const s3 = await startTestS3Server();
    stops.push(() => s3.stop());
    const attachments = await startTestAttachmentServer({
      ticketsAddress: tickets.address,
      s3,
      label: `${label}_attachments`,
    });
    stops.push(() => attachments.stop());
    return {
      projectId: project.id,
      s3,
      lookupAddress: lookup.address,
      ticketsAddress: tickets.address,
      commentsAddress: comments.address,
      customersAddress: customers.address,
      attachmentsAddress: attachments.address,
      ticketsDatabaseUrl: tickets.databaseUrl,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
