/**
 * An organization's page: name, email domains and the team's notes, edited inline by those who may
 * write (PUT /organizations/{id}); its customers (GET /customers?organization_id=); deleting it (for
 * those the server allows, after a dialog: its customers stay, without an organization).
 */
import { api, call } from '../../api/client';
import type { operations } from '../../generated/api';
import { can } from '../../session';
import { Loading } from '../../ui/empty-state';
import { Field } from '../../ui/field';
import { AdminTable, Panel } from '../admin/controls';
import { useLoaded } from '../admin/use-loaded';
import { InlineField } from '../ticket/inline-field';
import type { ScreenProps } from '../screen';
import { customerPath, parseDomains, primaryEmail, rememberCustomer, type Organization } from './model';
import { ORGANIZATION_RECORD, RecordNotFound, RecordPage, useRecord } from './record-page';
import '../ticket/ticket.css';
import './customer.css';

type OrganizationUpdate = NonNullable<
  operations['updateOrganization']['requestBody']
>['content']['application/json'];

function OrganizationCustomers({ organization }: { organization: Organization }) {
  const customers = useLoaded(async () => {
    const answer = await call(
      api.GET('/customers', { params: { query: { organization_id: organization.id, per_page: 100 } } }),
    );
    for (const customer of answer.customers) rememberCustomer(customer);
    return answer.customers;
  }, [organization.id, organization.updated_at]);
  return (
    <AdminTable
      label={`Customers of ${organization.name}`}
      what="its customers"
      empty="No customers in this organization yet."
      rows={customers.data}
      columns={['Name', 'Primary address']}
    >
      {(customer) => (
        <tr key={customer.id}>
          <th scope="row">
            <a href={customerPath(customer.id)}>{customer.name}</a>
          </th>
          <td class="admin-break">{primaryEmail(customer) ?? '—'}</td>
        </tr>
      )}
    </AdminTable>
  );
}

export default function OrganizationScreen({ params }: ScreenProps) {
  const id = Number(params.id);
  const {
    record: organization,
    setRecord: setOrganization,
    notFound,
  } = useRecord(
    id,
    async (wanted) =>
      (await call(api.GET('/organizations/{id}', { params: { path: { id: wanted } } }))).organization,
  );
  const canEdit = can('organizations.write');

  if (notFound) return <RecordNotFound kind={ORGANIZATION_RECORD} id={params.id} />;
  if (!organization) return <Loading what="the organization" />;

  async function update(changes: OrganizationUpdate) {
    const answer = await call(api.PUT('/organizations/{id}', { params: { path: { id } }, body: changes }));
    setOrganization(answer.organization);
  }

  return (
    <RecordPage
      kind={ORGANIZATION_RECORD}
      record={organization}
      canEdit={canEdit}
      update={update}
      createdLabel="Created"
      details={
        <InlineField<string>
          label="Email domains"
          canEdit={canEdit}
          shown={
            organization.domains.length ? organization.domains.join(', ') : <span class="muted">None</span>
          }
          initial={() => organization.domains.join(', ')}
          save={(text) => update({ domains: parseDomains(text) })}
          editor={(draft, setDraft, errors) => (
            <Field
              label="Email domains"
              name="domains"
              hint="Separated by commas: new customers with these addresses join it."
              value={draft}
              onValue={setDraft}
              errors={errors}
            />
          )}
        />
      }
      deletion={
        can('organizations.delete')
          ? {
              confirmLabel: 'Delete organization',
              warning: 'Its customers stay, without an organization. This cannot be undone.',
              done: 'Organization deleted: its customers stay, without an organization.',
              remove: () => call(api.DELETE('/organizations/{id}', { params: { path: { id } } })),
            }
          : undefined
      }
    >
      <Panel title={`Customers (${organization.customer_count})`}>
        <OrganizationCustomers organization={organization} />
      </Panel>
    </RecordPage>
  );
}
