/** One customer by id for display (null while it loads, when there is none, or when it failed). */
import { useEffect, useState } from 'preact/hooks';
import { loadCustomer, type Customer } from './model';

export function useCustomer(id: number | null | undefined): Customer | null {
  const [customer, setCustomer] = useState<Customer | null>(null);
  useEffect(() => {
    setCustomer(null);
    if (id === null || id === undefined) return;
    let current = true;
    loadCustomer(id)
      .then((found) => {
        if (current) setCustomer(found);
      })
      .catch(() => {
        // Shown as "Customer" without a name: a comment stays readable when the lookup fails.
      });
    return () => {
      current = false;
    };
  }, [id]);
  return customer;
}
