/**
 * Organizations: search by name or domain (`?q=`, GET /organizations?q=), each with its domains and
 * how many customers it holds, linked to its page; those who may write add one (POST
 * /organizations: a name and the email domains whose new customers join it).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client';
import { navigate, setQuery } from '../../router';
import { can } from '../../session';
import { Field, TextAreaField } from '../../ui/field';
import { AdminForm, AdminTable, Panel, useForm } from '../admin/controls';
import { useLoaded } from '../admin/use-loaded';
import { Pager } from '../assistant/pager';
import type { ScreenProps } from '../screen';
import { listErrors, organizationPath, parseDomains } from './model';
import './customer.css';

const PER_PAGE = 50;

function NewOrganizationForm() {
  const [name, setName] = useState('');
  const [domains, setDomains] = useState('');
  const [notes, setNotes] = useState('');
  const form = useForm();

  async function submit() {
    const answer = await call(
      api.POST('/organizations', {
        body: { name: name.trim(), domains: parseDomains(domains), ...(notes.trim() ? { notes } : {}) },
      }),
    );
    navigate(organizationPath(answer.organization.id));
  }

  return (
    <AdminForm
      form={form}
      placed={['name', 'domains', 'notes']}
      label="New organization"
      onSubmit={submit}
      submit="Add organization"
    >
      <Field label="Name" {...form.field('name', name, setName)} />
      <Field
        label="Email domains"
        hint="Separated by commas (example.com): new customers with these addresses join it."
        {...form.field('domains', domains, setDomains)}
        errors={listErrors(form.fieldErrors, 'domains')}
      />
      <TextAreaField
        label="Notes"
        hint="Only the team sees them."
        {...form.field('notes', notes, setNotes)}
      />
    </AdminForm>
  );
}

export default function Organizations({ query }: ScreenProps) {
  const q = query.get('q') ?? '';
  const pageNumber = Number(query.get('page'));
  const page = Number.isInteger(pageNumber) && pageNumber > 0 ? pageNumber : 1;
  const [search, setSearch] = useState(q);
  useEffect(() => setSearch(q), [q]);
  const organizations = useLoaded(
    () =>
      call(
        api.GET('/organizations', {
          params: { query: q ? { q, page, per_page: PER_PAGE } : { page, per_page: PER_PAGE } },
        }),
      ),
    [q, page],
  );

  return (
    <section class="screen admin-screen organizations-screen">
      <h1>Organizations</h1>
      <form
        class="customer-actions"
        role="search"
        aria-label="Organizations"
        onSubmit={(event) => {
          event.preventDefault();
          setQuery({ q: search.trim() || null, page: null });
        }}
      >
        <Field label="Search organizations" name="q" type="search" value={search} onValue={setSearch} />
        <button class="button button-secondary" type="submit">
          Search
        </button>
      </form>
      <Panel title={q ? `Organizations matching “${q}”` : 'All organizations'}>
        <AdminTable
          label="Organizations"
          what="organizations"
          empty={q ? 'No organization matches this search.' : 'No organizations yet.'}
          rows={organizations.data?.organizations ?? null}
          columns={['Name', 'Domains', 'Customers']}
        >
          {(organization) => (
            <tr key={organization.id}>
              <th scope="row">
                <a href={organizationPath(organization.id)}>{organization.name}</a>
              </th>
              <td class="admin-break">{organization.domains.join(', ') || '—'}</td>
              <td>{organization.customer_count}</td>
            </tr>
          )}
        </AdminTable>
        {organizations.data?.pagination && (
          <Pager
            pagination={organizations.data.pagination}
            label="Organization pages"
            onPage={(next) => setQuery({ page: String(next) })}
          />
        )}
      </Panel>
      {can('organizations.write') && (
        <Panel title="New organization">
          <NewOrganizationForm />
        </Panel>
      )}
    </section>
  );
}
