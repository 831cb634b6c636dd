/**
 * A fake customer service: a real gRPC server (kit startGrpcServer, port 0) holding customers and
 * organizations in memory with the contract's main rules (protos tix/customer/v1: addresses
 * lower-cased and held by one customer, a merged customer answers its target, a deleted one is
 * NOT_FOUND), recording every request as the service decodes it. Tests swap handlers with `override`.
 */
import { serviceDefinition, type customer } from '@tix/protos';
import { AppError, startGrpcServer, type CallContext, type RunningGrpcServer } from '@tix/kit';
import { testLogger } from '@tix/kit/testing';

type Handler = (request: never, context: CallContext) => unknown;

const TIME = '2026-01-02T03:04:05.000Z';

export interface FakeCustomers {
  address: string;
  server: RunningGrpcServer;
  calls: Record<string, number>;
  lastRequest: Record<string, any>;
  lastContext: Record<string, CallContext>;
  /** Adds a customer (an id is given when absent) and answers it. */
  addCustomer(customer: Partial<customer.Customer__Output> & { emails: string[] }): customer.Customer__Output;
  addOrganization(
    organization: Partial<customer.Organization__Output> & { name: string },
  ): customer.Organization__Output;
  override(method: string, handler: Handler): void;
  /** Forgets calls, overrides and data. */
  reset(): void;
  stop(): Promise<void>;
}

