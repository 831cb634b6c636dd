/**
 * What a customer's page and an organization's page share: loading the record by id (a 404 shows
 * "not found" with a link back to the list), and the page itself: the breadcrumb, the name as an
 * inline-edited heading, the Details panel ending in the team's notes and the creation date, the
 * page's own panels, and deleting (a panel, a dialog, then back to the list).
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, showError } from '../../api/client';
import { navigate } from '../../router';
import { Button } from '../../ui/button';
import { EmptyState } from '../../ui/empty-state';
import { Field, TextAreaField } from '../../ui/field';
import { toast } from '../../ui/toast';
import { ConfirmDialog } from '../admin/confirm-dialog';
import { Panel } from '../admin/controls';
import { InlineField } from '../ticket/inline-field';
import { formatDateTime } from '../ticket/model';

/** Which kind of record a page shows, and the list it belongs to. */
export interface RecordKind {
  /** Lower case, singular: "customer". */
  noun: 'customer' | 'organization';
  listPath: string;
  /** The list's title: "Customers". */
  listName: string;
}

export const CUSTOMER_RECORD: RecordKind = {
  noun: 'customer',
  listPath: '/customers',
  listName: 'Customers',
};
export const ORGANIZATION_RECORD: RecordKind = {
  noun: 'organization',
  listPath: '/organizations',
  listName: 'Organizations',
};

/**
 * The record `id` as `load` answers it: null while it loads (and while `load` answers undefined, for
 * a record it went elsewhere for), `notFound` for an id that is none or a 404; other failures are
 * shown as a toast.
 */
export function useRecord<T>(id: number, load: (id: number) => Promise<T | undefined>) {
  const [record, setRecord] = useState<T | null>(null);
  const [notFound, setNotFound] = useState(false);
  useEffect(() => {
    let current = true;
    setRecord(null);
    setNotFound(false);
    if (!Number.isInteger(id) || id < 1) {
      setNotFound(true);
      return;
    }
    load(id)
      .then((found) => {
        if (current && found !== undefined) setRecord(found);
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
  return { record, setRecord, notFound };
}

export function RecordNotFound({ kind, id }: { kind: RecordKind; id: string | undefined }) {
  return (
    <section class="screen">
      <h1>{`${kind.noun[0]!.toUpperCase()}${kind.noun.slice(1)} not found`}</h1>
      <EmptyState title={`There is no ${kind.noun} ${id}.`}>
        <a href={kind.listPath}>Back to the {kind.listName.toLowerCase()}</a>
      </EmptyState>
    </section>
  );
}

export interface RecordDeletion {
  /** Said in the Delete panel above its button. */
  explanation?: ComponentChildren;
  confirmLabel: string;
  /** The dialog's text: what deleting does. */
  warning: ComponentChildren;
  /** The toast once it is deleted. */
  done: string;
  remove: () => Promise<unknown>;
}

export interface RecordPageProps {
  kind: RecordKind;
  record: { id: number; name: string; notes: string; created_at: string };
  canEdit: boolean;
  /** Saves changed fields (`name`, `notes`): what it throws is shown by the field. */
  update: (changes: { name?: string; notes?: string }) => Promise<void>;
  /** The label of the creation date: "Customer since". */
  createdLabel: string;
  /** The Details panel's own fields, before the notes. */
  details: ComponentChildren;
  /** The page's own panels, after Details. */
  children: ComponentChildren;
  /** Deleting, for those the server allows (absent: no Delete panel). */
  deletion?: RecordDeletion | undefined;
}

export function RecordPage({
  kind,
  record,
  canEdit,
  update,
  createdLabel,
  details,
  children,
  deletion,
}: RecordPageProps) {
  const [deleting, setDeleting] = useState(false);
  const [busy, setBusy] = useState(false);

  async function remove(removal: RecordDeletion) {
    setBusy(true);
    try {
      await removal.remove();
      toast(removal.done);
      setDeleting(false);
      navigate(kind.listPath);
    } catch (error) {
      showError(error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <article class={`screen admin-screen ${kind.noun}-screen`} {...{ [`data-${kind.noun}-id`]: record.id }}>
      <p class="ticket-breadcrumb">
        <a href={kind.listPath}>{kind.listName}</a> / {record.name}
      </p>
      <InlineField<string>
        variant="heading"
        label="Name"
        canEdit={canEdit}
        shown={record.name}
        initial={() => record.name}
        validate={(draft) => (draft.trim() ? [] : ['Name is required'])}
        save={(name) => update({ name: name.trim() })}
        editor={(draft, setDraft, errors) => (
          <Field label="Name" name="name" value={draft} onValue={setDraft} errors={errors} />
        )}
      />
      <Panel title="Details">
        <dl class="ticket-fields">
          {details}
          <InlineField<string>
            label="Notes"
            canEdit={canEdit}
            shown={
              record.notes ? (
                <span class="ticket-description-text">{record.notes}</span>
              ) : (
                <span class="muted">No notes</span>
              )
            }
            initial={() => record.notes}
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
            <dt>{createdLabel}</dt>
            <dd>{formatDateTime(record.created_at)}</dd>
          </div>
        </dl>
      </Panel>
      {children}
      {deletion && (
        <>
          <Panel title="Delete">
            {deletion.explanation && <p>{deletion.explanation}</p>}
            <div>
              <Button kind="danger" onClick={() => setDeleting(true)}>
                {`Delete ${kind.noun}`}
              </Button>
            </div>
          </Panel>
          <ConfirmDialog
            open={deleting}
            title={`Delete ${record.name}?`}
            confirmLabel={deletion.confirmLabel}
            busy={busy}
            onConfirm={() => void remove(deletion)}
            onClose={() => setDeleting(false)}
          >
            <p>{deletion.warning}</p>
          </ConfirmDialog>
        </>
      )}
    </article>
  );
}
