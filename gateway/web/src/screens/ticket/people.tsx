/**
 * The ticket's people outside the team: the requester (name, primary address, a link to the
 * customer page) and the customers copied on it (spec: tickets carry `requester_id` and `cc`).
 * Those who may update the ticket set the requester by searching a customer or typing a new address
 * (`requester_id` / `requester: { email }`), remove it (`requester_id: null`), and add or remove a
 * CC (`cc` replaced, a new address through `cc_emails`). Each change goes through the ticket view's
 * `update`, so a stale version opens the conflict dialog as every other field does.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, fieldErrorsOf, showError } from '../../api/client';
import { Button } from '../../ui/button';
import { CustomerPicker, type PickedCustomer } from '../customer/customer-picker';
import { customerPath, listErrors, loadCustomer, primaryEmail, type Customer } from '../customer/model';
import type { Ticket, TicketUpdate } from './model';

/** A customer the server answers 404 for: deleted (a ticket keeps its id). */
export const DELETED = 'deleted';
type Found = Customer | typeof DELETED;

/** The customers of `ids`, fetched (null until they arrive; a deleted one is DELETED, another failure left out). */
function useCustomers(ids: readonly number[]): Map<number, Found> | null {
  const [found, setFound] = useState<Map<number, Found> | null>(null);
  const key = ids.join(',');
  useEffect(() => {
    let current = true;
    void Promise.allSettled(ids.map((id) => loadCustomer(id))).then((results) => {
      if (!current) return;
      const map = new Map<number, Found>();
      results.forEach((result, index) => {
        if (result.status === 'fulfilled') map.set(ids[index]!, result.value);
        else if (result.reason instanceof ApiError && result.reason.status === 404)
          map.set(ids[index]!, DELETED);
      });
      setFound(map);
    });
    return () => {
      current = false;
    };
  }, [key]);
  return found;
}

function CustomerLine({ id, customer: found }: { id: number; customer: Found | undefined }) {
  if (found === DELETED)
    return (
      <span class="muted" data-customer-id={id}>
        Deleted customer
      </span>
    );
  const customer = found;
  const email = customer ? primaryEmail(customer) : null;
  return (
    <>
      <a href={customerPath(id)}>{customer?.name ?? `Customer ${id}`}</a>
      {email && <span class="muted">{email}</span>}
    </>
  );
}

export function People({
  ticket,
  canEdit,
  update,
}: {
  ticket: Ticket;
  canEdit: boolean;
  update: (changes: TicketUpdate) => Promise<void>;
}) {
  const ids = [...(ticket.requester_id === null ? [] : [ticket.requester_id]), ...ticket.cc];
  const customers = useCustomers(ids);
  const [changingRequester, setChangingRequester] = useState(false);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, string[]>>({});

  async function save(changes: TicketUpdate, after?: () => void) {
    setBusy(true);
    setErrors({});
    try {
      await update(changes);
      after?.();
    } catch (error) {
      const fields = fieldErrorsOf(error);
      if (fields) setErrors(fields);
      else showError(error);
    } finally {
      setBusy(false);
    }
  }

  function setRequester(picked: PickedCustomer) {
    void save(
      'customer' in picked ? { requester_id: picked.customer.id } : { requester: { email: picked.email } },
      () => setChangingRequester(false),
    );
  }

  function addCc(picked: PickedCustomer) {
    void save(
      'customer' in picked
        ? { cc: [...ticket.cc, picked.customer.id] }
        : { cc: ticket.cc, cc_emails: [picked.email] },
    );
  }

  const requesterErrors = listErrors(errors, 'requester_id', 'requester');
  const ccErrors = listErrors(errors, 'cc', 'cc_emails');
  return (
    <section class="ticket-panel ticket-people" aria-labelledby="ticket-people-heading">
      <h2 id="ticket-people-heading">People</h2>
      <dl class="ticket-fields">
        <div class="ticket-field">
          <dt>Requester</dt>
          <dd data-requester-id={ticket.requester_id ?? ''}>
            {ticket.requester_id === null ? (
              <span class="muted">No requester</span>
            ) : (
              <ul class="customer-people">
                <li>
                  <CustomerLine id={ticket.requester_id} customer={customers?.get(ticket.requester_id)} />
                </li>
              </ul>
            )}
            {canEdit && !changingRequester && (
              <div class="customer-actions">
                <Button kind="quiet" onClick={() => setChangingRequester(true)}>
                  {ticket.requester_id === null ? 'Set requester' : 'Change requester'}
                </Button>
                {ticket.requester_id !== null && (
                  <Button kind="quiet" busy={busy} onClick={() => void save({ requester_id: null })}>
                    Remove requester
                  </Button>
                )}
              </div>
            )}
            {canEdit && changingRequester && (
              <div>
                <CustomerPicker
                  label="Find the requester"
                  hint="A name or an address; a new address becomes a new customer."
                  allowNew
                  exclude={ticket.requester_id === null ? [] : [ticket.requester_id]}
                  errors={requesterErrors.length ? requesterErrors : undefined}
                  disabled={busy}
                  onPick={setRequester}
                />
                <Button kind="quiet" onClick={() => setChangingRequester(false)}>
                  Cancel
                </Button>
              </div>
            )}
          </dd>
        </div>
        <div class="ticket-field">
          <dt>CC</dt>
          <dd>
            {ticket.cc.length === 0 ? (
              <span class="muted">Nobody copied</span>
            ) : (
              <ul class="customer-people" aria-label="Copied customers">
                {ticket.cc.map((id) => {
                  const customer = customers?.get(id);
                  const name =
                    customer === DELETED ? 'the deleted customer' : (customer?.name ?? `customer ${id}`);
                  return (
                    <li key={id}>
                      <CustomerLine id={id} customer={customer} />
                      {canEdit && (
                        <Button
                          kind="quiet"
                          busy={busy}
                          aria-label={`Remove ${name} from CC`}
                          onClick={() => void save({ cc: ticket.cc.filter((each) => each !== id) })}
                        >
                          Remove
                        </Button>
                      )}
                    </li>
                  );
                })}
              </ul>
            )}
            {canEdit && (
              <CustomerPicker
                label="Add to CC"
                hint="A name or an address."
                allowNew
                exclude={ids}
                errors={ccErrors.length ? ccErrors : undefined}
                disabled={busy}
                onPick={addCc}
              />
            )}
          </dd>
        </div>
      </dl>
    </section>
  );
}
