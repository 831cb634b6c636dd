/**
 * Choosing a customer: a search box over GET /customers?q= (names and addresses), its matches as
 * buttons, and, when `allowNew` and what is typed is an address nobody holds yet, "Use <address>"
 * (the server then finds or creates that customer, spec: requester by email). Enter picks the one
 * match or the typed address; the count of matches is announced. It is not a <form> of its own, so
 * it can sit inside one (the new ticket form).
 */
import { useEffect, useState } from 'preact/hooks';
import { showError } from '../../api/client';
import { Button } from '../../ui/button';
import { Labelled } from '../../ui/field';
import { customerLabel, isEmailAddress, searchCustomers, type Customer, type PickedCustomer } from './model';
import './customer.css';

export type { PickedCustomer };

const SEARCH_DELAY_MS = 250;

export function CustomerPicker({
  label,
  hint,
  allowNew = false,
  exclude = [],
  errors,
  disabled = false,
  onPick,
}: {
  label: string;
  hint?: string;
  allowNew?: boolean;
  /** Customer ids not offered (the current requester, those already copied, the customer itself). */
  exclude?: readonly number[];
  errors?: string[] | undefined;
  disabled?: boolean;
  onPick: (picked: PickedCustomer) => void;
}) {
  const [text, setText] = useState('');
  const [matches, setMatches] = useState<Customer[] | null>(null);
  const q = text.trim();

  useEffect(() => {
    if (q === '') {
      setMatches(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      searchCustomers(q)
        .then((found) => {
          if (current) setMatches(found);
        })
        .catch((error: unknown) => {
          if (current) setMatches([]);
          showError(error);
        });
    }, SEARCH_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [q]);

  const offered = (matches ?? []).filter((customer) => !exclude.includes(customer.id));
  const address = q.toLowerCase();
  const newAddress =
    allowNew && isEmailAddress(q) && !(matches ?? []).some((customer) => customer.emails.includes(address))
      ? address
      : null;

  function pick(picked: PickedCustomer) {
    setText('');
    setMatches(null);
    onPick(picked);
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.key !== 'Enter') return;
    // Never submits an enclosing form: Enter picks here.
    event.preventDefault();
    const exact = offered.find((customer) => customer.emails.includes(address));
    if (exact) pick({ customer: exact });
    else if (offered.length === 1 && !newAddress) pick({ customer: offered[0]! });
    else if (newAddress) pick({ email: newAddress });
  }

  const status =
    q === '' || matches === null
      ? ''
      : offered.length === 0
        ? newAddress
          ? 'No customer has this address yet.'
          : 'No customer matches.'
        : `${offered.length} ${offered.length === 1 ? 'customer matches' : 'customers match'}.`;

  return (
    <div class="customer-picker">
      <Labelled label={label} hint={hint} errors={errors}>
        {(attributes) => (
          <input
            {...attributes}
            type="search"
            autoComplete="off"
            value={text}
            disabled={disabled}
            onInput={(event) => setText(event.currentTarget.value)}
            onKeyDown={onKeyDown}
          />
        )}
      </Labelled>
      <p class="customer-picker-status muted" role="status">
        {status}
      </p>
      {(offered.length > 0 || newAddress) && (
        <ul class="customer-picker-matches" aria-label={`${label}: choices`}>
          {offered.map((customer) => (
            <li key={customer.id}>
              <Button kind="quiet" disabled={disabled} onClick={() => pick({ customer })}>
                {customerLabel(customer)}
              </Button>
            </li>
          ))}
          {newAddress && (
            <li>
              <Button kind="quiet" disabled={disabled} onClick={() => pick({ email: newAddress })}>
                Use {newAddress}
              </Button>
            </li>
          )}
        </ul>
      )}
    </div>
  );
}
