import { expect } from 'chai';
import * as protoLoader from '@grpc/proto-loader';
import {
  LOADER_OPTIONS,
  SERVICE_NAMES,
  SERVICE_PROTO_FILES,
  serviceConstructors,
  serviceDefinition,
} from '../src/index.js';

/** Round-trips `message` through the wire format of the message `typeName` exactly as a grpc-js server or client would. */
function decodeAs(typeName: string, message: Record<string, unknown>) {
  const definition = protoLoader.loadSync([...SERVICE_PROTO_FILES], LOADER_OPTIONS);
  const type = definition[typeName] as protoLoader.MessageTypeDefinition<object, Record<string, unknown>>;
  return type.deserialize(type.serialize(message));
}

describe('protos: loader options and generated types', () => {
  it('loads a client constructor with a service definition for every service of the fleet', () => {
    const ctors = serviceConstructors();
    expect(Object.keys(ctors))
      .to.have.members([...SERVICE_NAMES])
      .and.have.length(SERVICE_NAMES.length);
    expect(serviceDefinition('activity').PollActivities.path).to.equal(
      '/tix.activity.v1.ActivityService/PollActivities',
    );
    expect(serviceDefinition('ai').SuggestReply.path).to.equal('/tix.ai.v1.AiService/SuggestReply');
    expect(serviceDefinition('tickets').GetTicket.path).to.equal('/tix.ticket.v1.TicketService/GetTicket');
    expect(serviceDefinition('attachments').UploadAttachment.requestStream).to.equal(true);
    expect(serviceDefinition('attachments').DownloadAttachment.responseStream).to.equal(true);
  });

  // Partial updates depend on "not sent" being distinguishable from "empty" under defaults: true.
  it('leaves an unset proto3 optional field absent, and keeps a set one even when it is the default', () => {
    const unset = decodeAs('tix.ticket.v1.UpdateTicketRequest', { project_id: 1, id: 2 });
    expect(unset).to.not.have.property('title');
    expect(unset).to.not.have.property('version');
    expect(unset.description).to.equal(null);
    const empty = decodeAs('tix.ticket.v1.UpdateTicketRequest', {
      project_id: 1,
      id: 2,
      title: '',
      version: 0,
    });
    expect(empty.title).to.equal('');
    expect(empty.version).to.equal(0);
  });

  it('distinguishes an absent wrapper, a cleared value and a set value', () => {
    const absent = decodeAs('tix.ticket.v1.UpdateTicketRequest', { id: 1 });
    const cleared = decodeAs('tix.ticket.v1.UpdateTicketRequest', { id: 1, assigned_to: {} });
    const set = decodeAs('tix.ticket.v1.UpdateTicketRequest', { id: 1, assigned_to: { value: 7 } });
    expect(absent.assigned_to).to.equal(null);
    expect(cleared.assigned_to).to.deep.equal({});
    expect(set.assigned_to).to.deep.include({ value: 7 });
  });

  it('fills defaults for plain scalars and repeated fields', () => {
    const decoded = decodeAs('tix.lookup.v1.Project', { id: 3 });
    expect(decoded).to.include({ id: 3, name: '', slug: '' });
    expect(decoded.statuses).to.deep.equal([]);
    const counts = decodeAs('tix.ticket.v1.BulkUpdateResult', { success_count: 3 });
    expect(counts).to.include({ success_count: 3, failed_count: 0 });
    expect(counts.failed_ids).to.deep.equal([]);
  });

  it('reports which member of a oneof is set', () => {
    const decoded = decodeAs('tix.lookup.v1.ResolveProjectRequest', { slug: 'acme' });
    expect(decoded).to.include({ slug: 'acme', selector: 'slug' });
  });
});
