/**
 * A customer's page: name, addresses (the first primary), organization and the team's notes, each
 * edited inline by those who may write (PUT /customers/{id}); the tickets they requested or are
 * copied on in the current project (GET /customers/{id}/tickets); merging into another customer
 * (POST /customers/{id}/merge, for those the server allows: the page then shows the one that
 * remains) and deleting (DELETE /customers/{id}, for those allowed, after a dialog saying that it
 * anonymises: the tickets stay). A merged customer's id opens the customer it was merged into.
 */
import { useState } from 'preact/hooks';
import { api, call, showError } from '../../api/client';
import type { operations } from '../../generated/api';
import { currentProject, type Project } from '../../projects';
import { navigate } from '../../router';
import { can } from '../../session';
import { EmptyState, Loading } from '../../ui/empty-state';
import { SelectField, TextAreaField } from '../../ui/field';
import { toast } from '../../ui/toast';
import { ConfirmDialog } from '../admin/confirm-dialog';
import { AdminTable, Panel } from '../admin/controls';
import { useLoaded } from '../admin/use-loaded';
import { InlineField } from '../ticket/inline-field';
import { formatDateTime, statusLabel, ticketPath } from '../ticket/model';
import type { ScreenProps } from '../screen';
import { CustomerPicker } from './customer-picker';
import {
  customerLabel,
  customerPath,
  forgetCustomer,
  organizationPath,
  parseEmails,
  rememberCustomer,
  type Customer,
} from './model';
import { CUSTOMER_RECORD, RecordNotFound, RecordPage, useRecord } from './record-page';
import '../ticket/ticket.css';
import './customer.css';

type CustomerUpdate = NonNullable<operations['updateCustomer']['requestBody']>['content']['application/json'];

function CustomerTickets({ customer, project }: { customer: Customer; project: Project }) {
  const tickets = useLoaded(
    async () =>
      (
        await call(
          api.GET('/customers/{id}/tickets', {
            params: { path: { id: customer.id }, query: { project_id: project.id, per_page: 100 } },
          }),
        )
      ).tickets,
    [customer.id, project.id],
  );
  return (
    <AdminTable
      label={`Tickets of ${customer.name}`}
      what="their tickets"
      empty={`No tickets in ${project.name} requested by or copied to this customer.`}
      rows={tickets.data}
      columns={['Ticket', 'Title', 'Status', 'Role', 'Updated']}
    >
      {(ticket) => (
        <tr key={ticket.id}>
          <th scope="row">
            <a href={ticketPath(ticket.id, project)}>{ticket.ticket_number}</a>
          </th>
          <td>{ticket.title}</td>
          <td>{statusLabel(project, ticket.status)}</td>
          <td>{ticket.requester_id === customer.id ? 'Requester' : 'CC'}</td>
          <td>{formatDateTime(ticket.updated_at)}</td>
        </tr>
      )}
    </AdminTable>
  );
}