export async function startFakeCustomers(): Promise<FakeCustomers> {
  const overrides: Record<string, Handler> = {};
  const calls: Record<string, number> = {};
  const lastRequest: Record<string, any> = {};
  const lastContext: Record<string, CallContext> = {};
  const customers = new Map<number, customer.Customer__Output>();
  const organizations = new Map<number, customer.Organization__Output>();
  let nextId = 100;

  const addCustomer = (fields: Partial<customer.Customer__Output> & { emails: string[] }) => {
    const made: customer.Customer__Output = {
      id: fields.id ?? nextId++,
      name: fields.name ?? fields.emails[0]?.split('@')[0] ?? 'Someone',
      emails: fields.emails.map((email) => email.toLowerCase()),
      notes: fields.notes ?? '',
      deleted: fields.deleted ?? false,
      created_at: TIME,
      updated_at: TIME,
      ...(fields.organization_id === undefined ? {} : { organization_id: fields.organization_id }),
      ...(fields.merged_into === undefined ? {} : { merged_into: fields.merged_into }),
    };
    customers.set(made.id, made);
    return made;
  };
  const addOrganization = (fields: Partial<customer.Organization__Output> & { name: string }) => {
    const made: customer.Organization__Output = {
      id: fields.id ?? nextId++,
      name: fields.name,
      domains: fields.domains ?? [],
      notes: fields.notes ?? '',
      customer_count: fields.customer_count ?? 0,
      created_at: TIME,
      updated_at: TIME,
    };
    organizations.set(made.id, made);
    return made;
  };
  /** The live customer `id` stands for (a merged one's target); NOT_FOUND otherwise. */
  const live = (id: number): customer.Customer__Output => {
    let found = customers.get(id);
    while (found?.merged_into !== undefined) found = customers.get(found.merged_into);
    if (!found || found.deleted) throw AppError.notFound('Customer not found');
    return found;
  };
  const holder = (email: string) =>
    [...customers.values()].find(
      (one) => !one.deleted && one.merged_into === undefined && one.emails.includes(email),
    );
  const claimed = (emails: readonly string[], except?: number) => {
    for (const email of emails) {
      const owner = holder(email);
      if (owner && owner.id !== except) throw AppError.conflict(`${email} belongs to another customer`);
    }
  };
  const page = <T>(items: T[], request: { page?: customer.ListCustomersRequest__Output['page'] }) => {
    const per_page = request.page?.per_page || 50;
    const number = request.page?.page || 1;
    return {
      items: items.slice((number - 1) * per_page, number * per_page),
      pagination: {
        total: items.length,
        page: number,
        per_page,
        total_pages: Math.ceil(items.length / per_page),
      },
    };
  };

  const defaultHandlers: Record<string, Handler> = {
    ListCustomers(request: customer.ListCustomersRequest__Output) {
      const matching = [...customers.values()]
        .filter((one) => !one.deleted && one.merged_into === undefined)
        .filter((one) => request.email === undefined || one.emails.includes(request.email.toLowerCase()))
        .filter(
          (one) => request.organization_id === undefined || one.organization_id === request.organization_id,
        )
        .filter(
          (one) =>
            request.q === undefined ||
            [one.name, ...one.emails].some((text) => text.toLowerCase().includes(request.q!.toLowerCase())),
        )
        .sort((a, b) => b.id - a.id);
      const { items, pagination } = page(matching, request);
      return { customers: items, pagination };
    },
    GetCustomer(request: customer.GetCustomerRequest__Output) {
      return live(request.id);
    },
    BatchGetCustomers(request: customer.BatchGetCustomersRequest__Output) {
      return { customers: request.ids.map((id) => customers.get(id)).filter((one) => one !== undefined) };
    },
    FindOrCreateCustomers(request: customer.FindOrCreateCustomersRequest__Output) {
      return {
        customers: request.addresses.map(
          ({ email, name }) =>
            holder(email.toLowerCase()) ?? addCustomer({ emails: [email], ...(name ? { name } : {}) }),
        ),
      };
    },
    CreateCustomer(request: customer.CreateCustomerRequest__Output) {
      claimed(request.emails);
      return addCustomer({
        name: request.name,
        emails: request.emails,
        notes: request.notes,
        ...(request.organization_id === undefined ? {} : { organization_id: request.organization_id }),
      });
    },
    UpdateCustomer(request: customer.UpdateCustomerRequest__Output) {
      const found = live(request.id);
      if (request.emails) claimed(request.emails.values, found.id);
      const updated: customer.Customer__Output = {
        ...found,
        ...(request.name === undefined ? {} : { name: request.name }),
        ...(request.emails ? { emails: request.emails.values } : {}),
        ...(request.notes === undefined ? {} : { notes: request.notes }),
      };
      if (request.organization_id) {
        if (request.organization_id.value === undefined) delete updated.organization_id;
        else updated.organization_id = request.organization_id.value;
      }
      customers.set(updated.id, updated);
      return updated;
    },
    MergeCustomers(request: customer.MergeCustomersRequest__Output) {
      const source = live(request.source_id);
      const target = live(request.target_id);
      if (source.id === target.id)
        throw AppError.validation({ target_id: ['Cannot merge a customer into itself'] });
      const merged = { ...target, emails: [...target.emails, ...source.emails] };
      customers.set(target.id, merged);
      customers.set(source.id, { ...source, emails: [], merged_into: target.id });
      return merged;
    },
    DeleteCustomer(request: customer.DeleteCustomerRequest__Output) {
      const found = live(request.id);
      customers.set(found.id, { ...found, name: 'Deleted customer', emails: [], notes: '', deleted: true });
      return { message: 'Customer deleted' };
    },
    ListOrganizations(request: customer.ListOrganizationsRequest__Output) {
      const matching = [...organizations.values()].filter(
        (one) => request.q === undefined || one.name.toLowerCase().includes(request.q.toLowerCase()),
      );
      const { items, pagination } = page(matching, request);
      return { organizations: items, pagination };
    },
    GetOrganization(request: customer.GetOrganizationRequest__Output) {
      const found = organizations.get(request.id);
      if (!found) throw AppError.notFound('Organization not found');
      return found;
    },
    CreateOrganization(request: customer.CreateOrganizationRequest__Output) {
      if ([...organizations.values()].some((one) => one.name === request.name))
        throw AppError.conflict('An organization of that name exists');
      return addOrganization({ name: request.name, domains: request.domains, notes: request.notes });
    },
    UpdateOrganization(request: customer.UpdateOrganizationRequest__Output) {
      const found = organizations.get(request.id);
      if (!found) throw AppError.notFound('Organization not found');
      const updated = {
        ...found,
        ...(request.name === undefined ? {} : { name: request.name }),
        ...(request.domains ? { domains: request.domains.values } : {}),
        ...(request.notes === undefined ? {} : { notes: request.notes }),
      };
      organizations.set(found.id, updated);
      return updated;
    },
    DeleteOrganization(request: customer.DeleteOrganizationRequest__Output) {
      if (!organizations.delete(request.id)) throw AppError.notFound('Organization not found');
      return { message: 'Organization deleted' };
    },
  };

  const handlers = new Proxy(
    {},
    {
      get: (_target, method: string) => async (request: never, context: CallContext) => {
        calls[method] = (calls[method] ?? 0) + 1;
        lastRequest[method] = request;
        lastContext[method] = context;
        const handler = overrides[method] ?? defaultHandlers[method];
        if (!handler) throw new AppError('not_implemented', `${method} is not faked`);
        return await handler(request, context);
      },
    },
  );
  const server = await startGrpcServer({
    host: '127.0.0.1',
    port: 0,
    services: [{ name: 'customers', definition: serviceDefinition('customers'), handlers }],
    logger: testLogger('fake-customers'),
  });
  return {
    address: `127.0.0.1:${server.port}`,
    server,
    calls,
    lastRequest,
    lastContext,
    addCustomer,
    addOrganization,
    override(method, handler) {
      overrides[method] = handler;
    },
    reset() {
      for (const record of [overrides, calls, lastRequest, lastContext]) {
        for (const key of Object.keys(record)) delete record[key];
      }
      customers.clear();
      organizations.clear();
      nextId = 100;
    },
    stop: () => server.shutdown(100),
  };
}
