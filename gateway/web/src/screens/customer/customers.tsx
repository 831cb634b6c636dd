/**
 * Customers: search by name or address (`?q=`, GET /customers?q=), every customer a page at a time
 * otherwise (`?page=`), each linked to its page; those who may write add one (POST /customers: a
 * name and addresses, the first primary; the organization follows the primary address's domain when
 * none is set, spec). Customers are shared by every project.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client';
import { navigate, setQuery } from '../../router';
import { can } from '../../session';
import { Field, TextAreaField } from '../../ui/field';
import { AdminForm, AdminTable, Panel, useForm } from '../admin/controls';
import { formatTime, useLoaded } from '../admin/use-loaded';
import { Pager } from '../assistant/pager';
import type { ScreenProps } from '../screen';
import {
  customerPath,
  listErrors,
  organizationPath,
  parseEmails,
  primaryEmail,
  rememberCustomer,
} from './model';
import './customer.css';

const PER_PAGE = 50;

function positivePage(value: string | null): number {
  const page = Number(value);
  return Number.isInteger(page) && page > 0 ? page : 1;
}

function NewCustomerForm() {
  const [name, setName] = useState('');
  const [emails, setEmails] = useState('');
  const [notes, setNotes] = useState('');
  const form = useForm();

  async function submit() {
    const answer = await call(
      api.POST('/customers', {
        body: { name: name.trim(), emails: parseEmails(emails), ...(notes.trim() ? { notes } : {}) },
      }),
    );
    rememberCustomer(answer.customer);
    navigate(customerPath(answer.customer.id));
  }

  return (
    <AdminForm
      form={form}
      placed={['name', 'emails', 'notes']}
      label="New customer"
      onSubmit={submit}
      submit="Add customer"
    >
      <Field label="Name" {...form.field('name', name, setName)} />
      <TextAreaField
        label="Email addresses"
        hint="One per line; the first is the primary address."
        {...form.field('emails', emails, setEmails)}
        errors={listErrors(form.fieldErrors, 'emails')}
        rows={2}
      />
      <TextAreaField
        label="Notes"
        hint="Only the team sees them."
        {...form.field('notes', notes, setNotes)}
      />
    </AdminForm>
  );
}

export default function Customers({ query }: ScreenProps) {
  const q = query.get('q') ?? '';
  const page = positivePage(query.get('page'));
  const [search, setSearch] = useState(q);
  useEffect(() => setSearch(q), [q]);
  const customers = useLoaded(
    () =>
      call(
        api.GET('/customers', {
          params: { query: q ? { q, page, per_page: PER_PAGE } : { page, per_page: PER_PAGE } },
        }),
      ),
    [q, page],
  );
  const organizations = useLoaded(
    async () =>
      (await call(api.GET('/organizations', { params: { query: { per_page: 100 } } }))).organizations,
    [],
  );
  const organizationName = (id: number | null) =>
    id === null ? null : (organizations.data?.find((each) => each.id === id)?.name ?? `Organization ${id}`);

  return (
    <section class="screen admin-screen customers-screen">
      <h1>Customers</h1>
      <form
        class="customer-actions"
        role="search"
        aria-label="Customers"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery({ q: search.trim() || null, page: null });
        }}
      >
        <Field label="Search customers" name="q" type="search" value={search} onValue={setSearch} />
        <button class="button button-secondary" type="submit">
          Search
        </button>
      </form>
      <Panel title={q ? `Customers matching “${q}”` : 'All customers'}>
        <AdminTable
          label="Customers"
          what="customers"
          empty={q ? 'No customer matches this search.' : 'No customers yet.'}
          rows={customers.data?.customers ?? null}
          columns={['Name', 'Primary address', 'Organization', 'Updated']}
        >
          {(customer) => {
            const organization = organizationName(customer.organization_id);
            return (
              <tr key={customer.id}>
                <th scope="row">
                  <a href={customerPath(customer.id)}>{customer.name}</a>
                </th>
                <td class="admin-break">{primaryEmail(customer) ?? '—'}</td>
                <td>
                  {organization && customer.organization_id !== null ? (
                    <a href={organizationPath(customer.organization_id)}>{organization}</a>
                  ) : (
                    '—'
                  )}
                </td>
                <td>{formatTime(customer.updated_at)}</td>
              </tr>
            );
          }}
        </AdminTable>
        {customers.data?.pagination && (
          <Pager
            pagination={customers.data.pagination}
            label="Customer pages"
            onPage={(next) => setQuery({ page: String(next) })}
          />
        )}
      </Panel>
      {can('customers.write') && (
        <Panel title="New customer">
          <NewCustomerForm />
        </Panel>
      )}
    </section>
  );
}