export default function CustomerScreen({ params }: ScreenProps) {
  const id = Number(params.id);
  const project = currentProject.value;
  const {
    record: customer,
    setRecord: setCustomer,
    notFound,
  } = useRecord(id, async (wanted) => {
    const { customer: found } = await call(api.GET('/customers/{id}', { params: { path: { id: wanted } } }));
    rememberCustomer(found);
    // A merged customer's id answers the customer that remains: show that one under its own id.
    if (found.id === wanted) return found;
    navigate(customerPath(found.id), { replace: true });
    return undefined;
  });
  const [mergeTarget, setMergeTarget] = useState<Customer | null>(null);
  const [busy, setBusy] = useState(false);
  const canEdit = can('customers.write');
  const organizations = useLoaded(
    async () =>
      (await call(api.GET('/organizations', { params: { query: { per_page: 100 } } }))).organizations,
    [],
  );

  if (notFound) return <RecordNotFound kind={CUSTOMER_RECORD} id={params.id} />;
  if (!customer) return <Loading what="the customer" />;

  async function update(changes: CustomerUpdate) {
    const answer = await call(api.PUT('/customers/{id}', { params: { path: { id } }, body: changes }));
    rememberCustomer(answer.customer);
    setCustomer(answer.customer);
  }

  async function merge() {
    if (!mergeTarget) return;
    setBusy(true);
    try {
      const answer = await call(
        api.POST('/customers/{id}/merge', { params: { path: { id } }, body: { target_id: mergeTarget.id } }),
      );
      forgetCustomer(id);
      forgetCustomer(mergeTarget.id);
      toast(`${customer!.name} was merged into ${answer.customer.name}.`);
      setMergeTarget(null);
      navigate(customerPath(answer.customer.id));
    } catch (error) {
      showError(error);
    } finally {
      setBusy(false);
    }
  }

  const organization =
    customer.organization_id === null
      ? null
      : (organizations.data?.find((each) => each.id === customer.organization_id) ?? null);
  return (
    <RecordPage
      kind={CUSTOMER_RECORD}
      record={customer}
      canEdit={canEdit}
      update={update}
      createdLabel="Customer since"
      details={
        <>
          <InlineField<string>
            label="Email addresses"
            canEdit={canEdit}
            shown={
              customer.emails.length === 0 ? (
                <span class="muted">None</span>
              ) : (
                <ul class="customer-emails">
                  {customer.emails.map((email, index) => (
                    <li key={email}>
                      {email}
                      {index === 0 && customer.emails.length > 1 && <span class="muted"> (primary)</span>}
                    </li>
                  ))}
                </ul>
              )
            }
            initial={() => customer.emails.join('\n')}
            validate={(draft) => (parseEmails(draft).length ? [] : ['Give at least one email address'])}
            save={(text) => update({ emails: parseEmails(text) })}
            editor={(draft, setDraft, errors) => (
              <TextAreaField
                label="Email addresses"
                hint="One per line; the first is the primary address."
                value={draft}
                onValue={setDraft}
                errors={errors}
              />
            )}
          />
          <InlineField<string>
            label="Organization"
            canEdit={canEdit}
            shown={
              customer.organization_id === null ? (
                <span class="muted">None</span>
              ) : (
                <a href={organizationPath(customer.organization_id)}>
                  {organization?.name ?? `Organization ${customer.organization_id}`}
                </a>
              )
            }
            initial={() => String(customer.organization_id ?? '')}
            save={(value) => update({ organization_id: value ? Number(value) : null })}
            editor={(draft, setDraft, errors) => (
              <SelectField
                label="Organization"
                value={draft}
                onValue={setDraft}
                errors={errors}
                options={[
                  { value: '', label: 'None' },
                  ...(organizations.data ?? []).map((each) => ({ value: String(each.id), label: each.name })),
                ]}
              />
            )}
          />
        </>
      }
      deletion={
        can('customers.delete')
          ? {
              explanation:
                'Deleting anonymises the customer: their tickets stay, their comments show “Deleted customer”.',
              confirmLabel: 'Delete and anonymise',
              warning:
                'This anonymises the customer: their name and addresses are erased and their comments are ' +
                'shown as “Deleted customer”. Their tickets stay. This cannot be undone.',
              done: 'Customer deleted: their name and addresses are gone; their tickets stay.',
              remove: async () => {
                await call(api.DELETE('/customers/{id}', { params: { path: { id } } }));
                forgetCustomer(id);
              },
            }
          : undefined
      }
    >
      <Panel title={project ? `Tickets in ${project.name}` : 'Tickets'}>
        {project ? (
          <CustomerTickets customer={customer} project={project} />
        ) : (
          <EmptyState title="No project yet: an administrator creates one." />
        )}
      </Panel>
      {can('customers.merge') && (
        <Panel title="Merge into another customer">
          <p>
            The same person under two records: everything of {customer.name} (addresses, tickets, comments)
            moves to the customer chosen here, and this record disappears into it.
          </p>
          <CustomerPicker
            label="Customer to merge into"
            exclude={[customer.id]}
            onPick={(picked) => {
              if ('customer' in picked) setMergeTarget(picked.customer);
            }}
          />
        </Panel>
      )}
      <ConfirmDialog
        open={mergeTarget !== null}
        title={`Merge ${customer.name} into ${mergeTarget?.name ?? ''}?`}
        confirmLabel="Merge customers"
        busy={busy}
        onConfirm={() => void merge()}
        onClose={() => setMergeTarget(null)}
      >
        <p class="admin-break">
          {customerLabel(customer)} disappears into {mergeTarget ? customerLabel(mergeTarget) : ''}: its
          addresses, tickets and comments move there. This cannot be undone.
        </p>
      </ConfirmDialog>
    </RecordPage>
  );
}
