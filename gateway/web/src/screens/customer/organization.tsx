/**
 * An organization's page: name, email domains and the team's notes, edited inline by those who may
 * write (PUT /organizations/{id}); its customers (GET /customers?organization_id=); deleting it (for
 * those the server allows, after a dialog: its customers stay, without an organization).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, call, showError } from '../../api/client';
import type { operations } from '../../generated/api';
import { navigate } from '../../router';
import { can } from '../../session';
import { Button } from '../../ui/button';
import { EmptyState, Loading } from '../../ui/empty-state';
import { Field, TextAreaField } from '../../ui/field';
import { toast } from '../../ui/toast';
import { ConfirmDialog } from '../admin/confirm-dialog';
import { AdminTable, Panel } from '../admin/controls';
import { useLoaded } from '../admin/use-loaded';
import { InlineField } from '../ticket/inline-field';
import { formatDateTime } from '../ticket/model';
import type { ScreenProps } from '../screen';
import { customerPath, parseDomains, primaryEmail, rememberCustomer, type Organization } from './model';
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
  const [organization, setOrganization] = useState<Organization | null>(null);
  const [notFound, setNotFound] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [busy, setBusy] = useState(false);
  const canEdit = can('organizations.write');

  useEffect(() => {
    let current = true;
    setOrganization(null);
    setNotFound(false);
    if (!Number.isInteger(id) || id < 1) {
      setNotFound(true);
      return;
    }
    call(api.GET('/organizations/{id}', { params: { path: { id } } }))
      .then((answer) => {
        if (current) setOrganization(answer.organization);
      })
      .catch((error: unknown) => {
        if (!current) return;
        if (error instanceof ApiError && error.status === 404) setNotFound(true);
        else showError(error);
      });
    return () => {
      current = false;
    };
  }, [id]);

  if (notFound) {
    return (
      <section class="screen">
        <h1>Organization not found</h1>
        <EmptyState title={`There is no organization ${params.id}.`}>
          <a href="/organizations">Back to the organizations</a>
        </EmptyState>
      </section>
    );
  }
  if (!organization) return <Loading what="the organization" />;

  async function update(changes: OrganizationUpdate) {
    const answer = await call(api.PUT('/organizations/{id}', { params: { path: { id } }, body: changes }));
    setOrganization(answer.organization);
  }

  async function remove() {
    setBusy(true);
    try {
      await call(api.DELETE('/organizations/{id}', { params: { path: { id } } }));
      toast('Organization deleted: its customers stay, without an organization.');
      setDeleting(false);
      navigate('/organizations');
    } catch (error) {
      showError(error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <article class="screen admin-screen organization-screen" data-organization-id={organization.id}>
      <p class="ticket-breadcrumb">
        <a href="/organizations">Organizations</a> / {organization.name}
      </p>
      <InlineField<string>
        variant="heading"
        label="Name"
        canEdit={canEdit}
        shown={organization.name}
        initial={() => organization.name}
        validate={(draft) => (draft.trim() ? [] : ['Name is required'])}
        save={(name) => update({ name: name.trim() })}
        editor={(draft, setDraft, errors) => (
          <Field label="Name" name="name" value={draft} onValue={setDraft} errors={errors} />
        )}
      />
      <Panel title="Details">
        <dl class="ticket-fields">
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
          <InlineField<string>
            label="Notes"
            canEdit={canEdit}
            shown={
              organization.notes ? (
                <span class="ticket-description-text">{organization.notes}</span>
              ) : (
                <span class="muted">No notes</span>
              )
            }
            initial={() => organization.notes}
            save={(notes) => update({ notes })}
            editor={(draft, setDraft, errors) => (
              <TextAreaField
                label="Notes"
                hint="Only the team sees them."
                value={draft}
                onValue={setDraft}
                errors={errors}
                rows={4}
              />
            )}
          />
          <div class="ticket-field">
            <dt>Created</dt>
            <dd>{formatDateTime(organization.created_at)}</dd>
          </div>
        </dl>
      </Panel>
      <Panel title={`Customers (${organization.customer_count})`}>
        <OrganizationCustomers organization={organization} />
      </Panel>
      {can('organizations.delete') && (
        <Panel title="Delete">
          <div>
            <Button kind="danger" onClick={() => setDeleting(true)}>
              Delete organization
            </Button>
          </div>
        </Panel>
      )}
      <ConfirmDialog
        open={deleting}
        title={`Delete ${organization.name}?`}
        confirmLabel="Delete organization"
        busy={busy}
        onConfirm={() => void remove()}
        onClose={() => setDeleting(false)}
      >
        <p>Its customers stay, without an organization. This cannot be undone.</p>
      </ConfirmDialog>
    </article>
  );
}
